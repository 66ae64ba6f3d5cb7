"""Unigram training, as in Kudo (2018) and SentencePiece: start big, re-estimate with EM, prune what costs least.

Training: the seed vocabulary is every character plus the frequent substrings of the pre-tokens
(at least twice, at most MAX_PIECE_LENGTH characters, seen before two different continuations,
the end of a pre-token counting as one, ranked by frequency x length; SentencePiece finds these
with a suffix array of the raw text, where a word's end is followed by what comes next). Each
round runs two EM steps (the E step sums each piece's expected count over all segmentations with
forward-backward; the M step is SentencePiece's Bayesian one, score = digamma(count) -
digamma(total), and drops pieces expected less than half a time), then removes the pieces whose
loss is smallest: the drop in corpus log-likelihood if each occurrence were re-segmented its
second-best way. A round keeps SHRINK (75 %) of the pieces, until at most 1.1 x vocab_size
remain; then the best-scoring pieces make the vocabulary. Single characters are always kept.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

from .records import MAX_PRUNED_RECORDED, PruneRound, Settings
from .unigram import MAX_PIECE_LENGTH, Model, UnigramTokenizer, f32, sort_key

SEED_SIZE = 1_000_000  # SentencePiece's seed_sentencepiece_size
SHRINK = 0.75  # the share of pieces a round keeps (SentencePiece's shrinking_factor)
SUB_ITERATIONS = 2  # EM steps per round
MIN_EXPECTED = 0.5  # the M step drops pieces expected less often than this


def digamma(x: float) -> float:
    """The digamma function (asymptotic series after shifting x above 7)."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return result + math.log(x) + xx2 / 24 - 7 * xx4 / 960 + 31 * xx4 * xx2 / 8064 - 127 * xx4 * xx4 / 30720


def seed_pieces(words: Sequence[tuple[str, int]], seed_size: int = SEED_SIZE) -> list[tuple[str, float]]:
    """Characters (by frequency) and frequent substrings (by frequency x length), as log-probabilities."""
    chars: Counter[str] = Counter()
    freq: Counter[str] = Counter()
    after: dict[str, str | None] = {}  # substring -> the one character seen after it, or None once there were two
    for word, n in words:
        for ch in word:
            chars[ch] += n
        length = len(word)
        for start in range(length):
            for stop in range(start + 2, min(length, start + MAX_PIECE_LENGTH) + 1):
                sub = word[start:stop]
                freq[sub] += n
                nxt = word[stop] if stop < length else ""  # a pre-token's end: one more continuation
                seen = after.get(sub, nxt)
                after[sub] = nxt if seen == nxt else None
    ranked = sorted(((n * len(s), s) for s, n in freq.items() if n >= 2 and after[s] is None),
                    key=lambda x: (-x[0], x[1]))[:seed_size]
    seeds = sorted(chars.items(), key=lambda x: (-x[1], x[0])) + [(s, float(score)) for score, s in ranked]
    total = f32(math.fsum(n for _, n in seeds))
    logsum = math.log(total)
    return [(p, math.log(n) - logsum) for p, n in seeds]


def _e_step(model: Model, lattices: list[list[tuple[int, int, int]]], words: list[tuple[str, int]]
            ) -> tuple[list[float], float, int]:
    expected = [0.0] * len(model.pieces)
    objective, tokens = 0.0, 0
    total = sum(n for _, n in words)
    for (word, n), nodes in zip(words, lattices):
        z, marginals = model.forward_backward(word, nodes)
        for (_, _, i), p in zip(nodes, marginals):
            if i >= 0:
                expected[i] += n * p
        objective -= n * z / total
        tokens += len(model.viterbi(word, nodes))
    return expected, objective, tokens


def _m_step(model: Model, expected: list[float], desired: int) -> list[tuple[str, float]]:
    """Scores from expected counts; pieces expected under half a time go, unless that leaves fewer than desired
    (a small corpus): then the most expected of those used at all stay."""
    kept = [(p, e) for (p, _), e in zip(model.pieces, expected) if e >= MIN_EXPECTED]
    if len(kept) < desired:
        used = sorted(((p, e) for (p, _), e in zip(model.pieces, expected) if e > 1e-9), key=lambda x: -x[1])
        chosen = {p for p, _ in used[:desired]}
        kept = [(p, e) for (p, _), e in zip(model.pieces, expected) if p in chosen]
    logsum = digamma(math.fsum(e for _, e in kept))
    return [(p, digamma(e) - logsum) for p, e in kept]


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
        alternatives[i] = [j for _, _, j in second]
    freq = [0.0] * size  # uses in the best segmentations of the words
    vsum = 0
    for (word, n), nodes in zip(words, lattices):
        vsum += n
        for _, _, i in model.viterbi(word, nodes):
            if i >= 0:
                freq[i] += n
    total = math.fsum(freq)
    logsum = math.log(total)
    kept: list[tuple[str, float]] = []
    candidates: list[tuple[float, int]] = []
    dropped: list[tuple[float, int]] = []
    for i in range(size):
        if freq[i] == 0 or not always[i]:
            dropped.append((-math.inf, i))
        elif not alternatives[i]:
            kept.append(model.pieces[i])
        else:
            logprob = math.log(freq[i]) - logsum
            logsum_alt = math.log(total + freq[i] * (len(alternatives[i]) - 1))
            logprob_alt = math.fsum(math.log(freq[j] + freq[i]) - logsum_alt if j >= 0 else -math.inf
                                    for j in alternatives[i])
            candidates.append((freq[i] / vsum * (logprob - logprob_alt), i))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    room = max(0, keep - len(kept))
    kept += [model.pieces[i] for _, i in candidates[:room]]
    pruned = [model.pieces[i][0] for _, i in dropped] + [model.pieces[i][0] for _, i in reversed(candidates[room:])]
    return kept, pruned


