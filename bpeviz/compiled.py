"""The compiled merge loop: trainer._Trainer's algorithm in numba, for big corpora.

Needs the optional `fast` extra (numba); importing this module imports numba. The Python
trainer in `trainer.py` stays the reference: this one must give the same RawMerge records,
merge for merge (tests/test_compiled.py runs both). The layout is the same (one array of every
distinct pre-token's ids, a separator around each, a linked list over positions), without a
hash map in the loop:

- a pair lives in a slot; each position remembers the slot of the pair that starts there, so a
  merge finds the pairs it breaks directly;
- a pair is born only in the merge that makes its new token, with all its positions at once, so
  its positions are one slice of an append-only pool; dense tables indexed by the neighbouring
  token group them and are reset after the merge;
- the heap holds one entry per live pair, (-count, tie key, slot) in parallel arrays; counts only
  fall and positions only die, so entries are lower bounds, fixed when they surface;
- ties and top pairs: pop the next exact entries after the best, record them, push them back.

The loop runs in chunks (progress is called between them, and arrays grow between them when a
merge needs more room), without the GIL: other sessions keep running while one trains.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np
from numba import njit

from .records import MAX_TIES_RECORDED
from .rules import HF_BYTE_ORDER
from .trainer import ID_SHIFT, SEPARATOR, Pair, RawMerge, Rules

DEAD = -1  # a position merged away
MODES = {"position": 0, "ids": 1, "hf-ids": 2, "text": 3}  # the tie rule's kind -> the heap's order
POSITION, IDS, HF, TEXT = 0, 1, 2, 3
# state.sc: the scalars the loop updates
HEAP_N, N_SLOTS, POOL_N, TOTAL, TEXT_N, NEED_SLOTS, NEED_POOL, NEED_TEXT = range(8)
OK, EMPTY, NEED_ROOM = 0, 1, 2  # why a chunk stopped
TEXT_ROOM_PER_TOKEN = 64  # bytes first set aside per merged token's text (grown when a merge needs more)
FNV_OFFSET, FNV_PRIME = np.uint64(0xCBF29CE484222325), np.uint64(0x100000001B3)
SPACE_KEY = "▁".encode()  # the text rule reads a space as SentencePiece's ▁
_jit = njit(cache=True, nogil=True, _nrt=False)  # no reference counts: the loop allocates nothing


class State(NamedTuple):
    """Everything the loop reads and writes, as arrays (numba passes a NamedTuple of arrays by reference)."""

    tok: np.ndarray  # position -> token id, SEPARATOR, or DEAD
    nxt: np.ndarray  # position -> next live position
    prv: np.ndarray  # position -> previous live position
    wt: np.ndarray  # position -> its pre-token's count
    slot_at: np.ndarray  # position -> slot of the pair that starts there (valid while that pair lives there)
    pool: np.ndarray  # positions of every pair, one slice per slot, ascending
    p_left: np.ndarray  # slot -> left id
    p_right: np.ndarray  # slot -> right id
    p_count: np.ndarray  # slot -> weighted overlapping count (<= 0: gone)
    p_start: np.ndarray  # slot -> its slice in pool
    p_len: np.ndarray
    p_skip: np.ndarray  # slot -> leading pool entries known dead
    h1: np.ndarray  # heap: -count (an upper bound on the count)
    h2: np.ndarray  # heap: tie key (first position, packed ids, HF ids; 0 for the text rule)
    hs: np.ndarray  # heap: slot
    hfmap: np.ndarray  # id -> its id in HF's byte order
    t_off: np.ndarray  # id -> its text's offset in tb and kb (texts only when a rule reads them)
    t_blen: np.ndarray  # id -> length of its UTF-8 in tb
    k_blen: np.ndarray  # id -> length of its sort bytes in kb (a space as ▁)
    t_len: np.ndarray  # id -> length of its text (characters, or bytes at level bytes)
    t_hash: np.ndarray  # id -> FNV-1a of its UTF-8
    tb: np.ndarray
    kb: np.ndarray
    known: np.ndarray  # open-addressing set of token texts (unique tokens), by id; -1 empty
    n_grp: np.ndarray  # scratch, by neighbouring token: positions in this merge
    w_grp: np.ndarray  # scratch: their weight
    s_grp: np.ndarray  # scratch: the slice offset, then the new slot
    buf_tok: np.ndarray  # scratch: neighbours of this merge's occurrences (after in the first half, before in the second)
    buf_pos: np.ndarray
    touched: np.ndarray
    index_key: np.ndarray  # when replaying: open-addressing table, packed pair -> slot (-1 empty)
    index_slot: np.ndarray
    held1: np.ndarray  # scratch: entries popped after the best, pushed back
    held2: np.ndarray
    helds: np.ndarray
    sc: np.ndarray  # HEAP_N, N_SLOTS, POOL_N, TOTAL, TEXT_N, and what a merge that did not fit needs


class Out(NamedTuple):
    """What each merge records, one row per merge."""

    left: np.ndarray
    right: np.ndarray
    count: np.ndarray
    after: np.ndarray
    n_ties: np.ndarray
    ties: np.ndarray  # (merge, tie, left/right)
    n_top: np.ndarray
    top: np.ndarray  # (merge, rank, left/right/count)


# -- the heap ------------------------------------------------------------------------------
# Hot helpers take arrays, not the state: reading an array out of the state costs a reference
# count (an atomic add) each time, which in the inner loops was a third of the time.


@_jit
def _text_cmp(st, s1, s2):
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


@_jit
def _less(st, mode, p_left, p_right, a1, a2, sa, b1, b2, sb):
    """Heap order: the higher count, then the tie key (the text rule compares texts), then the packed pair."""
    if a1 != b1:
        return a1 < b1
    if mode == TEXT:
        c = _text_cmp(st, sa, sb)
        if c != 0:
            return c < 0
    elif a2 != b2:
        return a2 < b2
    return p_left[sa] * ID_SHIFT + p_right[sa] < p_left[sb] * ID_SHIFT + p_right[sb]


@_jit
def _push(st, mode, k1, k2, s):
    h1, h2, hs, sc, p_left, p_right = st.h1, st.h2, st.hs, st.sc, st.p_left, st.p_right
    i = sc[HEAP_N]
    sc[HEAP_N] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        if not _less(st, mode, p_left, p_right, k1, k2, s, h1[parent], h2[parent], hs[parent]):
            break
        h1[i], h2[i], hs[i] = h1[parent], h2[parent], hs[parent]
        i = parent
    h1[i], h2[i], hs[i] = k1, k2, s


@_jit
def _pop(st, mode):
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
            if c + 1 < n and _less(st, mode, p_left, p_right, h1[c + 1], h2[c + 1], hs[c + 1], h1[c], h2[c], hs[c]):
                c += 1
            if not _less(st, mode, p_left, p_right, h1[c], h2[c], hs[c], k1, k2, s):
                break
            h1[i], h2[i], hs[i] = h1[c], h2[c], hs[c]
            i = c
        h1[i], h2[i], hs[i] = k1, k2, s
    return t1, t2, ts


# -- pairs ---------------------------------------------------------------------------------


@_jit
def _holds(tok, nxt, left, right, i):
    return tok[i] == left and tok[nxt[i]] == right


@_jit
def _first_position(st, s):
    """The slot's first live position; pool entries before it are dead for good."""
    tok, nxt, pool = st.tok, st.nxt, st.pool
    left, right, start, k = st.p_left[s], st.p_right[s], st.p_start[s], st.p_skip[s]
    while not _holds(tok, nxt, left, right, pool[start + k]):
        k += 1
    st.p_skip[s] = k
    return pool[start + k]


