"""Check a hand-worked merge table (or an encoding trace) against a corpus and its rules.

Each row is replayed on the corpus as the student wrote it, and gets a verdict: right; right but
a tie (and which pair the rule would take); wrong (another pair is more frequent: both counts);
or impossible (the pair does not occur there, or names a token that does not exist yet), where
checking stops and the right choices are listed. Parsing is linear; bad input is a ValueError.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass

from bpeviz.core.errors import BpevizError
from bpeviz.core.records import Corpus, Settings, Token, join
from bpeviz.engine.python import CorpusState
from bpeviz.models.bpe import Tokenizer
from bpeviz.trainers.bpe import corpus_documents, corpus_words, prepare, train_rules

from . import render

MAX_ROWS = 5_000
MAX_COUNT_DIGITS = 12


@dataclass(frozen=True)
class Row:
    """One row of a hand-worked table: where it was written, the pair, and the count written, if any."""

    line: int
    left: Token
    right: Token
    count: int | None = None


@dataclass(frozen=True)
class Verdict:
    """What one row is worth. status: "right", "tie", "wrong" or "impossible"."""

    row: Row
    status: str
    count: int  # the row's pair's count at that step (0 if it does not occur)
    best: tuple[Token, Token, int] | None  # the pair the rule takes there, with its count
    tied: tuple[tuple[Token, Token], ...] = ()  # other pairs with the best count
    count_written_wrong: bool = False

    @property
    def ok(self) -> bool:
        return self.status in ("right", "tie") and not self.count_written_wrong


def _token(text: str, level: str, line: int) -> Token:
    try:
        token = render.unescape_token(text, level)
    except (ValueError, UnicodeError):  # \U00110000 is past Unicode's last code point
        raise BpevizError("table_bad_token", f"Line {line}: {text[:20]!r} names no character (an escape beyond "
                          "U+10FFFF).", line=line, token=text[:20]) from None
    if not token:
        raise BpevizError("table_bad_line", f"Line {line}: an empty token.", line=line)
    return token


def _count(text: str | None, line: int) -> int | None:
    """A count as written (ASCII digits), or None when none was written."""
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_COUNT_DIGITS:
        raise BpevizError("table_bad_count", f"Line {line}: the count {text[:20]!r} is not a whole number of at most "
                          f"{MAX_COUNT_DIGITS} digits.", line=line, cap=MAX_COUNT_DIGITS)
    return int(text)


def _fields(line: str) -> tuple[str, str, str | None] | None:
    """(left, right, count or None) of "a b", "a + b", "a b 7", "a + b 7"; None if the line is none of those.

    Linear in the line (str.split); a one-token line "ab" is a + b, as the earlier pattern read it.
    """
    parts = line.split()
    if len(parts) == 1 and len(parts[0]) > 1:
        parts = [parts[0][:-1], parts[0][-1]]
    if len(parts) >= 3 and parts[1] == "+":
        parts = [parts[0], *parts[2:]]
    if len(parts) == 2 or len(parts) == 3:
        right = parts[1][1:] if parts[1].startswith("+") and len(parts[1]) > 1 else parts[1]
        return parts[0], right, parts[2] if len(parts) == 3 else None
    return None


def parse_table(text: str, level: str) -> list[Row]:
    """Rows from "left right" / "left + right" lines (an optional count after them), or a CSV with columns left,right[,count].

    A space is written as ␣ (or a real space in a CSV cell); \\xNN is a byte at level bytes.
    Example: parse_table("␣ + n 7\\n␣n o", "chars") -> [Row(1, " ", "n", 7), Row(2, " n", "o")]
    """
    if len(text) > 2_000_000:
        raise BpevizError("table_too_long", "The table is larger than 2 MB; check at most 5,000 rows.")
    first_line = text.lstrip().split("\n", 1)[0]
    if "," in first_line and "left" in first_line and "right" in first_line:
        return _parse_csv(text, level)
    rows: list[Row] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = _fields(line)
        if fields is None:
            raise BpevizError("table_bad_line", f"Line {number} is not 'left right' or 'left + right' (with an optional count).",
                              line=number)
        _add(rows, number, *fields, level)
    return _filled(rows, "The table has no rows: write one merge a line, like '␣ + n'.")


def _parse_csv(text: str, level: str) -> list[Row]:
    rows: list[Row] = []
    for number, record in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        left, right, count = record.get("left"), record.get("right"), (record.get("count") or "").strip()
        if left is None or right is None or not (count.isascii() and count.isdigit()) and count:
            raise BpevizError("table_bad_line", f"Line {number}: a row needs left and right, and a count that is a number.",
                              line=number)
        _add(rows, number, left, right, count, level)
    return _filled(rows, "The table has no rows.")


def _add(rows: list[Row], number: int, left: str, right: str, count: str | None, level: str) -> None:
    """Read one row's tokens and count into rows; refuse a table past MAX_ROWS."""
    rows.append(Row(number, _token(left, level, number), _token(right, level, number), _count(count, number)))
    if len(rows) > MAX_ROWS:
        raise BpevizError("table_too_long", f"The table has more than {MAX_ROWS:,} rows; check at most {MAX_ROWS:,}.")


