"""Unigram training, as in Kudo (2018) and SentencePiece 0.2.3: start big, re-estimate with EM, prune what costs least.

Training: the seed vocabulary is every character plus the frequent substrings of the pre-tokens
(see seed_pieces: what SentencePiece's suffix array of its UTF-8 sentences finds). Each round runs
two EM steps (the E step sums each piece's expected count over all segmentations with
forward-backward; the M step is SentencePiece's Bayesian one, score = digamma(count) -
digamma(total), and drops pieces expected less than half a time), then removes the pieces whose
loss is smallest: the drop in corpus log-likelihood if each occurrence were re-segmented its
second-best way. A round keeps SHRINK (75 %) of the pieces, until at most 1.1 x vocab_size
remain; then pieces Viterbi would cut go, and the best-scoring pieces make the vocabulary.
Single characters are always kept. SentencePiece's own quirks are kept too, so that its
vocabulary comes out (tests/test_unigram.py): its trainer gives an unknown character piece 0's
id, and the loss is computed in float32.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

from bpeviz.core.records import MAX_PRUNED_RECORDED, PruneRound, Settings
from bpeviz.counting.blocks import DocumentEnds
from bpeviz.engine import PYTHON, Engine, UnigramSteps
from bpeviz.engine.unigram_python import char_counts
from bpeviz.models.unigram import Model, UnigramTokenizer, f32, sort_key

SHRINK = 0.75  # the share of pieces a round keeps (SentencePiece's shrinking_factor)
SUB_ITERATIONS = 2  # EM steps per round


def sentence_ends(docs: Sequence[str], settings: Settings) -> Counter[str]:
    """How often each pre-token ends a document, the last document's last one first (Unigram's seeds need both)."""
    ends = DocumentEnds(settings.pretokenizer, settings.dummy_prefix, MAX_TRAIN_WORD)
    for doc in docs:
        ends.add(doc)
    return ends.counted()


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
    finals: Counter[str] | None = None,
    engine: Engine = PYTHON,
) -> UnigramTokenizer:
    """Train a Unigram vocabulary of settings.vocab_size pieces on distinct pre-tokens with their counts.

    finals: how often each pre-token ends a document, if known (see unigram_python.seed_pieces). engine: the
    Python one, or the compiled one, which gives the same pieces and rounds.
    """
    items = _windows(list(words.items()) if isinstance(words, Counter) else list(words))
    run = engine.unigram_steps(items)
    model = Model(run.seeds(finals))
    desired = int(settings.vocab_size * 1.1)
    planned = max(1, math.ceil(math.log(max(len(model.pieces), desired + 1) / (desired + 1)) / -math.log(SHRINK)))
    lattices = run.lattices(model)
    rounds: list[PruneRound] = []
    while True:
        model, lattices, record, done = _round(run, model, lattices, desired, len(rounds) + 1)
        if record is not None:
            rounds.append(record)
            if log is not None:
                log(record)
            if progress is not None:
                progress(min(len(rounds), planned), planned)
        if done:
            break
    final = _finalize(Model(run.reachable(model)), char_counts(items), settings.vocab_size)
    corpus_tokens = run.tokens(Model(final))
    if progress is not None:
        progress(planned, planned)
    return UnigramTokenizer(settings=settings, pieces=final, rounds=rounds, corpus_bytes=corpus_bytes,
                            corpus_tokens=corpus_tokens, engine=run.engine)


def _round(run: UnigramSteps, model: Model, lattices: list, desired: int, number: int
           ) -> tuple[Model, list, PruneRound | None, bool]:
    """Two EM steps, then pruning unless the vocabulary is small enough: (model, lattices, the round's record, done)."""
    before, unused = len(model.pieces), []
    for _ in range(SUB_ITERATIONS):
        expected, objective, tokens = run.e_step(model, lattices)
        old, model = model, Model(run.m_step(model, expected))
        unused += [p for p, _ in old.pieces if p not in model.index]  # expected under half a time
        lattices = run.relattice(model, old, lattices)
    # SentencePiece prunes after every round, a small vocabulary too (pieces Viterbi never uses whole go), then stops
    pieces, pruned = run.prune(model, lattices, max(desired, int(SHRINK * len(model.pieces))))
    done = len(pieces) <= desired
    record = None
    if unused or pruned:
        record = PruneRound(number, before, len(pieces), -objective * sum(n for _, n in run.items), tokens,
                            tuple((unused + pruned)[:MAX_PRUNED_RECORDED]))
    old, model = model, Model(pieces)
    lattices = run.relattice(model, old, lattices)
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
