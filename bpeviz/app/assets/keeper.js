// A live class's keys, kept in this browser: a reload (F5, a laptop that slept) gives the class back to its
// teacher, and gives a student the same seat and the same vote. The server sends {store: {code, secret}} while
// this browser teaches, {forget: true} once its class ends, {student: id} while it is a student's; on the first
// page of a visit, what is kept here is sent back once, for the server to check against its rooms.
const TEACHER = "bpeviz-live-teacher";
const STUDENT = "bpeviz-live-student";
const SENT = (globalThis.__bpevizKeeperSent ??= { done: false });

export default function (component) {
  const { data, setStateValue } = component;
  let store = null;
  try {
    store = globalThis.localStorage;
  } catch {
    return undefined; // storage refused (private mode, a sandbox): a reload then starts afresh
  }
  if (!SENT.done) {
    SENT.done = true;
    const teacher = store.getItem(TEACHER);
    const student = store.getItem(STUDENT);
    if (teacher || student) {
      setStateValue("found", { teacher: teacher ? JSON.parse(teacher) : null, student });
      return undefined; // written after the server has answered: a fresh id must not replace a kept one
    }
  }
  if (data?.store) store.setItem(TEACHER, JSON.stringify({ code: String(data.store.code), secret: String(data.store.secret) }));
  else if (data?.forget) store.removeItem(TEACHER);
  if (data?.student) store.setItem(STUDENT, String(data.student));
  return undefined;
}
