"""Replaying a training run at any step: pair counts before the next merge, the corpus segmented.

Everything is derived from a trained Tokenizer and the corpus; nothing is retrained.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .records import Token, documents_of
from .rules import tie_rule
from .tokenizer import Tokenizer


@dataclass(frozen=True, slots=True)
class PairCount:
    """A candidate pair at some step: its tokens, ids, count, and where it first occurs."""

    left: Token
    right: Token
    left_id: int
    right_id: int
    count: int
    first_seen: int  # order of first occurrence when the corpus is read in order


def recorded_pair_counts(tok: Tokenizer, step: int) -> list[PairCount] | None:
    """The best pairs before merge step+1 as the trainer recorded them (train with record_top), or None."""
    if step >= len(tok.merges) or not tok.merges[step].top:
        return None
    return [PairCount(tok.token_of(a), tok.token_of(b), a, b, count, k) for k, (a, b, count) in enumerate(tok.merges[step].top)]


def pair_counts(tok: Tokenizer, words: Counter[str], step: int) -> list[PairCount]:
    """All adjacent pairs after the first `step` merges, best first by the tokenizer's tie rule."""
    at_step = tok.truncated(step)
    counts: dict[tuple[int, int], int] = {}
    first: dict[tuple[int, int], int] = {}
    for word, n in words.items():
        ids = at_step.encode_word(word)
        for pair in zip(ids, ids[1:]):
            if pair in counts:
                counts[pair] += n
            else:
                counts[pair] = n
                first[pair] = len(first)
    rule = tie_rule(tok.settings.tie_break)
    order = sorted(counts, key=lambda p: (-counts[p], rule.order(p, first[p])))
    return [PairCount(tok.token_of(a), tok.token_of(b), a, b, counts[(a, b)], first[(a, b)]) for a, b in order]


def corpus_window(corpus: str | bytes | Sequence[str], max_chars: int = 3000) -> list[str]:
    """The first documents of a corpus, cut to about max_chars characters in all, for drawing."""
    shown: list[str] = []
    total = 0
    for doc in documents_of(corpus):
        if total >= max_chars:
            break
        shown.append(doc[: max_chars - total])
        total += len(shown[-1])
    return shown
