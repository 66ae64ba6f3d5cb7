"""Encoding a long text in numba (the `fast` extra): GPT-4's or GPT-2's split and a table of the pieces met so far.

The Python encoder (models/bpe.py) stays the reference; this one gives the same ids
(tests/engine/test_compiled_encode.py). It reads the text as code points once, cuts pre-tokens by the
preset's pattern (KINDS) written out as a loop over character classes that `regex` itself gives,
and looks each piece up in an open-addressing table of code point hashes (hash.py), so a
warm text makes no Python object per piece. New pieces are merged in the kernel by the tokenizer's ranks
(pieces.py); the few it cannot merge go back to Python, are merged there, spliced in where the first pass left
a mark. The table keeps them all for the next text.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable
from functools import cache

import numpy as np
import regex
from numba import njit

from . import pieces
from .hash import _find, _mix, build_table
from .pieces import MAX_BYTES, add_miss, every_miss, find_miss, has_room, make_room, merge_miss, new_misses, rank_arrays, splice

LETTER, NUMBER, SPACE, NEWLINE = 1, 2, 4, 8  # \p{L}, \p{N}, \s, [\r\n]
# (?i:x) for the contraction letters of '(?i:[sdmt]|ll|ve|re), one bit each
_S, _D, _M, _T, _L, _V, _R, _E = (16 << k for k in range(8))
_QUOTE, _BLANK = 39, 32
# The splits written out below, by preset name (the digits of gpt4's family: 0-2; GPT-2's: 3)
# A weak reference to a tokenizer's method giving its merges ((left, right) -> rank, rank -> new id), or None
MergeRule = Callable[[], Callable[[], tuple[dict[tuple[int, int], int], list[int]] | None] | None]
KINDS = {"gpt4": 0, "gpt4-hf": 1, "r2l-digits": 2, "gpt2": 3, "gpt2-original": 3}


@cache
def classes() -> np.ndarray:
    """Each code point's classes as `regex` reads the patterns (bits above); built once, in about 0.15 s."""
    text = "".join(map(chr, range(0x110000)))
    table = np.zeros(0x110000, np.uint16)
    for bit, escape in ((LETTER, r"\p{L}"), (NUMBER, r"\p{N}"), (SPACE, r"\s"), (NEWLINE, r"[\r\n]")):
        for m in regex.finditer(escape + "+", text):
            table[m.start():m.end()] |= bit
    for bit, letter in zip((_S, _D, _M, _T, _L, _V, _R, _E), "sdmtlvre"):
        for m in regex.finditer(f"(?i:{letter})", text):  # "s" is also U+017F, long s
            table[m.start()] |= bit
    return table


@njit(cache=True, nogil=True, inline="always")
def _run(cps, cls, j, n, bits):
    """The end of the run from j of characters having any of bits."""
    while j < n and cls[cps[j]] & bits:
        j += 1
    return j


@njit(cache=True, nogil=True, inline="always")
def _whitespace_end(cps, cls, i, n, newlines):
    """A run of whitespace at i: \\s++$ | \\s*[\\r\\n] (gpt4's family only) | \\s+(?!\\S) | \\s."""
    end, last_newline = i, -1
    while end < n and cls[cps[end]] & SPACE:
        if cls[cps[end]] & NEWLINE:
            last_newline = end
        end += 1
    if end == n:
        return n
    if newlines and last_newline >= 0:
        return last_newline + 1
    return end - 1 if end - i >= 2 else i + 1


@njit(cache=True, nogil=True, inline="always")
def _digits_end(cps, cls, i, n, digits):
    """gpt4's digits at i: up to three (0), or the whole run (1: gpt4-hf); r2l-digits' are cut in piece_end."""
    if digits == 1:
        return _run(cps, cls, i + 1, n, NUMBER)
    j = i + 1
    while j < n and j < i + 3 and cls[cps[j]] & NUMBER:
        j += 1
    return j


