"""Public: the optimality gap: greedy BPE's merges beside the best list an exact search finds (`lessons/optimal.py`)."""

from __future__ import annotations

from .lessons.optimal import MAX_MERGES, MAX_SYMBOLS, MAX_TIME_LIMIT, best_merges, greedy, savings

__all__ = ["MAX_MERGES", "MAX_SYMBOLS", "MAX_TIME_LIMIT", "best_merges", "greedy", "savings"]
