"""The optimality gap: BPE takes the most frequent pair at each step; the best list of merges may save more.

Choosing the best n merges is NP-complete (Kozma & Voderholzer, arXiv 2412.15210), and greedy BPE can
save as little as 0.333-0.625 of what the best saves (arXiv 2411.08671). For small corpora an exact
search is possible: depth-first over merge sequences, best-looking merges first, cut when even the
most the remaining merges could save cannot beat the best found. That bound holds because every
later merge removes boundaries of one pair of today's tokens, and no boundary is removed twice: so
k more merges save at most the sum of today's k largest pair counts. Merges that share no token
give the same corpus in either order; only one order is searched.

Words are pre-tokens with counts; symbols are characters. Greedy is bpeviz's trainer (tie rule
"first": the pair seen first in the words' order).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Mapping

from bpeviz.engine.python import train_ids
from bpeviz.models.merging import merge_pair

MAX_SYMBOLS = 4_000  # characters in the words, counted once per distinct word
MAX_MERGES = 24
MAX_TIME_LIMIT = 30.0  # seconds
Pair = tuple[int, int]


def _check(words: Mapping[str, int], n_merges: int) -> None:
    if not isinstance(words, Mapping) or not words:
        raise ValueError("words is a mapping of word to count, like {'abc': 1, 'bc': 2}, with at least one word.")
    for word, n in words.items():
        if not isinstance(word, str) or not word:
            raise ValueError(f"Each word must be a non-empty string, not {str(word)[:20]!r}.")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"The count of {word[:20]!r} must be a whole number of 1 or more, not {str(n)[:20]!r}.")
    if isinstance(n_merges, bool) or not isinstance(n_merges, int) or not 0 <= n_merges <= MAX_MERGES:
        raise ValueError(f"n_merges must be a whole number from 0 to {MAX_MERGES} (the search grows fast), not {n_merges!r}.")
    symbols = sum(map(len, words))
    if symbols > MAX_SYMBOLS:
        raise ValueError(f"The words hold {symbols:,} characters; the exact search takes at most {MAX_SYMBOLS:,}.")


def _start(words: Mapping[str, int]) -> tuple[list[str], list[list[int]], list[int]]:
    alphabet = sorted({ch for word in words for ch in word})
    ids = {ch: i for i, ch in enumerate(alphabet)}
    return alphabet, [[ids[ch] for ch in word] for word in words], list(words.values())


def greedy(words: Mapping[str, int], n_merges: int) -> tuple[list[tuple[str, str]], int]:
    """BPE's merges (bpeviz's trainer, tie rule "first") and the symbols they save.

    Example: greedy({"abc": 1, "abd": 1, "abe": 1, "bc": 1, "bd": 1, "be": 1}, 3) -> ([("a", "b"), ...], 5)
    """
    _check(words, n_merges)
    texts, seqs, weights = _start(words)
    start = sum(len(s) * w for s, w in zip(seqs, weights))
    raw = train_ids(list(zip(seqs, weights)), n_merges, len(texts))
    merges = []
    for r in raw:
        merges.append((texts[r.left_id], texts[r.right_id]))
        texts.append(texts[r.left_id] + texts[r.right_id])
    return merges, start - (raw[-1].tokens_after if raw else start)


def best_merges(words: Mapping[str, int], n_merges: int, time_limit: float = 5.0
                ) -> tuple[list[tuple[str, str]], int, bool]:
    """The merges that save the most symbols, what they save, and whether the search finished (proven optimal).

    Never worse than greedy: the search starts from greedy's answer. time_limit (seconds, at most
    MAX_TIME_LIMIT) stops it early with the best found so far and proven_optimal False.
    Example: best_merges({"abc": 1, "abd": 1, "abe": 1, "bc": 1, "bd": 1, "be": 1}, 3) -> (3 merges, 6, True)
    """
    _check(words, n_merges)
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not 0 < time_limit <= MAX_TIME_LIMIT:
        raise ValueError(f"time_limit is in seconds, above 0 and at most {MAX_TIME_LIMIT:g}, not {time_limit!r}.")
    start_merges, start_saved = greedy(words, n_merges)
    search = _Search(words, n_merges, time.monotonic() + time_limit, start_saved)
    finished = search.run()
    if search.best_saved > start_saved:
        return search.best_merges, search.best_saved, finished
    return start_merges, start_saved, finished


def savings(words: Mapping[str, int], merges: list[tuple[str, str]]) -> list[int]:
    """Symbols each merge saves when the merges are applied in order to the words (left to right, none overlapping)."""
    segs: list[list[str]] = [list(word) for word in words]
    weights = list(words.values())
    out = []
    for a, b in merges:
        saved = 0
        for k, seg in enumerate(segs):
            segs[k], fired = merge_pair(seg, (a, b), a + b)
            saved += fired * weights[k]
        out.append(saved)
    return out


class _Search:
    def __init__(self, words: Mapping[str, int], n_merges: int, deadline: float, floor: int) -> None:
        self.texts, seqs, self.weights = _start(words)
        self.n_merges, self.deadline = n_merges, deadline
        self.best_saved = floor
        self.best_merges: list[tuple[str, str]] = []
        self.seqs = seqs
        self.path: list[Pair] = []

    def run(self) -> bool:
        """Search every merge sequence the bound leaves; False if the deadline came first."""
        try:
            self._visit(self.seqs, 0, None)
        except TimeoutError:
            return False
        return True

    def _pairs(self, seqs: list[list[int]]) -> dict[Pair, int]:
        counts: dict[Pair, int] = {}
        for ids, w in zip(seqs, self.weights):
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + w
        return counts

    def _gain(self, seqs: list[list[int]], pair: Pair) -> int:
        """Symbols the merge saves here: its occurrences left to right, none overlapping."""
        a, b = pair
        gain = 0
        for ids, w in zip(seqs, self.weights):
            i, n = 0, len(ids) - 1
            while i < n:
                if ids[i] == a and ids[i + 1] == b:
                    gain += w
                    i += 2
                else:
                    i += 1
        return gain

    def _visit(self, seqs: list[list[int]], saved: int, last: tuple[Pair, int] | None) -> None:
        if time.monotonic() > self.deadline:
            raise TimeoutError
        if saved > self.best_saved:
            self.best_saved = saved
            self.best_merges = [(self.texts[a], self.texts[b]) for a, b in self.path]
        left = self.n_merges - len(self.path)
        if not left:
            return
        counts = self._pairs(seqs)
        if saved + sum(heapq.nlargest(left, counts.values())) <= self.best_saved:
            return
        token = len(self.texts)
        children = []
        for k, pair in enumerate(counts):
            if last is not None and not ({*pair} & {*last[0], last[1]}) and pair < last[0]:
                continue  # shares no token with the merge before: the other order is searched
            children.append((-self._gain(seqs, pair), k, pair))
        children.sort()
        for neg_gain, _, pair in children:
            # the most k - 1 more merges could save: today's largest counts, with what this merge leaves of its own
            rest = [n for p, n in counts.items() if p != pair] + [counts[pair] + neg_gain]
            if saved - neg_gain + sum(heapq.nlargest(left - 1, rest)) <= self.best_saved:
                continue
            self.path.append(pair)
            self.texts.append(self.texts[pair[0]] + self.texts[pair[1]])
            self._visit([merge_pair(ids, pair, token)[0] for ids in seqs], saved - neg_gain, (pair, token))
            self.path.pop()
            self.texts.pop()