@_jit
def _count(st, s, overlapping):
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


@_jit
def _tie_key(st, mode, s, position):
    if mode == POSITION:
        return np.int64(position)
    if mode == IDS:
        return st.p_left[s] * ID_SHIFT + st.p_right[s]
    if mode == HF:
        hfmap = st.hfmap
        return hfmap[st.p_left[s]] * ID_SHIFT + hfmap[st.p_right[s]]
    return np.int64(0)


@_jit
def _pop_best(st, mode, overlapping):
    """Pop the best live pair with its exact key, fixing stale entries on the way; slot -1 when none is left."""
    sc, p_count, p_left, p_right, tok, nxt = st.sc, st.p_count, st.p_left, st.p_right, st.tok, st.nxt
    while sc[HEAP_N] > 0:
        k1, k2, s = _pop(st, mode)
        if p_count[s] <= 0:
            continue  # gone: its last occurrence was merged away
        count = _count(st, s, overlapping)
        if mode == POSITION:
            position = k2
            if not _holds(tok, nxt, p_left[s], p_right[s], position):
                position = _first_position(st, s)
            if count != -k1 or position != k2:
                _push(st, mode, -count, position, s)
                continue
        elif count != -k1:
            _push(st, mode, -count, k2, s)
            continue
        return k1, k2, s
    return np.int64(0), np.int64(0), -1


