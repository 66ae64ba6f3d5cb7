"""Compiling the compiled engine once, in a background process, so that no call waits for numba.

The kernels come in groups ("bpe", "unigram", "encode"). The first run big enough to want a group that numba has
not compiled yet starts `python -m bpeviz.engine.build GROUP` (a detached, lower-priority process) and goes on with
the Python engine. numba saves the machine code in its cache (next to the sources when that folder is writable,
else a per-user cache: numba's own rule, NUMBA_CACHE_DIR first); the child then writes a marker. A later run, in
this process or another, sees the marker and loads the group from the cache in well under a second.

Markers live in the first writable of: $NUMBA_CACHE_DIR/bpeviz, the package's compiled/__pycache__, the user's
cache (~/.cache/bpeviz). A marker's name holds a hash of the group's sources and the Python and numba versions,
so an upgrade compiles again. A lock file (with the child's pid) keeps two processes from compiling one group.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess  # starts the build child: a fixed argv, no shell
import sys
import time
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
GROUP_SOURCES = {  # the files whose compiled code each group needs (a change to one means a new compile)
    "bpe": ("compiled/bpe.py", "compiled/heap.py", "compiled/merge.py"),
    "unigram": ("compiled/unigram.py", "compiled/lattice.py", "compiled/hash.py", "engine/unigram_compiled.py"),
    "encode": ("compiled/encode.py", "compiled/pieces.py", "compiled/count.py", "compiled/hash.py"),
}
GROUPS = tuple(GROUP_SOURCES)
STALE_SECONDS = 15 * 60  # a lock older than this, or whose process is gone, is taken over
_children: dict[str, subprocess.Popen] = {}  # group -> the build this process started (polled, so it is reaped)


@cache
def key(group: str) -> str:
    """A short hash of the group's sources, Python's version and numba's: the name of the group's marker."""
    digest = hashlib.sha256(f"{sys.version_info[:2]} {sys.platform} {_numba_version()}".encode())
    for name in GROUP_SOURCES[group]:
        digest.update((PACKAGE / name).read_bytes())
    return digest.hexdigest()[:16]


def _numba_version() -> str:
    try:
        return version("numba")
    except PackageNotFoundError:
        return "none"


def marker_dirs() -> list[Path]:
    """Where markers may be, in the order they are written: NUMBA_CACHE_DIR's, the package's, the user's."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return [Path(env) / "bpeviz"]
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [PACKAGE / "compiled" / "__pycache__", home / "bpeviz"]


def writable_dir() -> Path | None:
    """The first marker folder that exists or can be made, and can be written (None: nowhere)."""
    for folder in marker_dirs():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return None


def marker(folder: Path, group: str, kind: str = "ready") -> Path:
    return folder / f"bpeviz-{kind}-{group}-{key(group)}"


def ready(group: str) -> bool:
    """Whether a build of this group finished: numba's cache holds it."""
    return any(marker(folder, group).exists() for folder in marker_dirs())


def mark_ready(group: str) -> None:
    """Note that numba's cache holds this group (it was just compiled or loaded here), unless a marker says so."""
    folder = writable_dir()
    if folder is not None and not ready(group):
        with contextlib.suppress(OSError):  # a marker is a hint: without it a later run compiles in the background again
            marker(folder, group).write_text(f"loaded by pid {os.getpid()}\n")


def failed(group: str) -> str:
    """Why the build of this group failed ("" when it did not)."""
    for folder in marker_dirs():
        path = marker(folder, group, "failed")
        if path.exists():
            return path.read_text(errors="replace")[:500] or "failed"
    return ""


def lock_path(folder: Path, group: str) -> Path:
    return folder / f"bpeviz-compiling-{group}"


def running(group: str) -> bool:
    """Whether a build of this group is under way (here or in another process)."""
    child = _children.get(group)
    if child is not None and child.poll() is None:
        return True
    folder = writable_dir()
    return folder is not None and held(lock_path(folder, group))


def held(lock: Path) -> bool:
    """A lock file that a live process wrote less than STALE_SECONDS ago."""
    try:
        pid = int(lock.read_text().split()[0])
        age = time.time() - lock.stat().st_mtime
    except (OSError, ValueError, IndexError):
        return False
    if age > STALE_SECONDS:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True


def take_lock(folder: Path, group: str) -> bool:
    """Create the group's lock for this process (a stale one is taken over); False when a live process holds it."""
    lock = lock_path(folder, group)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if held(lock):
                return False
            lock.unlink(missing_ok=True)
            continue
        with os.fdopen(fd, "w") as out:
            out.write(str(os.getpid()))
        return True
    return False


def start(group: str) -> bool:
    """Start building this group in the background unless it is built, failed, or under way; True when it started."""
    if ready(group) or failed(group) or running(group):
        return False
    folder = writable_dir()
    if folder is None or not take_lock(folder, group):
        return False
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "bpeviz.engine.build", "--locked", group], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True,  # outlives a short command: it fills the cache
        )
    except OSError:
        lock_path(folder, group).unlink(missing_ok=True)
        return False
    lock_path(folder, group).write_text(str(child.pid))
    _children[group] = child
    return True
