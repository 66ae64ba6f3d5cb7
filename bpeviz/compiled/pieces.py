"""New pieces in numba: a text's own table of the pieces the kernels meet, and their bytes merged by rank.

The encoder (compiled/encode.py) and the counter (compiled/count.py) note each piece they have not seen in a table of
the text's misses: its code points copied once, found again by hash and compared code point by code point. The
encoder then writes the piece's UTF-8 bytes (a byte-level tokenizer's base ids) and merges them here, as
models/merging.py's merge_by_rank does: each round the adjacent pair of lowest rank, every occurrence left to right,
until no pair has a rank. That is merge_ids' own rule, so no proof is needed (tiktoken's merge is used in Python
only where it provably agrees). A piece longer than MAX_BYTES, or one with a surrogate (Python's error handler
decides what it means), goes back to Python.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
from numba import njit

from .hash import _MULT, _same

NO_RANK = np.int64(1 << 62)  # merging.NO_RANK: a pair that never merges
MAX_BYTES = 512  # a round reads every pair again: longer pieces (rare) are merged in Python, with a heap
EMPTY = np.int64(-1)
DIRTY = np.int64(-1)  # a pair whose rank is to be read again


def rank_arrays(rank_of: dict[tuple[int, int], int], new_ids: list[int]) -> tuple[np.ndarray, np.int64, np.ndarray]:
    """A tokenizer's (left, right) -> rank and rank -> new id as the arrays merge_piece reads."""
    pairs = np.fromiter(chain.from_iterable(rank_of), np.int64, 2 * len(rank_of)).reshape(-1, 2)
    table, bits = rank_table(pairs[:, 0].copy(), pairs[:, 1].copy(), np.fromiter(rank_of.values(), np.int64, len(rank_of)))
    return table, np.int64(bits), np.asarray(new_ids, np.int64)


@njit(cache=True, nogil=True, inline="always")
def _slot(key, bits):
    return np.int64((np.uint64(key) * _MULT) >> np.uint64(64 - bits))


@njit(cache=True, nogil=True)
def rank_table(left, right, rank):
    """An open-addressing table of pairs and their ranks, side by side (one cache line per probe): slot s holds the
    key left << 32 | right at 2s (EMPTY where none) and its rank at 2s + 1."""
    bits = 4
    while (1 << bits) < 2 * len(left) + 2:
        bits += 1
    table, mask = np.full(2 << bits, EMPTY, np.int64), (1 << bits) - 1
    for i in range(len(left)):
        key = (left[i] << 32) | right[i]
        s = _slot(key, bits)
        while table[2 * s] != EMPTY and table[2 * s] != key:
            s = (s + 1) & mask
        table[2 * s], table[2 * s + 1] = key, rank[i]
    return table, bits


@njit(cache=True, nogil=True, inline="always")
def _rank(a, b, table, bits):
    key = (a << 32) | b
    mask = (1 << bits) - 1
    s = _slot(key, bits)
    while True:
        found = table[2 * s]
        if found == key:
            return table[2 * s + 1]
        if found == EMPTY:
            return NO_RANK
        s = (s + 1) & mask


@njit(cache=True, nogil=True)
def utf8(cps, i, j, buf):
    """cps[i:j] as UTF-8 bytes at the start of buf; their number, or -1 for a surrogate or more than buf holds."""
    n = 0
    for t in range(i, j):
        c = np.int64(cps[t])
        size = 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4
        if 0xD800 <= c < 0xE000 or n + size > len(buf):
            return -1
        if size == 1:
            buf[n] = c
        else:
            lead = 0xC0 if size == 2 else 0xE0 if size == 3 else 0xF0
            buf[n] = lead | (c >> (6 * (size - 1)))
            for k in range(1, size):
                buf[n + k] = 0x80 | ((c >> (6 * (size - 1 - k))) & 0x3F)
        n += size
    return n


@njit(cache=True, nogil=True)
def merge_piece(buf, n, table, bits, new_ids, rk):
    """buf[:n] merged in place, the lowest-ranked pair first, every occurrence left to right; the new length.

    rk[t] is the rank of the pair at t, read again only next to a new token (DIRTY), as tiktoken does.
    """
    for t in range(n - 1):
        rk[t] = _rank(buf[t], buf[t + 1], table, bits)
    while n > 1:
        best, at = NO_RANK, -1
        for t in range(n - 1):
            if rk[t] < best:
                best, at = rk[t], t
        if at < 0:
            break
        new, w, t = new_ids[best], at, at
        while t < n:  # from the first occurrence on: each one joined, the rest copied down with their ranks
            if t + 1 < n and rk[t] == best:
                buf[w], rk[w] = new, DIRTY
                if w > 0:
                    rk[w - 1] = DIRTY
                t += 2
            else:
                buf[w], rk[w] = buf[t], rk[t]
                t += 1
            w += 1
        n = w
        for t in range(max(at - 1, 0), n - 1):
            if rk[t] == DIRTY:
                rk[t] = _rank(buf[t], buf[t + 1], table, bits)
    return n


# -- the text's own new pieces: each noted once, merged here where it can be ----------------------------------------

@njit(cache=True, nogil=True)
def grown(a, need):
    """a in a new array of at least need rows (twice its length, or need), its rows kept."""
    b = np.empty((max(need, 2 * len(a)),) + a.shape[1:], a.dtype)
    b[:len(a)] = a
    return b


@njit(cache=True, nogil=True)
def new_misses():
    """A text's table of misses: a hash table (slot s: a piece's hash at 2s, its number + 1 at 2s + 1, 0 where none);
    a row per miss (where its code points start in the misses' own, its length, where its ids start and end in the
    misses' ids, the end -1 where it was not merged here); the misses' code points, end to end; their ids."""
    return (np.zeros(2048, np.uint64), np.empty((256, 4), np.int64), np.empty(4096, np.uint32),
            np.empty(1024, np.int64))