def _filled(rows: list[Row], empty: str) -> list[Row]:
    if not rows:
        raise BpevizError("table_empty", empty)
    return rows


def check_table(rows: list[Row], corpus: Corpus, settings: Settings,
                progress: Callable[[int, int], None] | None = None) -> list[Verdict]:
    """Replay the rows on the corpus with the settings' rules; a verdict per row, up to the first impossible one.
    progress(rows done, rows) before the replay and every 64 rows: where a budget stops it."""
    docs = corpus_documents(corpus, settings.level)
    prepared = prepare(docs, settings.level, settings.pretokenizer, corpus_words(docs, settings))
    corpus_state = CorpusState(prepared.sequences, train_rules(settings, prepared))
    texts: list[Token] = list(prepared.alphabet) if prepared.alphabet is not None else [bytes([b]) for b in range(256)]
    ids = {text: i for i, text in enumerate(texts)}
    verdicts = []
    for k, row in enumerate(rows):
        if progress is not None and k % 64 == 0:
            progress(k, len(rows))
        found = corpus_state.best()
        top = (texts[found[1][0]], texts[found[1][1]], found[0]) if found is not None else None
        tied = tuple((texts[a], texts[b]) for a, b in found[2]) if found is not None else ()
        pair = (ids.get(row.left), ids.get(row.right))
        count = corpus_state.count(pair) if None not in pair else 0  # type: ignore[arg-type]  # None is ruled out just before
        if count == 0:
            verdicts.append(Verdict(row, "impossible", 0, top, tied))
            break
        status = "right" if found is not None and pair == found[1] else "tie" if top is not None and count == top[2] else "wrong"
        verdicts.append(Verdict(row, status, count, top, tied, row.count is not None and row.count != count))
        corpus_state.merge(pair, len(texts))  # type: ignore[arg-type]  # the student's path goes on
        texts.append(join(row.left, row.right))
        ids.setdefault(texts[-1], len(texts) - 1)
    return verdicts


def check_trace(rows: list[Row], tok: Tokenizer, sentence: str) -> list[Verdict]:
    """Check a hand-worked encoding trace: each row must be the next merge that fires, in rank order."""
    fired = [(s.merge.left, s.merge.right, s.fired) for s in tok.trace(sentence)[1:] if s.merge is not None]
    verdicts = []
    for k, row in enumerate(rows):
        expected = fired[k] if k < len(fired) else None
        if expected is None or (row.left, row.right) != expected[:2]:
            verdicts.append(Verdict(row, "wrong" if expected else "impossible", 0, expected))
            break
        verdicts.append(Verdict(row, "right", expected[2], expected))
    return verdicts


def where(v: Verdict, merge: int | None = None) -> str:
    """"merge 5 (line 6)": the merge's number is the same wherever the table is written; its line, where it is."""
    return f"merge {merge} (line {v.row.line})" if merge else f"line {v.row.line}"


def explain(v: Verdict, merge: int | None = None) -> str:
    """A verdict in one plain English line, led by where it is (merge, the row's number among the merges)."""
    pair = f"{render.show(v.row.left)} + {render.show(v.row.right)}"
    best = f"{render.show(v.best[0])} + {render.show(v.best[1])} ({v.best[2]})" if v.best else "no pair"
    text = where(v, merge) + {
        "right": f": {pair} — right ({v.count})",
        "tie": f": {pair} — right, a tie at {v.count}: the rule would take {best}",
        "wrong": f": {pair} — wrong: {best} is more frequent than {pair} ({v.count})",
        "impossible": f": {pair} — impossible: it does not occur at this step; the rule takes {best}",
    }[v.status]
    if v.count_written_wrong:
        text += f"; the count written is {v.row.count}, it is {v.count}"
    return text
