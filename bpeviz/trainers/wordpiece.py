"""WordPiece's training, as the Hugging Face course (chapter 6) teaches it: merge the pair with the best score.

Training starts every pre-token as its first character plus `##`-marked continuation
characters ("gato" -> g ##a ##t ##o) and repeatedly merges the adjacent pair with the highest
score count(ab) / (count(a) * count(b)): a pair whose parts are rare on their own beats a pair
that is merely frequent. The new token is a + b without b's `##`. Scores are compared exactly
(as fractions); equal scores go to the pair that occurs first when the corpus is read in order
(pre-tokens in order of first appearance, left to right). Each step also records the best few
pairs and the most frequent pair, which BPE would have taken.

HF tokenizers' own `WordPieceTrainer` picks pairs by frequency, as BPE does, and only spells the
result WordPiece's way; the Compare algorithms page says so.

The tokenizer (greedy encoding, `##` spelling) is models/wordpiece.py.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction

from bpeviz.core.records import Settings, WordPieceMerge
from bpeviz.models.merging import merge_pair
from bpeviz.models.wordpiece import Key, WordPieceTokenizer, spell, word_keys

TOP_RECORDED = 5  # best pairs kept per step, winner first
MAX_TRAIN_WORD = 256  # characters of a word trained on as one piece; longer words are cut (see training_windows)
NEAR = 1e-9  # scores this close (relative) as floats are compared exactly


def training_windows(words: Sequence[tuple[str, int]]) -> list[tuple[list[Key], int]]:
    """Each word as keys with its count; a word longer than MAX_TRAIN_WORD is cut into windows of that length.

    A merge never crosses a window's edge, so a text with no spaces (one 64 kB "word") costs each merge
    the windows holding its pair, not the whole text (SentencePiece bounds its sentences the same way).
    Example: training_windows([("gato", 2)]) -> [([(False, "g"), (True, "a"), (True, "t"), (True, "o")], 2)]
    """
    out = []
    for word, n in words:
        keys = word_keys(word)
        out += [(keys[i:i + MAX_TRAIN_WORD], n) for i in range(0, len(keys), MAX_TRAIN_WORD)]
    return out


class _Trainer:
    """Words as token keys with counts; pair counts, token counts and a max-heap of scores kept up to date."""

    def __init__(self, words: Sequence[tuple[str, int]]) -> None:
        windows = training_windows(words)
        self.words: list[list[Key]] = [keys for keys, _ in windows]
        self.freq = [n for _, n in windows]
        self.unit: Counter[Key] = Counter()  # token -> how often it stands as a token
        self.pair_count: Counter[tuple[Key, Key]] = Counter()
        self.where: dict[tuple[Key, Key], set[int]] = {}  # pair -> words holding it
        self.pairs_of: dict[Key, set[tuple[Key, Key]]] = {}  # token -> pairs it is part of
        for w, (keys, n) in enumerate(zip(self.words, self.freq)):
            for key in keys:
                self.unit[key] += n
            self._add_pairs(w, keys, n)
        self.tokens = sum(len(k) * n for k, n in zip(self.words, self.freq))
        self.heap: list = []
        self.by_count: list = []
        for pair in self.pair_count:
            self._push(pair)

    def _add_pairs(self, w: int, keys: list[Key], n: int) -> None:
        for pair in zip(keys, keys[1:]):
            if not self.pair_count[pair]:
                self.pairs_of.setdefault(pair[0], set()).add(pair)
                self.pairs_of.setdefault(pair[1], set()).add(pair)
            self.pair_count[pair] += n
            self.where.setdefault(pair, set()).add(w)

    def _drop_pairs(self, keys: list[Key], n: int) -> None:
        for pair in zip(keys, keys[1:]):
            self.pair_count[pair] -= n
            if not self.pair_count[pair]:
                del self.pair_count[pair], self.where[pair]
                self.pairs_of[pair[0]].discard(pair)
                self.pairs_of[pair[1]].discard(pair)

    def _state(self, pair: tuple[Key, Key]) -> tuple[int, int, int]:
        return self.pair_count.get(pair, 0), self.unit[pair[0]], self.unit[pair[1]]

    def _push(self, pair: tuple[Key, Key]) -> None:
        count, na, nb = self._state(pair)
        if count:
            heapq.heappush(self.heap, (-count / (na * nb), pair, count, na, nb))
            heapq.heappush(self.by_count, (-count, pair))

    def first_at(self, pair: tuple[Key, Key]) -> tuple[int, int]:
        """Where the pair first stands: (word index, position)."""
        w = min(self.where[pair])
        keys = self.words[w]
        return w, next(i for i in range(len(keys) - 1) if (keys[i], keys[i + 1]) == pair)

    def best(self, k: int) -> list[tuple[Fraction, tuple[int, int], tuple[Key, Key], int]]:
        """The k best pairs by score, exactly: (score, first position, pair, count), winner first."""
        taken: dict[tuple[Key, Key], tuple] = {}
        heap, top_float = self.heap, 0.0
        while heap and (len(taken) < k or -heap[0][0] >= top_float * (1 - NEAR)):
            entry = heapq.heappop(heap)
            score, pair, count, na, nb = entry
            if pair in taken or self._state(pair) != (count, na, nb):
                continue  # stale (a fresher entry exists) or a duplicate
            if not taken:
                top_float = -score  # every pair within NEAR of the best is compared exactly
            taken[pair] = entry
        for entry in taken.values():
            heapq.heappush(heap, entry)
        ranked = [(Fraction(e[2], e[3] * e[4]), self.first_at(p), p, e[2]) for p, e in taken.items()]
        ranked.sort(key=lambda r: (-r[0], r[1]))
        return ranked[:max(k, 1)]

    def most_frequent(self) -> tuple[tuple[Key, Key], int] | None:
        """The most frequent pair (first on ties): what BPE would merge now."""
        heap, top = self.by_count, 0
        tied: list[tuple[Key, Key]] = []
        while heap:
            neg, pair = heap[0]
            if self.pair_count.get(pair, 0) != -neg or pair in tied:
                heapq.heappop(heap)
                continue
            if tied and -neg < top:
                break
            top = -neg
            tied.append(heapq.heappop(heap)[1])
        for pair in tied:
            heapq.heappush(heap, (-top, pair))
        return (min(tied, key=self.first_at), top) if tied else None

    def merge(self, pair: tuple[Key, Key]) -> Key:
        """Merge every occurrence, left to right, in every word holding it; rescore what changed."""
        a, b = pair
        new: Key = (a[0], a[1] + b[1])
        changed: set[tuple[Key, Key]] = set()
        for w in sorted(self.where[pair]):
            keys, n = self.words[w], self.freq[w]
            out, fired = merge_pair(keys, pair, new)
            old_pairs = set(zip(keys, keys[1:]))
            self._drop_pairs(keys, n)
            self._add_pairs(w, out, n)
            for gone in old_pairs - set(zip(out, out[1:])):
                if gone in self.where:
                    self.where[gone].discard(w)
            changed |= old_pairs
            changed.update(zip(out, out[1:]))
            self.unit[a] -= fired * n
            self.unit[b] -= fired * n
            self.unit[new] += fired * n
            self.tokens -= fired * n
            self.words[w] = out
        for token in (a, b, new):
            changed |= self.pairs_of.get(token, set())
        for p in changed:
            self._push(p)
        return new


def train_wordpiece(
    words: Sequence[tuple[str, int]] | Counter[str],
    settings: Settings,
    *,
    progress: Callable[[int, int], None] | None = None,
    corpus_bytes: int = 0,
) -> WordPieceTokenizer:
    """Merge best-scoring pairs until the vocabulary holds settings.vocab_size distinct tokens (or no pair is left).

    words: distinct pre-tokens with their counts, in corpus order.
    """
    items = list(words.items()) if isinstance(words, Counter) else list(words)
    trainer = _Trainer(items)
    base_keys = sorted({k for keys in trainer.words for k in keys}, key=spell)
    base = [spell(k) for k in base_keys]
    ids = {k: i for i, k in enumerate(base_keys)}
    corpus_tokens = trainer.tokens
    merges: list[WordPieceMerge] = []
    want = settings.vocab_size - len(base)
    if progress is not None:
        progress(0, want)  # the pairs are counted: a budget may stop here, before the first (slow) merge
    while len(ids) < settings.vocab_size:
        ranked = trainer.best(TOP_RECORDED)
        if not ranked:
            break
        merges.append(_step(trainer, ranked, ids, len(merges) + 1))
        if progress is not None:  # every merge: one scores every pair, a second or more on megabytes of text
            progress(len(ids) - len(base), want)
    if progress is not None:
        progress(want, want)
    tok = WordPieceTokenizer(settings=settings, alphabet=base, merges=merges, corpus_bytes=corpus_bytes,
                             corpus_tokens=corpus_tokens)
    tok.engine = "python"  # WordPiece has one engine
    return tok


def _step(trainer: _Trainer, ranked: list, ids: dict[Key, int], rank: int) -> WordPieceMerge:
    """Merge the best-scoring pair (ranked[0]) and record it with the best few and the pair BPE would take."""
    score, _, pair, count = ranked[0]
    frequent = trainer.most_frequent()
    bpe_pick = None
    if frequent is not None:
        (fa, fb), fc = frequent
        bpe_pick = (spell(fa), spell(fb), fc, fc / (trainer.unit[fa] * trainer.unit[fb]))
    a, b = pair
    na, nb = trainer.unit[a], trainer.unit[b]
    new = trainer.merge(pair)
    new_id = ids.setdefault(new, len(ids))
    return WordPieceMerge(
        rank=rank, left=spell(a), right=spell(b), token=spell(new), count=count, score=float(score),
        id=new_id, left_id=ids[a], right_id=ids[b], left_count=na, right_count=nb, tokens_after=trainer.tokens,
        top=tuple((spell(p[0]), spell(p[1]), c, float(s)) for s, _, p, c in ranked),
        most_frequent=bpe_pick,
    )
