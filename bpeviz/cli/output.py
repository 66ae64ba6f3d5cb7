"""What the command line prints: merge tables, rounds, aligned columns, and the progress bar on stderr."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence

from bpeviz.core.records import Merge, PruneRound, WordPieceMerge
from bpeviz.lessons import render
from bpeviz.models.unigram import UnigramTokenizer

MAX_COLUMN = 32  # widest token column before alignment gives up


def token_text(token: str | bytes, literal: bool = False) -> str:
    """A token for the terminal: readable (␣, \\xNN) or, with literal, Python's repr as minbpe prints it."""
    return repr(token) if literal else render.show(token)


def merge_lines(merges: Sequence[Merge | WordPieceMerge], literal: bool = False) -> list[str]:
    """One aligned line per merge. Example: "merge   1: ␣ + n   -> ␣n  (7 times)" """
    pairs = [f"{token_text(m.left, literal)} + {token_text(m.right, literal)}" for m in merges]
    tokens = [token_text(m.token, literal) for m in merges]
    pair_width = min(max(map(render.width, pairs), default=0), MAX_COLUMN)
    token_width = min(max(map(render.width, tokens), default=0), MAX_COLUMN)
    rank_width = len(str(merges[-1].rank)) if merges else 1
    lines = []
    for m, pair, token in zip(merges, pairs, tokens):
        count = ("occurred once" if m.count == 1 else f"occurred {m.count:,} times") if m.count else "count unknown"
        rank = f"{m.rank:>{max(rank_width, 3)}}"
        lines.append(f"merge {rank}: {render.pad(pair, pair_width)} -> {render.pad(token, token_width)} ({count})")
    return lines


def wordpiece_lines(merges: Sequence[WordPieceMerge]) -> list[str]:
    """merge_lines for WordPiece: each line also gives the score and, when it differs, the pair BPE would take."""
    lines = []
    for line, m in zip(merge_lines(merges), merges):
        line += f"  score {m.score:.3g}"
        if m.most_frequent and m.most_frequent[:2] != (m.left, m.right):
            left, right, count, _ = m.most_frequent
            line += f"  (BPE would take {token_text(left)} + {token_text(right)}, {count:,} times)"
        lines.append(line)
    return lines


def unigram_lines(tok: UnigramTokenizer) -> list[str]:
    """One line per piece, best score first. Example: "piece    3: ␣the  (score -3.12)" """
    shown = [token_text(p) for p, _ in tok.scored]
    width = min(max(map(render.width, shown), default=0), MAX_COLUMN)
    return [f"piece {i:>4}: {render.pad(text, width)}  (score {score:.4g})" for i, (text, (_, score)) in
            enumerate(zip(shown, tok.scored))]


def round_line(r: PruneRound) -> str:
    """A Unigram pruning round for the log. Example: "round  2: 2,444 -> 1,833 pieces, log-likelihood -231,452" """
    pruned = ", ".join(token_text(p) for p in r.pruned[:6])
    return (f"round {r.round:>2}: {r.vocab_before:,} -> {r.vocab_after:,} pieces, log-likelihood {r.log_likelihood:,.0f}, "
            f"{r.tokens:,} tokens; pruned {pruned}{', …' if len(r.pruned) > 6 else ''}")


def merge_json(m: Merge | WordPieceMerge) -> str:
    def enc(token: str | bytes) -> str:
        return token.decode("utf-8", errors="backslashreplace") if isinstance(token, bytes) else token

    row = {"rank": m.rank, "left": enc(m.left), "right": enc(m.right), "token": enc(m.token), "id": m.id, "count": m.count}
    if isinstance(m, WordPieceMerge):
        row["score"] = m.score
    return json.dumps(row, ensure_ascii=False)


def aligned(headers: Sequence[str], rows: Sequence[Sequence[str]], text_columns: int = 1) -> list[str]:
    """A plain table for the terminal: the first text_columns left-aligned, numbers right-aligned, a rule under the head."""
    widths = [max(render.width(str(x)) for x in column) for column in zip(headers, *rows)]
    lines = []
    for k, line in enumerate([headers, *rows]):
        cells = [render.pad(str(x), w) if i < text_columns else str(x).rjust(w) for i, (x, w) in enumerate(zip(line, widths))]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


class Bar:
    """A progress line on stderr, redrawn at most 8 times a second: a bar, the share done, the rate and the time left.

    Example: "counting  [########--------]  52%   18.4 MB/s  ETA 0:03"
    """

    WIDTH = 24

    def __init__(self, label: str, unit: str, scale: float = 1.0, enabled: bool = True) -> None:
        self.label, self.unit, self.scale, self.enabled = label, unit, scale, enabled
        self.start = time.monotonic()
        self.shown = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.shown < 0.125 and done < total):
            return
        self.shown, self.drawn = now, True
        share = min(done / total, 1.0) if total else 1.0
        filled = round(share * self.WIDTH)
        rate = done / self.scale / max(now - self.start, 1e-9)
        left = (total - done) / self.scale / rate if rate > 0 and done < total else 0.0
        print(f"\r{self.label:<9} [{'#' * filled}{'-' * (self.WIDTH - filled)}] {share:4.0%}  {rate:8,.1f} {self.unit}/s"
              f"  ETA {int(left) // 60}:{int(left) % 60:02d} ", end="", file=sys.stderr, flush=True)

    def close(self) -> float:
        """End the line; the seconds since the bar started."""
        if self.drawn:
            print(file=sys.stderr)
        return time.monotonic() - self.start
