"""Pre-tokenization: cut text into the pieces that merges may never cross.

Presets are named regex patterns (the real GPT-2, cl100k and o200k ones among them); they
run on Python's faster `re` through an exact twin where the text allows (see preset_split).
A custom pattern typed by a user is bounded in size before it compiles and runs with a
timeout. Text that no match covers is kept as a piece of its own, so splitting never loses
a character. This module does not merge.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

import regex

from .oniguruma import for_oniguruma
from .patterns import (
    CUSTOM_TIMEOUT_SECONDS,
    PatternError,
    compile_bounded,
    compile_cached,
    custom_budget,
)
from .twin import PAST_BMP, bmp_twin, digits_right_to_left

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
# GPT-2's pattern as first published (tiktoken's educational trainer uses it): no possessive quantifiers.
GPT2_ORIGINAL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# cl100k_base's pattern as HF tokenizers' Oniguruma engine reads it: there `{1,3}+` repeats the group, so a
# run of digits stays one piece instead of being cut in threes.
GPT4_HF_PATTERN = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"(?:\p{N}{1,3})+")
# minbpe's GPT4_SPLIT_PATTERN (Karpathy's minbpe/regex.py): cl100k_base's pattern without `\s++$`, ending in `\s+`,
# with plain (not possessive) letter and digit runs: "ab ab\n\n  " splits "\n\n", "  " where cl100k's gives "\n\n  "
MINBPE_GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
)
# cl100k_base's pattern with digits grouped right to left, as commas group them: 1234567 -> 1|234|567
# (Singh & Strouse 2024: arithmetic is markedly better so). A group is 1-3 digits followed by whole threes.
R2L_DIGITS_PATTERN = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))")
# SuperBPE's second stage (Liu et al. 2025; the split its authors' training script uses): no split at spaces, only digits
# stand apart, grouped in threes from the right; a superword may hold spaces, newlines and punctuation.
SUPERWORD_SPLIT = "superword"  # the preset SuperBPE's second stage splits with (and BoundlessBPE its pieces)
# Decimal digits only (\p{Nd}): other numerals (½, ①, Ⅳ) stay in the runs around them, as the authors' split keeps them.
SUPERWORD_PATTERN = r"\p{Nd}{1,3}(?=(?:\p{Nd}{3})*(?!\p{Nd}))|[^\p{Nd}]+"
_WHOLE_RUNS = {"r2l-digits": GPT4_HF_PATTERN, "superword": r"\p{Nd}+|[^\p{Nd}]+"}  # their twins (see preset_split)
_DIGIT_RUNS = {"r2l-digits": r"\p{N}{4,}", "superword": r"\p{Nd}{4,}"}  # the runs each cuts in threes
# SentencePiece's split: only spaces separate words, each word keeps the space before it (its ▁).
SPACES_PATTERN = r""" ?[^ ]+| """
# SentencePiece's own trainer also keeps U+001F and U+2585 (its unknown-piece mark ▅) out of every piece: probed with
# sentencepiece 0.2, they are the only code points it never puts in a piece (control characters such as U+0001 or a
# tab it merges like letters). Standing alone, they are never inside a merge.
# NUL it keeps out too: a NUL ends a word there, and what follows starts one without its ▁ (probed: "xa\x00by" gives
# "▁xa", "by").
SENTENCEPIECE_PATTERN = " ?[^ \x00\x1f\u2585]+| |[\x00\x1f\u2585]"  # the characters themselves, so `re` reads it too
# BERT's split (BertPreTokenizer, Whitespace in HF tokenizers): whitespace runs, runs of other non-punctuation,
# each punctuation sign alone (ASCII symbols count as punctuation, as BERT's do).
BERT_SPLIT = r"\s+|[^\s\p{P}!-/:-@\[-`{-~]+|[\p{P}!-/:-@\[-`{-~]"
# A word is a run of letters, digits or other signs, with the one space before it; other
# whitespace stands alone; runs are cut at 64 characters.
WORDS_PATTERN = r""" ?\p{L}{1,64}| ?\p{N}{1,64}| ?[^\s\p{L}\p{N}]{1,64}|\s"""

@dataclass(frozen=True)
class Pretokenizer:
    """A named split preset: its pattern (None: no split), what it does, and whether text may be cut at spaces first."""

    name: str
    pattern: str | None
    description: str
    # No pre-token of a chunkable preset crosses a space that follows a non-space: spaces only begin
    # pre-tokens or sit in all-whitespace ones, and no alternative looks behind. So text cut at those
    # spaces splits into the same pieces, and an encoder can cache whole chunks (tests check it).
    chunkable: bool = True
    # Nor a newline that follows a non-space and comes before one (newlines end every pre-token that holds
    # them), so a file of lines with no spaces (Chinese, Japanese) still streams. Not "spaces": its words hold newlines.
    newline_cut: bool = True


PRETOKENIZERS: dict[str, Pretokenizer] = {
    "none": Pretokenizer("none", None, "no split: merges may cross spaces (classic BPE, finds 'e␣', '␣the␣')",
                         chunkable=False, newline_cut=False),
    "gpt2": Pretokenizer("gpt2", GPT2_PATTERN, "GPT-2's pattern: letters, digits, punctuation, each with one leading space"),
    "gpt4": Pretokenizer("gpt4", GPT4_PATTERN,
                         "cl100k_base's pattern: digits in groups of up to 3, case-insensitive contractions"),
    "o200k": Pretokenizer("o200k", O200K_PATTERN, "o200k_base's pattern: case-aware words, digits in groups of up to 3"),
    "words": Pretokenizer("words", WORDS_PATTERN, "simple words: runs of letters / digits / other signs with one leading space"),
    "gpt2-original": Pretokenizer("gpt2-original", GPT2_ORIGINAL_PATTERN,
                                  "GPT-2's pattern as first published (tiktoken's educational trainer)"),
    "gpt4-minbpe": Pretokenizer("gpt4-minbpe", MINBPE_GPT4_PATTERN,
                                "cl100k_base's pattern as minbpe writes it: no \\s++$, whitespace runs end in \\s+"),
    "gpt4-hf": Pretokenizer("gpt4-hf", GPT4_HF_PATTERN,
                            "cl100k_base's pattern as HF tokenizers reads it: runs of digits are not cut in threes"),
    "r2l-digits": Pretokenizer("r2l-digits", R2L_DIGITS_PATTERN,
                               "cl100k_base's pattern with digits grouped right to left: 1234567 -> 1 234 567"),
    "superword": Pretokenizer("superword", SUPERWORD_PATTERN,
                              "SuperBPE's second stage: no split at spaces; digits alone, grouped right to left",
                              chunkable=False, newline_cut=False),
    "spaces": Pretokenizer("spaces", SPACES_PATTERN, "only spaces split; each word keeps its space (SentencePiece's ▁word)",
                           newline_cut=False),
    "sentencepiece": Pretokenizer("sentencepiece", SENTENCEPIECE_PATTERN, "SentencePiece's split: only spaces split, each "
                                  "word keeps its space; NUL, U+001F and U+2585 (▅), which SentencePiece keeps out of "
                                  "every piece, stand alone", newline_cut=False),
}


def reads_meta_as_space(settings) -> bool:  # settings: core.records.Settings
    """Whether text is read as SentencePiece reads it, a ▁ (U+2581) in it being the space SentencePiece writes ▁: the
    sentencepiece-bpe dialect and Unigram's SentencePiece-style split (a space before each document)."""
    return settings.dummy_prefix and settings.pretokenizer in ("sentencepiece", "spaces")
