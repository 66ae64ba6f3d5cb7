"""One visitor's work budget: a run that goes on too long, or whose visitor has left, stops at its next progress call.

Every trainer calls progress(done, total) now and then (BPE every 64 merges, the compiled engine between chunks,
WordPiece every 64 merges, Unigram every round, parity-aware BPE every 64 merges): that is where a run is
stopped. Nothing half-trained is kept: the error leaves the shared store as it was. No Streamlit import here.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bpeviz.errors import BpevizError

RUN_SECONDS = 90.0  # the longest one training may take on the shared server; the app's size caps keep normal runs far below

Progress = Callable[[int, int], None]


class Budget:
    """Seconds from now, and a question asked at every progress call: is the visitor still here?"""

    def __init__(self, seconds: float | None = None, still_here: Callable[[], bool] = lambda: True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = RUN_SECONDS if seconds is None else seconds  # read now: a test may lower it
        self.still_here, self.clock = still_here, clock
        self.start = clock()

    def check(self) -> None:
        """Raise BpevizError if the time is up or the visitor has gone."""
        if not self.still_here():
            raise BpevizError("visitor_left", "The visitor who started this run has left; it was stopped.")
        if self.clock() - self.start > self.seconds:
            raise BpevizError("budget_time", f"This run took more than {self.seconds:.0f} s, the most one visitor may "
                              "use on the shared server; it was stopped. Use less text or fewer merges, or the command line "
                              "(bpeviz train FILE ...), which has no such limit.", seconds=f"{self.seconds:.0f}")

    def watch(self, progress: Progress | None = None) -> Progress:
        """progress that checks the budget first, then reports."""
        def report(done: int, total: int) -> None:
            self.check()
            if progress is not None:
                progress(done, total)

        return report
