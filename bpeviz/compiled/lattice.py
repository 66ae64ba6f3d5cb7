"""Unigram's lattices in numba: words and pieces as code point arrays, a hash table of pieces, seeds' substrings.

For compiled_unigram.py (see there). Pieces are found through compiled_hash.py's table. A lattice
is three arrays of nodes (start, end, piece), each word's nodes one slice,
in the order unigram.Model.nodes and Model.relattice give them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .hash import _find, _mix, _same, _slot, build_table, code_points

__all__ = ["Lattice", "Table", "build_table", "code_points", "lattice", "relattice", "sketch", "substrings"]

_NONE = -2  # `after` of a substring not yet followed by anything


class Lattice(NamedTuple):
    """Every word's nodes: word w's are start[off[w]:off[w+1]] (the same for end and piece; piece -1 is unknown)."""

    start: np.ndarray
    end: np.ndarray
    piece: np.ndarray
    off: np.ndarray


class Table(NamedTuple):
    """A model's pieces as code points (piece i is cps[off[i]:off[i+1]]) and the hash table that finds them."""

    cps: np.ndarray
    off: np.ndarray
    keys: np.ndarray
    ids: np.ndarray  # slot -> piece, -1 empty


@njit(cache=True, nogil=True)
def lattice(cps, off, longest, keys, ids, bits, p_cps, p_off, fill, st, en, pc, noff):
    """Model.nodes of every word (cps[off[w]:off[w+1]]): counts the nodes, and writes them when fill."""
    k = 0
    for w in range(len(off) - 1):
        noff[w] = k
        b, n = off[w], off[w + 1] - off[w]
        for start in range(n):
            single = False
            h = np.uint64(0)
            for end in range(start + 1, min(n, start + longest) + 1):
                h = _mix(h, cps[b + end - 1])
                i = _find(h, cps, b + start, end - start, keys, ids, bits, p_cps, p_off)
                if i >= 0:
                    if fill:
                        st[k], en[k], pc[k] = start, end, i
                    k += 1
                    single |= end == start + 1
            if not single:
                if fill:
                    st[k], en[k], pc[k] = start, start + 1, -1
                k += 1
    noff[len(off) - 1] = k
    return k


@njit(cache=True, nogil=True)
def _note(seen, nxt):
    return nxt if seen == _NONE else (seen if seen == nxt else -1)


@njit(cache=True, nogil=True)
def _grow(bits, keys, pos, lens, freq, after, cps):
    """The substring table at twice the size, every entry placed again."""
    nbits = bits + 1
    nk = np.zeros(1 << nbits, np.uint64)
    npos = np.full(1 << nbits, -1, np.int64)
    nlen = np.zeros(1 << nbits, np.int8)
    nfreq = np.zeros(1 << nbits, np.int64)
    nafter = np.full(1 << nbits, _NONE, np.int16)
    mask = (1 << nbits) - 1
    for s in range(len(keys)):
        if pos[s] >= 0:
            t = _slot(keys[s], nbits)
            while npos[t] >= 0:
                t = (t + 1) & mask
            nk[t], npos[t], nlen[t], nfreq[t], nafter[t] = keys[s], pos[s], lens[s], freq[s], after[s]
    return nbits, nk, npos, nlen, nfreq, nafter


_MULT2 = np.uint64(0xC2B2AE3D27D4EB4F)  # a second odd multiplier: the sketch's second cell


