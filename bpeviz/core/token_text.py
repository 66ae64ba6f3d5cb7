"""A token written as text a class reads and files keep: ␣ for a space, ↵ for a newline, \\xNN for a byte
that is not a whole character; and that text read back (escape_token and unescape_token are inverses at each level).
"""

from __future__ import annotations

import re

VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}
INVISIBLE = {mark: ch for ch, mark in VISIBLE.items()}
_ESCAPE = re.compile(r"\\(\\|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def _code_point(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _visible_char(ch: str) -> str:
    if ch in VISIBLE:
        return VISIBLE[ch]
    return ch if ch.isprintable() else _code_point(ch)


def visible(text: str) -> str:
    """Make whitespace and control characters visible. Example: visible(" no\\n") -> "␣no↵" """
    return "".join(map(_visible_char, text))


def is_partial(token: str | bytes) -> bool:
    """True when a token's bytes are not whole UTF-8 characters. Example: is_partial(b"\\xe2\\x80") -> True"""
    if isinstance(token, str):
        return False
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def show(token: str | bytes) -> str:
    """A token as a class reads it: ␣ for spaces, \\xNN for bytes that are not whole characters.

    Example: show(b" \\xe2\\x80") -> "␣\\xe2\\x80"
    """
    if isinstance(token, bytes):
        token = token.decode("utf-8", errors="backslashreplace")
    if any("\udc80" <= ch <= "\udcff" for ch in token):  # raw bytes carried through surrogateescape
        token = token.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return visible(token)


def escape_token(token: str | bytes) -> str:
    """A token as reversible text for files: like `show`, with backslashes doubled and a literal ␣ escaped.

    Bytes that are not characters (and, at level bytes, unprintable characters) become \\xNN per byte.
    Example: escape_token(b" a\\\\\\xe2") -> "␣a\\\\\\\\\\xe2"
    """
    raw = isinstance(token, bytes)
    text = token.decode("utf-8", "surrogateescape") if isinstance(token, bytes) else token
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch in VISIBLE:
            out.append(VISIBLE[ch])
        elif ch in INVISIBLE:
            out.append(_code_point(ch))
        elif "\udc80" <= ch <= "\udcff":  # a raw byte carried through surrogateescape
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append("".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass")) if raw else _code_point(ch))
    return "".join(out)


def unescape_token(text: str, level: str) -> str | bytes:
    """The token behind escape_token's text (or show's), at level "chars" (str) or "bytes" (bytes).

    ␣ and a plain space both read as a space. Example: unescape_token("␣\\\\xe2", "bytes") -> b" \\xe2"
    """
    raw = bytearray()
    chars: list[str] = []
    position = 0
    for match in _ESCAPE.finditer(text):
        _add_text(text[position : match.start()], level, raw, chars)
        body = match.group(1)
        if body == "\\":
            _add_text("\\", level, raw, chars, marks=False)
        elif body[0] == "x" and level == "bytes":
            raw.append(int(body[1:], 16))
        else:
            _add_text(chr(int(body[1:], 16)), level, raw, chars, marks=False)
        position = match.end()
    _add_text(text[position:], level, raw, chars)
    return bytes(raw) if level == "bytes" else "".join(chars)


def _add_text(text: str, level: str, raw: bytearray, chars: list[str], *, marks: bool = True) -> None:
    if marks:
        text = "".join(INVISIBLE.get(ch, ch) for ch in text)
    if level == "bytes":
        raw.extend(text.encode("utf-8", "surrogatepass"))
    else:
        chars.append(text)
