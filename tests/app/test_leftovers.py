"""Visitors who left: their uploads and expired sessions are let go (app/leftovers.py), with Streamlit's own stores."""

import gc
import threading
import time
import weakref

from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.session_manager import SessionInfo
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from bpeviz.app import leftovers


class Session:
    def __init__(self, session_id: str) -> None:
        self.id = session_id


class Sessions:
    """The two sessions kinds the server's manager lists: connected, and kept for a reconnect (Streamlit's store)."""

    def __init__(self, ttl: float) -> None:
        self.connected: list[SessionInfo] = []
        self._session_storage = MemorySessionStorage(ttl_seconds=ttl)

    def list_sessions(self) -> list[SessionInfo]:
        return self.connected + self._session_storage.list()


def upload(files: MemoryUploadedFileManager, session: str, size: int = 1000) -> None:
    files.add_file(session, UploadedFileRec(f"{session}-file", "blank.txt", "text/plain", b" " * size))


def test_a_gone_visitors_uploads_go_at_the_second_pass_and_the_others_stay():
    files, sessions = MemoryUploadedFileManager("/upload"), Sessions(ttl=60)
    sessions.connected.append(SessionInfo(client=object(), session=Session("here")))  # type: ignore[arg-type]
    sessions._session_storage.save(SessionInfo(client=None, session=Session("away")))  # type: ignore[arg-type]
    for session in ("here", "away", "left"):
        upload(files, session)
    gone: set[str] = set()
    live = leftovers.live_session_ids(sessions)
    gone, removed = leftovers.forget_uploads(files, live, gone)
    assert gone == {"left"} and removed == []  # gone once: could be a session starting between two readings
    gone, removed = leftovers.forget_uploads(files, leftovers.live_session_ids(sessions), gone)
    assert removed == ["left"] and set(files.file_storage) == {"here", "away"}  # a reconnect still finds its files


def test_an_expired_session_is_dropped_and_its_uploads_follow():
    files, sessions = MemoryUploadedFileManager("/upload"), Sessions(ttl=0.2)
    away = Session("away")
    sessions._session_storage.save(SessionInfo(client=None, session=away))  # type: ignore[arg-type]
    upload(files, "away", 5_000_000)
    kept = weakref.ref(away)
    del away
    assert leftovers.live_session_ids(sessions) == {"away"}
    time.sleep(0.3)  # past the reconnect time
    gone: set[str] = set()
    for _ in range(2):
        gone, removed = leftovers.forget_uploads(files, leftovers.live_session_ids(sessions), gone)
    gc.collect()
    assert kept() is None  # Streamlit's store had kept the expired session until its next write
    assert removed == ["away"] and not files.file_storage


def test_the_sweep_is_a_no_op_without_a_server():
    sweep = leftovers.Leftovers()
    assert sweep.sweep() == [] and sweep.removed == 0


class Shutting(Session):
    """A session that removes its uploads when shut down, as Streamlit's AppSession.shutdown() does."""

    def __init__(self, session_id: str, files: MemoryUploadedFileManager) -> None:
        super().__init__(session_id)
        self.files, self.shut = files, 0
        self._session_state = {"run": b" " * 1000}  # what the visitor's pages kept (Streamlit's SessionState)

    def shutdown(self) -> None:
        self.shut += 1
        self.files.remove_session_files(self.id)


def test_an_expired_session_is_shut_down_at_the_first_pass_and_one_kept_for_a_reconnect_is_not():
    files, sessions = MemoryUploadedFileManager("/upload"), Sessions(ttl=120)
    clock = [0.0]
    sessions._session_storage._cache._timer = lambda: clock[0]  # Streamlit's store, on a clock the test moves
    away, back = Shutting("away", files), Shutting("back", files)
    sessions._session_storage.save(SessionInfo(client=None, session=away))  # type: ignore[arg-type]
    upload(files, "away", 5_000_000)
    clock[0] = 100.0
    assert leftovers.take_expired(sessions) == []  # still within its reconnect time
    sessions._session_storage.save(SessionInfo(client=None, session=back))  # type: ignore[arg-type]
    clock[0] = 150.0  # away's 120 s are up, back's are not
    upload(files, "back")
    scheduled: list = []

    def event_loop(call) -> None:  # the server's loop, where Streamlit shuts sessions down
        scheduled.append(call)
        threading.Thread(target=call).start()

    leftovers.shut_down(leftovers.take_expired(sessions), event_loop)
    assert len(scheduled) == 1 and away.shut == 1  # waited for: the same pass hands the memory back
    assert set(files.file_storage) == {"back"}  # gone at once, not two passes later
    assert away._session_state == {} and back._session_state  # what it kept, let go even if something still holds it
    assert back.shut == 0 and leftovers.live_session_ids(sessions) == {"back"}
    assert leftovers.take_expired(sessions) == []  # taken out of the store: never shut down twice
