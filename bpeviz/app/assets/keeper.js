// A live class's keys, kept in this browser: a reload (F5, a laptop that slept) gives the class back to its
// teacher, and gives a student the same seat and the same vote. The server sends {store: {code, secret}} while
// this browser teaches, {forget: true} once its class ends, {student: id} while it is a student's; on the first
// page of a visit, what is kept here is sent back, for the server to check against its rooms, again every two
// seconds until the server says {heard: true}: a value sent while a fragment ran can be dropped by Streamlit.
const TEACHER = "bpeviz-live-teacher";
const STUDENT = "bpeviz-live-student";
const SENT = (globalThis.__bpevizKeeperSent ??= { started: false, heard: false, tries: 0 });
const RESEND_MS = 2000;
const MAX_TRIES = 15;

export default function (component) {
  const { data, setStateValue } = component;
  let store = null;
  try {
    store = globalThis.localStorage;
  } catch {
    return undefined; // storage refused (private mode, a sandbox): a reload then starts afresh
  }
  if (data?.heard) SENT.heard = true;
  if (!SENT.started) {
    SENT.started = true;
    const teacher = store.getItem(TEACHER);
    const student = store.getItem(STUDENT);
    if (teacher || student) {
      const found = { teacher: teacher ? JSON.parse(teacher) : null, student };
      const send = () => {
        if (SENT.tries >= MAX_TRIES) SENT.heard = true; // no answer in 30 s: keep what this visit has from now on
        if (SENT.heard) return;
        SENT.tries += 1;
        setStateValue("found", { ...found, try: SENT.tries }); // a new value each time: the callback runs again
        setTimeout(send, RESEND_MS);
      };
      send();
      return undefined; // written after the server has answered: a fresh id must not replace a kept one
    }
    SENT.heard = true;
  }
  if (!SENT.heard) return undefined;
  if (data?.store) store.setItem(TEACHER, JSON.stringify({ code: String(data.store.code), secret: String(data.store.secret) }));
  else if (data?.forget) store.removeItem(TEACHER);
  if (data?.student) store.setItem(STUDENT, String(data.student));
  return undefined;
}
