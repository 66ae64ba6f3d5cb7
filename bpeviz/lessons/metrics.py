"""What the merges buy: bytes per token, tokens per word, and the premium across languages.

Pure functions over encode callables; nothing here trains or draws.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bpeviz.core.records import to_bytes
from bpeviz.models.bpe import Tokenizer

Encode = Callable[[str], Sequence[int]]


def count_words(text: str) -> int:
    """Whitespace-separated words. Example: count_words("o gato  subiu") -> 3"""
    return len(text.split())


def bytes_per_token(text: str, n_tokens: int) -> float:
    return len(to_bytes(text)) / n_tokens if n_tokens else 0.0


def split_heldout(docs: Sequence[str], fraction: float) -> tuple[list[str], str]:
    """Keep the last `fraction` of the text apart (a little less, to start on a fresh line when one is near).

    Example: split_heldout(["a\\nb\\nc\\nd"], 0.25) -> (["a\\nb\\nc\\n"], "d")
    """
    if not 0 < fraction < 1:
        raise ValueError("The held-out fraction must be between 0 and 1 (e.g. 0.1 for 10 %).")
    text = "\n".join(docs)
    cut = int(len(text) * (1 - fraction))
    newline = text.find("\n", cut)  # the held-out part starts on a fresh line and is at most `fraction`
    if 0 <= newline < cut + 2000 and newline + 1 < len(text):
        cut = newline + 1
    train_part = text[:cut]
    return [d for d in train_part.split("\n") if d] if len(docs) > 1 else [train_part], text[cut:]


def training_curve(tok: Tokenizer) -> list[tuple[int, float]]:
    """(vocab size, bytes per token on the training text) after every merge, from one run."""
    return [(tok.n_base + k, tok.bytes_per_token_after(k)) for k in range(len(tok.merges) + 1)]


def curve_points(tok: Tokenizer) -> list[int]:
    """Merge counts at which to measure held-out text: vocab 256, 512, 1024, ... and the full size."""
    sizes = []
    size = 256
    while size < tok.vocab_size:
        if size >= tok.n_base:
            sizes.append(size - tok.n_base)
        size *= 2
    sizes.append(len(tok.merges))
    return sorted(set([0, *sizes]))


def heldout_curve(tok: Tokenizer, heldout: str, merges: Sequence[int] | None = None) -> list[tuple[int, float]]:
    """(vocab size, bytes per token on held-out text) encoding with the first k merges, k in merges (curve_points)."""
    points = []
    for k in curve_points(tok) if merges is None else merges:
        n_tokens = len(tok.truncated(k).encode_ordinary(heldout))
        points.append((tok.n_base + k, bytes_per_token(heldout, n_tokens)))
    return points


@dataclass(frozen=True)
class Doubling:
    from_size: int
    to_size: int
    from_bpt: float
    to_bpt: float

    @property
    def gain(self) -> float:
        return self.to_bpt - self.from_bpt

    def sentence(self) -> str:
        return f"{self.from_size:,} → {self.to_size:,} buys {self.gain:.2f} bytes/token"


def doublings(points: Sequence[tuple[int, float]]) -> list[Doubling]:
    """What each doubling of the vocabulary bought, from (vocab size, bytes/token) points."""
    by_size = dict(points)
    sizes = sorted(s for s in by_size if s >= 256 and (s & (s - 1)) == 0)
    return [Doubling(a, b, by_size[a], by_size[b]) for a, b in zip(sizes, sizes[1:]) if b == 2 * a]


@dataclass(frozen=True)
class LanguageRow:
    language: str
    tokenizer: str
    tokens: int
    words: int
    n_bytes: int
    premium: float  # tokens relative to English for the same tokenizer

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words if self.words else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.n_bytes / self.tokens if self.tokens else 0.0


def language_table(texts: Mapping[str, str], encoders: Mapping[str, Encode], *, baseline: str = "en") -> list[LanguageRow]:
    """Tokens, words, bytes and premium for each language x tokenizer (parallel texts)."""
    rows = []
    for name, encode in encoders.items():
        counts = {lang: len(encode(text)) for lang, text in texts.items()}
        base = counts.get(baseline) or 0
        for lang, text in texts.items():
            premium = counts[lang] / base if base else 0.0
            rows.append(LanguageRow(lang, name, counts[lang], count_words(text), len(to_bytes(text)), premium))
    return rows
