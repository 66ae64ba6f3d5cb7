"""What visitors who left still hold in the server, let go: their uploaded files, their expired sessions.

Streamlit keeps a closed tab's session for a reconnect (server.disconnectedSessionTTL, 120 s) in a time-limited
store that, when the time is up, drops the session without shutting it down. Shutting down is what removes the
session's uploaded files from the server's memory, so they stayed there for good: 50 MB of two visitors' uploads
130 s after they had left (a count of the server's objects after bench/load.py's upload attack; Streamlit 1.67).
The dropped session itself stayed reachable until the store's next write, with its pages' fragments and the runs
they held.

Every GIVE_BACK_SECONDS (runs.give_back_now_and_then) the server forgets both: the store's expired sessions are
taken out of it and shut down, as Streamlit shuts down a session it closes (on its event loop: the uploads, media and
caches go with it), and the uploads of a session that is neither connected nor kept for a reconnect are removed once
it has been gone for two passes in a row (a session the store dropped on a write of its own, which shuts nothing
down; a session starting between the two readings of one pass keeps its files).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from streamlit import runtime


def take_expired(manager: Any) -> list[Any]:
    """The sessions whose reconnect time is up, taken out of Streamlit's store (which would drop them unshut)."""
    storage = getattr(manager, "_session_storage", None)
    cache: Any = getattr(storage, "_cache", None)
    lock = getattr(manager, "_storage_lock", None) or contextlib.nullcontext()  # the store is not thread-safe:
    with lock, contextlib.suppress(Exception):  # Streamlit writes it under this lock, from its event loop
        return [info.session for _, info in cache.expire()]
    return []  # another store: live_session_ids' length query still reaps it


def shut_down(sessions: list[Any], call_soon: Callable[[Callable[[], None]], Any] | None = None,
              wait: float = 10.0) -> None:
    """Each session's shutdown(), on the server's event loop where there is one (Streamlit calls it there); waits up
    to `wait` seconds for them, so the memory they free is handed back by the same pass."""
    done = threading.Event()

    def each() -> None:
        try:
            for session in sessions:
                with contextlib.suppress(Exception):  # one that fails to shut down leaves the others to go
                    session.shutdown()
                    empty(session)
        finally:
            done.set()

    if not sessions:
        return
    if call_soon is None:
        each()
    else:
        call_soon(each)
        done.wait(wait)


STATE = ("_session_state", "_fragment_storage", "_browser_queue")  # what an AppSession holds of its visitor


def empty(session: Any) -> None:
    """Clear what a shut-down session held (its state, its pages' fragments, its unsent messages): shutdown() leaves
    them, and Streamlit's runtime loop keeps the last session it sent to in a local variable until another visitor's
    messages go out (a 30 MB run, trained on a visitor's 5 MB of no-break spaces, was held so after they left)."""
    for name in STATE:
        with contextlib.suppress(Exception):
            getattr(session, name).clear()


def live_session_ids(manager: Any) -> set[str]:
    """The sessions the server still knows: connected, or kept for a reconnect (expired ones removed first)."""
    storage = getattr(manager, "_session_storage", None)
    lock = getattr(manager, "_storage_lock", None) or contextlib.nullcontext()
    with lock, contextlib.suppress(Exception):
        len(getattr(storage, "_cache", ()))  # Streamlit's TTLCache removes its expired entries on a length query
    return {info.session.id for info in manager.list_sessions()}


def forget_uploads(files: Any, live: set[str], gone_before: set[str]) -> tuple[set[str], list[str]]:
    """Remove the uploads of sessions gone now and at the last pass; returns (gone now, removed)."""
    gone = {session for session in list(getattr(files, "file_storage", {})) if session not in live}
    removed = sorted(gone & gone_before)
    for session in removed:
        files.remove_session_files(session)
    return gone, removed


class Leftovers:
    """One pass every GIVE_BACK_SECONDS on a server; remembers who was gone at the last pass."""

    def __init__(self) -> None:
        self.gone: set[str] = set()
        self.removed = 0  # sessions whose uploads were removed (the tests count these)

    def sweep(self) -> list[str]:
        """Forget what visitors who left still hold; a no-op where Streamlit's inner parts differ."""
        try:
            server = runtime.get_instance()
            call_soon = server._get_async_objs().eventloop.call_soon_threadsafe  # before any session is taken out
            shut_down(take_expired(server._session_mgr), call_soon)
            live = live_session_ids(server._session_mgr)
            self.gone, removed = forget_uploads(server.uploaded_file_mgr, live, self.gone)
        except Exception:  # noqa: BLE001  # another Streamlit: nothing to sweep, and no page may fail for it
            return []
        self.removed += len(removed)
        return removed
