"""Many segmentations of one text with BPE-dropout (Provilkov et al. 2020). Unigram's own sampling (Kudo 2018) is a
method of its tokenizer: `UnigramTokenizer.sample` and `sample_counts` in unigram.py.

BPE-dropout follows HF tokenizers' `BPE(dropout=p)` merge loop, word by word: candidate merges
wait in a queue ordered by (rank, position); each time one comes up it is skipped with
probability p and set aside, and the set-aside ones return to the queue after the next merge
that is made (so a skipped merge can still happen later; when the queue runs dry they are lost).
With p = 0 nothing is skipped and the result is the ordinary encoding. Randomness comes from a
seeded `random.Random`: the same seed gives the same samples on every machine.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from dataclasses import dataclass

from bpeviz.core.records import Token
from bpeviz.pre_tokenizers import splits

from .bpe import Tokenizer


@dataclass(frozen=True)
class DropoutStep:
    """One merge that came up in a dropout encoding: made, or skipped by chance."""

    rank: int
    left: Token
    right: Token
    skipped: bool


def dropout_word(tok: Tokenizer, ids: list[int], p: float, rng: random.Random,
                 steps: list[DropoutStep] | None = None) -> list[int]:
    """One pre-token's base ids merged as HF's BPE does with dropout p; steps, if given, collects what came up."""
    if p <= 0.0:
        return tok.merge_ids(ids)
    ranks = tok.ranks
    symbols, nxt, prv = list(ids), [*range(1, len(ids)), -1], list(range(-1, len(ids) - 1))  # a linked list
    queue = [(found[0], i, found[1]) for i in range(len(ids) - 1) if (found := ranks.get((ids[i], ids[i + 1])))]
    heapq.heapify(queue)
    skipped: list[tuple[int, int, int]] = []
    while queue:
        top = heapq.heappop(queue)
        rank, i, new_id = top
        if rng.random() < p:
            skipped.append(top)
            _note(steps, tok, rank, True)
            continue
        for entry in skipped:
            heapq.heappush(queue, entry)
        skipped.clear()
        j = nxt[i] if symbols[i] >= 0 else -1
        if j < 0 or ranks.get((symbols[i], symbols[j]), (0, -1))[1] != new_id:
            continue  # an entry that merging elsewhere made stale
        k = nxt[j]
        symbols[i], symbols[j] = new_id, -1
        nxt[i] = k
        if k >= 0:
            prv[k] = i
        _note(steps, tok, rank, False)
        if prv[i] >= 0 and (found := ranks.get((symbols[prv[i]], new_id))):
            heapq.heappush(queue, (found[0], prv[i], found[1]))
        if k >= 0 and (found := ranks.get((new_id, symbols[k]))):
            heapq.heappush(queue, (found[0], i, found[1]))
    out, i = [], 0
    while i >= 0:  # the linked list, in order
        out.append(symbols[i])
        i = nxt[i]
    return out


def _note(steps: list[DropoutStep] | None, tok: Tokenizer, rank: int, skipped: bool) -> None:
    """Record a merge that came up (and whether dropout skipped it), when the caller collects steps."""
    if steps is not None:
        m = tok.merges[rank - 1]
        steps.append(DropoutStep(rank, m.left, m.right, skipped))


def dropout_encode(tok: Tokenizer, text: str, p: float, seed: int = 0,
                   steps: list[DropoutStep] | None = None) -> list[int]:
    """Encode text with BPE-dropout p (0 <= p <= 1), deterministic for a seed.

    Example: dropout_encode(tok, "o gato", 0.0) == tok.encode_ordinary("o gato")
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"The dropout probability must be between 0 and 1, not {p}.")
    text = tok._check_text(text)
    rng = random.Random(seed)
    text = tok._prefix + text if text else text
    return [i for piece in splits.split_text(text, tok.settings.pretokenizer)
            for i in dropout_word(tok, tok.base_ids(piece), p, rng, steps)]


def dropout_counts(tok: Tokenizer, text: str, p: float, samples: int, seed: int = 0) -> Counter[tuple[Token, ...]]:
    """How often each segmentation of text comes out in `samples` dropout encodings (one seeded stream)."""
    rng = random.Random(seed)
    text = tok._prefix + text if text else text
    words = [tok.base_ids(piece) for piece in splits.split_text(text, tok.settings.pretokenizer)]
    counts: Counter[tuple[Token, ...]] = Counter()
    for _ in range(samples):
        ids = [i for w in words for i in dropout_word(tok, w, p, rng)]
        counts[tuple(tok.token_of(i) for i in ids)] += 1
    return counts
