"""The count table: distinct pre-tokens with their counts, and the table on disk (TSV or Parquet), both ways.

`counting.py` makes tables from text; `bpeviz count` writes them and `bpeviz train --counts` reads them back.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bpeviz.core.errors import BpevizError

MAX_LINE_BYTES = 64_000_000  # one piece a line: the longest pre-token a count keeps (8 M characters), escaped
HEADER = "# bpeviz counts "  # the TSV's first line: this, then JSON {"pretokenizer": ..., "dummy_prefix": ...}


@dataclass
class CountTable:
    """Distinct pre-tokens with their counts (first occurrence first) and how they were cut."""

    counts: Counter[str]
    pretokenizer: str
    dummy_prefix: bool = False
    # how often each pre-token ends a document, the last document's first (Unigram's seeds use them, as SentencePiece
    # seeds from whole sentences); counted with the table when asked (count_files(..., ends=True)), not kept on disk
    ends: Counter[str] | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())


# --- the table on disk -------------------------------------------------------------------------
# TSV: one `piece<TAB>count` a line. In a piece, a backslash is written \\, a tab \t, a newline
# \n, a carriage return \r, and a byte that is not UTF-8 \xNN (two hex digits); everything else
# is itself, in UTF-8. So every piece is one line, and any text survives.

_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_NEEDS_ESCAPE = re.compile(r"[\\\t\n\r\udc80-\udcff]")
_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
_ESCAPE = re.compile(r"\\(?:([\\tnr])|x([0-9a-fA-F]{2}))|\\")


def escape_piece(piece: str) -> str:
    r"""A piece as one TSV field. Example: escape_piece("a\tb\\") -> 'a\\tb\\\\'"""

    def one(match: re.Match[str]) -> str:
        ch = match.group()
        return _ESCAPES.get(ch) or f"\\x{ord(ch) - 0xDC00:02x}"

    return _NEEDS_ESCAPE.sub(one, piece)


def unescape_piece(field: str) -> str:
    """Undo escape_piece (ValueError on a backslash that starts no escape)."""

    def one(match: re.Match[str]) -> str:
        if match.group(1):
            return _UNESCAPES[match.group(1)]
        if match.group(2):
            byte = int(match.group(2), 16)
            return chr(byte) if byte < 0x80 else chr(0xDC00 + byte)  # a raw byte, as surrogateescape reads it
        raise ValueError("a backslash that starts no escape (write \\\\ for a backslash)")

    return _ESCAPE.sub(one, field)


def write_counts(table: CountTable, path: str | Path) -> None:
    """Save the table as TSV, or as Parquet when the name ends in .parquet (columns piece: bytes, count)."""
    meta = {"pretokenizer": table.pretokenizer, "dummy_prefix": table.dummy_prefix, "rows": len(table.counts)}
    if str(path).endswith(".parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        pieces = [piece.encode("utf-8", "surrogateescape") for piece in table.counts]
        arrow = pa.table({"piece": pa.array(pieces, pa.binary()), "count": pa.array(list(table.counts.values()), pa.int64())})
        pq.write_table(arrow.replace_schema_metadata({"bpeviz": json.dumps(meta)}), str(path))
        return
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(HEADER + json.dumps(meta, ensure_ascii=False) + "\n")
        out.writelines(f"{escape_piece(piece)}\t{count}\n" for piece, count in table.counts.items())


def read_counts(path: str | Path, pretokenizer: str | None = None) -> CountTable:
    """Read a table saved by write_counts (or any `piece<TAB>count` TSV, given the pretokenizer it was cut with)."""
    if str(path).endswith(".parquet"):
        return _read_parquet(path, pretokenizer)
    counts: Counter[str] = Counter()
    meta: dict = {}
    try:
        with open(path, "rb") as file:
            number = 0
            while raw := file.readline(MAX_LINE_BYTES + 1):  # a line is read up to the cap, never whole (/dev/zero)
                number += 1
                if len(raw) > MAX_LINE_BYTES:
                    raise ValueError(f"a line longer than {MAX_LINE_BYTES // 1_000_000} MB; a table holds one piece a line")
                line = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")  # LF or CRLF (a piece writes \r as \\r)
                if number == 1 and line.startswith(HEADER):
                    meta = _header(line[len(HEADER):], path)
                    continue
                field, tab, count = line.rpartition("\t")
                if not tab or not (count.isascii() and count.isdigit()) or len(count) > 18 or int(count) <= 0:
                    raise ValueError("expected `piece<TAB>count` with a whole count above 0")
                piece = unescape_piece(field)
                if piece in counts:
                    raise ValueError(f"the piece {field!r} is listed twice")
                counts[piece] = int(count)
    except FileNotFoundError:
        raise BpevizError("no_such_file", f"no such file: {path}") from None
    except UnicodeDecodeError:
        raise BpevizError("counts_not_utf8", f"{path}, line {number}: not UTF-8 (write raw bytes as \\xNN)") from None
    except ValueError as exc:
        if isinstance(exc, BpevizError):
            raise
        raise BpevizError("counts_bad_line", f"{path}, line {number}: {exc}") from None
    if "rows" in meta and meta["rows"] != len(counts):  # a table cut short (a write interrupted, a copy truncated)
        raise BpevizError("counts_truncated", f"{path} holds {len(counts):,} rows where its header says {meta['rows']:,}: "
                          "the table is incomplete; count the corpus again", rows=len(counts), expected=meta["rows"])
    return _table(counts, meta, pretokenizer, path)


def _header(text: str, path: str | Path) -> dict:
    try:
        meta = json.loads(text)
    except json.JSONDecodeError:
        raise BpevizError("counts_bad_header", f"{path}: the first line is not a bpeviz counts header") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("pretokenizer"), str):
        raise BpevizError("counts_bad_header", f"{path}: the header does not name the pretokenizer")
    if "rows" in meta and (isinstance(meta["rows"], bool) or not isinstance(meta["rows"], int) or meta["rows"] < 0):
        raise BpevizError("counts_bad_header", f"{path}: \"rows\" in the header is a whole number")
    if not isinstance(meta.get("dummy_prefix", False), bool):
        raise BpevizError("counts_bad_header", f"{path}: \"dummy_prefix\" in the header is true or false, not "
                          f"{str(meta['dummy_prefix'])[:20]!r}")
    return meta


def _read_parquet(path: str | Path, pretokenizer: str | None) -> CountTable:
    import pyarrow.parquet as pq

    try:
        arrow = pq.read_table(str(path))
    except FileNotFoundError:
        raise BpevizError("no_such_file", f"no such file: {path}") from None
    except Exception as exc:  # pyarrow raises its own error types for a file that is not Parquet
        raise BpevizError("counts_bad_file", f"{path} is not a Parquet count table ({exc})") from None
    if arrow.column_names[:2] != ["piece", "count"]:
        raise BpevizError("counts_bad_file", f"{path}: expected the columns piece and count")
    raw_meta = (arrow.schema.metadata or {}).get(b"bpeviz")
    meta = _header(raw_meta.decode(), path) if raw_meta else {}
    counts: Counter[str] = Counter()
    for row, (piece, count) in enumerate(zip(arrow.column("piece").to_pylist(), arrow.column("count").to_pylist()), 1):
        if not isinstance(piece, (bytes, str)) or not piece:
            raise BpevizError("counts_bad_line", f"{path}, row {row}: a piece is text or bytes, not {str(piece)[:20]!r}")
        text = piece.decode("utf-8", "surrogateescape") if isinstance(piece, bytes) else piece
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:  # 3.0, NaN, "3", [3] are all refused
            raise BpevizError("counts_bad_line", f"{path}, row {row}: the count of {text[:20]!r} must be a whole number "
                              f"above 0, not {str(count)[:20]!r}")
        if text in counts:
            raise BpevizError("counts_bad_line", f"{path}, row {row}: the piece {text[:20]!r} is listed twice")
        counts[text] = count
    return _table(counts, meta, pretokenizer, path)


def _table(counts: Counter[str], meta: Mapping, pretokenizer: str | None, path: str | Path) -> CountTable:
    cut_with = meta.get("pretokenizer")
    if cut_with is None and pretokenizer is None:
        raise BpevizError("counts_no_pretokenizer", f"{path} does not say how its pieces were cut; give --pretokenizer")
    if cut_with is not None and pretokenizer is not None and cut_with != pretokenizer:
        raise BpevizError("counts_other_pretokenizer",
                          f"{path} was counted with pretokenizer {cut_with!r}, not {pretokenizer!r}; train with the same one",
                          counted=cut_with, wanted=pretokenizer)
    # the header was checked to hold a string
    return CountTable(counts, cut_with or pretokenizer, bool(meta.get("dummy_prefix", False)))  # type: ignore[arg-type]
