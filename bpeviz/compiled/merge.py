"""The compiled loop's merge step (numba): texts for the rules that read them, a merge, a chunk of merges.

See `compiled.py` for the layout and `trainer.py` for the same algorithm in readable Python.
"""

from __future__ import annotations

import numpy as np

from bpeviz.core.ids import ID_SHIFT, SEPARATOR
from bpeviz.core.records import MAX_TIES_RECORDED

from .heap import (
    DEAD,
    EMPTY,
    FNV_OFFSET,
    FNV_PRIME,
    JIT,
    N_SLOTS,
    NEED_POOL,
    NEED_ROOM,
    NEED_SLOTS,
    NEED_TEXT,
    OK,
    POOL_N,
    TEXT_N,
    TOTAL,
    heap_push,
    holds,
    pair_count,
    take_best,
    tie_key,
)

# -- texts (for the text rule and unique tokens) -------------------------------------------


@JIT
def index_put(st, key, s):
    keys, mask = st.index_key, st.index_key.size - 1
    k = (key * 0x9E3779B1) & mask
    while keys[k] >= 0:
        k = (k + 1) & mask
    keys[k], st.index_slot[k] = key, s


@JIT
def index_get(st, key):
    """The slot of a packed pair, -1 if it never occurred."""
    keys, mask = st.index_key, st.index_key.size - 1
    k = (key * 0x9E3779B1) & mask
    while keys[k] >= 0:
        if keys[k] == key:
            return st.index_slot[k]
        k = (k + 1) & mask
    return -1


@JIT
def reindex(st):
    for s in range(st.sc[N_SLOTS]):
        index_put(st, st.p_left[s] * ID_SHIFT + st.p_right[s], s)


@JIT
def fnv(h, buf, start, n):
    for i in range(start, start + n):
        h = (h ^ np.uint64(buf[i])) * FNV_PRIME
    return h


@JIT
def same_text(st, t, left, right):
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


@JIT
def known_text(st, left, right):
    """Whether some token already spells left + right."""
    mask = st.known.size - 1
    h = fnv(st.t_hash[left], st.tb, st.t_off[right], st.t_blen[right])
    k = np.int64(h & np.uint64(mask))
    while st.known[k] >= 0:
        t = st.known[k]
        if st.t_hash[t] == h and same_text(st, t, left, right):
            return True
        k = (k + 1) & mask
    return False


@JIT
def remember_text(st, t):
    mask = st.known.size - 1
    k = np.int64(st.t_hash[t] & np.uint64(mask))
    while st.known[k] >= 0:
        k = (k + 1) & mask
    st.known[k] = t


@JIT
def add_text(st, token, left, right, unique):
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
    st.t_hash[token] = fnv(st.t_hash[left], st.tb, st.t_off[right], nr)
    st.sc[TEXT_N] = o + max(nl + nr, kl + kr)
    if unique:
        remember_text(st, token)


@JIT
def base_texts(st, n_base, unique):
    for t in range(n_base):
        st.t_hash[t] = fnv(FNV_OFFSET, st.tb, st.t_off[t], st.t_blen[t])
        if unique:
            remember_text(st, t)


# -- merging -------------------------------------------------------------------------------


@JIT
def room(st, s, reads_texts):
    """Whether the arrays can take this merge's new pairs (two per occurrence at most) and its text; else note the need."""
    sc, left, right = st.sc, st.p_left[s], st.p_right[s]
    n = 2 * (st.p_len[s] - st.p_skip[s])
    if sc[N_SLOTS] + n > st.p_left.size or sc[POOL_N] + n > st.pool.size:
        tok, nxt, pool = st.tok, st.nxt, st.pool
        n = 0  # dead entries make no pairs: count the live ones
        for q in range(st.p_start[s] + st.p_skip[s], st.p_start[s] + st.p_len[s]):
            n += 2 * holds(tok, nxt, left, right, pool[q])
    sc[NEED_SLOTS], sc[NEED_POOL], sc[NEED_TEXT] = sc[N_SLOTS] + n, sc[POOL_N] + n, 0
    fits = sc[N_SLOTS] + n <= st.p_left.size and sc[POOL_N] + n <= st.pool.size
    if st.index_key.size > 1:  # replaying: the index stays at most half full
        fits = fits and 2 * (sc[N_SLOTS] + n) <= st.index_key.size
    if reads_texts:
        sc[NEED_TEXT] = sc[TEXT_N] + max(st.t_blen[left] + st.t_blen[right], st.k_blen[left] + st.k_blen[right])
        fits = fits and sc[NEED_TEXT] <= st.tb.size
    return fits