_PRESET_PATTERNS = frozenset(p.pattern for p in PRETOKENIZERS.values() if p.pattern)

# The cut uses `re`, which is faster; its \s is a superset of `regex`'s (it adds \x1c-\x1f), so it
# cuts at no more places than the rule allows.
_CHUNK_CUT = re.compile(r"(?<=\S)(?= )")
# The same cut found space first, the space taken: `re` then scans for a literal, twice as fast.
_TAIL_CUT = re.compile(r" (?<=\S.)")


def chunks(text: str) -> list[str]:
    """Cut text where no preset pre-token can cross. Example: chunks("o gato  x") -> ["o", " gato", "  x"]"""
    return _CHUNK_CUT.split(text)


def chunk_tails(text: str) -> list[str]:
    """chunks(text) without the space that opens every chunk after the first.

    Every tail but the last ends in a non-space, so " " + tail + " " + tail ... cuts back into the
    same chunks. Example: chunk_tails("o gato  x") -> ["o", "gato", " x"]
    """
    return _TAIL_CUT.split(text)


@dataclass(frozen=True, slots=True)
class Piece:
    """One pre-token and where it sits in the text: text[start:end] == piece.text."""

    text: str
    start: int
    end: int


def compile_pattern(pattern: str) -> regex.Pattern:
    """Compile a preset or custom split pattern; a custom one is bounded first (patterns.compile_bounded)."""
    if not isinstance(pattern, str):
        raise PatternError("pattern_not_text", f"A split pattern is text, not {type(pattern).__name__}.")
    return compile_cached(pattern) if pattern in _PRESET_PATTERNS else compile_bounded(pattern)


