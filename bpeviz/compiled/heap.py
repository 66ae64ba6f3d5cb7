"""The compiled loop's heap and pairs (numba): one entry per live pair, fixed lazily when it surfaces.

The state is a NamedTuple of arrays (`compiled.State`); see `compiled.py` for the layout.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bpeviz.core.ids import ID_SHIFT

DEAD = -1  # a position merged away
MODES = {"position": 0, "ids": 1, "hf-ids": 2, "text": 3}  # the tie rule's kind -> the heap's order
POSITION, IDS, HF, TEXT = 0, 1, 2, 3
# state.sc: the scalars the loop updates
HEAP_N, N_SLOTS, POOL_N, TOTAL, TEXT_N, NEED_SLOTS, NEED_POOL, NEED_TEXT = range(8)
OK, EMPTY, NEED_ROOM = 0, 1, 2  # why a chunk stopped
FNV_OFFSET, FNV_PRIME = np.uint64(0xCBF29CE484222325), np.uint64(0x100000001B3)
SPACE_KEY = "▁".encode()  # the text rule reads a space as SentencePiece's ▁


# No reference counts (numba's NRT): the loop allocates nothing. _nrt is numba's own switch, missing from its stubs.
JIT = njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]


# -- the heap ------------------------------------------------------------------------------
# Hot helpers take arrays, not the state: reading an array out of the state costs a reference
# count (an atomic add) each time, which in the inner loops was a third of the time.


@JIT
def text_cmp(st, s1, s2):
    """-1, 0 or 1: the merged texts of two slots by (length, then bytes with a space as ▁)."""
    p_left, p_right, t_len, k_blen, t_off, kb = st.p_left, st.p_right, st.t_len, st.k_blen, st.t_off, st.kb
    l1, r1, l2, r2 = p_left[s1], p_right[s1], p_left[s2], p_right[s2]
    n1, n2 = t_len[l1] + t_len[r1], t_len[l2] + t_len[r2]
    if n1 != n2:
        return -1 if n1 < n2 else 1
    a1, a2 = k_blen[l1], k_blen[l2]
    m1, m2 = a1 + k_blen[r1], a2 + k_blen[r2]
    for i in range(min(m1, m2)):
        b1 = kb[t_off[l1] + i] if i < a1 else kb[t_off[r1] + i - a1]
        b2 = kb[t_off[l2] + i] if i < a2 else kb[t_off[r2] + i - a2]
        if b1 != b2:
            return -1 if b1 < b2 else 1
    if m1 != m2:
        return -1 if m1 < m2 else 1
    return 0


@JIT
def heap_less(st, mode, p_left, p_right, a1, a2, sa, b1, b2, sb):
    """Heap order: the higher count, then the tie key (the text rule compares texts), then the packed pair."""
    if a1 != b1:
        return a1 < b1
    if mode == TEXT:
        c = text_cmp(st, sa, sb)
        if c != 0:
            return c < 0
    elif a2 != b2:
        return a2 < b2
    return p_left[sa] * ID_SHIFT + p_right[sa] < p_left[sb] * ID_SHIFT + p_right[sb]


@JIT
def heap_push(st, mode, k1, k2, s):
    h1, h2, hs, sc, p_left, p_right = st.h1, st.h2, st.hs, st.sc, st.p_left, st.p_right
    i = sc[HEAP_N]
    sc[HEAP_N] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        if not heap_less(st, mode, p_left, p_right, k1, k2, s, h1[parent], h2[parent], hs[parent]):
            break
        h1[i], h2[i], hs[i] = h1[parent], h2[parent], hs[parent]
        i = parent
    h1[i], h2[i], hs[i] = k1, k2, s


@JIT
def heap_pop(st, mode):
    """Remove the heap's top entry and return it as (-count, tie key, slot)."""
    h1, h2, hs, sc, p_left, p_right = st.h1, st.h2, st.hs, st.sc, st.p_left, st.p_right
    t1, t2, ts = h1[0], h2[0], hs[0]
    n = sc[HEAP_N] - 1
    sc[HEAP_N] = n
    if n > 0:
        k1, k2, s = h1[n], h2[n], hs[n]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and heap_less(st, mode, p_left, p_right, h1[c + 1], h2[c + 1], hs[c + 1], h1[c], h2[c], hs[c]):
                c += 1
            if not heap_less(st, mode, p_left, p_right, h1[c], h2[c], hs[c], k1, k2, s):
                break
            h1[i], h2[i], hs[i] = h1[c], h2[c], hs[c]
            i = c
        h1[i], h2[i], hs[i] = k1, k2, s
    return t1, t2, ts


