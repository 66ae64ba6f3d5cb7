"""Pre-tokenization: cut text into the pieces that merges may never cross.

Presets are named regex patterns (the real GPT-2, cl100k and o200k ones among them).
A custom pattern typed by a user runs with a timeout. Text that no match covers is kept
as a piece of its own, so splitting never loses a character. This module does not merge.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex

# tiktoken's own split patterns (tiktoken_ext/openai_public.py), copied as data.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# A word is a run of letters, digits or other signs, with the one space before it; other
# whitespace stands alone; runs are cut at 64 characters.
WORDS_PATTERN = r""" ?\p{L}{1,64}| ?\p{N}{1,64}| ?[^\s\p{L}\p{N}]{1,64}|\s"""

PRETOKENIZERS: dict[str, str | None] = {  # name -> pattern (None: no split at all)
    "none": None,
    "gpt2": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "words": WORDS_PATTERN,
}
DESCRIPTIONS: dict[str, str] = {
    "none": "no split: merges may cross spaces (classic BPE, finds 'e␣', '␣the␣')",
    "gpt2": "GPT-2's pattern: letters, digits, punctuation, each with one leading space",
    "gpt4": "cl100k_base's pattern: digits in groups of up to 3, case-insensitive contractions",
    "o200k": "o200k_base's pattern: case-aware words, digits in groups of up to 3",
    "words": "simple words: runs of letters / digits / other signs with one leading space",
}
CUSTOM_TIMEOUT_SECONDS = 1.0

# No pre-token of these presets crosses a space that follows a non-space: spaces only begin
# pre-tokens or sit in all-whitespace ones, and no alternative looks behind. So text cut at those
# spaces splits into the same pieces, and an encoder can cache whole chunks. The cut uses `re`,
# which is faster; its \s is a superset of `regex`'s (it adds \x1c-\x1f), so it cuts at no
# more places than the rule allows. tests/test_engine.py checks the equivalence on random text.
CHUNKABLE = frozenset({"gpt2", "gpt4", "o200k", "words"})
_CHUNK_CUT = re.compile(r"(?<=\S)(?= )")


def chunks(text: str) -> list[str]:
    """Cut text where no preset pre-token can cross. Example: chunks("o gato  x") -> ["o", " gato  x"]"""
    return _CHUNK_CUT.split(text)


def custom_budget(n_chars: int) -> float:
    """Seconds a custom pattern may take on n_chars of text: 1 s, plus 2 s per million characters."""
    return CUSTOM_TIMEOUT_SECONDS + 2.0 * n_chars / 1_000_000


class PatternError(ValueError):
    """A custom split pattern that does not compile or takes too long."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One pre-token and where it sits in the text: text[start:end] == piece.text."""

    text: str
    start: int
    end: int


@lru_cache(maxsize=64)
def _compile(pattern: str) -> regex.Pattern:
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise PatternError(f"The split pattern does not compile: {exc}. Check brackets and escapes.") from exc


def resolve(pretokenizer: str) -> str | None:
    """Return the pattern of a preset name, or the string itself as a custom pattern.

    Example: resolve("none") -> None; resolve(r"\\w+|\\W") -> r"\\w+|\\W".
    """
    if pretokenizer in PRETOKENIZERS:
        return PRETOKENIZERS[pretokenizer]
    if not pretokenizer:
        raise PatternError(f"Empty split pattern. Choose one of {', '.join(PRETOKENIZERS)} or type a regex.")
    _compile(pretokenizer)
    return pretokenizer


def is_custom(pretokenizer: str) -> bool:
    return pretokenizer not in PRETOKENIZERS


def split_text(text: str, pretokenizer: str = "gpt2", *, timeout: float = CUSTOM_TIMEOUT_SECONDS) -> list[str]:
    """Cut text into pre-token strings; ''.join(result) == text.

    Example: split_text("o gato.", "gpt2") -> ["o", " gato", "."]
    """
    pattern = resolve(pretokenizer)
    if not text:
        return []
    if pattern is None:
        return [text]
    if not is_custom(pretokenizer):
        return _compile(pattern).findall(text)  # presets cover every character
    return [piece.text for piece in split_pieces(text, pretokenizer, timeout=timeout)]


def split_pieces(text: str, pretokenizer: str = "gpt2", *, timeout: float = CUSTOM_TIMEOUT_SECONDS) -> list[Piece]:
    """Cut text into pieces with offsets; gaps a custom pattern leaves become pieces too.

    Example: split_pieces("o gato", "gpt2") -> [Piece("o", 0, 1), Piece(" gato", 1, 6)]
    """
    pattern = resolve(pretokenizer)
    if not text:
        return []
    if pattern is None:
        return [Piece(text, 0, len(text))]
    pieces: list[Piece] = []
    position = 0
    try:
        for match in _compile(pattern).finditer(text, timeout=timeout if is_custom(pretokenizer) else None):
            start, end = match.span()
            if start == end:
                continue  # an empty match covers nothing
            if start > position:
                pieces.append(Piece(text[position:start], position, start))
            pieces.append(Piece(match.group(), start, end))
            position = end
    except TimeoutError as exc:
        raise PatternError(
            f"The split pattern took longer than {timeout:g} s on this text (catastrophic backtracking?). "
            "Simplify it, e.g. avoid nested quantifiers like (a+)+."
        ) from exc
    if position < len(text):
        pieces.append(Piece(text[position:], position, len(text)))
    return pieces


def count_pieces(docs: Sequence[str], pretokenizer: str = "gpt2") -> Counter[str]:
    """Distinct pre-tokens of all documents with their counts, in order of first occurrence.

    A custom pattern gets one time budget for the whole corpus, not one per document.
    Example: count_pieces(["o gato", "o cão"]) -> Counter({"o": 2, " gato": 1, " cão": 1})
    """
    counts: Counter[str] = Counter()
    if not is_custom(pretokenizer):
        for doc in docs:
            counts.update(split_text(doc, pretokenizer))
        return counts
    deadline = time.monotonic() + custom_budget(sum(len(d) for d in docs))
    for doc in docs:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise PatternError("The split pattern is too slow on this corpus; simplify it or use a preset.")
        counts.update(split_text(doc, pretokenizer, timeout=remaining))
    return counts
