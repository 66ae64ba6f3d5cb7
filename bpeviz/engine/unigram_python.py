"""Unigram training's loops in readable Python: seeds, the E and M steps, pruning (the reference of the compiled ones).

Kudo (2018) and SentencePiece 0.2.3. The seed vocabulary is every character plus the frequent substrings of the
pre-tokens (`seed_pieces`: what SentencePiece's suffix array of its UTF-8 sentences finds). The E step sums each
piece's expected count over all segmentations with forward-backward; the M step is SentencePiece's Bayesian one,
score = digamma(count) - digamma(total), dropping pieces expected less than half a time; pruning removes the pieces
whose loss is smallest: the drop in corpus log-likelihood if each occurrence were re-segmented its second-best way.
The round loop that calls these is `trainers/unigram.py`; `unigram_compiled.Steps` does the same in numba.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from bpeviz.core.numeric import digamma
from bpeviz.models.unigram import MAX_PIECE_LENGTH, Model, f32, sort_key

SEED_SIZE = 1_000_000  # SentencePiece's seed_sentencepiece_size
MIN_EXPECTED = 0.5  # the M step drops pieces expected less often than this


def seed_pieces(words: Sequence[tuple[str, int]], seed_size: int = SEED_SIZE,
                finals: Counter[str] | None = None) -> list[tuple[str, float]]:
    """Characters (by frequency) and frequent substrings (by frequency x length), as log-probabilities.

    As SentencePiece's suffix array of the UTF-8 sentences finds them: a substring is a seed when it
    is seen at least twice before two different next bytes (characters that share their first byte,
    as Cyrillic letters often do, count as one). After a word comes the next word's space (the byte
    that starts ▁), or, where the word ends a document (`finals`), the sentence's end. `finals`
    lists the last document's last word first: after its sentence's end comes the end of the text,
    which makes one more branch (see text_end).
    """
    finals = finals or Counter()
    return rank_seeds(char_counts(words), branching_substrings(words, finals) + text_end(finals), seed_size)


def char_counts(words: Sequence[tuple[str, int]]) -> Counter[str]:
    chars: Counter[str] = Counter()
    for word, n in words:
        for ch in word:
            chars[ch] += n
    return chars


def branching_substrings(words: Sequence[tuple[str, int]], finals: Counter[str]) -> Counter[str]:
    """Substrings of 2 to MAX_PIECE_LENGTH characters seen at least twice, before two different next bytes.

    One length at a time: only one length's substrings are held at once (a text with no spaces has millions).
    """
    spelled = []
    for word, n in words:
        final = finals[word]
        ends = [SPACE_BYTE] * (n > final) + [0] * (final > 0)  # what follows the word: a space, the end, or both
        spelled.append((word, n, ends, [_lead_byte(ch) for ch in word]))
    found: Counter[str] = Counter()
    for size in range(2, MAX_PIECE_LENGTH + 1):
        freq: Counter[str] = Counter()
        after: dict[str, int] = {}  # substring -> the one byte seen after it, or -1 once there were two
        for word, n, ends, lead in spelled:
            length = len(word)
            for start in range(length - size + 1):
                stop = start + size
                sub = word[start:stop]
                freq[sub] += n
                for nxt in ends if stop == length else (lead[stop],):
                    seen = after.setdefault(sub, nxt)
                    if seen != nxt:
                        after[sub] = -1
        found.update({s: n for s, n in freq.items() if n >= 2 and after[s] < 0})
    return found


def rank_seeds(chars: Counter[str], found: Counter[str], seed_size: int) -> list[tuple[str, float]]:
    """Characters by count, then the best seed_size substrings by count x length (longer in bytes, then byte order)."""
    ranked = sorted(((n * len(s), s) for s, n in found.items()),
                    key=lambda x: (-x[0], -len(_bytes(x[1])), _bytes(x[1])))[:seed_size]
    seeds = sorted(chars.items(), key=lambda x: (-x[1], _bytes(x[0]))) + [(s, float(score)) for score, s in ranked]
    logsum = math.log(math.fsum(n for _, n in seeds))
    return [(p, f32(math.log(n) - logsum)) for p, n in seeds]


def text_end(finals: Counter[str]) -> Counter[str]:
    """Seed counts that SentencePiece's suffix array adds at the end of its text.

    There "s" + sentence end branches (the next sentence's ▁, or the end of the text) when s ends
    the last sentence and at least one other; its count (the sentences s ends) is added to s's.
    """
    if not finals:
        return Counter()
    last = next(iter(finals))
    out: Counter[str] = Counter()
    for start in range(max(0, len(last) - MAX_PIECE_LENGTH), len(last) - 1):
        suffix = last[start:]
        ends = sum(n for word, n in finals.items() if word.endswith(suffix))
        if ends >= 2:
            out[suffix] = ends
    return out


SPACE_BYTE = 0xE2  # the first UTF-8 byte of ▁, which SentencePiece writes for a space


def _lead_byte(ch: str) -> int:
    """The first byte of ch in SentencePiece's UTF-8 (a space is ▁)."""
    return SPACE_BYTE if ch == " " else ch.encode("utf-8", "surrogatepass")[0]


def _bytes(piece: str) -> bytes:
    """A piece as SentencePiece orders pieces: UTF-8 with ▁ for a space."""
    return sort_key(piece).encode("utf-8", "surrogatepass")


def _e_step(model: Model, lattices: list[list[tuple[int, int, int]]], words: list[tuple[str, int]]
            ) -> tuple[list[float], float, int]:
    expected = [0.0] * len(model.pieces)
    objective, tokens = 0.0, 0
    total = sum(n for _, n in words)
    for (word, n), nodes in zip(words, lattices):
        z, marginals = model.forward_backward(word, nodes)
        for (_, _, i), p in zip(nodes, marginals):
            expected[max(i, 0)] += n * p  # an unknown character counts for piece 0, as in SentencePiece's trainer
        objective -= n * z / total
        tokens += n * len(model.viterbi(word, nodes))
    return expected, objective, tokens


def _m_step(model: Model, expected: list[float]) -> list[tuple[str, float]]:
    """Scores from expected counts (SentencePiece's Bayesian M step); pieces expected under half a time go.

    On a corpus too small for the vocabulary asked, this is where SentencePiece's run ends short, and so does this one.
    """
    kept = [(p, f32(e)) for (p, _), e in zip(model.pieces, expected) if f32(e) >= MIN_EXPECTED]
    logsum = f32(digamma(math.fsum(e for _, e in kept)))
    return [(p, f32(digamma(e) - logsum)) for p, e in kept]  # float32 scores, as SentencePiece keeps them


def _prune(model: Model, words: list[tuple[str, int]], lattices: list[list[tuple[int, int, int]]],
           keep: int) -> tuple[list[tuple[str, float]], list[str]]:
    """Keep `keep` pieces: those with no alternative, then the ones whose removal loses most likelihood."""
    size = len(model.pieces)
    always = [True] * size
    alternatives: list[list[int]] = [[] for _ in range(size)]
    for i, (piece, _) in enumerate(model.pieces):
        if len(piece) == 1:
            continue
        nodes = model.nodes(piece)
        best = model.viterbi(piece, nodes)
        if len(best) >= 2:
            always[i] = False  # never used whole: removable
            continue
        second = model.viterbi(piece, [x for x in nodes if not (x[0] == 0 and x[1] == len(piece))])
        alternatives[i] = [max(j, 0) for _, _, j in second]
    freq = [0.0] * size  # uses in the best segmentations of the words (an unknown character's: piece 0's)
    for (word, n), nodes in zip(words, lattices):
        for _, _, i in model.viterbi(word, nodes):
            freq[max(i, 0)] += n
    total = f32(math.fsum(freq))
    logsum = f32(math.log(total))
    dropped, no_alternative, candidates = [], [], []
    for i in range(size):
        if freq[i] == 0 or not always[i]:
            dropped.append(i)
        elif not alternatives[i]:
            no_alternative.append(i)
        else:  # in float32, as SentencePiece computes it: a tie there goes to the earlier piece
            logprob = f32(math.log(freq[i]) - logsum)
            logsum_alt = f32(math.log(f32(total + f32(freq[i] * (len(alternatives[i]) - 1)))))
            logprob_alt = 0.0
            for j in alternatives[i]:
                logprob_alt = f32(logprob_alt + math.log(f32(freq[j] + freq[i])) - logsum_alt)
            candidates.append((f32(f32(freq[i] / total) * f32(logprob - logprob_alt)), i))
    return select(model, dropped, no_alternative, candidates, keep)


def select(model: Model, dropped: list[int], no_alternative: list[int], candidates: list[tuple[float, int]],
           keep: int) -> tuple[list[tuple[str, float]], list[str]]:
    """(kept pieces, pruned pieces): those without an alternative, then candidates by loss, largest first, until `keep`."""
    candidates.sort(key=lambda c: (-c[0], c[1]))
    kept = [model.pieces[i] for i in no_alternative]
    room = keep - len(kept) if len(kept) <= keep else len(candidates)  # SentencePiece stops only on reaching keep
    kept += [model.pieces[i] for _, i in candidates[:room]]
    pruned = [model.pieces[i][0] for i in dropped] + [model.pieces[i][0] for _, i in reversed(candidates[room:])]
    return kept, pruned


class PythonSteps:
    """Training's loops over words and pieces, in Python: the reference (unigram_compiled.Steps does them in numba)."""

    engine = "python"

    def __init__(self, items: list[tuple[str, int]]) -> None:
        self.items = items

    def seeds(self, finals: Counter[str] | None) -> list[tuple[str, float]]:
        return seed_pieces(self.items, finals=finals)

    def lattices(self, model: Model) -> list:
        return [model.nodes(w) for w, _ in self.items]

    def relattice(self, model: Model, old: Model, lattices: list) -> list:
        return model.relattice(old, lattices)

    def e_step(self, model: Model, lattices: list) -> tuple[list[float], float, int]:
        return _e_step(model, lattices, self.items)

    def m_step(self, model: Model, expected: list[float]) -> list[tuple[str, float]]:
        return _m_step(model, expected)

    def prune(self, model: Model, lattices: list, keep: int) -> tuple[list[tuple[str, float]], list[str]]:
        return _prune(model, self.items, lattices, keep)

    def reachable(self, model: Model) -> list[tuple[str, float]]:
        return _reachable(model)

    def tokens(self, model: Model) -> int:
        """The corpus's length in pieces under model (Viterbi)."""
        return sum(len(model.viterbi(w)) * n for w, n in self.items)


def _reachable(model: Model) -> list[tuple[str, float]]:
    """The pieces Viterbi can give whole: one whose best other cut scores higher is dropped (SentencePiece 0.2.3)."""
    kept = []
    for piece, score in model.pieces:
        others = [x for x in model.nodes(piece) if not (x[0] == 0 and x[1] == len(piece))]
        if len(piece) == 1 or sum(model.score(i) for _, _, i in model.viterbi(piece, others)) <= score:
            kept.append((piece, score))
    return kept
