"""Counting pre-tokens in numba: the written-out splits of compiled/encode.py, and a table of the pieces met so far.

What pre_tokenizers/splits.count_pieces gives (distinct pre-tokens with their counts, in order of first occurrence),
without a Python string per pre-token: each document is cut by the split's loop, each piece found by its hash in the
table of the batch's pieces (pieces.py's misses), and counted there. Only the distinct pieces become strings, once
per batch. tests/counting checks it against splits.count_pieces, order included.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from numba import njit

from .encode import KINDS, classes, piece_end
from .hash import _mix
from .pieces import add_miss, cps_used, find_miss, grown, has_room, make_room, new_misses

BATCH_CHARS = 1 << 22  # documents are counted a batch of about this many characters at a time (16 MB of code points)


@njit(cache=True, nogil=True)
def count_batch(cps, ends, cls, kind):
    """The distinct pre-tokens of the documents cps[ends[d - 1]:ends[d]], in order of first meeting: their code points
    end to end, where each one ends there, and each one's count."""
    slots, rows, m_cps, ids = new_misses()
    counts, no_out = np.zeros(len(rows), np.int64), np.empty(0, np.int64)
    nm, d, i, run_end, need = 0, 0, 0, 0, 0
    while d < len(ends):  # (arrays grow here, between runs of the inner loop: pieces.make_room)
        no_out, slots, rows, m_cps, ids = make_room(no_out, 0, slots, rows, m_cps, need, ids, nm)
        if len(counts) < len(rows):
            counts = grown(counts, len(rows))
        while d < len(ends):
            end = ends[d]
            if i >= end:  # the next document (no pre-token crosses into it)
                d, run_end = d + 1, i
                continue
            before = run_end
            j, run_end = piece_end(cps, cls, i, end, kind, run_end)
            h = np.uint64(0)
            for t in range(i, j):
                h = _mix(h, cps[t])
            q = find_miss(h, cps, i, j - i, slots, rows, m_cps)
            if q < 0:
                if not has_room(slots, rows, m_cps, ids, nm, j - i):
                    run_end, need = before, j - i
                    break
                add_miss(h, cps, i, j - i, -1 - q, slots, rows, m_cps, nm)
                q, nm = nm, nm + 1
                counts[q] = 0
            counts[q] += 1
            i = j
    return m_cps[:cps_used(rows, nm)], rows[:nm, 0] + rows[:nm, 1], counts[:nm]


def count_pieces(docs: Sequence[str], split: str) -> Counter[str]:
    """Distinct pre-tokens of the documents with their counts, in order of first occurrence, cut by split (KINDS)."""
    counts: Counter[str] = Counter()
    ends = np.cumsum(np.fromiter(map(len, docs), np.int64, len(docs)))
    first = 0
    while first < len(docs):
        base = int(ends[first - 1]) if first else 0
        stop = min(max(int(np.searchsorted(ends, base + BATCH_CHARS)) + 1, first + 1), len(docs))
        _count_into(counts, docs[first:stop], ends[first:stop] - base, split)
        first = stop
    return counts


def _count_into(counts: Counter[str], docs: Sequence[str], ends: np.ndarray, split: str) -> None:
    """Add one batch's counts: its new pieces come after the ones met before, in their order (first occurrence kept)."""
    cps = np.frombuffer("".join(docs).encode("utf-32-le", "surrogatepass"), np.uint32)
    pieces, piece_ends, found = count_batch(cps, ends, classes(), KINDS[split])
    text = pieces.tobytes().decode("utf-32-le", "surrogatepass")
    bounds = piece_ends.tolist()
    counts.update(dict(zip(map(text.__getitem__, map(slice, [0, *bounds[:-1]], bounds)), found.tolist())))


def warm() -> None:
    """Compile (or load from numba's cache) the counter on a tiny text."""
    assert count_pieces(["o gato", "o cão 123", ""], "gpt4") == Counter({"o": 2, " gato": 1, " cão": 1, " ": 1, "123": 1})
