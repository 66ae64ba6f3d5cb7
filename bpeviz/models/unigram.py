"""Unigram, as in Kudo (2018) and SentencePiece: the tokenizer (training is `unigram_train.py`).

Encoding is Viterbi: the segmentation of each pre-token with the highest sum of piece scores,
summed in float32 from the score of the text before it, with the earliest-starting piece winning
ties, as SentencePiece does over a whole sentence (the tests check piece for piece). A tokenizer
read from a HF tokenizer.json sums as HF does instead (`sums="float64"`: each pre-token from 0).
A character outside the vocabulary becomes its UTF-8 bytes (byte-fallback tokens, SentencePiece's
byte_fallback). Spaces stay spaces inside pieces (" the"); SentencePiece writes them as ▁.
"""

from __future__ import annotations

import heapq
import math
import random
import struct
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from bpeviz.core.records import ENDOFTEXT, PruneRound, Settings, Token

from .base import TokenizerBase
from .merging import WordCache

MAX_PIECE_LENGTH = 16  # characters; SentencePiece's max_sentencepiece_length
UNK_PENALTY = 10.0  # an unknown character scores this far below the worst piece
_F32 = struct.Struct("f")
SUMS = ("float32", "float64")  # how Viterbi adds scores: SentencePiece's way (one float32 sum per text), or HF's


def _ONE(x: float) -> tuple[float]:
    return (x,)


def f32(x: float) -> float:
    """x rounded to float32, as SentencePiece stores and sums scores."""
    return _F32.unpack(_F32.pack(x))[0]


def sort_key(piece: str) -> str:
    """Order of equal scores: SentencePiece's byte order of pieces, whose spaces are ▁ (after ASCII)."""
    return piece.replace(" ", "\u2581")


class Model:
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

    def relattice(self, old: Model, lattices: list[list[tuple[int, int, int]]]) -> list[list[tuple[int, int, int]]]:
        """The lattices of the same words under this model, whose pieces are some of old's: drop the pieces gone.

        In place, word by word (the list given is the list returned): the old and new lattices of a big corpus are
        never held whole at once.
        """
        new = [self.index.get(p, -1) for p, _ in old.pieces]
        for w, nodes in enumerate(lattices):
            lattices[w] = [(st, en, new[i] if i >= 0 else -1) for st, en, i in nodes if en == st + 1 or new[i] >= 0]
        return lattices

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
            found = back[end]
            assert found is not None  # every character has a node (a piece, or the unknown character)
            path.append(found)
            end = found[0]
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


