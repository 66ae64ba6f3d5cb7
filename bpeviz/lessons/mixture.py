"""What a BPE tokenizer's merge list says about its training mix (Hayase et al., arXiv 2407.16607).

A merge list is a record of which pair was most frequent at every step. Given a sample of each category (a language,
code), the training mix α (shares of the training bytes) must make each step's merge at least as frequent, mixed, as
every other pair then:

    Σ_i α_i c_i,t(m_t) ≥ Σ_i α_i c_i,t(p)   for every step t and every pair p ≠ m_t,

where c_i,t(p) is pair p's count per million bytes of sample i after replaying merges 1..t-1 on it. Samples are not
the training text, so the constraints are relaxed by a slack per step (v_t) and per pair (v_p), and the mix is the
one that needs the least slack (a linear program, solved by HiGHS through highspy):

1. Replay the merges on every sample, keeping every pair's exact count (a merge's changes applied as deltas).
2. At each step, the rivals are each sample's 16 best pairs, counted exactly in every sample (not 0 where a sample
   has them lower down).
3. Start from the rivals that beat each step's merge under equal weights; solve; add the rivals the solution lets
   beat a merge (lazily: only the violated ones); repeat until none is (or 12 rounds).
Measured in bench/mixture.py: tokenizers trained on known mixes of word lists, inferred from other words.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import sys
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence

from bpeviz.core.errors import BpevizError
from bpeviz.core.records import to_bytes
from bpeviz.models.bpe import Tokenizer

SCALE = 1_000_000  # counts per million sample bytes
PER_STEP = 4  # violated pairs added per step and round
ROUNDS = 12  # solver rounds at most; o200k_base needs 38 to leave no rival ahead (docs/library.md)
EPSILON = 1e-9
PAIR_SLACK = 1.0  # the weight of a pair's own slack, the paper's: samples from another source err least (bench/mixture.py)
Pair = tuple[int, int]


class SamplePairs:
    """One category's sample as words of ids, with every adjacent pair's count and where it occurs (step 1)."""

    def __init__(self, words: Mapping[str, int], tok: Tokenizer) -> None:
        self.words = [tok.base_ids(w) for w in words]
        self.weights = list(words.values())
        self.scale = SCALE / max(1, sum(len(to_bytes(w)) * n for w, n in words.items()))
        self.counts: Counter[Pair] = Counter()
        self.where: defaultdict[Pair, set[int]] = defaultdict(set)
        for k, (ids, n) in enumerate(zip(self.words, self.weights)):
            for pair in zip(ids, ids[1:]):
                self.counts[pair] += n
                self.where[pair].add(k)
        self.heap = [(-c, p) for p, c in self.counts.items()]
        heapq.heapify(self.heap)

    def top(self, k: int) -> list[Pair]:
        """The k most frequent pairs now (a lazy heap: stale entries are dropped as they surface)."""
        found: list[tuple[int, Pair]] = []
        while self.heap and len(found) < k:
            entry = heapq.heappop(self.heap)
            if self.counts.get(entry[1], 0) == -entry[0]:
                found.append(entry)
        for entry in found:
            heapq.heappush(self.heap, entry)
        return [p for _, p in found]

    def merge(self, pair: Pair, new: int) -> Counter[Pair]:
        """Replace pair by new in every word that holds it; each pair count's change (applied here too)."""
        changed: Counter[Pair] = Counter()
        for k in self.where.pop(pair, ()):
            ids, n = self.words[k], self.weights[k]
            for p in zip(ids, ids[1:]):
                changed[p] -= n
            out, j = [], 0
            while j < len(ids):
                if j + 1 < len(ids) and (ids[j], ids[j + 1]) == pair:
                    out.append(new)
                    j += 2
                else:
                    out.append(ids[j])
                    j += 1
            self.words[k] = out
            for p in zip(out, out[1:]):
                changed[p] += n
                self.where[p].add(k)
        for p, d in changed.items():
            left = self.counts.get(p, 0) + d
            if left > 0:
                self.counts[p] = left
                if d:
                    heapq.heappush(self.heap, (-left, p))
            else:
                self.counts.pop(p, None)
        return changed


