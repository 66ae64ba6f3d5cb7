// A teacher's key to a live class, kept in this browser: a reload (F5, a laptop that slept) gives the class back.
// The server sends {store: {code, secret}} while this browser teaches and {forget: true} once the class ends;
// on a page with neither, a key kept here is sent back once, for the server to check against its rooms.
const KEY = "bpeviz-live-teacher";
const SENT = (globalThis.__bpevizKeeperSent ??= { done: false });

export default function (component) {
  const { data, setStateValue } = component;
  let store = null;
  try {
    store = globalThis.localStorage;
  } catch {
    return undefined; // storage refused (private mode, a sandbox): a reload then starts afresh
  }
  if (data?.store) {
    store.setItem(KEY, JSON.stringify({ code: String(data.store.code), secret: String(data.store.secret) }));
    SENT.done = true;
  } else if (data?.forget) {
    store.removeItem(KEY);
  } else if (!SENT.done) {
    SENT.done = true;
    const kept = store.getItem(KEY);
    if (kept) setStateValue("found", JSON.parse(kept));
  }
  return undefined;
}