@_jit
def _take_best(st, mode, overlapping, max_ties, record_top, out_ties, out_top, m):
    """Pop the best pair, then its ties and followers up to record_top, recording them in row m; push followers back.

    Returns (-count, tie key, slot, ties, top rows) of the best, slot -1 when no pair is left.
    """
    b1, b2, best = _pop_best(st, mode, overlapping)
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
        o1, o2, other = _pop_best(st, mode, overlapping)
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
        _push(st, mode, held1[k], held2[k], helds[k])
    return b1, b2, best, n_ties, n_top


# -- texts (for the text rule and unique tokens) -------------------------------------------


@_jit
def _index_put(st, key, s):
    keys, mask = st.index_key, st.index_key.size - 1
    k = (key * 0x9E3779B1) & mask
    while keys[k] >= 0:
        k = (k + 1) & mask
    keys[k], st.index_slot[k] = key, s


@_jit
def _index_get(st, key):
    """The slot of a packed pair, -1 if it never occurred."""
    keys, mask = st.index_key, st.index_key.size - 1
    k = (key * 0x9E3779B1) & mask
    while keys[k] >= 0:
        if keys[k] == key:
            return st.index_slot[k]
        k = (k + 1) & mask
    return -1


@_jit
def _reindex(st):
    for s in range(st.sc[N_SLOTS]):
        _index_put(st, st.p_left[s] * ID_SHIFT + st.p_right[s], s)


@_jit
def _fnv(h, buf, start, n):
    for i in range(start, start + n):
        h = (h ^ np.uint64(buf[i])) * FNV_PRIME
    return h


@_jit
def _same_text(st, t, left, right):
    """Whether token t's UTF-8 is left's followed by right's."""
    nl, nr = st.t_blen[left], st.t_blen[right]
    if st.t_blen[t] != nl + nr:
        return False
    tb, o = st.tb, st.t_off[t]
    for i in range(nl):
        if tb[o + i] != tb[st.t_off[left] + i]:
            return False
    for i in range(nr):  # noqa: SIM110 (numba: a loop, not a generator)
        if tb[o + nl + i] != tb[st.t_off[right] + i]:
            return False
    return True


@_jit
def _known_text(st, left, right):
    """Whether some token already spells left + right."""
    mask = st.known.size - 1
    h = _fnv(st.t_hash[left], st.tb, st.t_off[right], st.t_blen[right])
    k = np.int64(h & np.uint64(mask))
    while st.known[k] >= 0:
        t = st.known[k]
        if st.t_hash[t] == h and _same_text(st, t, left, right):
            return True
        k = (k + 1) & mask
    return False


@_jit
def _remember_text(st, t):
    mask = st.known.size - 1
    k = np.int64(st.t_hash[t] & np.uint64(mask))
    while st.known[k] >= 0:
        k = (k + 1) & mask
    st.known[k] = t


@_jit
def _add_text(st, token, left, right, unique):
    """Token's texts are left's followed by right's (the caller made room)."""
    o = st.sc[TEXT_N]
    nl, nr = st.t_blen[left], st.t_blen[right]
    kl, kr = st.k_blen[left], st.k_blen[right]
    tb, kb, t_off = st.tb, st.kb, st.t_off
    for i in range(nl):
        tb[o + i] = tb[t_off[left] + i]
    for i in range(nr):
        tb[o + nl + i] = tb[t_off[right] + i]
    for i in range(kl):
        kb[o + i] = kb[t_off[left] + i]
    for i in range(kr):
        kb[o + kl + i] = kb[t_off[right] + i]
    st.t_off[token] = o
    st.t_blen[token], st.k_blen[token] = nl + nr, kl + kr
    st.t_len[token] = st.t_len[left] + st.t_len[right]
    st.t_hash[token] = _fnv(st.t_hash[left], st.tb, st.t_off[right], nr)
    st.sc[TEXT_N] = o + max(nl + nr, kl + kr)
    if unique:
        _remember_text(st, token)


@_jit
def _base_texts(st, n_base, unique):
    for t in range(n_base):
        st.t_hash[t] = _fnv(FNV_OFFSET, st.tb, st.t_off[t], st.t_blen[t])
        if unique:
            _remember_text(st, t)