@njit(cache=True, nogil=True, inline="always")
def find_miss(h, cps, i, length, slots, rows, m_cps):
    """The number of the piece cps[i:i + length] (hash h) among the misses, or the free slot for it as -1 - slot.

    Returns no array: a loop that reassigns arrays counts references at every turn (atomic, slow).
    """
    mask = len(slots) // 2 - 1
    s = np.int64(h >> np.uint64(32)) & mask
    while slots[2 * s + 1]:
        q = np.int64(slots[2 * s + 1]) - 1
        if slots[2 * s] == h and rows[q, 1] == length and _same(m_cps, rows[q, 0], cps, i, length):
            return q
        s = (s + 1) & mask
    return -1 - s


@njit(cache=True, nogil=True, inline="always")
def cps_used(rows, nm):
    """How many of the misses' code points the first nm misses take."""
    return rows[nm - 1, 0] + rows[nm - 1, 1] if nm else 0


@njit(cache=True, nogil=True, inline="always")
def ids_used(rows, nm):
    """How many of the misses' ids the first nm misses take."""
    return (rows[nm - 1, 3] if rows[nm - 1, 3] >= 0 else rows[nm - 1, 2]) if nm else 0


@njit(cache=True, nogil=True, inline="always")
def has_room(slots, rows, m_cps, ids, nm, length):
    """Whether miss number nm, of length code points (and MAX_BYTES ids at most), fits the arrays as they are."""
    return (nm < len(rows) and cps_used(rows, nm) + length <= len(m_cps) and 2 * (nm + 1) <= len(slots) // 2
            and ids_used(rows, nm) + MAX_BYTES <= len(ids))


@njit(cache=True, nogil=True)
def make_room(out, need_out, slots, rows, m_cps, need_cps, ids, nm):
    """The arrays, grown where the next piece may not fit: out to need_out, a row more, need_cps more code points,
    MAX_BYTES more ids, the hash table rehashed into twice the room once half full.

    The kernels grow their arrays only here, outside their inner loop: an array reassigned in a hot loop costs
    numba reference counts and reloads at every turn (measured: twice the time of the whole count).
    """
    if need_out > len(out):
        out = grown(out, need_out)
    if nm == len(rows):
        rows = grown(rows, nm + 1)
    if cps_used(rows, nm) + need_cps > len(m_cps):
        m_cps = grown(m_cps, cps_used(rows, nm) + need_cps)
    if ids_used(rows, nm) + MAX_BYTES > len(ids):
        ids = grown(ids, ids_used(rows, nm) + MAX_BYTES)
    if 2 * (nm + 1) > len(slots) // 2:
        old, slots = slots, np.zeros(2 * len(slots), np.uint64)
        mask = len(slots) // 2 - 1
        for t in range(len(old) // 2):
            if old[2 * t + 1]:
                s = np.int64(old[2 * t] >> np.uint64(32)) & mask
                while slots[2 * s + 1]:
                    s = (s + 1) & mask
                slots[2 * s], slots[2 * s + 1] = old[2 * t], old[2 * t + 1]
    return out, slots, rows, m_cps, ids


@njit(cache=True, nogil=True, inline="always")
def add_miss(h, cps, i, length, s, slots, rows, m_cps, nm):
    """Note a new piece cps[i:i + length] (hash h) as miss number nm in free slot s (has_room said it fits): its code
    points copied, its ids to come (merge_miss)."""
    start = cps_used(rows, nm)
    for t in range(length):
        m_cps[start + t] = cps[i + t]
    rows[nm, 2], rows[nm, 3] = ids_used(rows, nm), -1
    rows[nm, 0], rows[nm, 1] = start, length
    slots[2 * s], slots[2 * s + 1] = h, nm + 1


@njit(cache=True, nogil=True)
def merge_miss(cps, i, q, rows, ids, buf, table, bits, new_ids, rk):
    """Merge miss q (met first at i) here if it can be (table: the merges', empty for none): its ids kept after the
    last miss's (there is room: has_room)."""
    size = utf8(cps, i, i + rows[q, 1], buf) if len(table) else -1
    if size >= 0:
        size = merge_piece(buf, size, table, bits, new_ids, rk)
        start = rows[q, 2]
        for t in range(size):
            ids[start + t] = buf[t]
        rows[q, 3] = start + size


@njit(cache=True, nogil=True)
def splice(out, ids, off):
    """out with each -1 - q replaced by ids[off[q]:off[q + 1]]."""
    total = 0
    for x in out:
        total += 1 if x >= 0 else off[-x] - off[-x - 1]
    whole = np.empty(total, np.int64)
    k = 0
    for x in out:
        if x >= 0:
            whole[k] = x
            k += 1
        else:
            a, b = off[-x - 1], off[-x]
            whole[k:k + b - a] = ids[a:b]
            k += b - a
    return whole


@njit(cache=True, nogil=True)
def every_miss(rows, ids, late_ids, late_counts):
    """Every miss's ids end to end and where each starts: merged here (rows), or in Python (late_*, in order)."""
    nm = len(rows)
    off = np.zeros(nm + 1, np.int64)
    whole = np.empty(len(ids) + len(late_ids), np.int64)
    k, late, at = 0, 0, 0
    for q in range(nm):
        if rows[q, 3] >= 0:
            a, b, source = rows[q, 2], rows[q, 3], ids
        else:
            a, b, source = at, at + late_counts[late], late_ids
            at, late = b, late + 1
        whole[k:k + b - a] = source[a:b]
        k += b - a
        off[q + 1] = k
    return whole[:k], off
