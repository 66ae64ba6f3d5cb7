"""SentencePiece's normalizer as its C++ applies it: the precompiled charsmap, the dummy prefix, extra spaces, and ▁.

A `.model` file ships its normalization rules compiled (`precompiled_charsmap`): a 4-byte size, a Darts-clone
double-array trie over UTF-8 bytes, then the replacement strings, each ended by NUL, where the trie's values point.
Normalizing walks the text's bytes left to right. At each position a user-defined symbol is kept whole; else the
longest rule that matches replaces its bytes; else one character is copied. Around that walk:
1. `remove_extra_whitespaces`: spaces at the start are dropped, a run of spaces becomes one, the trailing ones go.
2. `add_dummy_prefix`: one space before the text (after it when the model treats whitespace as a suffix).
3. `escape_whitespaces`: every space is written ▁ (U+2581), so pieces can hold word starts.
Example: Normalizer(NormalizerSpec()).normalize("  o gato ") -> "▁o▁gato"
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

from bpeviz.core.errors import BpevizError

SPACE = "▁"  # U+2581, SentencePiece's written space
MAX_MATCHES = 32  # SentencePiece keeps the first 32 rules that match at a position and takes the longest of those


@dataclass(frozen=True)
class NormalizerSpec:
    """A model's normalizer_spec (or denormalizer_spec), with protobuf's defaults."""

    name: str = ""
    charsmap: bytes = b""  # precompiled_charsmap; empty: no rules (the "identity" normalizer)
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


class CharsMap:
    """The precompiled rules: `longest(data, start)` finds the longest rule at a byte position, as Darts-clone does."""

    def __init__(self, blob: bytes, name: str) -> None:
        size = int.from_bytes(blob[:4], "little") if len(blob) > 4 else -1
        if size < 0 or size >= len(blob):  # SentencePiece's own two checks
            raise BpevizError("sentencepiece_broken", f"{name}: its normalization rules (precompiled_charsmap) are broken: "
                              "the trie's size does not fit the blob.", name=name, part="precompiled_charsmap")
        self.units = array("I")
        self.units.frombytes(blob[4:4 + size - size % 4])  # whole units, as Darts reads them
        if sys.byteorder == "big":
            self.units.byteswap()  # the file is little-endian, as SentencePiece writes it
        self.strings = blob[4 + size:]
        self.name = name
        self._replacements: dict[int, bytes] = {}

    def longest(self, data: bytes, start: int) -> tuple[int, bytes]:
        """(bytes matched, replacement) for the longest rule at data[start:] among the first 32 that match; (0, b"")."""
        units, n = self.units, len(self.units)
        node = _offset(units[0]) if n else 0
        length, value, found = 0, 0, 0
        for i in range(start, len(data)):
            byte = data[i]
            node ^= byte
            if node >= n:
                break
            unit = units[node]
            if unit & 0x800000FF != byte:  # the unit's label: this byte leads nowhere
                break
            node ^= _offset(unit)
            if unit >> 8 & 1 and node < n:  # a rule ends here; its value sits in the next unit
                if found < MAX_MATCHES:
                    length, value = i + 1 - start, units[node] & 0x7FFFFFFF
                found += 1
        return (length, self._replacement(value)) if length else (0, b"")

    def _replacement(self, value: int) -> bytes:
        found = self._replacements.get(value)
        if found is None:
            end = self.strings.find(b"\0", value)
            found = self.strings[value:end if end >= 0 else len(self.strings)]
            try:
                found.decode("utf-8")
            except UnicodeDecodeError:
                raise BpevizError("sentencepiece_broken", f"{self.name}: a normalization rule writes bytes that are not "
                                  "UTF-8; the file is broken.", name=self.name, part="precompiled_charsmap") from None
            self._replacements[value] = found
        return found


def _offset(unit: int) -> int:
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


class Symbols:
    """User-defined symbols, matched longest first at a position (SentencePiece's PrefixMatcher), over str or bytes."""

    def __init__(self, symbols: Iterable[str]) -> None:
        self._text: dict[str, list[str]] = {}
        self._bytes: dict[int, list[bytes]] = {}
        for s in sorted(set(symbols), key=len, reverse=True):
            self._text.setdefault(s[0], []).append(s)
            encoded = s.encode("utf-8")
            self._bytes.setdefault(encoded[0], []).append(encoded)
        for group in self._bytes.values():
            group.sort(key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._text)

    def match(self, text: str, start: int) -> int:
        """Characters of the longest symbol at text[start:], or 0."""
        for s in self._text.get(text[start], ()):
            if text.startswith(s, start):
                return len(s)
        return 0

    def match_bytes(self, data: bytes, start: int) -> int:
        """Bytes of the longest symbol at data[start:], or 0."""
        for s in self._bytes.get(data[start], ()):
            if data.startswith(s, start):
                return len(s)
        return 0


def char_length(lead: int) -> int:
    """Bytes in the UTF-8 character that starts with this byte (the text is valid UTF-8)."""
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


class Normalizer:
    """A model's normalizer: `normalize(text)` gives the string its pieces are matched against."""

    def __init__(self, spec: NormalizerSpec, *, symbols: Symbols | None = None, suffix: bool = False,
                 name: str = "the model") -> None:
        self.spec, self.symbols, self.suffix = spec, symbols or Symbols(()), suffix
        self.charsmap = CharsMap(spec.charsmap, name) if spec.charsmap else None

    def _prefix(self, data: bytes, start: int) -> tuple[bytes, int]:
        """What the text at data[start:] becomes, and how many bytes that consumes."""
        if self.symbols:
            n = self.symbols.match_bytes(data, start)
            if n:
                return data[start:start + n], n
        if self.charsmap is not None:
            n, replacement = self.charsmap.longest(data, start)
            if n:
                return replacement, n
        n = char_length(data[start])
        return data[start:start + n], n

    def normalize(self, text: str, *, continued: bool = False) -> str:
        """The normalized text, spaces written as the spec says. Example: "o  gato" -> "▁o▁gato" (the defaults).

        continued: the text goes on from an earlier part (a file read in blocks): no dummy prefix, its spaces kept.
        """
        spec, data = self.spec, text.encode("utf-8")
        space = SPACE.encode() if spec.escape_whitespaces else b" "
        position = 0
        if spec.remove_extra_whitespaces and not continued:  # 1. spaces at the start go
            while position < len(data):
                replacement, n = self._prefix(data, position)
                if replacement != b" ":
                    break
                position += n
        if position == len(data):
            return ""
        out: list[bytes] = [space] if spec.add_dummy_prefix and not self.suffix and not continued else []  # 2.
        after_space = spec.remove_extra_whitespaces and not continued
        while position < len(data):
            replacement, n = self._prefix(data, position)
            if after_space:
                replacement = replacement.lstrip(b" ")  # 1. a run of spaces becomes one
            if replacement:
                out.append(replacement.replace(b" ", space) if spec.escape_whitespaces else replacement)  # 3. ▁
                after_space = replacement.endswith(b" ")
            position += n
            if not spec.remove_extra_whitespaces:
                after_space = False
        normalized = b"".join(out)
        if spec.remove_extra_whitespaces:  # 1. the trailing spaces go
            while normalized.endswith(space):
                normalized = normalized[:-len(space)]
        if spec.add_dummy_prefix and self.suffix:
            normalized += space
        return normalized.decode("utf-8")