# -- merging -------------------------------------------------------------------------------


@_jit
def _room(st, s, reads_texts):
    """Whether the arrays can take this merge's new pairs (two per occurrence at most) and its text; else note the need."""
    sc, left, right = st.sc, st.p_left[s], st.p_right[s]
    n = 2 * (st.p_len[s] - st.p_skip[s])
    if sc[N_SLOTS] + n > st.p_left.size or sc[POOL_N] + n > st.pool.size:
        tok, nxt, pool = st.tok, st.nxt, st.pool
        n = 0  # dead entries make no pairs: count the live ones
        for q in range(st.p_start[s] + st.p_skip[s], st.p_start[s] + st.p_len[s]):
            n += 2 * _holds(tok, nxt, left, right, pool[q])
    sc[NEED_SLOTS], sc[NEED_POOL], sc[NEED_TEXT] = sc[N_SLOTS] + n, sc[POOL_N] + n, 0
    fits = sc[N_SLOTS] + n <= st.p_left.size and sc[POOL_N] + n <= st.pool.size
    if st.index_key.size > 1:  # replaying: the index stays at most half full
        fits = fits and 2 * (sc[N_SLOTS] + n) <= st.index_key.size
    if reads_texts:
        sc[NEED_TEXT] = sc[TEXT_N] + max(st.t_blen[left] + st.t_blen[right], st.k_blen[left] + st.k_blen[right])
        fits = fits and sc[NEED_TEXT] <= st.tb.size
    return fits


@_jit
def _born(st, mode, overlapping, first, last, new_left, token):
    """Make slots for the pairs of buf[first:last], grouped by neighbour: (token, neighbour) or (neighbour, token)."""
    buf_tok, buf_pos, n_grp, w_grp, s_grp, touched, wt = st.buf_tok, st.buf_pos, st.n_grp, st.w_grp, st.s_grp, st.touched, st.wt
    p_left, p_right, p_count, p_start, p_len, p_skip = st.p_left, st.p_right, st.p_count, st.p_start, st.p_len, st.p_skip
    pool, slot_at, sc = st.pool, st.slot_at, st.sc
    nt = 0
    for q in range(first, last):
        c = buf_tok[q]
        if n_grp[c] == 0:
            touched[nt] = c
            nt += 1
        n_grp[c] += 1
        w_grp[c] += wt[buf_pos[q]]
    keep_index = st.index_key.size > 1
    for k in range(nt):  # a slot and a pool slice per neighbour, in order of first appearance
        c = touched[k]
        s_grp[c] = -1  # every occurrence was undone by the next one (as in "abab"): no pair
        if w_grp[c] > 0:
            s = sc[N_SLOTS]
            sc[N_SLOTS] = s + 1
            if new_left:
                p_left[s], p_right[s] = token, c
            else:
                p_left[s], p_right[s] = c, token
            p_count[s], p_start[s], p_len[s], p_skip[s] = w_grp[c], sc[POOL_N], 0, 0
            sc[POOL_N] += n_grp[c]
            s_grp[c] = s
            if keep_index:
                _index_put(st, p_left[s] * ID_SHIFT + p_right[s], s)
    for q in range(first, last):
        s = s_grp[buf_tok[q]]
        if s >= 0:
            i = buf_pos[q]
            pool[p_start[s] + p_len[s]] = i
            p_len[s] += 1
            slot_at[i] = s
    for k in range(nt):
        c = touched[k]
        s = s_grp[c]
        n_grp[c], w_grp[c] = 0, 0
        if s >= 0:  # its first listed position may be overlapped away: too early is fine, fixed when it surfaces
            _push(st, mode, -_count(st, s, overlapping), _tie_key(st, mode, s, pool[p_start[s]]), s)