class UnigramTokenizer(TokenizerBase):
    """A trained Unigram tokenizer: ids are the pieces, best score first; special tokens, then byte fallback, follow."""

    def __init__(self, *, settings: Settings, pieces: Sequence[tuple[str, float]], rounds: Sequence[PruneRound] = (),
                 corpus_bytes: int = 0, corpus_tokens: int = 0, special_tokens: Sequence[str] = (ENDOFTEXT,),
                 sums: str = "float32", prefix_unless_space: bool = False, engine: str = "",
                 unk_id: int | None = None) -> None:
        if sums not in SUMS:
            raise ValueError(f"sums must be one of {', '.join(SUMS)}, not {sums!r}.")
        self.settings, self.sums = settings, sums  # float32: SentencePiece's Viterbi; float64: HF tokenizers'
        self.prefix_unless_space = prefix_unless_space  # an imported file whose Metaspace puts the dummy prefix
        # an imported file without byte fallback (T5): an unknown character is this piece, a run of them one, as HF does
        self.unk_id = unk_id
        self.scored = [(p, f32(s) if sums == "float32" else float(s)) for p, s in pieces]  # (piece, log-prob), id order
        self.rounds = list(rounds)
        self.engine = engine  # which loops trained it: "python", "compiled", or "" (read from a file)
        self.corpus_bytes, self.corpus_tokens = corpus_bytes, corpus_tokens
        self.vocab: dict[int, Token] = {i: p for i, (p, _) in enumerate(self.scored)}
        self.merges: list = []  # Unigram learns no merges; `rounds` is its history
        self._model = Model(self.scored)
        self._unk = f32(self._model.unk_score) if sums == "float32" else self._model.unk_score
        self._init_codec(len(self.scored), special_tokens)
        self._start_caches()

    _CACHES = ("_cache",)

    def _start_caches(self) -> None:
        self._cache = PathCache(self._search)  # type: ignore[arg-type]  # word -> its best Path (WordCache holds any value)

    @property
    def vocab_size(self) -> int:
        return len(self.scored)

    def score(self, token_id: int) -> float:
        """A piece's log-probability."""
        return self.scored[token_id][1]

    def encode_word(self, word: str) -> tuple[int, ...]:
        """Viterbi over one pre-token, summing in float32 as SentencePiece does."""
        return self._cache[word].ids

    def _search(self, word: str, base: float = 0.0) -> Path:
        """The best path through word when the text before it scored `base` (float32 sums, SentencePiece's order).

        SentencePiece runs one Viterbi over a whole sentence, so a word's sums start from the score of
        the text before it, and float32 rounding can turn an exact tie either way. The path records the
        closest decision it made (`margin`) and its largest partial sum, so `_encode_text` knows when a
        path found from 0 holds from `base` too (nearly always) and when to search again from `base`.
        """
        model, n = self._model, len(word)
        best = [base] * (n + 1)
        back: list[tuple[int, int]] = [(-1, -1)] * (n + 1)
        index, scores, longest, unk = model.index, model.scores, model.longest, self._unk
        pack: Callable[[float], Any] = _F32.pack if self.sums == "float32" else float  # round to float32, or keep
        unpack: Callable[[Any], tuple[float, ...]] = _F32.unpack if self.sums == "float32" else _ONE
        margin, low = math.inf, base
        for start in range(n):
            here, single = best[start], False
            for end in range(start + 1, min(n, start + longest) + 1):
                i = index.get(word[start:end])
                if i is None:
                    continue
                single |= end == start + 1
                s = unpack(pack(here + scores[i]))[0]
                if back[end][0] < 0:
                    best[end], back[end], low = s, (start, i), min(low, s)
                else:
                    margin = min(margin, abs(s - best[end]))
                    if s > best[end]:
                        best[end], back[end] = s, (start, i)
            if not single:
                s = unpack(pack(here + unk))[0]
                if back[start + 1][0] < 0:
                    best[start + 1], back[start + 1], low = s, (start, -1), min(low, s)
                else:
                    margin = min(margin, abs(s - best[start + 1]))
                    if s > best[start + 1]:
                        best[start + 1], back[start + 1] = s, (start, -1)
        return self._path(word, back, margin, low - base)

    def _path(self, word: str, back: list[tuple[int, int]], margin: float, low: float) -> Path:
        ids: list[int] = []
        steps: list[float] = []
        end, scores, unk = len(word), self._model.scores, self._unk
        while end > 0:
            start, i = back[end]
            steps.append(scores[i] if i >= 0 else unk)
            if self.unk_id is not None and (i < 0 or i == self.unk_id):
                if not (ids and ids[-1] == self.unk_id):  # a run of unknown pieces is one, as HF fuses them
                    ids.append(self.unk_id)
            elif i >= 0:
                ids.append(i)
            else:
                ids.extend(reversed([self.byte_fallback_start + b for b in word[start].encode("utf-8")]))
            end = start
        ids.reverse()
        steps.reverse()
        return Path(tuple(ids), tuple(steps), margin, -low)

    def _encode_text(self, text: str) -> list[int]:
        if self.sums == "float64":  # HF tokenizers: each pre-token on its own, from 0
            return [i for word in self._words(text) for i in self._cache[word].ids]
        out: list[int] = []
        total, pack, unpack = 0.0, _F32.pack, _F32.unpack
        for word in self._words(text):
            path = self._cache[word]
            if path.margin <= (len(word) + 2) * 2.0 ** -22 * (2 * path.depth + abs(total)):
                path = self._search(word, total)  # a near tie that rounding from `total` may turn
            out += path.ids
            for step in path.steps:
                total = unpack(pack(total + step))[0]
        return out

    def _words(self, text: str) -> list[str]:
        return self._pretokens(text)

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

    def truncated(self, n: int) -> UnigramTokenizer:
        """Unigram has no merges to cut; the same tokenizer (stepping walks `rounds`)."""
        return self


class Path(NamedTuple):
    """A word's best segmentation: ids, the float32 score of each step (a piece, or an unknown character),
    the smallest gap between two sums the search compared, and the largest partial sum's magnitude."""
    ids: tuple[int, ...]
    steps: tuple[float, ...]
    margin: float
    depth: float


class PathCache(WordCache):
    """WordCache of Paths, costed by their two tuples."""

    @staticmethod
    def _cost(piece: str, path: Path) -> int:  # type: ignore[override]  # a Path is this cache's value
        return 300 + len(piece) + 16 * len(path.ids)


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


