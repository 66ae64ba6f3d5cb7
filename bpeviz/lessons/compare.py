"""Where two training runs part ways: the first merge on which they disagree, why, and how much they agree after.

Two runs on the same corpus differ only through their rules (level, split, counting, ties).
This module finds the first differing merge, measures both candidate pairs in both runs at that
step, and names the rule that made the difference. It trains nothing and draws nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bpeviz.core.records import Merge
from bpeviz.models.bpe import Tokenizer

from . import render, steps

TextPair = tuple[str, str]  # a pair as text (bytes shown with \xNN), comparable across levels


@dataclass(frozen=True)
class Divergence:
    """The first merge two runs disagree on, and what they share before and after it.

    kind: "same" (no disagreement), "level", "split", "count", "tie", or "other". counts_a gives, in
    run A at that step, the counts of (A's pair, B's pair); counts_b the same in run B.
    """

    step: int | None  # rank of the first differing merge (1-based)
    kind: str
    pair_a: TextPair | None
    pair_b: TextPair | None
    counts_a: tuple[int, int]
    counts_b: tuple[int, int]
    agree_before: int
    same_rank_after: int  # later merges equal at the same rank
    shared_after: int  # later merges made by both, at any rank
    later: int  # merges after the divergence in the shorter run


def text_pair(m: Merge) -> TextPair:
    return render.show(m.left), render.show(m.right)


def _counts_at(tok: Tokenizer, words: Counter[str], step: int) -> dict[TextPair, int]:
    return {(render.show(p.left), render.show(p.right)): p.count for p in steps.pair_counts(tok, words, step)}


def _kind(a: Tokenizer, b: Tokenizer, counts_a: tuple[int, int], counts_b: tuple[int, int]) -> str:
    """Why the runs part: the first of level, tie (both pairs equally frequent in both runs), split, count, other."""
    sa, sb = a.settings, b.settings
    if sa.level != sb.level:
        return "level"
    if counts_a[0] == counts_a[1] and counts_b[0] == counts_b[1]:
        return "tie"  # whatever else differs, here only the tie rule chose (the splits may differ elsewhere)
    if (sa.pretokenizer, sa.dummy_prefix) != (sb.pretokenizer, sb.dummy_prefix) and counts_a != counts_b:
        return "split"
    if sa.count_rule != sb.count_rule and counts_a != counts_b:
        return "count"
    return "other"


def first_divergence(a: Tokenizer, b: Tokenizer, words_a: Counter[str], words_b: Counter[str]) -> Divergence:
    """Compare two runs merge by merge (as text); words are each run's distinct pre-tokens, for the counts."""
    pairs_a, pairs_b = [text_pair(m) for m in a.merges], [text_pair(m) for m in b.merges]
    shortest = min(len(pairs_a), len(pairs_b))
    k = next((i for i in range(shortest) if pairs_a[i] != pairs_b[i]), None)
    if k is None:
        return Divergence(None, "same", None, None, (0, 0), (0, 0), shortest, 0, 0, 0)
    pa, pb = pairs_a[k], pairs_b[k]
    in_a, in_b = _counts_at(a, words_a, k), _counts_at(b, words_b, k)
    counts_a = (in_a.get(pa, 0), in_a.get(pb, 0))
    counts_b = (in_b.get(pa, 0), in_b.get(pb, 0))
    later_a, later_b = pairs_a[k + 1 : shortest], pairs_b[k + 1 : shortest]
    return Divergence(
        step=k + 1, kind=_kind(a, b, counts_a, counts_b), pair_a=pa, pair_b=pb, counts_a=counts_a, counts_b=counts_b,
        agree_before=k, same_rank_after=sum(x == y for x, y in zip(later_a, later_b)),
        shared_after=len(set(later_a) & set(later_b)), later=len(later_a),
    )