@_jit
def _merge(st, mode, overlapping, s, token):
    """Replace the slot's pair by token everywhere, left to right, and make the pairs the new token forms."""
    tok, nxt, prv, wt, pool, slot_at, p_count = st.tok, st.nxt, st.prv, st.wt, st.pool, st.slot_at, st.p_count
    buf_tok, buf_pos = st.buf_tok, st.buf_pos
    left, right = st.p_left[s], st.p_right[s]
    half = buf_tok.size // 2
    n_after, n_before, merged, undone = 0, half, 0, 0
    for q in range(st.p_start[s] + st.p_skip[s], st.p_start[s] + st.p_len[s]):
        i = pool[q]
        if tok[i] != left:
            continue
        j = nxt[i]
        if tok[j] != right:
            continue  # an overlapping occurrence already merged (as in "aaa")
        p, k, w = prv[i], nxt[j], wt[i]
        tp, tk = tok[p], tok[k]
        if tp != SEPARATOR:
            if tp == token:  # the occurrence before was merged too: its (token, left) is gone again
                undone += w
            else:
                p_count[slot_at[p]] -= w
            buf_tok[n_before], buf_pos[n_before] = tp, p
            n_before += 1
        if tk != SEPARATOR:
            if slot_at[j] != s:
                p_count[slot_at[j]] -= w
            buf_tok[n_after], buf_pos[n_after] = tk, i
            n_after += 1
        tok[i], tok[j] = token, DEAD
        nxt[i], prv[k] = k, i
        merged += w
    p_count[s] = 0
    st.w_grp[left] -= undone  # (token, left) loses what the next occurrence took back
    _born(st, mode, overlapping, 0, n_after, True, token)
    _born(st, mode, overlapping, half, n_before, False, token)  # after the other: a shared position is (token, token)
    st.sc[TOTAL] -= merged


@_jit
def train_chunk(st, out, mode, overlapping, unique, reads_texts, first_token, m, stop, row0, record_top):
    """Learn merges m .. stop-1 into rows m - row0 of out; returns (merges done, OK | EMPTY | NEED_ROOM)."""
    while m < stop:
        r = _take_best(st, mode, overlapping, MAX_TIES_RECORDED, record_top, out.ties, out.top, m - row0)
        b1, b2, s = r[0], r[1], r[2]
        if s < 0:
            return m, EMPTY
        if not _room(st, s, reads_texts):
            _push(st, mode, b1, b2, s)
            return m, NEED_ROOM
        left, right = st.p_left[s], st.p_right[s]
        if unique and _known_text(st, left, right):
            st.p_count[s] = 0  # made by another path already: learned once (SentencePiece)
            continue
        token = first_token + m
        if reads_texts:
            _add_text(st, token, left, right, unique)
        _merge(st, mode, overlapping, s, token)
        row = m - row0
        out.left[row], out.right[row], out.count[row], out.after[row] = left, right, -b1, st.sc[TOTAL]
        out.n_ties[row], out.n_top[row] = r[3], r[4]
        m += 1
    return m, OK


@_jit
def replay_chunk(st, out, mode, overlapping, reads_texts, first_token, pairs, m, stop, row0, record_top):
    """Apply pairs[m .. stop-1] in order, recording each one's count here and the best pairs before it."""
    while m < stop:
        left, right = pairs[m, 0], pairs[m, 1]
        s = _index_get(st, np.int64(left) * ID_SHIFT + right)
        count = max(_count(st, s, overlapping), 0) if s >= 0 else 0
        if count > 0 and not _room(st, s, reads_texts):
            return m, NEED_ROOM
        if count == 0 and reads_texts:
            st.sc[NEED_SLOTS], st.sc[NEED_POOL] = 0, 0
            st.sc[NEED_TEXT] = st.sc[TEXT_N] + max(st.t_blen[left] + st.t_blen[right], st.k_blen[left] + st.k_blen[right])
            if st.sc[NEED_TEXT] > st.tb.size:
                return m, NEED_ROOM
        row = m - row0
        out.n_top[row] = 0
        if record_top:
            r = _take_best(st, mode, overlapping, 0, record_top, out.ties, out.top, row)
            if r[2] >= 0:
                _push(st, mode, r[0], r[1], r[2])
                out.n_top[row] = r[4]
        token = first_token + m
        if reads_texts:
            _add_text(st, token, left, right, False)
        if count > 0:
            _merge(st, mode, overlapping, s, token)
        out.left[row], out.right[row], out.count[row], out.after[row], out.n_ties[row] = left, right, count, st.sc[TOTAL], 0
        m += 1
    return m, OK


@_jit
def _start(st, mode, overlapping, n_pairs, n_base, reads_texts, unique):
    """The heap of the first pairs, the index (when replaying) and the base texts' hashes."""
    for s in range(n_pairs):
        _push(st, mode, -_count(st, s, overlapping), _tie_key(st, mode, s, st.pool[st.p_start[s]]), s)
        if st.index_key.size > 1:
            _index_put(st, st.p_left[s] * ID_SHIFT + st.p_right[s], s)
    if reads_texts:
        _base_texts(st, n_base, unique)


