"""One visitor's work budget: a run that goes on too long, grows the server's memory too much, or whose visitor has left,
stops at its next progress call.

Every trainer calls progress(done, total) now and then (BPE every 64 merges, the compiled engine between chunks,
WordPiece every merge, Unigram every round, parity-aware BPE every 64 merges): that is where a run is
stopped. Nothing half-trained is kept: the error leaves the shared store as it was. No Streamlit import here.

Memory is the server's resident set, read from /proc (Linux; elsewhere only time and presence are checked). A run may
grow it by RUN_MEMORY_BYTES over what it was when the run started. Two runs at once share that growth, so each
stops early rather than late: the budget protects the server, not the run. And the server as a whole may hold
SERVER_MEMORY_BYTES: past it, every run stops at its next progress call (three visitors' runs at once had taken a
611 MB server to 4.9 GB, each within its own budget).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

from bpeviz.core.errors import BpevizError

RUN_SECONDS = 90.0  # the longest one training may take on the shared server; the app's size caps keep normal runs far below

RUN_MEMORY_BYTES = 1_200_000_000  # the most one run may add to the server's memory; the app's caps keep normal runs below 600 MB
# what the server may hold with every run together: ~720 MB warm (seven real tokenizers), up to ~1.5 GB of caches
# (runs, mixes, grafts, imported files), one big run
SERVER_MEMORY_BYTES = 4_000_000_000

Progress = Callable[[int, int], None]


def resident_bytes() -> int | None:
    """The server process's resident memory now, or None where /proc is missing."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _libc() -> Any:
    """The C library, or None where ctypes finds none. Outside glibc it may lack malloc_trim and mallopt: calling them
    then raises AttributeError, which the callers let pass."""
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def give_back() -> None:
    """Return the C heap's free pages to the system (glibc's malloc_trim; a no-op elsewhere).

    What a visitor's request freed (their upload's bytes and text, a page's tables) goes back to malloc, which keeps
    the pages; below the largest live block they stay in the server's resident memory until trimmed.
    """
    with contextlib.suppress(AttributeError):
        if (libc := _libc()) is not None:
            libc.malloc_trim(0)


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
MAPPED_BYTES = 1 << 20  # blocks this big or bigger get pages of their own, returned whole when freed


def map_big_blocks() -> None:
    """From now on every block of MAPPED_BYTES or more is mapped on its own (glibc's mallopt; a no-op elsewhere).

    By default glibc raises that threshold to the largest mapped block freed, up to 32 MB: after one visitor's 20 MB
    upload, blocks up to that size come from the heap, where the small objects allocated among them keep their pages
    in the server's resident memory after the visitor has left. A fixed threshold keeps them out of the heap.
    """
    with contextlib.suppress(AttributeError):
        if (libc := _libc()) is not None:
            libc.mallopt(M_MMAP_THRESHOLD, MAPPED_BYTES)


class Budget:
    """Seconds and bytes from now, and a question asked at every progress call: is the visitor still here?"""

    def __init__(self, seconds: float | None = None, still_here: Callable[[], bool] = lambda: True,
                 clock: Callable[[], float] = time.monotonic, memory_bytes: int | None = None,
                 memory: Callable[[], int | None] = resident_bytes, server_bytes: int | None = None) -> None:
        self.seconds = RUN_SECONDS if seconds is None else seconds  # read now: a test may lower it
        self.memory_bytes = RUN_MEMORY_BYTES if memory_bytes is None else memory_bytes
        self.server_bytes = SERVER_MEMORY_BYTES if server_bytes is None else server_bytes
        self.still_here, self.clock, self.memory = still_here, clock, memory
        self.start, self.start_memory = clock(), memory()

    def check(self) -> None:
        """Raise BpevizError if the time is up or the visitor has gone."""
        if not self.still_here():
            raise BpevizError("visitor_left", "The visitor who started this run has left; it was stopped.")
        if self.clock() - self.start > self.seconds:
            raise BpevizError("budget_time", f"This run took more than {self.seconds:.0f} s, the most one visitor may "
                              "use on the shared server; it was stopped. Use less text or fewer merges, or the command line "
                              "(bpeviz train FILE ...), which has no such limit.", seconds=f"{self.seconds:.0f}")
        now = self.memory()
        if now is not None and self.start_memory is not None and now - self.start_memory > self.memory_bytes:
            megabytes = f"{self.memory_bytes / 1e6:.0f}"
            raise BpevizError("budget_memory", f"This run needed more than {megabytes} MB of the shared server's memory; it "
                              "was stopped. Use less text or fewer merges, or the command line (bpeviz train FILE ...), "
                              "which has no such limit.", megabytes=megabytes)
        if now is not None and now > self.server_bytes:
            megabytes = f"{self.server_bytes / 1e6:.0f}"
            raise BpevizError("budget_server_memory", f"The shared server holds more than {megabytes} MB with everyone's "
                              "runs; this one was stopped. Try again in a moment, with less text, or use the command line "
                              "(bpeviz train FILE ...).", megabytes=megabytes)

    def watch(self, progress: Progress | None = None) -> Progress:
        """progress that checks the budget first, then reports."""
        def report(done: int, total: int) -> None:
            self.check()
            if progress is not None:
                progress(done, total)

        return report
