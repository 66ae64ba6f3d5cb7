"""Turning tokens into text, HTML and Markdown a class can read: ␣ for spaces, escapes for cut bytes.

Every string that reaches HTML goes through html.escape here, and every user string that
reaches Markdown goes through `md` or `code`; no caller builds markup from raw text itself.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bpeviz.core.token_text import INVISIBLE, VISIBLE, escape_token, is_partial, show, unescape_token, visible

# A token as text (show, escape_token ...) is core/token_text.py's: the formats read and write it too. Drawing uses it
# from here, with the rest of what a class sees.
__all__ = ["CHIP_CSS", "INVISIBLE", "VISIBLE", "Chip", "chips_html", "code", "color", "covering", "escape_token", "hex_bytes",
           "is_partial", "md", "merge_text", "pad", "plain_text", "show", "table_html", "unescape_token", "visible", "width"]

_WWW_DOT = re.compile(r"(?i)(www)\\\.")  # "www\." as md escapes it
_JOINER = "\u2060"  # WORD JOINER: shows nothing, breaks no line
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def md(text: str) -> str:
    """User text made inert for Streamlit Markdown: every punctuation mark backslash-escaped, lines kept.

    No link (autolinks included), image, emphasis, directive (:red[...]), LaTeX ($...$) or HTML survives.
    Example: md("![p](x)") -> "\\!\\[p\\]\\(x\\)"
    """
    escaped = _MD_SPECIAL.sub(r"\\\1", str(text)).replace("/", "\\/").replace("\n", "  \n")
    # GFM links http://x, www.x and a@b in the text it has parsed, escapes gone: an invisible word joiner after the
    # sign makes the text no longer what an autolink looks for
    escaped = escaped.replace("\\:", "\\:" + _JOINER).replace("@", "@" + _JOINER)
    return _WWW_DOT.sub(r"\1" + _JOINER + r"\\.", escaped)


def code(text: str) -> str:
    """An inline code span that shows text literally, backticks included. Example: code("a`b") -> "`` a`b ``" """
    text = str(text).replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def merge_text(merge) -> str:
    """A merge as one line: "␣ + n → ␣n". (Takes a records.Merge.)"""
    return f"{show(merge.left)} + {show(merge.right)} → {show(merge.token)}"


def width(text: str) -> int:
    """Terminal columns text takes: wide (CJK) characters count 2, combining marks 0."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, columns: int) -> str:
    """text followed by spaces up to `columns` terminal columns."""
    return text + " " * max(0, columns - width(text))


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
    info: str = ""  # the inspector's lines (id, bytes, rank, parents), shown on hover and on keyboard focus
    hex: str = ""  # the token's UTF-8 bytes, for the byte view
    marked: bool = False  # covers the span the reader picked


def hex_bytes(data: bytes) -> str:
    """Example: hex_bytes("ç".encode()) -> "c3 a7" """
    return " ".join(f"{b:02x}" for b in data)


def plain_text(token: str | bytes) -> str:
    """A token as plain text (whitespace as itself); control characters and cut bytes still escaped, never raw."""
    text = show(token)
    for mark, ch in INVISIBLE.items():
        text = text.replace(mark, ch)
    return text


def chips_html(chips: Iterable[Chip], *, show_ids: bool = False, byte_view: bool = False) -> str:
    """HTML for a row of token chips; every text is escaped. Each chip takes keyboard focus and shows its info."""
    parts = []
    for chip in chips:
        classes = ["bpe-chip"]
        if chip.partial or chip.fallback:
            classes.append("bpe-partial")
        if chip.highlight:
            classes.append("bpe-hl")
        if chip.marked:
            classes.append("bpe-marked")
        bg = color(chip.token_id if chip.token_id is not None else 0)
        title = chip.info
        if not title:  # callers that say nothing get the English basics
            title = f"id {chip.token_id}" if chip.token_id is not None else ""
            if chip.fallback:
                title += " · byte fallback: character not in the alphabet"
            elif chip.partial:
                title += " · not a whole character"
        label = html.escape(chip.text)
        id_part = f'<sub class="bpe-id">{chip.token_id}</sub>' if show_ids and chip.token_id is not None else ""
        bytes_part = f'<span class="bpe-bytes">{html.escape(chip.hex)}</span>' if byte_view and chip.hex else ""
        tip = html.escape(title)
        parts.append(f'<span class="{" ".join(classes)}" style="background:{bg}" tabindex="0" title="{tip}" data-tip="{tip}" '
                     f'aria-label="{html.escape(chip.text)}: {tip}">{label}{id_part}{bytes_part}</span>')
    return '<div class="bpe-chips">' + "".join(parts) + "</div>"


def covering(tokens: Sequence[bytes], text: str, start: int, end: int) -> list[bool]:
    """Which tokens cover any of text[start:end], by their bytes laid end to end.

    Example: covering([b"o", b" g", b"ato"], "o gato", 3, 4) -> [False, False, True]
    """
    if start >= end:
        return [False] * len(tokens)
    low, high = len(text[:start].encode("utf-8", "surrogateescape")), len(text[:end].encode("utf-8", "surrogateescape"))
    out, position = [], 0
    for token in tokens:
        nxt = position + len(token)
        out.append(position < high and nxt > low)
        position = nxt
    return out


CHIP_CSS = """
<style>
.bpe-chips { line-height: 2.2; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 1.05em; }
.bpe-chip { display: inline-block; padding: 0 .3em; margin: 0 .12em .2em 0; border-radius: .3em;
            color: #111; border: 1px solid rgba(0,0,0,.15); white-space: pre; }
.bpe-chip sub.bpe-id { font-size: .65em; color: #444; margin-left: .25em; }
.bpe-partial { outline: 2px dashed #b00020; }
.bpe-hl { outline: 3px solid var(--bpe-ink-strong, #000); box-shadow: 0 0 0 5px #ffd400; }
.bpe-chip { position: relative; }
.bpe-chip:focus { outline: 3px solid #1a56db; outline-offset: 1px; }
.bpe-chip:hover::after, .bpe-chip:focus::after { content: attr(data-tip); position: absolute; left: 0; top: 100%; z-index: 20;
  background: #111; color: #fff; font-size: .8rem; line-height: 1.3; padding: .25em .5em; border-radius: .3em;
  white-space: pre; pointer-events: none; margin-top: .2em; }
.bpe-chip .bpe-bytes { display: block; font-size: .62em; color: #333; line-height: 1.2; letter-spacing: -.02em; }
.bpe-marked { outline: 3px solid #7a4cff; box-shadow: 0 0 0 5px #d9ccff; }
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