# -- from Python ---------------------------------------------------------------------------


def _layout(sequences: Sequence[tuple[Sequence[int], int]]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids with a separator around every sequence, and each position's weight (trainer._Trainer's layout)."""
    kept = [(ids, w) for ids, w in sequences if w > 0 and len(ids)]
    lens = np.fromiter((len(ids) for ids, _ in kept), np.int64, len(kept))
    weights = np.fromiter((w for _, w in kept), np.int64, len(kept))
    n = int(lens.sum()) + len(kept) + 1
    tok = np.full(n, SEPARATOR, np.int32)
    word = np.ones(n, bool)
    word[0] = False
    word[np.cumsum(lens + 1)] = False
    if kept and all(isinstance(ids, bytes) for ids, _ in kept):
        tok[word] = np.frombuffer(b"".join(ids for ids, _ in kept), np.uint8)  # type: ignore[misc]
    else:
        tok[word] = np.fromiter(chain.from_iterable(ids for ids, _ in kept), np.int64, int(lens.sum()))
    wt = np.zeros(n, np.int64)
    wt[1:] = np.repeat(weights, lens + 1)
    return tok, wt


def _pairs(tok: np.ndarray, wt: np.ndarray) -> dict[str, np.ndarray]:
    """Every adjacent pair's slot: its ids, weighted count and ascending positions (slices of one pool)."""
    idx = np.flatnonzero((tok[:-1] >= 0) & (tok[1:] >= 0))
    base = int(tok.max(initial=0)) + 1
    keys = tok[idx].astype(np.int64) * base + tok[idx + 1]
    # a stable sort of 16-bit keys is a radix sort, several times faster (bytes: 256 x 256 pairs)
    order = np.argsort(keys.astype(np.uint16) if base <= 256 else keys, kind="stable")
    keys, positions = keys[order], idx[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, np.int64)
    lengths = np.diff(np.r_[starts, len(keys)])
    slot_at = np.full(len(tok), -1, np.int32)
    slot_at[positions] = np.repeat(np.arange(len(starts)), lengths)
    counts = np.add.reduceat(wt[positions], starts) if len(starts) else np.zeros(0, np.int64)
    keys = keys[starts]
    return {"keys": keys // base * ID_SHIFT + keys % base, "starts": starts, "lengths": lengths, "positions": positions,
            "slot_at": slot_at, "counts": counts}


def _grown(a: np.ndarray, size: int, fill: int = 0) -> np.ndarray:
    if size <= a.size:
        return a
    b = np.full(max(size, 2 * a.size), fill, a.dtype)
    b[:a.size] = a
    return b


def _texts(texts: Sequence[str | bytes], n_tokens: int, room: int) -> dict[str, np.ndarray]:
    """The base symbols' UTF-8 and sort bytes (a space as ▁) in one buffer each, with room for merged tokens."""
    raw = [t.encode("utf-8", "surrogateescape") if isinstance(t, str) else bytes(t) for t in texts]
    keys = [r.replace(b" ", SPACE_KEY) for r in raw]
    blen = np.zeros(n_tokens, np.int64)
    klen = np.zeros(n_tokens, np.int64)
    blen[:len(raw)] = [len(r) for r in raw]
    klen[:len(raw)] = [len(k) for k in keys]
    off = np.zeros(n_tokens, np.int64)
    off[:len(raw)] = np.r_[0, np.cumsum(klen[:len(raw)])[:-1]] if raw else []
    used = int(klen.sum())
    tb = np.zeros(used + room, np.uint8)
    kb = np.zeros(used + room, np.uint8)
    for k, (r, key) in enumerate(zip(raw, keys)):
        tb[off[k]:off[k] + len(r)] = np.frombuffer(r, np.uint8)
        kb[off[k]:off[k] + len(key)] = np.frombuffer(key, np.uint8)
    t_len = np.zeros(n_tokens, np.int64)
    t_len[:len(texts)] = [len(t) for t in texts]
    return {"t_off": off, "t_blen": blen, "k_blen": klen, "t_len": t_len, "tb": tb, "kb": kb, "used": np.int64(used)}


