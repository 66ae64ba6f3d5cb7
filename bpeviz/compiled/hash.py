"""Code points in numba: a text's code points as one array, and an open-addressing table of pieces by hash.

A piece is found by a 64-bit hash of its code points, compared code point by code point, so a
collision costs a probe and never a wrong piece. Unigram's lattices (compiled_lattice.py) and the
compiled encoder (compiled_encode.py) both look pieces up so.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MULT = np.uint64(0x9E3779B97F4A7C15)  # odd: the hash of code points c1..ck is ((c1+1) * M + c2+1) * M ...


def code_points(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The texts' code points end to end, and where each starts (len(texts) + 1 offsets)."""
    cps = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), np.uint32).astype(np.int64)
    off = np.zeros(len(texts) + 1, np.int64)
    np.cumsum([len(t) for t in texts], out=off[1:])
    return cps, off


@njit(cache=True, nogil=True, inline="always")
def _mix(h, cp):
    return (h + np.uint64(cp + 1)) * _MULT


@njit(cache=True, nogil=True)
def _slot(h, bits):
    return np.int64(h >> np.uint64(64 - bits))


@njit(cache=True, nogil=True, inline="always")
def _same(cps, at, other, other_at, length):
    for t in range(length):  # noqa: SIM110  (a loop numba compiles)
        if cps[at + t] != other[other_at + t]:
            return False
    return True


@njit(cache=True, nogil=True)
def build_table(cps, off):
    n = len(off) - 1
    bits = 4
    while (1 << bits) < 2 * n + 2:
        bits += 1
    keys = np.zeros(1 << bits, np.uint64)
    ids = np.full(1 << bits, -1, np.int32)
    mask = (1 << bits) - 1
    for i in range(n):
        h = np.uint64(0)
        for k in range(off[i], off[i + 1]):
            h = _mix(h, cps[k])
        s = _slot(h, bits)
        while ids[s] >= 0:
            s = (s + 1) & mask
        keys[s], ids[s] = h, i
    return keys, ids, bits


@njit(cache=True, nogil=True, inline="always")
def _find(h, cps, at, length, keys, ids, bits, p_cps, p_off):
    """The piece whose code points are cps[at:at+length] (hash h), or -1."""
    mask = len(ids) - 1
    s = _slot(h, bits)
    while ids[s] >= 0:
        i = ids[s]
        if keys[s] == h and p_off[i + 1] - p_off[i] == length and _same(p_cps, p_off[i], cps, at, length):
            return i
        s = (s + 1) & mask
    return -1
