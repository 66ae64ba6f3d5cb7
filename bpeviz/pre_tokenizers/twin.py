r"""Faster exact splits for the presets: a twin of a pattern for Python's `re`, and runs of digits cut from the right.

Python's `re` runs the preset patterns 2-3x faster than `regex`, but knows no \p{L}. On text within
the Basic Multilingual Plane, a twin of the pattern with every class spelt out as the code points
`regex` itself gives it (in the BMP) finds the same pieces; other text keeps `regex`. `re` classes
holding code points past U+FFFF are scanned range by range (slower than `regex`), hence the BMP.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

import regex

_TWIN_CLASSES = (r"\p{L}", r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}", r"\p{M}", r"\p{N}", r"\p{Nd}", r"\s")
_TWIN_TOKEN = re.compile(r"\\p\{\w+\}|\\.|\[\^?|.", re.DOTALL)
PAST_BMP = re.compile("[\U00010000-\U0010ffff]")


@cache
def _bmp_members(escape: str) -> str:
    r"""The BMP code points `regex` puts in a class escape, as ranges for a `re` class.

    Example: _bmp_members(r"\p{N}")[:13] -> r"\u0030-\u0039"
    """
    spans = [m.span() for m in regex.finditer(escape + "+", "".join(map(chr, range(0x10000))))]
    return "".join(f"\\u{a:04x}" if b - a == 1 else f"\\u{a:04x}-\\u{b - 1:04x}" for a, b in spans)


@lru_cache(maxsize=16)
def bmp_twin(pattern: str) -> re.Pattern | None:
    r"""The pattern for Python's `re`, exact on text with no code point past U+FFFF, or None when it can not be written.

    Only the escapes of the presets are spelt out (\p{L}, \p{Lu} ... \p{N}, \s, \S, \r, \n); any other escape, or
    a `re` that lacks possessive quantifiers (before Python 3.11), gives None.
    """
    out, in_class, space = [], False, _bmp_members(r"\s")
    for token in _TWIN_TOKEN.findall(pattern):
        if token in _TWIN_CLASSES:
            out.append(_bmp_members(token) if in_class else f"[{_bmp_members(token)}]")
        elif token == r"\S" and not in_class:
            out.append(f"[^{space}]")
        elif token.startswith("\\") and token not in (r"\r", r"\n", r"\t"):
            return None  # an escape this twin does not spell out
        elif token.startswith("[") and not in_class:
            out.append(token)
            in_class = True
        elif token == "]" and in_class:
            out.append(token)
            in_class = False
        else:
            out.append(token)
    try:
        return re.compile("".join(out))
    except re.error:
        return None


_LONG_DIGITS = regex.compile(r"\p{N}{4,}")


def digits_right_to_left(pieces: list[str], text: str, long_runs: regex.Pattern = _LONG_DIGITS) -> list[str]:
    """pieces (of text) with every run of four digits or more cut in threes from the right: 1234567 -> 1 234 567.

    For splits that took such runs whole; a piece that is one of text's runs of digits (long_runs finds them) is cut,
    the rest kept.
    """
    runs = set(long_runs.findall(text))
    if not runs:
        return pieces
    out: list[str] = []
    for piece in pieces:
        if piece in runs:
            first = len(piece) % 3 or 3
            out.append(piece[:first])
            out.extend(piece[k:k + 3] for k in range(first, len(piece), 3))
        else:
            out.append(piece)
    return out
