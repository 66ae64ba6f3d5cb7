"""Turning tokens into text and HTML a class can read: ␣ for spaces, escapes for cut bytes.

Every string that reaches HTML goes through html.escape here; no caller builds markup itself.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}


def _visible_char(ch: str) -> str:
    if ch in VISIBLE:
        return VISIBLE[ch]
    if ch.isprintable():
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


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


def color(token_id: int) -> str:
    """A stable colour per token id (golden-angle hues), light enough for black text."""
    hue = (token_id * 137.508) % 360
    return f"hsl({hue:.0f}, 70%, 84%)"


@dataclass(frozen=True)
class Chip:
    """One token to draw: what it shows, its id, and flags."""

    text: str
    token_id: int | None = None
    partial: bool = False  # bytes that are not whole characters
    fallback: bool = False  # a character the alphabet lacked, as a byte
    highlight: bool = False


def chips_html(chips: Iterable[Chip], *, show_ids: bool = False) -> str:
    """HTML for a row of token chips; every text is escaped."""
    parts = []
    for chip in chips:
        classes = ["bpe-chip"]
        if chip.partial or chip.fallback:
            classes.append("bpe-partial")
        if chip.highlight:
            classes.append("bpe-hl")
        bg = color(chip.token_id if chip.token_id is not None else 0)
        title = f"id {chip.token_id}" if chip.token_id is not None else ""
        if chip.fallback:
            title += " · byte fallback: character not in the alphabet"
        elif chip.partial:
            title += " · not a whole character"
        label = html.escape(chip.text)
        id_part = f'<sub class="bpe-id">{chip.token_id}</sub>' if show_ids and chip.token_id is not None else ""
        parts.append(f'<span class="{" ".join(classes)}" style="background:{bg}" title="{html.escape(title)}">{label}{id_part}</span>')
    return '<div class="bpe-chips">' + "".join(parts) + "</div>"


CHIP_CSS = """
<style>
.bpe-chips { line-height: 2.2; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 1.05em; }
.bpe-chip { display: inline-block; padding: 0 .3em; margin: 0 .12em .2em 0; border-radius: .3em;
            color: #111; border: 1px solid rgba(0,0,0,.15); white-space: pre; }
.bpe-chip sub.bpe-id { font-size: .65em; color: #444; margin-left: .25em; }
.bpe-partial { outline: 2px dashed #b00020; }
.bpe-hl { outline: 3px solid #000; box-shadow: 0 0 0 5px #ffd400; }
</style>
"""


def table_html(headers: Sequence[str], rows: Iterable[Sequence[object]], *, highlight_row: int | None = None) -> str:
    """A plain HTML table; every cell is escaped."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = []
    for k, row in enumerate(rows):
        style = ' class="bpe-row-hl"' if k == highlight_row else ""
        body.append(f"<tr{style}>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>")
    return f'<table class="bpe-table"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
