"""BoundlessBPE (Schmidt et al., 2025, arXiv 2504.00178): supermerges of whole words, with no stage schedule.

Text is cut into superword pieces (superword.SUPERWORD_SPLIT) and lines, each piece into words (the
chosen split). A pair inside a word counts as in BPE; so does a pair of two neighbouring words that are each
one token already (" of" + " the"): a supermerge. Both kinds compete in one ranking, most frequent
first, ties to the smaller ids (left, then right). A merge applies to both kinds of its occurrences.
Readable Python that recounts only the pieces a merge touched; meant for class-sized corpora, so a
superword stays within a line (and within MAX_PIECE characters), so a piece is short. Left out: the paper's deletion of
intermediate tokens (Picky BPE).
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import chain

from . import pretokenize
from .merging import merge_pair
from .records import MAX_TIES_RECORDED, Settings, Token, TraceStep
from .superword import SUPERWORD_SPLIT, base_ids
from .tokenizer import Tokenizer, WordCache, build, trace_steps
from .trainer import RawMerge

Groups = list[list[int]]  # one superword piece: its words, each a list of token ids
_LINE_END = re.compile(r"(?<=\n)(?=.)", re.DOTALL)
MAX_PIECE = 1_000  # characters: a longer line is cut after the last space before each thousandth character


def pieces(text: str) -> list[str]:
    """Where supermerges may reach: superword pieces, cut after every newline.

    Example: pieces("a b\nc 12") -> ["a b\n", "c ", "12"]
    """
    return [part for piece in pretokenize.split_text(text, SUPERWORD_SPLIT) for line in _LINE_END.split(piece)
            for part in _short(line)]


def _short(line: str) -> list[str]:
    """A line cut into parts of at most MAX_PIECE characters, after a space where there is one (a recount stays cheap)."""
    parts = []
    while len(line) > MAX_PIECE:
        cut = line.rfind(" ", 1, MAX_PIECE) + 1 or MAX_PIECE
        parts.append(line[:cut])
        line = line[cut:]
    return [*parts, line] if line else parts


class BoundlessTokenizer(Tokenizer):
    """A BoundlessBPE tokenizer: words merge inside, then whole words merge with their neighbours, in rank order."""

    def __init__(self, **details: object) -> None:
        super().__init__(**details)  # type: ignore[arg-type]
        self._chunk_cache = WordCache(self._encode_chunk)  # a piece of text (see pieces) -> ids

    def _groups(self, chunk: str) -> Groups:
        return [list(self.encode_word(word)) for word in pretokenize.split_text(chunk, self.settings.inner_split)]

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        # A word's own merges come first and end when it is one token; only then may it join a neighbour,
        # so the supermerges run, by rank, over each stretch of whole words.
        out: list[int] = []
        run: list[int] = []
        for group in self._groups(chunk):
            if len(group) == 1:
                run.append(group[0])
                continue
            out += self.merge_ids(run) if run else []
            out += group
            run = []
        out += self.merge_ids(run) if run else []
        return tuple(out)

    def _encode_text(self, text: str) -> list[int]:
        return list(chain.from_iterable(map(self._chunk_cache.__getitem__, pieces(text))))

    def trace(self, text: str) -> list[TraceStep]:
        """The encoding as a class reads it: the merges in rank order, each where it may fire."""
        text = self._check_text(text)
        chunks = [[self.base_ids(w) for w in pretokenize.split_text(c, self.settings.inner_split)]
                  for c in pieces(self._prefix + text if text else text)]
        return trace_steps(chunks, lambda units: _best_rank(units, self.ranks), apply, self._flat, self.merges)

    def _flat(self, chunks: list[Groups]) -> tuple[Token, ...]:
        return tuple(self._token(i) for groups in chunks for g in groups for i in g)  # type: ignore[misc]


def _best_rank(chunks: list[Groups], ranks: dict) -> tuple[int, tuple[int, int], int] | None:
    found = [ranks[p] + (p,) for groups in chunks for p in pairs_of(groups) if p in ranks]
    if not found:
        return None
    rank, new_id, pair = min(found)
    return rank, pair, new_id


def pairs_of(groups: Groups, supers: Counter | None = None) -> Counter:
    """Pairs inside words, and pairs of neighbouring one-token words (also counted in supers, if given)."""
    counts: Counter = Counter()
    for g in groups:
        counts.update(zip(g, g[1:]))
    for a, b in zip(groups, groups[1:]):
        if len(a) == 1 and len(b) == 1:
            counts[(a[0], b[0])] += 1
            if supers is not None:
                supers[(a[0], b[0])] += 1
    return counts


def apply(groups: Groups, pair: tuple[int, int], new_id: int) -> tuple[Groups, int]:
    """Merge the pair inside words, then across neighbouring one-token words, left to right; and how often it fired.

    A word merged into one token just now is the new token, never a part of the pair, so the order is safe.
    """
    fired = 0
    inside: Groups = []
    for g in groups:
        merged, n = merge_pair(g, pair, new_id)
        fired += n
        inside.append(merged)
    out: Groups = []
    k = 0
    while k < len(inside):
        a = inside[k]
        if k + 1 < len(inside) and len(a) == 1 and len(inside[k + 1]) == 1 and (a[0], inside[k + 1][0]) == pair:
            out.append([new_id])
            fired += 1
            k += 2
        else:
            out.append(a)
            k += 1
    return out, fired


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
    state = _Counts([([to_ids(w) for w in pretokenize.split_text(piece, settings.inner_split)], n)
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