@njit(cache=True, nogil=True)
def sketch(cps, off, counts, max_len, bits):
    """Two tables of 2**bits cells that count every substring of 2 to max_len code points up to 2 (by its hash).

    A substring seen at most once in all (with its word's count) reads under 2 in one of its cells, unless other
    substrings share both: the table of substrings (below) then leaves it out. It only ever counts too many, so no
    substring seen twice is left out; most of those seen once are, and a text with no spaces has millions of them.
    """
    one, two = np.zeros(1 << bits, np.uint8), np.zeros(1 << bits, np.uint8)
    shift = np.uint64(64 - bits)
    for w in range(len(off) - 1):
        b, n, cnt = off[w], off[w + 1] - off[w], min(counts[w], 2)
        for start in range(n):
            h = _mix(np.uint64(0), cps[b + start])
            for stop in range(start + 2, min(n, start + max_len) + 1):
                h = _mix(h, cps[b + stop - 1])
                i, j = np.int64(h >> shift), np.int64((h * _MULT2) >> shift)
                one[i] = min(2, one[i] + cnt)
                two[j] = min(2, two[j] + cnt)
    return one, two


@njit(cache=True, nogil=True)
def substrings(cps, off, counts, finals, lead, max_len, space_byte, one, two, sketch_bits):
    """unigram_python.branching_substrings: (position, length, count) of each substring seen twice before two bytes.

    space_byte: what follows a word that is followed by another (SentencePiece's ▁ starts with it). one, two: the
    sketch of the same substrings (sketch above); those it says were seen once are not tabled. The table starts at
    the size the sketch foresees (its cells seen twice), so it seldom grows (a growth holds two tables at once).
    """
    shift = np.uint64(64 - sketch_bits)
    bits = 16
    while (1 << bits) < 2 * np.sum(one == 2) + 2:
        bits += 1
    keys, pos = np.zeros(1 << bits, np.uint64), np.full(1 << bits, -1, np.int64)
    lens, freq, after = np.zeros(1 << bits, np.int8), np.zeros(1 << bits, np.int64), np.full(1 << bits, _NONE, np.int16)
    used = 0
    for w in range(len(off) - 1):
        b, n, cnt, fin = off[w], off[w + 1] - off[w], counts[w], finals[w]
        for start in range(n):
            h = _mix(np.uint64(0), cps[b + start])
            for stop in range(start + 2, min(n, start + max_len) + 1):
                h = _mix(h, cps[b + stop - 1])
                if one[np.int64(h >> shift)] < 2 or two[np.int64((h * _MULT2) >> shift)] < 2:
                    continue  # seen once in all: never a seed
                if 2 * (used + 1) > len(keys):
                    bits, keys, pos, lens, freq, after = _grow(bits, keys, pos, lens, freq, after, cps)
                mask, length = len(keys) - 1, stop - start
                s = _slot(h, bits)
                while pos[s] >= 0 and not (keys[s] == h and lens[s] == length and _same(cps, pos[s], cps, b + start, length)):
                    s = (s + 1) & mask
                if pos[s] < 0:
                    keys[s], pos[s], lens[s], used = h, b + start, length, used + 1
                freq[s] += cnt
                if stop < n:
                    after[s] = _note(after[s], lead[b + stop])
                else:
                    if cnt > fin:
                        after[s] = _note(after[s], space_byte)
                    if fin > 0:
                        after[s] = _note(after[s], 0)
    found = np.flatnonzero((pos >= 0) & (freq >= 2) & (after == -1))
    return pos[found], lens[found], freq[found]


@njit(cache=True, nogil=True)
def relattice(st, en, pc, noff, new_of_old):
    """Model.relattice: each word's nodes under the new model, in order; a piece gone leaves only single characters."""
    nst, nen, npc = np.empty_like(st), np.empty_like(en), np.empty_like(pc)
    nnoff = np.empty_like(noff)
    k = 0
    for w in range(len(noff) - 1):
        nnoff[w] = k
        for j in range(noff[w], noff[w + 1]):
            i = new_of_old[pc[j]] if pc[j] >= 0 else -1
            if en[j] == st[j] + 1 or i >= 0:
                nst[k], nen[k], npc[k] = st[j], en[j], i
                k += 1
    nnoff[len(noff) - 1] = k
    return nst[:k].copy(), nen[:k].copy(), npc[:k].copy(), nnoff