def explain(d: Divergence, a: Tokenizer, b: Tokenizer) -> str:
    """The divergence in one plain English sentence (the app says it in the interface language)."""
    if d.step is None:
        return f"The two runs make the same {d.agree_before:,} merges."
    pa, pb = (f"`{x} + {y}`" for x, y in (d.pair_a, d.pair_b))  # type: ignore[misc]  # the pairs exist once a step differs
    sa, sb = a.settings, b.settings
    why = {
        "level": f"run A merges {sa.level}, run B {sb.level}: they do not even count the same symbols",
        "split": f"run A splits with {sa.pretokenizer!r}, run B with {sb.pretokenizer!r}: each sees pairs the other's "
                 f"boundaries forbid ({pa}: {d.counts_a[0]} in A, {d.counts_b[0]} in B)",
        "count": f"counted {sa.count_rule}, {pa} occurs {d.counts_a[0]} times and {pb} {d.counts_a[1]}; counted "
                 f"{sb.count_rule}, {d.counts_b[0]} and {d.counts_b[1]}",
        "tie": f"tie at {d.counts_a[0]} between {pa} and {pb}: rule {sa.tie_break!r} takes {pa}, rule {sb.tie_break!r} "
               f"takes {pb}",
        "other": f"{pa} ({d.counts_a[0]}) against {pb} ({d.counts_a[1]})",
    }[d.kind]
    before = ("The first merge agrees; " if d.agree_before == 1 else f"The first {d.agree_before:,} merges agree; ") \
        if d.agree_before else "They part at the first merge; "
    return (f"Merge {d.step}: run A takes {pa}, run B takes {pb} — {why}. {before}"
            f"after this one, {d.same_rank_after:,} of {d.later:,} still match at the same rank and "
            f"{d.shared_after:,} are made by both.")


# -- BPE, WordPiece and Unigram on one corpus -------------------------------------------------------

ScoredPair = tuple[str, str, int, float]  # left, right (as text, WordPiece's ## dropped), count, WordPiece's score


@dataclass(frozen=True)
class AlgorithmSplit:
    """The first step where WordPiece merges another pair than BPE (step None: never, within the shorter run).

    Up to that step both runs made the same tokens, so the corpus stood the same for both: BPE took
    the most frequent pair, WordPiece the best score count(ab) / (count(a) * count(b)). Both pairs
    come with their count and WordPiece score at that step.
    """

    step: int | None
    bpe: ScoredPair | None
    wordpiece: ScoredPair | None
    agree_before: int


def plain(token: str | bytes) -> str:
    """A token as text without WordPiece's continuation mark. Example: plain("##at") -> "at" """
    text = render.show(token)
    return text[2:] if isinstance(token, str) and token.startswith("##") and len(token) > 2 else text


def bpe_wordpiece_split(bpe: Tokenizer, wordpiece) -> AlgorithmSplit:  # wordpiece: WordPieceTokenizer
    """Walk both merge tables together and stop at the first pair they disagree on."""
    steps_both = min(len(bpe.merges), len(wordpiece.merges))
    for k in range(steps_both):
        b, w = bpe.merges[k], wordpiece.merges[k]
        if (render.show(b.left), render.show(b.right)) != (plain(w.left), plain(w.right)):
            frequent = w.most_frequent
            if frequent is not None and (plain(frequent[0]), plain(frequent[1])) == (render.show(b.left), render.show(b.right)):
                bpe_pair = (plain(frequent[0]), plain(frequent[1]), frequent[2], frequent[3])
            else:  # the runs differ in something else (a tie rule): no WordPiece score for BPE's pair
                bpe_pair = (render.show(b.left), render.show(b.right), b.count, float("nan"))
            return AlgorithmSplit(k + 1, bpe_pair, (plain(w.left), plain(w.right), w.count, w.score), k)
    return AlgorithmSplit(None, None, None, steps_both)


def surface_vocab(tok) -> set[str]:
    """Every token a tokenizer learned, as text (WordPiece's ## dropped; bytes shown as \\xNN)."""
    return {plain(token) for token in tok.vocab.values()}


@dataclass(frozen=True)
class Overlap:
    """Which learned tokens the algorithms share. only: tokens of one algorithm alone, longest first."""

    sizes: dict[str, int]
    shared_by_all: int
    pairs: dict[tuple[str, str], int]
    only: dict[str, list[str]]


def vocab_overlap(vocabs: dict[str, set[str]]) -> Overlap:
    """Overlap of vocabularies given as sets of text. Example: vocab_overlap({"a": {"x"}, "b": {"x", "y"}}).only["b"] -> ["y"]"""
    names = list(vocabs)
    every = set.intersection(*vocabs.values()) if vocabs else set()
    pairs = {(a, b): len(vocabs[a] & vocabs[b]) for i, a in enumerate(names) for b in names[i + 1:]}
    only = {}
    for name in names:
        others = set().union(*(vocabs[o] for o in names if o != name))
        only[name] = sorted(vocabs[name] - others, key=lambda s: (-len(s), s))
    return Overlap({n: len(v) for n, v in vocabs.items()}, len(every), pairs, only)
