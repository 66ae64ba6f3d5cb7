"""A file made when its download button is clicked stays on the server until its visitor's next run, whatever the
other visitors do.

The handout and the lesson file are made on click (st.download_button with a callable). Streamlit 1.67 makes the
file, hands the browser its URL, and maps the file to no session: it is marked at the next end of any visitor's
script run and deleted at the one after. A live class's forty students poll once a second, so the teacher's browser
could ask for a file already deleted, and the download failed (Chromium: "canceled"; seen in CI on a busy machine).
keep_made_downloads() maps each made file to the session that clicked, beside its button, so it lives until that
session's next full run (or its end): one file per button and session. No Streamlit import here.
"""

from __future__ import annotations

import posixpath
from typing import Any

MADE = " (made on click)"  # the made file's key: the button's own key in the session's map, with this after it


def keep_made_downloads(manager: Any) -> bool:
    """Wrap Streamlit's MediaFileManager.execute_deferred, once; False (nothing changed) where its parts differ."""
    if getattr(manager, "_bpeviz_keeps_made", False):
        return True
    parts = ("execute_deferred", "_lock", "_deferred_callables", "_files_by_session_and_coord", "_file_metadata")
    if not all(hasattr(manager, part) for part in parts):
        return False
    make = manager.execute_deferred

    def execute_deferred(file_id: str) -> str:
        with manager._lock:
            button = manager._deferred_callables.get(file_id)
        url = make(file_id)
        if button is not None:
            made = posixpath.splitext(posixpath.basename(url))[0]  # the storage's URL: <endpoint>/<file id><extension>
            with manager._lock:
                files = manager._files_by_session_and_coord
                # a session that has ended has no map left (clear_session_refs): nothing is kept for it
                if made in manager._file_metadata and button["session_id"] in files:
                    files[button["session_id"]][button["coordinates"] + MADE] = made
        return url

    manager.execute_deferred = execute_deferred
    manager._bpeviz_keeps_made = True
    return True
