"""Unigram, as in Kudo (2018) and SentencePiece: start big, re-estimate with EM, prune what costs least.

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

Encoding is Viterbi: the segmentation of each pre-token with the highest sum of piece scores,
summed in float32 with the earliest-starting piece winning ties, as SentencePiece does (the tests
check piece for piece). A character outside the vocabulary becomes its UTF-8 bytes
(byte-fallback tokens, SentencePiece's byte_fallback). Spaces stay spaces inside pieces (" the");
SentencePiece writes them as ▁.
"""

from __future__ import annotations

import heapq
import math
import random
import struct
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain

from . import pretokenize
from .merging import WordCache
from .records import ENDOFTEXT, MAX_PRUNED_RECORDED, PruneRound, Settings, Token
from .tokenizer_base import TokenizerBase

MAX_PIECE_LENGTH = 16  # characters; SentencePiece's max_sentencepiece_length
SEED_SIZE = 1_000_000  # SentencePiece's seed_sentencepiece_size
SHRINK = 0.75  # the share of pieces a round keeps (SentencePiece's shrinking_factor)
SUB_ITERATIONS = 2  # EM steps per round
UNK_PENALTY = 10.0  # an unknown character scores this far below the worst piece
MIN_EXPECTED = 0.5  # the M step drops pieces expected less often than this
_F32 = struct.Struct("f")


def f32(x: float) -> float:
    """x rounded to float32, as SentencePiece stores and sums scores."""
    return _F32.unpack(_F32.pack(x))[0]


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


def sort_key(piece: str) -> str:
    """Order of equal scores: SentencePiece's byte order of pieces, whose spaces are ▁ (after ASCII)."""
    return piece.replace(" ", "\u2581")


class _Model:
    """Pieces and log-probabilities, with the lattice of each word: (start, end, piece index) nodes."""

    def __init__(self, pieces: Sequence[tuple[str, float]]) -> None:
        self.pieces = list(pieces)
        self.index = {p: i for i, (p, _) in enumerate(self.pieces)}
        self.scores = [s for _, s in self.pieces]
        self.longest = max((len(p) for p, _ in self.pieces), default=1)
        self.unk_score = min(self.scores, default=0.0) - UNK_PENALTY

    def nodes(self, word: str) -> list[tuple[int, int, int]]:
        """Every piece in word, by start then length; -1 marks an unknown character."""
        index, out, n = self.index, [], len(word)
        for start in range(n):
            single = False
            for end in range(start + 1, min(n, start + self.longest) + 1):
                i = index.get(word[start:end])
                if i is not None:
                    out.append((start, end, i))
                    single |= end == start + 1
            if not single:
                out.append((start, start + 1, -1))
        return out

    def relattice(self, old: _Model, lattices: list[list[tuple[int, int, int]]]) -> list[list[tuple[int, int, int]]]:
        """The lattices of the same words under this model, whose pieces are some of old's: drop the pieces gone."""
        new = [self.index.get(p, -1) for p, _ in old.pieces]
        return [[(st, en, new[i] if i >= 0 else -1) for st, en, i in nodes if en == st + 1 or new[i] >= 0]
                for nodes in lattices]

    def score(self, i: int) -> float:
        return self.unk_score if i < 0 else self.scores[i]

    def viterbi(self, word: str, nodes: list[tuple[int, int, int]] | None = None) -> list[tuple[int, int, int]]:
        """The best segmentation; equal scores go to the path whose last piece starts earliest."""
        n = len(word)
        best = [-math.inf] * (n + 1)
        back: list[tuple[int, int, int] | None] = [None] * (n + 1)
        best[0] = 0.0
        table, unk = self.scores, self.unk_score
        for node in nodes if nodes is not None else self.nodes(word):
            start, end, i = node
            s = best[start] + (table[i] if i >= 0 else unk)
            if back[end] is None or s > best[end]:
                best[end], back[end] = s, node
        path, end = [], n
        while end > 0:
            node = back[end]
            path.append(node)
            end = node[0]
        return path[::-1]

    def forward_backward(self, word: str, nodes: list[tuple[int, int, int]]) -> tuple[float, list[float]]:
        """log Z of word (all segmentations) and each node's posterior probability."""
        n = len(word)
        alpha = [-math.inf] * (n + 1)
        beta = [-math.inf] * (n + 1)
        alpha[0] = beta[n] = 0.0
        table, unk = self.scores, self.unk_score
        scores = [table[i] if i >= 0 else unk for _, _, i in nodes]
        exp, log1p, inf = math.exp, math.log1p, -math.inf
        for (start, end, _), s in zip(nodes, scores):
            a, b = alpha[end], alpha[start] + s  # alpha[end] = log(exp(a) + exp(b))
            alpha[end] = b if a == inf else (a + log1p(exp(b - a)) if a > b else b + log1p(exp(a - b)))
        for (start, end, _), s in zip(reversed(nodes), reversed(scores)):
            a, b = beta[start], beta[end] + s
            beta[start] = b if a == inf else (a + log1p(exp(b - a)) if a > b else b + log1p(exp(a - b)))
        z = alpha[n]
        return z, [exp(alpha[st] + s + beta[en] - z) for (st, en, _), s in zip(nodes, scores)]


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


