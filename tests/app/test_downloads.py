"""A handout made on click stays on the server until its visitor's next run (bpeviz/app/downloads.py), with Streamlit's
own media file manager and storage."""

from __future__ import annotations

import posixpath

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from bpeviz.app import downloads

SESSION = "dontcare"  # Streamlit's session id where no script runs (this test)


def clicked(keep: bool) -> tuple[MediaFileManager, str]:
    """A teacher's run draws the handout button, the teacher clicks it; the made file's id."""
    manager = MediaFileManager(MemoryMediaFileStorage("/media"))
    if keep:
        assert downloads.keep_made_downloads(manager)
        assert downloads.keep_made_downloads(manager)  # once only: a second call wraps nothing again
    placeholder = manager.add_deferred(lambda: b"<html>a tabela</html>", "text/html", "1_2_0", "bpeviz-handout.html")
    url = manager.execute_deferred(placeholder)
    return manager, posixpath.splitext(posixpath.basename(url))[0]


def fetch(manager: MediaFileManager, made: str) -> bytes:
    return manager._storage.get_file(made).content  # what the media endpoint serves the browser


def students_poll(manager: MediaFileManager, runs: int = 2) -> None:
    for _ in range(runs):  # each end of any visitor's script run sweeps the files no session maps
        manager.remove_orphaned_files()


def test_without_keeping_two_other_runs_delete_the_file_before_the_browser_asks_for_it():
    manager, made = clicked(keep=False)
    students_poll(manager)
    with pytest.raises(MediaFileStorageError):
        fetch(manager, made)


def test_a_made_file_outlives_other_visitors_runs_and_goes_with_its_visitor_s_next_run():
    manager, made = clicked(keep=True)
    students_poll(manager, runs=40)
    assert fetch(manager, made) == b"<html>a tabela</html>"
    manager.clear_session_refs(SESSION)  # the teacher's next full run (or the session's end)
    students_poll(manager)
    with pytest.raises(MediaFileStorageError):
        fetch(manager, made)


def test_clicking_again_keeps_one_file_per_button():
    manager, first = clicked(keep=True)
    placeholder = next(iter(manager._deferred_callables))
    manager._deferred_callables[placeholder]["callable"] = lambda: b"<html>step 8</html>"  # the player moved on
    url = manager.execute_deferred(placeholder)
    second = posixpath.splitext(posixpath.basename(url))[0]
    students_poll(manager)
    assert fetch(manager, second) == b"<html>step 8</html>"
    with pytest.raises(MediaFileStorageError):
        fetch(manager, first)


def test_a_manager_without_the_expected_parts_is_left_as_it_is():
    class Other:
        def execute_deferred(self, file_id: str) -> str:
            return "/media/x.html"

    other = Other()
    assert not downloads.keep_made_downloads(other)
    assert "execute_deferred" not in vars(other)