MAX_TRAIN_WORD = 256  # characters of a word trained on whole; longer ones are cut (SentencePiece bounds its sentences)


def _windows(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Words longer than MAX_TRAIN_WORD cut into windows of that length (equal windows counted together).

    A text with no spaces is one word: its seeds and lattice would take about 2 KB per character.
    """
    if all(len(word) <= MAX_TRAIN_WORD for word, _ in items):
        return items
    counts: Counter[str] = Counter()
    for word, n in items:
        for i in range(0, len(word), MAX_TRAIN_WORD):
            counts[word[i:i + MAX_TRAIN_WORD]] += n
    return list(counts.items())


def train_unigram(
    words: Sequence[tuple[str, int]] | Counter[str],
    settings: Settings,
    *,
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[PruneRound], None] | None = None,
    corpus_bytes: int = 0,
) -> UnigramTokenizer:
    """Train a Unigram vocabulary of settings.vocab_size pieces on distinct pre-tokens with their counts."""
    items = _windows(list(words.items()) if isinstance(words, Counter) else list(words))
    chars: Counter[str] = Counter()
    for word, n in items:
        for ch in word:
            chars[ch] += n
    model = Model(seed_pieces(items))
    desired = int(settings.vocab_size * 1.1)
    steps = max(1, math.ceil(math.log(max(len(model.pieces), desired + 1) / (desired + 1)) / -math.log(SHRINK)))
    lattices = [model.nodes(w) for w, _ in items]
    rounds: list[PruneRound] = []
    while True:
        model, lattices, record, done = _round(model, lattices, items, desired, len(rounds) + 1)
        if record is not None:
            rounds.append(record)
            if log is not None:
                log(record)
            if progress is not None:
                progress(min(len(rounds), steps), steps)
        if done:
            break
    final = _finalize(model, chars, settings.vocab_size)
    final_model = Model(final)
    corpus_tokens = sum(len(final_model.viterbi(w)) * n for w, n in items)
    if progress is not None:
        progress(steps, steps)
    return UnigramTokenizer(settings=settings, pieces=final, rounds=rounds, corpus_bytes=corpus_bytes,
                            corpus_tokens=corpus_tokens)


def _round(model: Model, lattices: list, items: list[tuple[str, int]], desired: int, number: int
           ) -> tuple[Model, list, PruneRound | None, bool]:
    """Two EM steps, then pruning unless the vocabulary is small enough: (model, lattices, the round's record, done)."""
    before, unused = len(model.pieces), []
    for _ in range(SUB_ITERATIONS):
        expected, objective, tokens = _e_step(model, lattices, items)
        old, model = model, Model(_m_step(model, expected, desired))
        unused += [p for p, _ in old.pieces if p not in model.index]  # expected under half a time
        lattices = model.relattice(old, lattices)
    done = len(model.pieces) <= desired
    keep = max(desired, int(SHRINK * len(model.pieces)))
    pieces, pruned = (model.pieces, []) if done else _prune(model, items, lattices, keep)
    record = None
    if unused or pruned:
        record = PruneRound(number, before, len(pieces), -objective * sum(n for _, n in items), tokens,
                            tuple((unused + pruned)[:MAX_PRUNED_RECORDED]))
    if not done:
        old, model = model, Model(pieces)
        lattices = model.relattice(old, lattices)
    return model, lattices, record, done


def _finalize(model: Model, chars: Counter[str], vocab_size: int) -> list[tuple[str, float]]:
    """Every character (a missing one just under the worst score), then the best-scoring pieces, best first."""
    current = dict(model.pieces)
    worst = min(current.values(), default=0.0)
    final: dict[str, float] = {}
    penalty = 0.0
    for ch, _ in sorted(chars.items(), key=lambda x: (-x[1], sort_key(x[0]))):
        if ch in current:
            final[ch] = current[ch]
        else:
            final[ch] = worst + penalty
            penalty += 0.0001
    for piece, score in sorted(model.pieces, key=lambda x: (-x[1], sort_key(x[0]))):
        if len(final) >= vocab_size:
            break
        final.setdefault(piece, score)
    return sorted(final.items(), key=lambda x: (-f32(x[1]), sort_key(x[0])))
