r"""A pattern in Hugging Face tokenizers' regex engine (Oniguruma), and back.

Oniguruma reads a counted repeat followed by + (`X{1,3}+`) as that repeat repeated, where `regex` (and
tiktoken) read it as possessive. Every other preset construct means the same in both engines, so a
pattern is rewritten on its way out to a tokenizer.json and on its way in. On the way out, each \p{...}
also names the code points HF's Unicode 15.1 tables do not know and `regex` puts in that class
(unicode_lag.LAGGING), so an exported tokenizer splits them as bpeviz does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import regex

from .unicode_lag import LAGGING, as_hf_reads

BRACED_ESCAPES = "pPNxgkuU"  # \p{L}, \N{name}, \x{263a}, \g{1}: braces that are not repeats

_COUNTED_POSSESSIVE = re.compile(r"\{\d*(?:,\d*)?\}\+")
_ESCAPE_WIDTH = {"x": 2, "u": 4, "U": 8}


def _escape_end(pattern: str, i: int) -> int:
    """The end of the escape that starts at pattern[i] (a backslash)."""
    kind = pattern[i + 1 : i + 2]
    if kind in BRACED_ESCAPES and pattern[i + 2 : i + 3] == "{":
        close = pattern.find("}", i + 2)
        return close + 1 if close >= 0 else len(pattern)
    return min(i + 2 + _ESCAPE_WIDTH.get(kind, 0), len(pattern))


def _class_end(pattern: str, i: int) -> int:
    """The end of the character class that starts at pattern[i] ('[')."""
    j = i + 1
    j += pattern[j : j + 1] == "^"
    j += pattern[j : j + 1] == "]"  # a ] first in a class is a member
    while j < len(pattern) and pattern[j] != "]":
        j = _escape_end(pattern, j) if pattern[j] == "\\" else j + 1
    return j + 1


def _rewrite_counted_possessive(pattern: str, wrap: Callable[[str, str], str]) -> str:
    """Replace every `X{m,n}+` by wrap(X, "{m,n}"), X being the atom (escape, class, group, character) before it."""
    levels: list[list[str]] = [[]]  # the atoms read so far, one list per open group
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        repeat = _COUNTED_POSSESSIVE.match(pattern, i) if ch == "{" else None
        if repeat and levels[-1]:
            atom = levels[-1].pop()
            levels[-1].append(wrap(atom, repeat.group()[:-1]))
            i = repeat.end()
            continue
        if ch == "\\":
            end = _escape_end(pattern, i)
        elif ch == "[":
            end = _class_end(pattern, i)
        elif ch == "(":
            levels.append(["("])
            i += 1
            continue
        elif ch == ")" and len(levels) > 1:
            group = "".join(levels.pop()) + ")"
            levels[-1].append(group)
            i += 1
            continue
        else:
            end = i + 1
        levels[-1].append(pattern[i:end])
        i = end
    return "".join("".join(level) for level in levels)


def for_oniguruma(pattern: str) -> str:
    r"""The pattern written so that HF tokenizers (Oniguruma) splits as `regex` does: X{m,n}+ becomes (?>X{m,n}), and
    each \p{X} also lists the code points newer than HF's Unicode tables that `regex` puts in X.

    Example: for_oniguruma(r"\p{N}{1,3}+") -> r"(?>[\p{N}\x{10EC0}...]{1,3})" (the digits Unicode 16 added)
    """
    return with_lagging(_rewrite_counted_possessive(pattern, lambda atom, count: f"(?>{atom}{count})"))


@cache
def lagging_members(prop: str) -> str:
    r"""The code points of unicode_lag.LAGGING that `regex` puts in \p{prop}, as class members: "\x{A}-\x{B}..."."""
    member = regex.compile(rf"\p{{{prop}}}").match
    runs: list[list[int]] = []
    for first, last in LAGGING:
        for cp in range(first, last + 1):
            if member(chr(cp)):
                if runs and runs[-1][1] == cp - 1:
                    runs[-1][1] = cp
                else:
                    runs.append([cp, cp])
    return "".join(f"\\x{{{a:X}}}" + (f"-\\x{{{b:X}}}" if b > a else "") for a, b in runs)


_PROPERTY = re.compile(r"\\p\{(\w+)\}")


def with_lagging(pattern: str) -> str:
    """Every \\p{X} in pattern, inside a class or not, widened by lagging_members(X): HF and tiktoken, which read
    Unicode 15.1, then split the newer code points as `regex` does (a .tiktoken sidecar's pat_str is written so)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "[":
            end = _class_end(pattern, i)
            out.append(_PROPERTY.sub(lambda m: m.group() + lagging_members(m.group(1)), pattern[i:end]))
        elif pattern[i] == "\\":
            end = _escape_end(pattern, i)
            found = _PROPERTY.fullmatch(pattern, i, end)
            extra = lagging_members(found.group(1)) if found else ""
            out.append(f"[{pattern[i:end]}{extra}]" if extra else pattern[i:end])
        else:
            end = i + 1
            out.append(pattern[i])
        i = end
    return "".join(out)


def names_lagging(pattern: str) -> bool:
    r"""Whether pattern lists a code point newer than HF's Unicode tables (\x{...}): for_oniguruma wrote it for HF."""
    for found in re.finditer(r"\\x\{([0-9A-Fa-f]{1,6})\}", pattern):
        cp = int(found.group(1), 16)
        if any(first <= cp <= last for first, last in LAGGING):
            return True
    return False


def from_oniguruma(pattern: str) -> str:
    r"""A pattern from a HF tokenizer.json, written so that `regex` splits as Oniguruma does: X{m,n}+ becomes (?:X{m,n})+.

    Example: from_oniguruma(r"\p{N}{1,3}+") -> r"(?:\p{N}{1,3})+"
    """
    return _rewrite_counted_possessive(pattern, lambda atom, count: f"(?:{atom}{count})+")


def split_as_hf(text: str, split: Callable[[str], list[str]], reads: Callable[[str], str] = as_hf_reads) -> list[str]:
    """text cut where split cuts it when every lagging code point reads as unassigned, as HF's Oniguruma reads it
    (reads: another such reading, as_bert_reads for HF's BertPreTokenizer)."""
    shadow = reads(text)
    if shadow == text:
        return split(text)
    out, position = [], 0
    for piece in split(shadow):
        out.append(text[position:position + len(piece)])
        position += len(piece)
    return out