_FIRST_HIGHS = threading.Lock()
_banner_hidden = False


def _quiet_highs(highspy):  # -> highspy.Highs
    """A HiGHS instance; the process's first is made with the C library's stdout on /dev/null. highspy 1.16 prints a
    banner there when the first one is made, before any option can silence it (it broke `bpeviz infer-mix --json`)."""
    global _banner_hidden
    with _FIRST_HIGHS:
        if _banner_hidden:
            return highspy.Highs()
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 1)
                highs = highspy.Highs()
                with contextlib.suppress(Exception):  # C's buffer, written to /dev/null before stdout comes back
                    import ctypes

                    ctypes.CDLL(None).fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _banner_hidden = True
        return highs


class Program:
    """The LP (step 3), grown round by round: minimise Σ v_t + Σ v_p subject to α·d + v_t + v_p ≥ 0 per row, α ≥ 0,
    Σ α = 1. HiGHS keeps its basis between rounds: a round's new rows start from the last optimum, not from nothing
    (12 rounds for cl100k_base: 38 s as 12 separate programs, 5 s grown; bench/mixture.py).
    """

    def __init__(self, n: int) -> None:
        import highspy
        import numpy as np

        self.n, self.np, self.inf = n, np, highspy.kHighsInf
        self.highs = _quiet_highs(highspy)
        self.highs.setOptionValue("output_flag", False)
        self.highs.addVars(n, np.zeros(n), np.full(n, self.inf))  # α, at no cost
        self.highs.addRow(1.0, 1.0, n, np.arange(n, dtype=np.int32), np.ones(n))  # Σ α = 1
        self.steps: dict[int, int] = {}  # step -> its slack's column
        self.pairs: dict[Pair, int] = {}

    def _column(self, table: dict, key: object) -> int:
        if key not in table:
            table[key] = self.n + len(self.steps) + len(self.pairs)
        return table[key]

    def add(self, rows: list[tuple[int, Pair, list[float]]]) -> None:
        """Rows α·d + v_t + PAIR_SLACK·v_p ≥ 0; a step or pair seen for the first time brings its slack (cost 1)."""
        np, width = self.np, self.n + len(self.steps) + len(self.pairs)
        starts: list[int] = []
        columns: list[int] = []
        values: list[float] = []
        for t, p, diff in rows:
            starts.append(len(columns))
            nonzero = [k for k, value in enumerate(diff) if value]
            columns += [*nonzero, self._column(self.steps, t), self._column(self.pairs, p)]
            values += [diff[k] for k in nonzero] + [1.0, PAIR_SLACK]
        grown = self.n + len(self.steps) + len(self.pairs) - width
        if grown:
            self.highs.addVars(grown, np.zeros(grown), np.full(grown, self.inf))
            self.highs.changeColsCost(grown, np.arange(width, width + grown, dtype=np.int32), np.ones(grown))
        self.highs.addRows(len(rows), np.zeros(len(rows)), np.full(len(rows), self.inf), len(columns),
                           np.array(starts, dtype=np.int32), np.array(columns, dtype=np.int32), np.array(values))

    def solve(self):  # -> (alpha or None, v_step, v_pair, status, slack)
        import highspy

        self.highs.run()
        status = self.highs.getModelStatus()
        message = f"HiGHS: {self.highs.modelStatusToString(status)}"
        if status != highspy.HighsModelStatus.kOptimal:
            return None, {}, {}, message, float("nan")
        x = self.highs.getSolution().col_value
        return ([max(0.0, a) for a in x[:self.n]], {t: x[k] for t, k in self.steps.items()},
                {p: x[k] for p, k in self.pairs.items()}, message, self.highs.getInfo().objective_function_value)


TOP_PER_SAMPLE = 16  # each sample's best pairs kept per step; the exact replay then checks every other pair