class UnigramTokenizer(TokenizerBase):
    """A trained Unigram tokenizer: ids are the pieces, best score first; special tokens, then byte fallback, follow."""

    def __init__(self, *, settings: Settings, pieces: Sequence[tuple[str, float]], rounds: Sequence[PruneRound] = (),
                 corpus_bytes: int = 0, corpus_tokens: int = 0, special_tokens: Sequence[str] = (ENDOFTEXT,)) -> None:
        self.settings = settings
        self.scored = [(p, f32(s)) for p, s in pieces]  # (piece, log-probability) in id order
        self.rounds = list(rounds)
        self.corpus_bytes, self.corpus_tokens = corpus_bytes, corpus_tokens
        self.vocab: dict[int, Token] = {i: p for i, (p, _) in enumerate(self.scored)}
        self.merges: list = []  # Unigram learns no merges; `rounds` is its history
        self._model = _Model(self.scored)
        self._init_codec(len(self.scored), special_tokens)
        self._cache = WordCache(self._viterbi)  # word -> ids, bounded in entries and bytes

    @property
    def vocab_size(self) -> int:
        return len(self.scored)

    def score(self, token_id: int) -> float:
        """A piece's log-probability."""
        return self.scored[token_id][1]

    def encode_word(self, word: str) -> tuple[int, ...]:
        """Viterbi over one pre-token, summing in float32 as SentencePiece does."""
        return self._cache[word]

    def _viterbi(self, word: str) -> tuple[int, ...]:
        model, n = self._model, len(word)
        best = [0.0] * (n + 1)
        back: list[tuple[int, int]] = [(-1, -1)] * (n + 1)
        index, scores, longest, unk = model.index, model.scores, model.longest, f32(model.unk_score)
        pack, unpack = _F32.pack, _F32.unpack
        for start in range(n):
            base, single = best[start], False
            for end in range(start + 1, min(n, start + longest) + 1):
                i = index.get(word[start:end])
                if i is None:
                    continue
                single |= end == start + 1
                s = unpack(pack(base + scores[i]))[0]
                if back[end][0] < 0 or s > best[end]:
                    best[end], back[end] = s, (start, i)
            if not single:
                s = unpack(pack(base + unk))[0]
                if back[start + 1][0] < 0 or s > best[start + 1]:
                    best[start + 1], back[start + 1] = s, (start, -1)
        ids: list[int] = []
        end = n
        while end > 0:
            start, i = back[end]
            if i >= 0:
                ids.append(i)
            else:
                ids.extend(reversed([self.byte_fallback_start + b for b in word[start].encode("utf-8")]))
            end = start
        ids.reverse()
        return tuple(ids)

    def _words(self, text: str) -> list[str]:
        return pretokenize.split_text(text, self.settings.pretokenizer)

    def _encode_text(self, text: str) -> list[int]:
        return list(chain.from_iterable(map(self.encode_word, self._words(text))))

    def log_likelihood(self, text: str) -> float:
        """log P(text): over the pre-tokens, the log of the summed probability of every segmentation."""
        text = self._check_text(text)
        words = self._words(self._prefix + text if text else text)
        return math.fsum(self._model.forward_backward(w, self._model.nodes(w))[0] for w in words)

    def nbest(self, text: str, n: int = 5) -> list[tuple[tuple[str, ...], float]]:
        """The n most likely segmentations of text, each with its probability among all segmentations.

        With a dummy prefix the first piece starts with its space, as SentencePiece's ▁ does.
        Example: tok.nbest("gatos", 2) -> [((" gato", "s"), 0.71), ((" ga", "tos"), 0.12)]
        """
        text = self._check_text(text)
        text = self._prefix + text if text else text
        model = self._model
        total = sum(model.forward_backward(w, model.nodes(w))[0] for w in self._words(text))
        beams: list[tuple[float, tuple[str, ...]]] = [(0.0, ())]
        for word in self._words(text):
            length = len(word)
            best: list[list[tuple[float, tuple[str, ...]]]] = [[] for _ in range(length + 1)]
            best[0] = [(0.0, ())]
            for start, end, i in model.nodes(word):
                piece = word[start:end]
                for s, path in best[start]:
                    best[end].append((s + model.score(i), path + (piece,)))
                best[end] = heapq.nlargest(n, best[end], key=lambda x: x[0])
            beams = heapq.nlargest(n, ((s + t, p + q) for s, p in beams for t, q in best[length]), key=lambda x: x[0])
        return [(path, math.exp(s - total)) for s, path in beams]

    def sample(self, text: str, alpha: float = 1.0, seed: int = 0) -> list[int]:
        """One segmentation drawn at random, each with probability proportional to P(segmentation) ** alpha.

        alpha = 1 samples by the model's own probabilities; larger alpha sharpens towards Viterbi,
        smaller flattens (SentencePiece's subword regularization). Deterministic for a seed.
        """
        return self._sample(text, alpha, random.Random(seed))

    def sample_counts(self, text: str, alpha: float, samples: int, seed: int = 0) -> Counter[tuple[str, ...]]:
        """How often each segmentation (as piece texts) comes out of `samples` draws from one seeded stream."""
        rng = random.Random(seed)
        counts: Counter[tuple[str, ...]] = Counter()
        for _ in range(samples):  # pieces as nbest gives them (the dummy prefix's space on the first)
            counts[tuple(render_piece(self.token_of(i)) for i in self._sample(text, alpha, rng))] += 1
        return counts

    def _sample(self, text: str, alpha: float, rng: random.Random) -> list[int]:
        if alpha < 0:
            raise ValueError(f"alpha must be 0 or more, not {alpha}.")
        text = self._check_text(text)
        text = self._prefix + text if text else text
        model, out = self._model, []
        for word in self._words(text):
            nodes = model.nodes(word)
            forward = [-math.inf] * (len(word) + 1)
            forward[0] = 0.0
            ending: list[list[tuple[int, int]]] = [[] for _ in range(len(word) + 1)]
            for start, end, i in nodes:
                s = forward[start] + alpha * model.score(i)
                a = forward[end]
                forward[end] = s if a == -math.inf else max(a, s) + math.log1p(math.exp(-abs(a - s)))
                ending[end].append((start, i))
            pieces, end = [], len(word)
            while end > 0:  # backward: pick the last piece by its share of the paths that end here
                weights = [math.exp(forward[start] + alpha * model.score(i) - forward[end]) for start, i in ending[end]]
                start, i = ending[end][_pick(weights, rng.random())]
                pieces.append((start, i))
                end = start
            for start, i in reversed(pieces):
                out += [i] if i >= 0 else [self.byte_fallback_start + b for b in word[start].encode("utf-8")]
        return out

    def truncated(self, n_rounds: int) -> UnigramTokenizer:
        """Unigram has no merges to cut; the same tokenizer (stepping walks `rounds`)."""
        return self