# -- pairs ---------------------------------------------------------------------------------


@JIT
def holds(tok, nxt, left, right, i):
    return tok[i] == left and tok[nxt[i]] == right


@JIT
def first_position(st, s):
    """The slot's first live position; pool entries before it are dead for good."""
    tok, nxt, pool = st.tok, st.nxt, st.pool
    left, right, start, k = st.p_left[s], st.p_right[s], st.p_start[s], st.p_skip[s]
    while not holds(tok, nxt, left, right, pool[start + k]):
        k += 1
    st.p_skip[s] = k
    return pool[start + k]


@JIT
def pair_count(st, s, overlapping):
    """The pair's count by the counting rule: a run `a a a` holds one non-overlapping `a a`."""
    count = st.p_count[s]
    token = st.p_left[s]
    if count <= 0 or overlapping or token != st.p_right[s]:
        return count
    total, last_right = 0, -1
    tok, nxt, pool, wt = st.tok, st.nxt, st.pool, st.wt
    for q in range(st.p_start[s] + st.p_skip[s], st.p_start[s] + st.p_len[s]):
        i = pool[q]
        j = nxt[i]
        if tok[i] == token and tok[j] == token and i != last_right:
            total += wt[i]
            last_right = j
    return total


@JIT
def tie_key(st, mode, s, position):
    if mode == POSITION:
        return np.int64(position)
    if mode == IDS:
        return st.p_left[s] * ID_SHIFT + st.p_right[s]
    if mode == HF:
        hfmap = st.hfmap
        return hfmap[st.p_left[s]] * ID_SHIFT + hfmap[st.p_right[s]]
    return np.int64(0)


@JIT
def pop_best(st, mode, overlapping):
    """Pop the best live pair with its exact key, fixing stale entries on the way; slot -1 when none is left."""
    sc, p_count, p_left, p_right, tok, nxt = st.sc, st.p_count, st.p_left, st.p_right, st.tok, st.nxt
    while sc[HEAP_N] > 0:
        k1, k2, s = heap_pop(st, mode)
        if p_count[s] <= 0:
            continue  # gone: its last occurrence was merged away
        count = pair_count(st, s, overlapping)
        if mode == POSITION:
            position = k2
            if not holds(tok, nxt, p_left[s], p_right[s], position):
                position = first_position(st, s)
            if count != -k1 or position != k2:
                heap_push(st, mode, -count, position, s)
                continue
        elif count != -k1:
            heap_push(st, mode, -count, k2, s)
            continue
        return k1, k2, s
    return np.int64(0), np.int64(0), -1


@JIT
def take_best(st, mode, overlapping, max_ties, record_top, out_ties, out_top, m):
    """Pop the best pair, then its ties and followers up to record_top, recording them in row m; push followers back.

    Returns (-count, tie key, slot, ties, top rows) of the best, slot -1 when no pair is left.
    """
    b1, b2, best = pop_best(st, mode, overlapping)
    if best < 0:
        return b1, b2, best, 0, 0
    count = -b1
    p_left, p_right, h1, sc = st.p_left, st.p_right, st.h1, st.sc
    held1, held2, helds = st.held1, st.held2, st.helds
    n_held, n_ties = 0, 0
    while sc[HEAP_N] > 0:
        want_top = n_held < record_top - 1
        want_tie = n_ties == n_held and n_ties < max_ties and -h1[0] >= count
        if not (want_top or want_tie):
            break
        o1, o2, other = pop_best(st, mode, overlapping)
        if other < 0:
            break
        if -o1 == count and n_ties == n_held and n_ties < max_ties:
            out_ties[m, n_ties, 0], out_ties[m, n_ties, 1] = p_left[other], p_right[other]
            n_ties += 1
        held1[n_held], held2[n_held], helds[n_held] = o1, o2, other
        n_held += 1
    n_top = min(record_top, n_held + 1)
    for k in range(n_top):
        s, c = (best, count) if k == 0 else (helds[k - 1], -held1[k - 1])
        out_top[m, k, 0], out_top[m, k, 1], out_top[m, k, 2] = p_left[s], p_right[s], c
    for k in range(n_held):
        heap_push(st, mode, held1[k], held2[k], helds[k])
    return b1, b2, best, n_ties, n_top
