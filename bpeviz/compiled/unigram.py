"""Unigram training's kernels in numba (the `fast` extra): Viterbi, the E step, the losses of pruning, reachability.

`engine/unigram_compiled.py` calls them as `engine/unigram_python.py`'s steps, with the same float operations in the
same order. The words are one array of code points and the lattices arrays of nodes (lattice.py); the loops run
without the GIL.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bpeviz.core.numeric import digamma

_digamma = njit(cache=True, nogil=True)(digamma)


@njit(cache=True, nogil=True)
def _viterbi(st, en, pc, a, b, n, scores, unk, best, back, without_whole=False):
    """Model.viterbi over nodes a..b of a word of n characters: fills back (node per end); ties to the earlier node.

    without_whole: leave out the node that spans the whole word (a piece's second-best cut).
    """
    best[0] = 0.0
    for e in range(1, n + 1):
        back[e] = -1
    for k in range(a, b):
        if without_whole and st[k] == 0 and en[k] == n:
            continue
        i = pc[k]
        s = best[st[k]] + (scores[i] if i >= 0 else unk)
        if back[en[k]] < 0 or s > best[en[k]]:
            best[en[k]], back[en[k]] = s, k


@njit(cache=True, nogil=True)
def _path_length(st, back, n):
    length, e = 0, n
    while e > 0:
        e = st[back[e]]
        length += 1
    return length


@njit(cache=True, nogil=True)
def _add_log(a, b):
    """log(exp(a) + exp(b)) as Model.forward_backward adds (a may be -inf)."""
    if a == -np.inf:
        return b
    return a + math.log1p(math.exp(b - a)) if a > b else b + math.log1p(math.exp(a - b))


@njit(cache=True, nogil=True)
def _e_step(st, en, pc, noff, off, counts, scores, unk, total, longest_word):
    """unigram_train._e_step: expected counts, the objective, and the corpus's length in pieces under Viterbi."""
    expected = np.zeros(len(scores))
    alpha, beta = np.empty(longest_word + 1), np.empty(longest_word + 1)
    best, back = np.empty(longest_word + 1), np.empty(longest_word + 1, np.int64)
    objective, tokens = 0.0, 0
    for w in range(len(off) - 1):
        n, a, b, cnt = off[w + 1] - off[w], noff[w], noff[w + 1], counts[w]
        alpha[:n + 1] = -np.inf
        beta[:n + 1] = -np.inf
        alpha[0] = beta[n] = 0.0
        for k in range(a, b):
            alpha[en[k]] = _add_log(alpha[en[k]], alpha[st[k]] + (scores[pc[k]] if pc[k] >= 0 else unk))
        for k in range(b - 1, a - 1, -1):
            beta[st[k]] = _add_log(beta[st[k]], beta[en[k]] + (scores[pc[k]] if pc[k] >= 0 else unk))
        z = alpha[n]
        for k in range(a, b):
            s = scores[pc[k]] if pc[k] >= 0 else unk
            expected[max(pc[k], 0)] += cnt * math.exp(alpha[st[k]] + s + beta[en[k]] - z)
        objective -= cnt * z / total
        _viterbi(st, en, pc, a, b, n, scores, unk, best, back)
        tokens += cnt * _path_length(st, back, n)
    return expected, objective, tokens


@njit(cache=True, nogil=True)
def _m_step_scores(kept, logsum):
    out = np.empty(len(kept))
    for k in range(len(kept)):
        out[k] = np.float32(_digamma(kept[k]) - logsum)
    return out


@njit(cache=True, nogil=True)
def _alternatives(st, en, pc, noff, p_off, scores, unk, longest):
    """unigram_train._prune's first loop: whether each piece is ever used whole, and its second-best cut (flat)."""
    size = len(p_off) - 1
    always = np.ones(size, np.bool_)
    alt_off, alt = np.zeros(size + 1, np.int64), np.empty(noff[size], np.int64)
    best, back = np.empty(longest + 1), np.empty(longest + 1, np.int64)
    m = 0
    for i in range(size):
        alt_off[i] = m
        n, a, b = p_off[i + 1] - p_off[i], noff[i], noff[i + 1]
        if n > 1:
            _viterbi(st, en, pc, a, b, n, scores, unk, best, back)
            if _path_length(st, back, n) >= 2:
                always[i] = False
            else:
                _viterbi(st, en, pc, a, b, n, scores, unk, best, back, True)
                e, first = n, m
                while e > 0:
                    alt[m] = max(pc[back[e]], 0)
                    m += 1
                    e = st[back[e]]
                alt[first:m] = alt[first:m][::-1].copy()
    alt_off[size] = m
    return always, alt_off, alt[:m]


@njit(cache=True, nogil=True)
def _uses(st, en, pc, noff, off, counts, scores, unk, longest_word):
    """How often each piece is used in the words' best segmentations (an unknown character's: piece 0's)."""
    freq = np.zeros(len(scores))
    best, back = np.empty(longest_word + 1), np.empty(longest_word + 1, np.int64)
    for w in range(len(off) - 1):
        n = off[w + 1] - off[w]
        _viterbi(st, en, pc, noff[w], noff[w + 1], n, scores, unk, best, back)
        e = n
        while e > 0:
            freq[max(pc[back[e]], 0)] += counts[w]
            e = st[back[e]]
    return freq


@njit(cache=True, nogil=True)
def _f32(x):
    return np.float64(np.float32(x))


@njit(cache=True, nogil=True)
def _losses(freq, always, alt_off, alt, total):
    """unigram_train._prune's float32 loss of each piece: kind 0 dropped, 1 kept (no alternative), 2 a candidate."""
    size = len(freq)
    kind, loss = np.zeros(size, np.int64), np.zeros(size)
    logsum = _f32(math.log(total))
    for i in range(size):
        if freq[i] == 0 or not always[i]:
            continue
        if alt_off[i + 1] == alt_off[i]:
            kind[i] = 1
            continue
        kind[i] = 2
        logprob = _f32(math.log(freq[i]) - logsum)
        logsum_alt = _f32(math.log(_f32(total + _f32(freq[i] * (alt_off[i + 1] - alt_off[i] - 1)))))
        logprob_alt = 0.0
        for j in alt[alt_off[i]:alt_off[i + 1]]:
            logprob_alt = _f32(logprob_alt + math.log(_f32(freq[j] + freq[i])) - logsum_alt)
        loss[i] = _f32(_f32(freq[i] / total) * _f32(logprob - logprob_alt))
    return kind, loss


@njit(cache=True, nogil=True)
def _reachable(st, en, pc, noff, p_off, scores, unk, longest):
    """unigram_train._reachable: pieces of one character, and those whose best other cut scores no higher."""
    size = len(p_off) - 1
    keep = np.ones(size, np.bool_)
    best, back = np.empty(longest + 1), np.empty(longest + 1, np.int64)
    for i in range(size):
        n = p_off[i + 1] - p_off[i]
        if n > 1:
            _viterbi(st, en, pc, noff[i], noff[i + 1], n, scores, unk, best, back, True)
            total, e = 0.0, n
            steps = np.empty(n, np.float64)
            m = 0
            while e > 0:
                j = pc[back[e]]
                steps[m] = scores[j] if j >= 0 else unk
                m += 1
                e = st[back[e]]
            for t in range(m - 1, -1, -1):
                total += steps[t]
            keep[i] = total <= scores[i]
    return keep