@JIT
def born(st, mode, overlapping, first, last, new_left, token):
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
                index_put(st, p_left[s] * ID_SHIFT + p_right[s], s)
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
            heap_push(st, mode, -pair_count(st, s, overlapping), tie_key(st, mode, s, pool[p_start[s]]), s)


@JIT
def merge_slot(st, mode, overlapping, s, token):
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
    born(st, mode, overlapping, 0, n_after, True, token)
    born(st, mode, overlapping, half, n_before, False, token)  # after the other: a shared position is (token, token)
    st.sc[TOTAL] -= merged


@JIT
def train_chunk(st, out, mode, overlapping, unique, reads_texts, first_token, m, stop, row0, record_top):
    """Learn merges m .. stop-1 into rows m - row0 of out; returns (merges done, OK | EMPTY | NEED_ROOM)."""
    while m < stop:
        r = take_best(st, mode, overlapping, MAX_TIES_RECORDED, record_top, out.ties, out.top, m - row0)
        b1, b2, s = r[0], r[1], r[2]
        if s < 0:
            return m, EMPTY
        if not room(st, s, reads_texts):
            heap_push(st, mode, b1, b2, s)
            return m, NEED_ROOM
        left, right = st.p_left[s], st.p_right[s]
        if unique and known_text(st, left, right):
            st.p_count[s] = 0  # made by another path already: learned once (SentencePiece)
            continue
        token = first_token + m
        if reads_texts:
            add_text(st, token, left, right, unique)
        merge_slot(st, mode, overlapping, s, token)
        row = m - row0
        out.left[row], out.right[row], out.counts[row], out.after[row] = left, right, -b1, st.sc[TOTAL]
        out.n_ties[row], out.n_top[row] = r[3], r[4]
        m += 1
    return m, OK


@JIT
def replay_chunk(st, out, mode, overlapping, reads_texts, first_token, pairs, m, stop, row0, record_top):
    """Apply pairs[m .. stop-1] in order, recording each one's count here and the best pairs before it."""
    while m < stop:
        left, right = pairs[m, 0], pairs[m, 1]
        s = index_get(st, np.int64(left) * ID_SHIFT + right)
        count = max(pair_count(st, s, overlapping), 0) if s >= 0 else 0
        if count > 0 and not room(st, s, reads_texts):
            return m, NEED_ROOM
        if count == 0 and reads_texts:
            st.sc[NEED_SLOTS], st.sc[NEED_POOL] = 0, 0
            st.sc[NEED_TEXT] = st.sc[TEXT_N] + max(st.t_blen[left] + st.t_blen[right], st.k_blen[left] + st.k_blen[right])
            if st.sc[NEED_TEXT] > st.tb.size:
                return m, NEED_ROOM
        row = m - row0
        out.n_top[row] = 0
        if record_top:
            r = take_best(st, mode, overlapping, 0, record_top, out.ties, out.top, row)
            if r[2] >= 0:
                heap_push(st, mode, r[0], r[1], r[2])
                out.n_top[row] = r[4]
        token = first_token + m
        if reads_texts:
            add_text(st, token, left, right, False)
        if count > 0:
            merge_slot(st, mode, overlapping, s, token)
        out.left[row], out.right[row], out.counts[row], out.after[row], out.n_ties[row] = left, right, count, st.sc[TOTAL], 0
        m += 1
    return m, OK


@JIT
def start_heap(st, mode, overlapping, n_pairs, n_base, reads_texts, unique):
    """The heap of the first pairs, the index (when replaying) and the base texts' hashes."""
    for s in range(n_pairs):
        heap_push(st, mode, -pair_count(st, s, overlapping), tie_key(st, mode, s, st.pool[st.p_start[s]]), s)
        if st.index_key.size > 1:
            index_put(st, st.p_left[s] * ID_SHIFT + st.p_right[s], s)
    if reads_texts:
        base_texts(st, n_base, unique)
