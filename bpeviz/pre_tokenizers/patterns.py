"""A split pattern compiled with bounds: a custom pattern a user typed may not be too long, repeat too much, or run
too long (`custom_budget`); the presets (splits.py) are trusted and cached.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

from bpeviz.core.errors import BpevizError

from .oniguruma import BRACED_ESCAPES

CUSTOM_TIMEOUT_SECONDS = 1.0
MAX_PATTERN_LENGTH = 2_000  # characters of a custom pattern
MAX_EXPANSION = 20_000  # nodes `regex` may build for a custom pattern (a{20000} is about 5 MB)
CACHED_EXPANSION = 2_000  # only patterns this small stay compiled in the shared cache
_COUNTED_REPEAT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def custom_budget(n_chars: int) -> float:
    """Seconds a custom pattern may take on n_chars of text: 1 s, plus 2 s per million characters."""
    return CUSTOM_TIMEOUT_SECONDS + 2.0 * n_chars / 1_000_000


class PatternError(BpevizError):
    """A custom split pattern that does not compile, is too big to compile, or takes too long."""


def expansion(pattern: str) -> int:
    """An upper estimate of the nodes `regex` builds: a counted repeat {m} or {m,n} copies its item m times.

    Example: expansion("(ab){3}c") -> 7; expansion("((a{1000}){500}){10}") -> 5000000
    """
    stack = [[0, 0]]  # per open group: [size so far, size of its last item]
    i, n = 0, len(pattern)
    while i < n:
        ch, item, i = pattern[i], 1, i + 1
        if ch == "\\":
            if i < n and pattern[i] in BRACED_ESCAPES and i + 1 < n and pattern[i + 1] == "{":
                close = pattern.find("}", i + 1)
                i = close + 1 if close >= 0 else n
            else:
                i += 1
        elif ch == "[":  # a class is one item, whatever it holds
            i += (i < n and pattern[i] == "^") + (i < n and pattern[i] == "]")
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
            i += 1
        elif ch == "(":
            stack.append([0, 0])
            continue
        elif ch in "*+?|":  # these repeat or separate what stands already; they copy nothing
            continue
        elif ch == ")" and len(stack) > 1:
            item = max(stack.pop()[0], 1)
        elif ch == "{" and (repeat := _COUNTED_REPEAT.match(pattern, i - 1)) and (repeat.group(1) or repeat.group(2)):
            copies = max(int(repeat.group(1) or 0), 1)
            level = stack[-1]
            level[0] += level[1] * (copies - 1)
            level[1] *= copies
            i = repeat.end()
            continue
        level = stack[-1]
        level[0] += item
        level[1] = item
    return sum(level[0] for level in stack)


def compile_bounded(pattern: str) -> regex.Pattern:
    """Compile a custom split pattern, refusing ones too long or too costly to build.

    A compile cannot be interrupted, so its cost is bounded before it starts; only small
    patterns stay in the (shared) cache.
    """
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError("pattern_too_long", f"The split pattern has {len(pattern):,} characters; the limit is "
                           f"{MAX_PATTERN_LENGTH:,}. Shorten it.", n=len(pattern), cap=MAX_PATTERN_LENGTH)
    size = _expansion_cached(pattern)
    if size > MAX_EXPANSION:
        raise PatternError(
            "pattern_too_big",
            f"The split pattern repeats too much (about {size:,} copies of its parts; the limit is {MAX_EXPANSION:,}). "
            "Use + or * instead of large counted repeats like {1000}.",
            size=size, cap=MAX_EXPANSION,
        )
    return compile_cached(pattern) if size <= CACHED_EXPANSION else _compile(pattern)


@lru_cache(maxsize=32)
def compile_cached(pattern: str) -> regex.Pattern:
    return _compile(pattern)


@lru_cache(maxsize=256)
def _expansion_cached(pattern: str) -> int:  # the scan is pure Python: encoding calls this per chunk
    return expansion(pattern)


def _compile(pattern: str) -> regex.Pattern:
    try:
        return regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError, ValueError) as exc:
        raise PatternError("pattern_does_not_compile", f"The split pattern does not compile: {exc}. Check brackets and escapes.",
                           detail=str(exc)) from exc