@njit(cache=True, nogil=True, inline="always")
def _gpt4_end(cps, cls, i, n, digits):
    """'(?i:[sdmt]|ll|ve|re) | [^\\r\\n\\p{L}\\p{N}]?+\\p{L}++ | <digits> | ' ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+' | whitespace."""
    c = cls[cps[i]]
    if cps[i] == _QUOTE and i + 1 < n:
        a = cls[cps[i + 1]]
        if a & (_S | _D | _M | _T):
            return i + 2
        if i + 2 < n:
            b = cls[cps[i + 2]]
            if (a & _L and b & _L) or (a & (_V | _R) and b & _E):
                return i + 3
    if c & LETTER:
        return _run(cps, cls, i + 1, n, LETTER)
    if not c & (NEWLINE | NUMBER) and i + 1 < n and cls[cps[i + 1]] & LETTER:
        return _run(cps, cls, i + 2, n, LETTER)
    if c & NUMBER:
        return _digits_end(cps, cls, i, n, digits)
    k = i + 1 if cps[i] == _BLANK else i
    if k < n and not cls[cps[k]] & (SPACE | LETTER | NUMBER):
        j = k + 1
        while j < n and not cls[cps[j]] & (SPACE | LETTER | NUMBER):
            j += 1
        return _run(cps, cls, j, n, NEWLINE)
    return _whitespace_end(cps, cls, i, n, True)


@njit(cache=True, nogil=True, inline="always")
def _gpt2_end(cps, cls, i, n):
    """'(?:[sdmt]|ll|ve|re) (ASCII, case kept) | ' ?\\p{L}++' | ' ?\\p{N}++' | ' ?[^\\s\\p{L}\\p{N}]++' | whitespace."""
    if cps[i] == _QUOTE and i + 1 < n:
        a = cps[i + 1]
        if a == 115 or a == 100 or a == 109 or a == 116:  # s d m t
            return i + 2
        if i + 2 < n:
            b = cps[i + 2]
            if (a == 108 and b == 108) or ((a == 118 or a == 114) and b == 101):  # ll, ve, re
                return i + 3
    k = i + 1 if cps[i] == _BLANK and i + 1 < n else i
    c = cls[cps[k]]
    if c & LETTER:
        return _run(cps, cls, k + 1, n, LETTER)
    if c & NUMBER:
        return _run(cps, cls, k + 1, n, NUMBER)
    if not c & SPACE:
        j = k + 1
        while j < n and not cls[cps[j]] & (SPACE | LETTER | NUMBER):
            j += 1
        return j
    return _whitespace_end(cps, cls, i, n, False)


@njit(cache=True, nogil=True, inline="always")
def piece_end(cps, cls, i, n, kind, run_end):
    """Where the pre-token that starts at i ends, by the split numbered kind (KINDS): its alternatives in their order.

    Returns it and run_end, the end of the run of digits i is in: r2l-digits cuts a run by its length, read once per
    run (a pattern's look-ahead reads the rest of the run again at every group: quadratic in a long run).
    """
    if kind == 2 and cls[cps[i]] & NUMBER:
        if i >= run_end:
            run_end = _run(cps, cls, i + 1, n, NUMBER)
            return i + ((run_end - i) % 3 or 3), run_end
        return i + 3, run_end  # what is left of the run is whole threes
    return (_gpt2_end(cps, cls, i, n) if kind == 3 else _gpt4_end(cps, cls, i, n, kind)), run_end


@njit(cache=True, nogil=True)
def split_ends(cps, cls, kind):
    """Every pre-token's end, in order (for tests: the split alone)."""
    n = len(cps)
    ends = np.empty(n, np.int64)
    k, i, run_end = 0, 0, 0
    while i < n:
        i, run_end = piece_end(cps, cls, i, n, kind, run_end)
        ends[k] = i
        k += 1
    return ends[:k]