def record(samples: list[SamplePairs], merges: list[tuple[Pair, int]], k: int = TOP_PER_SAMPLE,
           progress: Callable[[int, int], None] | None = None) -> list[tuple]:
    """Steps 1-2 in one replay: at every step, the merge's counts and each sample's k best pairs', in every sample.
    progress(steps done, steps) every 64 steps: where a budget stops it."""
    import numpy as np

    out = []
    for step, (merge, new) in enumerate(merges):
        if progress is not None and step % 64 == 0:
            progress(step, len(merges))
        rivals = sorted({p for sample in samples for p in sample.top(k)} - {merge})
        own = np.array([sample.counts.get(merge, 0) * sample.scale for sample in samples])
        others = np.array([[sample.counts.get(p, 0) * sample.scale for sample in samples] for p in rivals])
        out.append((rivals, own, others.reshape(len(rivals), len(samples))))
        for sample in samples:
            sample.merge(merge, new)
    return out


def _violations(steps: list[tuple], alpha: Sequence[float], v_step: Mapping[int, float], v_pair: Mapping[Pair, float],
                known: set[tuple[int, Pair]]) -> list[tuple[int, Pair, list[float]]]:
    """The recorded rivals that beat their step's merge under alpha beyond the slack (step 3's lazy constraints)."""
    import numpy as np

    weights = np.asarray(alpha, dtype=float)
    found = []
    for t, (rivals, own, others) in enumerate(steps):
        if not rivals:
            continue
        bar = float(own @ weights) + v_step.get(t, 0.0) + EPSILON
        values = others @ weights - np.array([v_pair.get(p, 0.0) for p in rivals])
        taken = 0
        for j in np.argsort(-values):
            if values[j] <= bar or taken >= PER_STEP:
                break
            if (t, rivals[j]) not in known:
                found.append((t, rivals[j], list(own - others[j])))
                taken += 1
    return found


NO_MERGE = "No merge occurs in any sample: nothing to infer."
UNCONSTRAINED = "No merge is beaten by another pair in the samples: nothing constrains the mix."
GAVE_UP = "The solver gave up: "
STOPPED = "; stopped at its cap of {rounds} rounds: at {left:,} steps a rival it has not yet weighed is ahead of the merge"


def infer(tok: Tokenizer, words: Mapping[str, Mapping[str, int]], rounds: int = ROUNDS,
          progress: Callable[[int, int], None] | None = None):
    """The mix (name -> share), the solver's message, the merges some sample shows, and the slack per million bytes.
    progress(done, total) during the replay and after each solver round."""
    names = list(words)
    if len(names) < 2:
        raise BpevizError("inspect_samples", "Give at least two categories, each with a sample.")
    merges = [((m.left_id, m.right_id), m.id) for m in tok.merges]
    n = len(names)
    steps = record([SamplePairs(words[name], tok) for name in names], merges, progress=progress)
    shown = sum(1 for _, own, _ in steps if own.any())  # merges some sample shows: the ones that say something
    if not shown:
        return dict(zip(names, [1.0 / n] * n)), NO_MERGE, 0, 0.0
    alpha: list[float] = [1.0 / n] * n
    program = Program(n)
    known: set[tuple[int, Pair]] = set()
    v_step: dict[int, float] = {}
    v_pair: dict[Pair, float] = {}
    message, slack = UNCONSTRAINED, 0.0
    cap = max(1, rounds)
    for done in range(cap + 1):
        new = _violations(steps, alpha, v_step, v_pair, known)
        if not new:
            break
        if done == cap:  # the cap: say that the program is short of its optimum, and by how much
            message += STOPPED.format(rounds=done, left=len({t for t, _, _ in new}))
            break
        program.add(new)
        known |= {(t, p) for t, p, _ in new}
        found, v_step, v_pair, message, slack = program.solve()
        if progress is not None:
            progress(len(merges), len(merges))
        if found is None:
            return dict(zip(names, [1.0 / n] * n)), f"{GAVE_UP}{message}", shown, float("nan")
        alpha = found
    total = sum(alpha) or 1.0
    return {name: float(a / total) for name, a in zip(names, alpha)}, message, shown, float(slack)