def render_piece(token: Token) -> str:
    """A piece as text; a byte-fallback token as <0xNN>, SentencePiece's spelling."""
    return token if isinstance(token, str) else "".join(f"<0x{b:02X}>" for b in token)


def _pick(weights: list[float], u: float) -> int:
    """The index u (uniform in [0, 1)) lands on when weights are laid end to end."""
    target, acc = u * sum(weights), 0.0
    for k, w in enumerate(weights):
        acc += w
        if target < acc:
            return k
    return len(weights) - 1


def _e_step(model: _Model, lattices: list[list[tuple[int, int, int]]], words: list[tuple[str, int]]
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


def _m_step(model: _Model, expected: list[float], desired: int) -> list[tuple[str, float]]:
    """Scores from expected counts; pieces expected under half a time go, unless that leaves fewer than desired
    (a small corpus): then the most expected of those used at all stay."""
    kept = [(p, e) for (p, _), e in zip(model.pieces, expected) if e >= MIN_EXPECTED]
    if len(kept) < desired:
        used = sorted(((p, e) for (p, _), e in zip(model.pieces, expected) if e > 1e-9), key=lambda x: -x[1])
        chosen = {p for p, _ in used[:desired]}
        kept = [(p, e) for (p, _), e in zip(model.pieces, expected) if p in chosen]
    logsum = digamma(math.fsum(e for _, e in kept))
    return [(p, digamma(e) - logsum) for p, e in kept]


def _prune(model: _Model, words: list[tuple[str, int]], lattices: list[list[tuple[int, int, int]]],
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
    model = _Model(seed_pieces(items))
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
    final_model = _Model(final)
    corpus_tokens = sum(len(final_model.viterbi(w)) * n for w, n in items)
    if progress is not None:
        progress(steps, steps)
    return UnigramTokenizer(settings=settings, pieces=final, rounds=rounds, corpus_bytes=corpus_bytes,
                            corpus_tokens=corpus_tokens)


def _round(model: _Model, lattices: list, items: list[tuple[str, int]], desired: int, number: int
           ) -> tuple[_Model, list, PruneRound | None, bool]:
    """Two EM steps, then pruning unless the vocabulary is small enough: (model, lattices, the round's record, done)."""
    before, unused = len(model.pieces), []
    for _ in range(SUB_ITERATIONS):
        expected, objective, tokens = _e_step(model, lattices, items)
        old, model = model, _Model(_m_step(model, expected, desired))
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
        old, model = model, _Model(pieces)
        lattices = model.relattice(old, lattices)
    return model, lattices, record, done


def _finalize(model: _Model, chars: Counter[str], vocab_size: int) -> list[tuple[str, float]]:
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
