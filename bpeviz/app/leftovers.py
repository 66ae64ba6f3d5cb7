"""What visitors who left still hold in the server, let go: their uploaded files, their expired sessions.

Streamlit keeps a closed tab's session for a reconnect (server.disconnectedSessionTTL, 120 s) in a time-limited
store that, when the time is up, drops the session without shutting it down. Shutting down is what removes the
session's uploaded files from the server's memory, so they stayed there for good: 50 MB of two visitors' uploads
130 s after they had left (a count of the server's objects after bench/load.py's upload attack; Streamlit 1.67).
The dropped session itself stayed reachable until the store's next write, with its pages' fragments and the runs
they held.

Every GIVE_BACK_SECONDS (runs.give_back_now_and_then) the server forgets both: the store is asked for its size,
which removes expired sessions, and the uploads of a session that is neither connected nor kept for a reconnect
are removed once it has been gone for two passes in a row (a session starting between the two readings of one
pass keeps its files).
"""

from __future__ import annotations

import contextlib
from typing import Any

from streamlit import runtime


def live_session_ids(manager: Any) -> set[str]:
    """The sessions the server still knows: connected, or kept for a reconnect (expired ones removed first)."""
    storage = getattr(manager, "_session_storage", None)
    lock = getattr(manager, "_storage_lock", None) or contextlib.nullcontext()  # the store is not thread-safe:
    with lock, contextlib.suppress(Exception):  # Streamlit writes it under this lock, from its event loop
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
            live = live_session_ids(server._session_mgr)
            self.gone, removed = forget_uploads(server.uploaded_file_mgr, live, self.gone)
        except Exception:  # noqa: BLE001  # another Streamlit: nothing to sweep, and no page may fail for it
            return []
        self.removed += len(removed)
        return removed
