"""SentencePiece's two encoders over a normalized string, as pure functions: BPE by piece score, Unigram by Viterbi.

Both follow SentencePiece's C++ (bpe_model.cc, unigram_model.cc's EncodeOptimized) step for step, ties included,
so that a `.model` file encodes here as it does there; `tests/formats/test_sentencepiece.py` holds them to the
`sentencepiece` package on 20 000 strings per model.
"""

from __future__ import annotations

import heapq
import struct
from collections.abc import Collection, Mapping

from bpeviz.normalizers.sentencepiece import Symbols

_F32 = struct.Struct("f")
FLT_MIN = 1.1754943508222875e-38  # the smallest normal float32: SentencePiece's starting "max score"
UNK_PENALTY = 10.0  # an unknown character scores the lowest piece's score minus this


def f32(x: float) -> float:
    """x rounded to float32, as C++ float arithmetic leaves it."""
    return _F32.unpack(_F32.pack(x))[0]


def bpe(text: str, scores: Mapping[str, float], symbols: Symbols, unused: Collection[str] = (),
        trace: list[tuple[str, str]] | None = None) -> list[str]:
    """The pieces SentencePiece's BPE makes of a normalized string.

    1. Cut the text into characters; a user-defined symbol is one symbol that never merges.
    2. Put every adjacent pair whose joined text is a piece on an agenda: best score first, the leftmost on ties.
    3. Take the best pair; skip it if either side has changed since; else join them and queue the new neighbours.
    4. A piece marked unused is cut back into the two that made it, and those too if unused.
    trace: if given, each merge's (left, right) is appended, in order.
    Example: bpe("▁gato", {"▁g": -1.0, "at": -2.0, "▁gat": -3.0, "▁gato": -4.0}, Symbols(())) -> ["▁gato"]
    """
    pieces, frozen = _characters(text, symbols)  # 1.
    if not pieces:
        return []
    made_of: dict[str, tuple[str, str]] = {}  # an unused piece -> the two it was made from (step 4)
    after = _merge_by_score(pieces, frozen, scores, unused, made_of, trace)  # 2. and 3.
    out: list[str] = []
    k = 0
    while k != -1:  # 4.
        stack = [pieces[k]]
        while stack:
            piece = stack.pop()
            if piece in unused and piece in made_of:
                stack += reversed(made_of[piece])
            else:
                out.append(piece)
        k = after[k]
    return out


def _characters(text: str, symbols: Symbols) -> tuple[list[str], list[bool]]:
    """The text's characters, a user-defined symbol as one (frozen: it never merges)."""
    pieces: list[str] = []
    frozen: list[bool] = []
    i = 0
    while i < len(text):
        n = symbols.match(text, i) if symbols else 0
        pieces.append(text[i:i + (n or 1)])
        frozen.append(n > 0)
        i += n or 1
    return pieces, frozen


def _merge_by_score(pieces: list[str], frozen: list[bool], scores: Mapping[str, float], unused: Collection[str],
                    made_of: dict[str, tuple[str, str]], trace: list[tuple[str, str]] | None) -> list[int]:
    """Join pieces in place by the agenda (steps 2 and 3); each symbol's next one (-1: the last) links what is left."""
    before = list(range(-1, len(pieces) - 1))
    after = list(range(1, len(pieces) + 1))
    after[-1] = -1
    agenda: list[tuple[float, int, int, int]] = []

    def queue(left: int, right: int) -> None:
        if left < 0 or right < 0 or frozen[left] or frozen[right]:
            return
        joined = pieces[left] + pieces[right]
        score = scores.get(joined)
        if score is not None:
            heapq.heappush(agenda, (-score, left, right, len(joined)))
            if joined in unused:
                made_of[joined] = (pieces[left], pieces[right])

    for k in range(1, len(pieces)):
        queue(k - 1, k)
    while agenda:
        _, left, right, size = heapq.heappop(agenda)
        a, b = pieces[left], pieces[right]
        if not a or not b or len(a) + len(b) != size:
            continue
        pieces[left], pieces[right] = a + b, ""
        if trace is not None:
            trace.append((a, b))
        after[left] = after[right]
        if after[right] >= 0:
            before[after[right]] = left
        queue(before[left], left)
        queue(left, after[left])
    return after


def viterbi(text: str, index: Mapping[str, int], scores: list[float], user: Collection[int], unused: Collection[int],
            longest: int, unk_score: float, max_score: float) -> list[tuple[str, int]]:
    """The best segmentation of a normalized string under a Unigram model, as SentencePiece finds it: (piece, id).

    One pass over character positions, float32 sums, the first-found path kept on an exact tie. A user-defined
    piece scores (its UTF-8 length × max_score) − 0.1; a character no piece
    starts with is an unknown node (id -1) scoring unk_score.
    """
    n = len(text)
    best = [0.0] * (n + 1)
    back: list[tuple[int, int]] = [(-1, -1)] * (n + 1)
    for start in range(n):
        here, single = best[start], False
        for end in range(start + 1, min(n, start + longest) + 1):
            i = index.get(text[start:end])
            if i is None or i in unused:
                continue
            # each sum is rounded to float32 before it is compared, as the sentencepiece build we test against does
            piece_score = f32(len(text[start:end].encode("utf-8")) * max_score) - 0.1 if i in user else scores[i]
            score = f32(here + piece_score)
            if back[end][0] < 0 or score > best[end]:
                best[end], back[end] = score, (start, i)
            single |= end == start + 1
        if not single:
            score = f32(here + unk_score)
            if back[start + 1][0] < 0 or score > best[start + 1]:
                best[start + 1], back[start + 1] = score, (start, -1)
    out: list[tuple[str, int]] = []
    end = n
    while end > 0:
        start, i = back[end]
        out.append((text[start:end], i))
        end = start
    out.reverse()
    return out
