"""BoundlessBPE (Schmidt et al., 2025, arXiv 2504.00178), the tokenizer: supermerges of whole words, no stage schedule.

Training is trainers/boundless.py. Text is cut into superword pieces (splits.SUPERWORD_SPLIT) and lines, each piece
into words (the chosen split). A pair inside a word counts as in BPE; so does a pair of two neighbouring words that
are each one token already (" of" + " the"): a supermerge. Both kinds compete in one ranking, most frequent first,
ties to the smaller ids (left, then right). A merge applies to both kinds of its occurrences. A superword stays
within a line (and within MAX_PIECE characters), so a piece is short. Left out: the paper's deletion of
intermediate tokens (Picky BPE).
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import chain

from bpeviz.core.records import Token, TraceStep
from bpeviz.pre_tokenizers import splits
from bpeviz.pre_tokenizers.splits import SUPERWORD_SPLIT

from .bpe import Tokenizer, WordCache
from .merging import merge_pair, trace_steps

Groups = list[list[int]]  # one superword piece: its words, each a list of token ids
_LINE_END = re.compile(r"(?<=\n)(?=.)", re.DOTALL)
MAX_PIECE = 1_000  # characters: a longer line is cut after the last space before each thousandth character


def pieces(text: str) -> list[str]:
    """Where supermerges may reach: superword pieces, cut after every newline.

    Example: pieces("a b\nc 12") -> ["a b\n", "c ", "12"]
    """
    return [part for piece in splits.split_text(text, SUPERWORD_SPLIT) for line in _LINE_END.split(piece)
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
        super().__init__(**details)  # type: ignore[arg-type]  # Tokenizer's own keywords, passed through
        self._chunk_cache = WordCache(self._encode_chunk)  # a piece of text (see pieces) -> ids

    _CACHES = (*Tokenizer._CACHES, "_chunk_cache")

    def _start_caches(self) -> None:
        super()._start_caches()
        self._chunk_cache = WordCache(self._encode_chunk)

    def _groups(self, chunk: str) -> Groups:
        return [list(self.encode_word(word)) for word in splits.split_text(chunk, self.settings.inner_split)]

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
        chunks = [[self.base_ids(w) for w in splits.split_text(c, self.settings.inner_split)]
                  for c in pieces(self._prefix + text if text else text)]
        return trace_steps(chunks, lambda units: _best_rank(units, self.ranks), apply, self._flat, self.merges)

    def _flat(self, chunks: list[Groups]) -> tuple[Token, ...]:
        # every id here is a token's
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