@cache
def preset_split(name: str) -> Callable[[str], list[str]]:
    """A preset's split, text -> pieces, as its pattern's findall gives them; by the `re` twin where that is exact.

    r2l-digits and superword group digits from the right with a look-ahead that reads the rest of a run of
    digits at every group, quadratic in a long run: they split as their twin that takes runs whole, and
    digits_right_to_left cuts the runs.
    """
    pattern = PRETOKENIZERS[name].pattern
    if pattern is None:
        return lambda text: [text] if text else []
    if name in _WHOLE_RUNS:
        whole, runs = _pattern_split(_WHOLE_RUNS[name]), regex.compile(_DIGIT_RUNS[name])
        return lambda text: digits_right_to_left(whole(text), text, runs)
    return _pattern_split(pattern)


def _pattern_split(pattern: str) -> Callable[[str], list[str]]:
    full = compile_pattern(pattern).findall
    twin = bmp_twin(pattern)
    if twin is None:
        return full
    fast, past_bmp = twin.findall, PAST_BMP.search
    return lambda text: full(text) if past_bmp(text) else fast(text)


def preset_named(pattern: str | None) -> str | None:
    """The preset whose pattern this is, as bpeviz or HF tokenizers writes it (None: the "none" preset); else None."""
    for name, preset in PRETOKENIZERS.items():
        if pattern == preset.pattern or preset.pattern is not None and pattern == for_oniguruma(preset.pattern):
            return name
    return None


def resolve(pretokenizer: str) -> str | None:
    """Return the pattern of a preset name, or the string itself as a custom pattern (checked).

    Example: resolve("none") -> None; resolve(r"\\w+|\\W") -> r"\\w+|\\W".
    """
    if not isinstance(pretokenizer, str):
        raise PatternError("pattern_not_text", f"A pre-tokenizer is a preset name or a regex, not {type(pretokenizer).__name__}.")
    if pretokenizer in PRETOKENIZERS:
        return PRETOKENIZERS[pretokenizer].pattern
    if not pretokenizer:
        raise PatternError("pattern_empty", f"Empty split pattern. Choose one of {', '.join(PRETOKENIZERS)} or type a regex.")
    compile_pattern(pretokenizer)
    return pretokenizer


def is_custom(pretokenizer: str) -> bool:
    return pretokenizer not in PRETOKENIZERS


def is_chunkable(pretokenizer: str) -> bool:
    """True for presets whose pre-tokens never cross a space that follows a non-space."""
    preset = PRETOKENIZERS.get(pretokenizer)
    return preset is not None and preset.chunkable


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
        return preset_split(pretokenizer)(text)  # presets cover every character
    return [piece.text for piece in split_pieces(text, pretokenizer, timeout=timeout)]


def split_pieces(text: str, pretokenizer: str = "gpt2", *, timeout: float = CUSTOM_TIMEOUT_SECONDS) -> list[Piece]:
    """Cut text into pieces with offsets; gaps a custom pattern leaves become pieces too.

    Example: split_pieces("o gato", "gpt2") -> [Piece("o", 0, 1), Piece(" gato", 1, 6)]
    """
    pattern = resolve(pretokenizer)
    if not text:
        return []
    if not is_custom(pretokenizer):  # presets cover every character
        texts = preset_split(pretokenizer)(text)
        return [Piece(t, a, a + len(t)) for t, a in zip(texts, accumulate(map(len, texts), initial=0))]
    assert pattern is not None  # a custom pattern: resolve returned it
    pieces: list[Piece] = []
    position = 0
    try:
        for match in compile_pattern(pattern).finditer(text, timeout=timeout if is_custom(pretokenizer) else None):
            start, end = match.span()
            if start == end:
                continue  # an empty match covers nothing
            if start > position:
                pieces.append(Piece(text[position:start], position, start))
            pieces.append(Piece(match.group(), start, end))
            position = end
    except TimeoutError as exc:
        raise PatternError(
            "pattern_too_slow",
            f"The split pattern took longer than {timeout:g} s on this text (catastrophic backtracking?). "
            "Simplify it, e.g. avoid nested quantifiers like (a+)+.",
            seconds=timeout,
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
            raise PatternError("pattern_too_slow_corpus", "The split pattern is too slow on this corpus; simplify it or use a "
                                                          "preset.")
        counts.update(split_text(doc, pretokenizer, timeout=remaining))
    return counts
