"""Graft onto a SentencePiece BPE model (Mistral v3, Llama 2, any BPE `.model`): new pieces after the model's own.

SentencePiece's BPE joins, at each step, the adjacent pair whose joined text is the best-scoring piece. So a graft
is new pieces with scores below every piece the model has, each below the one before: the model's own pieces are
all tried first, then the new ones in the order they were learned, and every old piece keeps its id.

1. Normalize the corpus as the model does (its charsmap, dummy prefix, ▁ for a space) and cut it into words where
   a space follows another character: no piece of a BPE model crosses there.
2. Encode each distinct word with the model, as SentencePiece does.
3. Count adjacent pairs of the model's own or new normal pieces (a user-defined symbol never merges; a character the
   model lacks stays its bytes, which SentencePiece's pieces, being text, cannot join). The most frequent pair whose
   joined text is no piece yet, and at most MAX_PIECE_CHARS long, becomes a new piece; ties go to the joined text
   first in UTF-8 byte order.
4. Encode again, as SentencePiece would with the new piece, every word that held the pair; repeat.
The graft is a SentencePiece model: it encodes, decodes and writes a `.model` file that `sentencepiece` loads.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import replace
from functools import cached_property

from bpeviz.core.errors import BpevizError
from bpeviz.core.records import Corpus, Merge
from bpeviz.models import sentencepiece_encode as encode
from bpeviz.models.sentencepiece import BPE, NORMAL, Piece, SentencePieceTokenizer
from bpeviz.normalizers.sentencepiece import SPACE
from bpeviz.trainers.bpe import corpus_documents

MAX_PIECE_CHARS = 16  # SentencePiece's trainer makes no longer piece (max_sentencepiece_length)


class SentencePieceGraft(SentencePieceTokenizer):
    """A SentencePiece BPE model with new pieces after its own; `.base_merges`, `.base_size` say where they start."""

    def __init__(self, base: SentencePieceTokenizer, new: list[tuple[str, float, int]]) -> None:
        spec = replace(base.spec, pieces=base.spec.pieces + tuple(Piece(text, score) for text, score, _ in new))
        super().__init__(spec, name=f"{base.name} + {len(new)} grafted")
        self.base_tokenizer, self.new_pieces = base, [text for text, _, _ in new]
        self._counts = {text: n for text, _, n in new}  # how often the pair was seen when it was chosen
        self.base_size, self.base_merges = len(base.spec.pieces), len(base.merges)

    @cached_property
    def merges(self) -> list[Merge]:  # type: ignore[override]
        """The base's merges, then each new piece's: the two pieces SentencePiece joins last when it encodes the piece
        alone (a new piece it cannot make whole, never made in text either, is left out)."""
        out = list(self.base_tokenizer.merges)
        spell, id_of = (lambda t: t.replace(SPACE, " ")), (lambda t: self.ids.get(t, self.unk_id))
        for text in self.new_pieces:
            trace: list[tuple[str, str]] = []
            if encode.bpe(text, self._scores, self.symbols, self._unused, trace) == [text]:
                left, right = trace[-1]
                out.append(Merge(len(out) + 1, spell(left), spell(right), spell(text), self._counts[text], id_of(text),
                                 id_of(left), id_of(right)))
        return out

    def replaced_by(self, k: int) -> list[int]:
        """The base's ids that the k-th new piece (from 0) stands for: the base's own encoding of its text."""
        base, out = self.base_tokenizer, []
        for piece in encode.bpe(self.new_pieces[k], base._scores, base.symbols, base._unused):
            if piece in base.ids:
                out.append(base.ids[piece])
            elif base.byte_ids is not None:
                out += [base.byte_ids[b] for b in piece.encode("utf-8")]
            else:
                out.append(base.unk_id)
        return out

    def truncated(self, n: int) -> SentencePieceTokenizer:
        """The first n merges: the base alone (cut) up to its own, then the base and the first new pieces."""
        if n <= self.base_merges:
            return self.base_tokenizer.truncated(n)
        return super().truncated(n)


def extend(base: SentencePieceTokenizer, corpus: Corpus, n_new: int,
           progress: Callable[[int, int], None] | None = None) -> SentencePieceGraft:
    """base with n_new pieces learned on corpus (fewer if no pair is left). See the module's steps."""
    if base.spec.model_type != BPE:
        raise BpevizError("extend_unigram", f"{base.name} is a Unigram model: a graft continues BPE merges, and a "
                          "Unigram model has none.", name=base.name)
    scores = dict(base._scores)  # the model's normal, user-defined and unused pieces -> score (the encoder's table)
    joinable = {p.text for p in base.spec.pieces if p.kind == NORMAL}
    words = Counter(w for doc in corpus_documents(corpus, "chars") for w in _words(base, doc))  # 1.
    pieces = {w: _encode(base, w, scores) for w in words}  # 2.
    pairs: Counter[tuple[str, str]] = Counter()
    holders: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    for word, n in words.items():
        _count(pieces[word], n, word, joinable, pairs, holders, +1)
    floor = min(p.score for p in base.spec.pieces if p.kind == NORMAL)
    new: list[tuple[str, float, int]] = []
    for k in range(n_new):
        best = _best(pairs, scores)  # 3.
        if best is None:
            break
        text, score = best[0] + best[1], encode.f32(floor - (k + 1))
        scores[text] = score
        joinable.add(text)
        new.append((text, score, pairs[best]))
        for word in list(holders[best]):  # 4.
            _count(pieces[word], words[word], word, joinable, pairs, holders, -1)
            pieces[word] = _encode(base, word, scores)
            _count(pieces[word], words[word], word, joinable, pairs, holders, +1)
        if progress is not None:
            progress(k + 1, n_new)
    return SentencePieceGraft(base, new)


def _words(base: SentencePieceTokenizer, doc: str) -> list[str]:
    normalized = base.normalize(doc)
    if not base._by_words:
        return [normalized] if normalized else []
    return [w for w in re.split(f"(?<=[^{base.space}])(?={base.space})", normalized) if w]


def _encode(base: SentencePieceTokenizer, word: str, scores: dict[str, float]) -> list[str]:
    return encode.bpe(word, scores, base.symbols, base._unused)


def _count(pieces: list[str], n: int, word: str, joinable: set[str], pairs: Counter, holders: defaultdict,
           sign: int) -> None:
    for left, right in zip(pieces, pieces[1:]):
        if left in joinable and right in joinable and len(left) + len(right) <= MAX_PIECE_CHARS:
            pairs[(left, right)] += sign * n
            if sign > 0:
                holders[(left, right)].add(word)
            elif pairs[(left, right)] <= 0:
                del pairs[(left, right)]
                holders.pop((left, right), None)


def _best(pairs: Counter, scores: dict[str, float]) -> tuple[str, str] | None:
    """The most frequent pair whose joined text is no piece yet; on a tie, the joined text first in UTF-8 order."""
    found = [(-n, (a + b).encode("utf-8", "surrogatepass"), (a, b)) for (a, b), n in pairs.items() if a + b not in scores]
    return min(found)[2] if found else None