@njit(cache=True, nogil=True)
def encode(cps, cls, kind, keys, slots, bits, p_cps, p_off, v_ids, v_off, r_table, r_bits, new_ids):
    """The text's ids; the pieces not in the table, each once in order of first meeting, as rows (see
    pieces.new_misses), their code points end to end, and their ids.

    New pieces are merged here when the tokenizer gave its merges' table (r_table, pieces.py; empty: none). Where a
    piece q that was not merged stands, the ids hold -1 - q: `splice` puts its ids there.
    """
    n = len(cps)
    out = np.empty(n // 2 + 16, np.int64)
    m_slots, rows, m_cps, m_ids = new_misses()
    buf, rk = np.empty(MAX_BYTES, np.int64), np.empty(MAX_BYTES, np.int64)  # a new piece's ids, and its pairs' ranks
    k, nm, q, i, run_end, need_out, need_cps = 0, 0, 0, 0, 0, 0, 0
    while i < n:  # (pieces.make_room: arrays grow here, between runs of the inner loop)
        out, m_slots, rows, m_cps, m_ids = make_room(out, need_out, m_slots, rows, m_cps, need_cps, m_ids, nm)
        while i < n:
            before = run_end
            j, run_end = piece_end(cps, cls, i, n, kind, run_end)
            h = np.uint64(0)
            for t in range(i, j):
                h = _mix(h, cps[t])
            p = _find(h, cps, i, j - i, keys, slots, bits, p_cps, p_off)
            if p >= 0:
                a, b = v_off[p], v_off[p + 1]
            else:
                q = find_miss(h, cps, i, j - i, m_slots, rows, m_cps)
                if q < 0:  # met first here
                    if not has_room(m_slots, rows, m_cps, m_ids, nm, j - i):
                        run_end, need_cps = before, j - i
                        break
                    add_miss(h, cps, i, j - i, -1 - q, m_slots, rows, m_cps, nm)
                    q, nm = nm, nm + 1
                    merge_miss(cps, i, q, rows, m_ids, buf, r_table, r_bits, new_ids, rk)
                a, b = (rows[q, 2], rows[q, 3]) if rows[q, 3] >= 0 else (0, 1)
            if k + b - a > len(out):
                run_end, need_out = before, k + b - a
                break
            if p >= 0:
                for t in range(a, b):
                    out[k] = v_ids[t]
                    k += 1
            elif rows[q, 3] >= 0:
                for t in range(a, b):
                    out[k] = m_ids[t]
                    k += 1
            else:
                out[k] = -1 - q
                k += 1
            i = j
    return out[:k], rows[:nm], m_cps[:pieces.cps_used(rows, nm)], m_ids


class PieceTable:
    """Pre-tokens of one split (KINDS) met so far and their ids, as arrays `encode` reads; bounded like tokenizer.WordCache.

    One per tokenizer; a lock keeps two visitors' encodings of the same tokenizer from growing it at once.
    """

    MAX_PIECES = 150_000
    MAX_CODE_POINTS = 2_000_000  # of the pieces kept, end to end, and of their ids (8 MB each, as int32)

    def __init__(self, split: str, encode_pieces: Callable[[], Callable[[list[str]], tuple[array, array]] | None],
                 merges: MergeRule | None = None) -> None:
        self._kind = KINDS[split]
        self._encode_pieces = encode_pieces  # gives the tokenizer's encoder of new pieces (a weak reference: no cycle)
        self._merges = merges  # gives its merges (pair -> rank, rank -> new id) when their rule is the kernel's own
        self._rank_arrays: tuple | None = None  # pieces.rank_arrays of those, made at the first text
        self._lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        self.p_cps, self.p_off = np.zeros(0, np.int32), np.zeros(1, np.int64)
        self.v_ids, self.v_off = np.zeros(0, np.int32), np.zeros(1, np.int64)
        self.keys, self.slots, self.bits = np.zeros(16, np.uint64), np.full(16, -1, np.int32), 4

    def __len__(self) -> int:
        return len(self.p_off) - 1

    def encode(self, text: str) -> list[int]:
        """text's ids: pieces met before from the table, new ones merged in the kernel (or by the tokenizer, when the
        kernel cannot: see pieces.py) and kept if there is room."""
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
        with self._lock:
            ids, rows, m_cps, m_ids = encode(cps, classes(), self._kind, *self._arrays(), *self._ranks())
            if len(rows):
                starts, lengths = rows[:, 0].copy(), rows[:, 1].copy()
                late = np.flatnonzero(rows[:, 3] < 0)
                late_ids, late_counts = np.zeros(0, np.int64), np.zeros(0, np.int64)
                if len(late):
                    joined = m_cps.tobytes().decode("utf-32-le", "surrogatepass")  # the misses' text, end to end
                    ends = (starts[late] + lengths[late]).tolist()
                    pieces = list(map(joined.__getitem__, map(slice, starts[late].tolist(), ends)))
                    flat, counts = self._encode_pieces()(pieces)  # type: ignore[misc]  # the tokenizer called us: alive
                    late_ids, late_counts = np.array(flat, np.int64), np.array(counts, np.int64)
                m_ids, m_off = every_miss(rows, m_ids, late_ids, late_counts)
                if len(late):
                    ids = splice(ids, m_ids, m_off)
                self._add(m_cps.astype(np.int32), lengths, m_ids, m_off)
        return ids.tolist()

    def _arrays(self) -> tuple:
        return self.keys, self.slots, self.bits, self.p_cps, self.p_off, self.v_ids, self.v_off

    def _ranks(self) -> tuple:
        if self._rank_arrays is None:
            rule = self._merges() if self._merges is not None else None  # the tokenizer's method (weak), then its answer
            found = rule() if rule is not None else None
            self._rank_arrays = rank_arrays(*found) if found is not None and found[0] else NO_MERGES
        return self._rank_arrays

    def _add(self, cps: np.ndarray, lengths: np.ndarray, ids: np.ndarray, off: np.ndarray) -> None:
        """Keep new pieces (cps, end to end, and their lengths) and their ids (ids[off[q]:off[q + 1]] for piece q);
        a full table starts again."""
        size = max(len(cps), len(ids))
        if len(lengths) > self.MAX_PIECES or size > self.MAX_CODE_POINTS:
            return  # more than the table holds: not kept
        if len(self) + len(lengths) > self.MAX_PIECES or max(len(self.p_cps), len(self.v_ids)) + size > self.MAX_CODE_POINTS:
            self._clear()
        self.p_cps = np.concatenate([self.p_cps, cps])
        self.p_off = np.concatenate([self.p_off, self.p_off[-1] + np.cumsum(lengths)])
        self.v_ids = np.concatenate([self.v_ids, ids.astype(np.int32)])
        self.v_off = np.concatenate([self.v_off, self.v_off[-1] + off[1:]])
        self.keys, self.slots, self.bits = build_table(self.p_cps, self.p_off)


NO_MERGES = (np.zeros(0, np.int64), np.int64(0), np.zeros(0, np.int64))  # new pieces: to Python


def warm() -> None:
    """Compile (or load from numba's cache) the split, the encoder and its merge of new pieces on a tiny text."""
    def as_bytes(pieces: list[str]) -> tuple[array, array]:  # each byte its own id
        return array("q", list(b"".join(p.encode() for p in pieces))), array("q", [len(p.encode()) for p in pieces])

    text = "o gato's 123 \t\n  x!\r\n ."
    for split in ("gpt4", "gpt2"):  # the kind is a number: one compile serves every split
        table = PieceTable(split, lambda: as_bytes)
        assert bytes(table.encode(text)) == text.encode() == bytes(table.encode(text))
    merging = PieceTable("gpt4", lambda: as_bytes, lambda: lambda: ({(97, 116): 1, (256, 111): 2}, [0, 256, 257]))
    assert merging.encode(text)[3:5] == [257, 39] and merging.encode(" gato") == [32, 103, 257]  # "ato" is 257
    split_ends(np.frombuffer(text.encode("utf-32-le"), np.uint32), classes(), KINDS["gpt4"])