def _state(sequences: Sequence[tuple[Sequence[int], int]], n_tokens: int, rules: Rules, replaying: bool,
           record_top: int) -> tuple[State, int]:
    """The loop's arrays for these sequences, with ids below n_tokens; also the number of first pairs."""
    tok, wt = _layout(sequences)
    n = len(tok)
    first = _pairs(tok, wt)
    n_pairs, n_pos = len(first["starts"]), len(first["positions"])
    # Every merged occurrence removes a position and makes at most two pairs: this much room always suffices
    slots = n_pairs + 2 * n_pos + 16
    pool = np.zeros(3 * n_pos + 16, np.int32)
    pool[:n_pos] = first["positions"]

    def slot_array(values: np.ndarray) -> np.ndarray:
        a = np.zeros(slots, np.int64)
        a[:n_pairs] = values
        return a

    reads_texts = rules.tie.kind == "text" or rules.unique_tokens
    texts = _texts(rules.texts, n_tokens, TEXT_ROOM_PER_TOKEN * n_tokens) if reads_texts else _texts([], 1, 1)
    known = np.full(1 << max(4, (2 * n_tokens).bit_length()) if rules.unique_tokens else 1, -1, np.int64)
    hfmap = np.arange(n_tokens, dtype=np.int64)
    hfmap[:min(256, n_tokens)] = HF_BYTE_ORDER[:min(256, n_tokens)]
    held = max(record_top, MAX_TIES_RECORDED + 1)
    index_size = 1 << (4 * n_pairs + 64).bit_length() if replaying else 1
    sc = np.zeros(8, np.int64)
    sc[N_SLOTS], sc[POOL_N], sc[TEXT_N] = n_pairs, n_pos, texts["used"]
    sc[TOTAL] = int(wt[tok >= 0].sum())
    st = State(
        tok=tok, nxt=np.arange(1, n + 1, dtype=np.int32), prv=np.arange(-1, n - 1, dtype=np.int32), wt=wt,
        slot_at=first["slot_at"], pool=pool, p_left=slot_array(first["keys"] // ID_SHIFT),
        p_right=slot_array(first["keys"] % ID_SHIFT), p_count=slot_array(first["counts"]),
        p_start=slot_array(first["starts"]), p_len=slot_array(first["lengths"]), p_skip=np.zeros(slots, np.int64),
        h1=np.zeros(slots, np.int64), h2=np.zeros(slots, np.int64), hs=np.zeros(slots, np.int64), hfmap=hfmap,
        t_off=texts["t_off"], t_blen=texts["t_blen"], k_blen=texts["k_blen"], t_len=texts["t_len"],
        t_hash=np.zeros(len(texts["t_off"]), np.uint64), tb=texts["tb"], kb=texts["kb"], known=known,
        n_grp=np.zeros(n_tokens, np.int64), w_grp=np.zeros(n_tokens, np.int64), s_grp=np.zeros(n_tokens, np.int64),
        buf_tok=np.zeros(2 * n_pos + 2, np.int32), buf_pos=np.zeros(2 * n_pos + 2, np.int32),
        touched=np.zeros(n_tokens, np.int64), index_key=np.full(index_size, -1, np.int64),
        index_slot=np.zeros(index_size, np.int64), held1=np.zeros(held, np.int64), held2=np.zeros(held, np.int64),
        helds=np.zeros(held, np.int64), sc=sc,
    )
    return st, n_pairs


def _make_room(st: State) -> State:
    """Grow what the last merge needed: slots (and the heap), the pool, the text buffers."""
    need_slots, need_pool, need_text = (int(st.sc[k]) for k in (NEED_SLOTS, NEED_POOL, NEED_TEXT))
    grown = {name: _grown(getattr(st, name), need_slots)
             for name in ("p_left", "p_right", "p_count", "p_start", "p_len", "p_skip", "h1", "h2", "hs")}
    grown.update(pool=_grown(st.pool, need_pool), tb=_grown(st.tb, need_text), kb=_grown(st.kb, need_text))
    if 1 < st.index_key.size < 2 * need_slots:
        size = 1 << (4 * need_slots).bit_length()
        grown.update(index_key=np.full(size, -1, np.int64), index_slot=np.zeros(size, np.int64))
        st = st._replace(**grown)
        _reindex(st)
        return st
    return st._replace(**grown)


class _Run:
    """One compiled training or replay: the state, the chunks, the records."""

    def __init__(self, sequences: Sequence[tuple[Sequence[int], int]], n_tokens: int, rules: Rules, replaying: bool,
                 record_top: int) -> None:
        if n_tokens >= ID_SHIFT:
            raise ValueError(f"The compiled engine handles ids below {ID_SHIFT:,}.")
        self.rules = rules
        self.mode = MODES[rules.tie.kind]
        self.reads_texts = rules.tie.kind == "text" or rules.unique_tokens
        self.st, n_pairs = _state(sequences, n_tokens, rules, replaying, record_top)
        _start(self.st, self.mode, rules.overlapping, n_pairs, len(rules.texts), self.reads_texts,
               rules.unique_tokens)

    def chunks(self, n: int, first_token: int, progress: Callable[[int, int], None] | None, record_top: int,
               step: Callable[..., tuple[int, int]], *args: object) -> list[RawMerge]:
        merges: list[RawMerge] = []
        chunk = max(64, min(4096, n // 32 or 1))
        m = 0
        while m < n:
            stop = min(n, m + chunk)
            out = _out(stop - m, record_top)
            row0 = m
            while True:
                m, status = step(self.st, out, self.mode, self.rules.overlapping, *args, first_token, m, stop,
                                 row0, record_top)
                if status != NEED_ROOM:
                    break
                self.st = _make_room(self.st)
            merges += _records(out, m - row0, first_token + row0)
            if progress is not None and m > row0:
                progress(m, n)
            if status == EMPTY:
                break
        return merges


def _out(rows: int, record_top: int) -> Out:
    return Out(left=np.zeros(rows, np.int64), right=np.zeros(rows, np.int64), count=np.zeros(rows, np.int64),
               after=np.zeros(rows, np.int64), n_ties=np.zeros(rows, np.int64),
               ties=np.zeros((rows, MAX_TIES_RECORDED, 2), np.int64), n_top=np.zeros(rows, np.int64),
               top=np.zeros((rows, max(record_top, 1), 3), np.int64))


def _records(out: Out, rows: int, first_token: int) -> list[RawMerge]:
    lefts, rights, counts, afters = (a[:rows].tolist() for a in (out.left, out.right, out.count, out.after))
    ties = [()] * rows
    for k in np.flatnonzero(out.n_ties[:rows]).tolist():
        ties[k] = tuple(map(tuple, out.ties[k, :out.n_ties[k]].tolist()))
    top = [()] * rows
    for k in np.flatnonzero(out.n_top[:rows]).tolist():
        top[k] = tuple(map(tuple, out.top[k, :out.n_top[k]].tolist()))
    return [RawMerge(lefts[k], rights[k], first_token + k, counts[k], ties[k], afters[k], top[k]) for k in range(rows)]


def train_ids(sequences: Sequence[tuple[Sequence[int], int]], n_merges: int, first_token: int, rules: Rules,
              progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
    """trainer.train_ids, compiled: the same merges and records."""
    if n_merges <= 0:
        return []
    run = _Run(sequences, first_token + n_merges, rules, False, record_top)
    return run.chunks(n_merges, first_token, progress, record_top, train_chunk, rules.unique_tokens, run.reads_texts)


def replay_ids(sequences: Sequence[tuple[Sequence[int], int]], pairs: Sequence[Pair], first_token: int, rules: Rules,
               progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
    """trainer.replay_ids, compiled: each pair's count at its step, the corpus length after it, the best pairs before it."""
    table = np.array(pairs, np.int64).reshape(-1, 2)
    if len(table) and (table.min() < 0 or (table.max(axis=1) >= first_token + np.arange(len(table))).any()):
        raise ValueError("Each replayed pair must join ids made before it.")
    if not len(table):
        return []
    run = _Run(sequences, first_token + len(table), rules, True, record_top)
    return run.chunks(len(table), first_token, progress, record_top, _replay_step, run.reads_texts, table)


def _replay_step(st, out, mode, overlapping, reads_texts, table, first_token, m, stop, row0, record_top):
    return replay_chunk(st, out, mode, overlapping, reads_texts, first_token, table, m, stop, row0, record_top)


def warm() -> None:
    """Compile (or load from numba's cache) every rule's loop on a tiny corpus."""
    from .trainer import rules_for

    seqs = [(b"abab aaa", 2), (b"ba", 1)]
    for name in ("first", "smallest", "hf", "sentencepiece"):
        rules = rules_for(name, "overlapping", [bytes([b]) for b in range(256)], name == "sentencepiece")
        train_ids(seqs, 4, 256, rules, record_top=3)
        replay_ids(seqs, [(97, 98)], 256, rules, record_top=3)
    train_ids(seqs, 4, 256, rules_for("first", "nonoverlapping"))
