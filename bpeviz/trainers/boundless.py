"""BoundlessBPE's training (Schmidt et al., 2025, arXiv 2504.00178): merges and supermerges in one ranking.

The tokenizer, and what a pair and a supermerge are, is models/boundless.py. Readable Python that recounts only the
pieces a merge touched; meant for class-sized corpora.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from bpeviz.core.ids import RawMerge
from bpeviz.core.records import MAX_TIES_RECORDED, Settings
from bpeviz.models.boundless import BoundlessTokenizer, Groups, apply, pairs_of, pieces
from bpeviz.models.bpe import build
from bpeviz.pre_tokenizers import splits

from .superbpe import base_ids


class _Counts:
    """Pair counts over distinct superword pieces, kept up to date piece by piece as merges land."""

    def __init__(self, pieces: list[tuple[Groups, int]]) -> None:
        self.pieces = pieces
        self.counts: Counter = Counter()  # pair -> weighted count, both kinds
        self.supers: Counter = Counter()  # pair -> weighted count of its whole-word occurrences
        self.where: dict[tuple[int, int], set[int]] = {}  # pair -> pieces holding it
        self.own: list[tuple[Counter, Counter]] = []
        for k, (groups, _) in enumerate(pieces):
            self.own.append(self._add(k, groups))
        self.total = sum(len(g) * w for groups, w in pieces for g in groups)

    def _add(self, k: int, groups: Groups, sign: int = 1) -> tuple[Counter, Counter]:
        w = self.pieces[k][1] * sign
        supers: Counter = Counter()
        counts = pairs_of(groups, supers)
        for pair, n in counts.items():
            self.counts[pair] += n * w
            self.where.setdefault(pair, set()).add(k)
        for pair, n in supers.items():
            self.supers[pair] += n * w
        return counts, supers

    def _remove(self, k: int) -> None:
        counts, supers = self.own[k]
        w = self.pieces[k][1]
        for pair, n in counts.items():
            self.counts[pair] -= n * w
            if not self.counts[pair]:
                del self.counts[pair]
            self.where[pair].discard(k)
        for pair, n in supers.items():
            self.supers[pair] -= n * w
            if not self.supers[pair]:
                del self.supers[pair]

    def best(self, record_top: int) -> list[tuple[int, tuple[int, int]]]:
        """The best pairs now as (count, pair), best first: enough for the winner, its ties and record_top."""
        want = max(record_top, MAX_TIES_RECORDED + 1)
        return [(-n, p) for n, p in heapq.nsmallest(want, ((-n, p) for p, n in self.counts.items()))]

    def merge(self, pair: tuple[int, int], new_id: int) -> None:
        for k in sorted(self.where.get(pair, ())):
            groups, w = self.pieces[k]
            self._remove(k)
            merged, _ = apply(groups, pair, new_id)
            self.total -= (sum(map(len, groups)) - sum(map(len, merged))) * w
            self.pieces[k] = (merged, w)
            self.own[k] = self._add(k, merged)


def train_boundless(docs: Sequence[str], settings: Settings, *, progress: Callable[[int, int], None] | None = None,
                    record_top: int = 0) -> BoundlessTokenizer:
    """Learn settings.vocab_size - base symbols merges and supermerges from the documents (fewer if none is left)."""
    pieces_text = Counter(piece for doc in docs for piece in pieces(doc))
    alphabet = None if settings.level == "bytes" else sorted({ch for piece in pieces_text for ch in piece})
    n_base = 256 if alphabet is None else len(alphabet)
    to_ids = base_ids(alphabet)
    state = _Counts([([to_ids(w) for w in splits.split_text(piece, settings.inner_split)], n)
                     for piece, n in pieces_text.items()])
    corpus_tokens = state.total
    raw: list[RawMerge] = []
    stages: list[int] = []
    n_merges = settings.vocab_size - n_base
    while len(raw) < n_merges and state.counts:
        top = state.best(record_top)
        count, pair = top[0]
        ties = tuple(p for n, p in top[1:MAX_TIES_RECORDED + 1] if n == count)
        stages.append(2 if state.supers.get(pair) else 1)
        token = n_base + len(raw)
        state.merge(pair, token)
        raw.append(RawMerge(pair[0], pair[1], token, count, ties, state.total,
                            tuple((a, b, n) for n, (a, b) in top[:record_top])))
        if progress is not None and (len(raw) % 16 == 1 or len(raw) == n_merges):
            progress(len(raw), n_merges)
    plain = build(settings, alphabet, raw, corpus_bytes=sum(len(p.encode("utf-8", "surrogateescape")) * n
                                                            for p, n in pieces_text.items()),
                  corpus_tokens=corpus_tokens, engine="python")
    merges = [replace(m, stage=s) for m, s in zip(plain.merges, stages)]
    return BoundlessTokenizer(settings=settings, alphabet=alphabet, merges=merges, corpus_bytes=plain.corpus_bytes,
                              corpus_tokens=corpus_tokens, engine="python")
