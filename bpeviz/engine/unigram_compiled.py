"""Unigram training's loops compiled (numba, the `fast` extra): `unigram_python.PythonSteps`'s methods, the same numbers.

unigram_python.py stays the reference a class reads. Each step here does the same float operations in the same
order, so the seeds, every round's record and the final pieces and scores are equal (tests/test_compiled_unigram.py
trains on both). The words are one array of code points and the lattices arrays of nodes (compiled/lattice.py); the
kernels (compiled/unigram.py) run over them without the GIL.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from bpeviz.compiled import lattice as lat
from bpeviz.compiled.lattice import Lattice, Table
from bpeviz.compiled.unigram import _alternatives, _e_step, _losses, _m_step_scores, _reachable, _uses
from bpeviz.core.numeric import digamma
from bpeviz.models.unigram import MAX_PIECE_LENGTH, Model

from .unigram_python import MIN_EXPECTED, SEED_SIZE, SPACE_BYTE, char_counts, rank_seeds, select, text_end


def sketch_size(substrings: int) -> int:
    """Bits of the sketch's tables for about this many substrings: four cells each (one in 25 seen-once substrings
    then shares both its cells and is tabled anyway), at most 2**26 (two tables of 64 MB)."""
    return int(min(26, max(10, math.ceil(math.log2(4 * max(1, substrings))))))


class Steps:
    """unigram_python.PythonSteps in numba: the same methods, the same numbers."""

    engine = "compiled"

    def __init__(self, items: list[tuple[str, int]]) -> None:
        self.items = items
        self.cps, self.off = lat.code_points([w for w, _ in items])
        self.counts = np.array([n for _, n in items], np.int64)
        self.total = float(sum(n for _, n in items))
        self.longest_word = int(np.diff(self.off).max(initial=0))
        self._tables: tuple[Model, Table, int] | None = None

    def seeds(self, finals: Counter[str] | None) -> list[tuple[str, float]]:
        finals = finals or Counter()
        cps, off = self.cps, self.off
        lead = np.where(cps < 0x80, cps, np.where(cps < 0x800, 0xC0 | cps >> 6,
                                                  np.where(cps < 0x10000, 0xE0 | cps >> 12, 0xF0 | cps >> 18)))
        lead[cps == ord(" ")] = SPACE_BYTE
        ends = np.array([finals[w] for w, _ in self.items], np.int64)
        sketch_bits = sketch_size(int(off[-1]) * (MAX_PIECE_LENGTH - 1))  # at most this many substrings
        one, two = lat.sketch(cps, off, self.counts, MAX_PIECE_LENGTH, sketch_bits)
        pos, lens, freq = lat.substrings(cps, off, self.counts, ends, lead, MAX_PIECE_LENGTH, SPACE_BYTE, one, two,
                                         sketch_bits)
        del one, two
        joined = "".join(w for w, _ in self.items)
        found = Counter({joined[p:p + n]: f for p, n, f in zip(pos.tolist(), lens.tolist(), freq.tolist())})
        return rank_seeds(char_counts(self.items), found + text_end(finals), SEED_SIZE)

    def _table(self, model: Model) -> tuple[Table, int]:
        if self._tables is None or self._tables[0] is not model:
            cps, off = lat.code_points([p for p, _ in model.pieces])
            keys, ids, bits = lat.build_table(cps, off)
            self._tables = (model, Table(cps, off, keys, ids), bits)
        return self._tables[1], self._tables[2]

    def _lattice_of(self, model: Model, cps: np.ndarray, off: np.ndarray) -> Lattice:
        table, bits = self._table(model)
        noff = np.zeros(len(off), np.int64)
        args = (cps, off, model.longest, table.keys, table.ids, bits, table.cps, table.off)
        empty = np.empty(0, np.int64)
        size = lat.lattice(*args, False, empty, empty, empty, noff)
        st, en, pc = np.empty(size, np.int64), np.empty(size, np.int64), np.empty(size, np.int64)
        lat.lattice(*args, True, st, en, pc, noff)
        return Lattice(st, en, pc, noff)

    def lattices(self, model: Model) -> Lattice:
        return self._lattice_of(model, self.cps, self.off)

    def relattice(self, model: Model, old: Model, lattices: Lattice) -> Lattice:
        new_of_old = np.array([model.index.get(p, -1) for p, _ in old.pieces], np.int64)
        return Lattice(*lat.relattice(*lattices, new_of_old))

    def _scores(self, model: Model) -> np.ndarray:
        return np.array(model.scores, np.float64)

    def e_step(self, model: Model, lattices: Lattice) -> tuple[np.ndarray, float, int]:
        expected, objective, tokens = _e_step(*lattices, self.off, self.counts, self._scores(model), model.unk_score,
                                              self.total, self.longest_word)
        return expected, float(objective), int(tokens)

    def m_step(self, model: Model, expected: np.ndarray) -> list[tuple[str, float]]:
        e32 = expected.astype(np.float32).astype(np.float64)
        kept = np.flatnonzero(e32 >= MIN_EXPECTED)
        logsum = float(np.float32(digamma(math.fsum(e32[kept].tolist()))))
        scores = _m_step_scores(e32[kept], logsum).tolist()
        return [(model.pieces[i][0], s) for i, s in zip(kept.tolist(), scores)]

    def prune(self, model: Model, lattices: Lattice, keep: int) -> tuple[list[tuple[str, float]], list[str]]:
        table, _ = self._table(model)
        scores = self._scores(model)
        own = self._lattice_of(model, table.cps, table.off)
        always, alt_off, alt = _alternatives(*own, table.off, scores, model.unk_score, model.longest)
        freq = _uses(*lattices, self.off, self.counts, scores, model.unk_score, self.longest_word)
        total = float(np.float32(math.fsum(freq.tolist())))
        kind, loss = _losses(freq, always, alt_off, alt, total)
        candidates = [(x, i) for i, x in zip(np.flatnonzero(kind == 2).tolist(), loss[kind == 2].tolist())]
        return select(model, np.flatnonzero(kind == 0).tolist(), np.flatnonzero(kind == 1).tolist(), candidates, keep)

    def reachable(self, model: Model) -> list[tuple[str, float]]:
        table, _ = self._table(model)
        own = self._lattice_of(model, table.cps, table.off)
        keep = _reachable(*own, table.off, self._scores(model), model.unk_score, model.longest)
        return [piece for piece, k in zip(model.pieces, keep.tolist()) if k]

    def tokens(self, model: Model) -> int:
        lattice = self.lattices(model)
        return int(_uses(*lattice, self.off, self.counts, self._scores(model), model.unk_score, self.longest_word).sum())


def warm() -> None:
    """Compile (or load from numba's cache) every loop above: each step once, on a tiny corpus."""
    steps = Steps([(" abcab", 3), (" ab cä", 2), (" bc", 1)])
    model = Model(steps.seeds(Counter({" bc": 1})))
    lattices = steps.lattices(model)
    expected, _, _ = steps.e_step(model, lattices)
    pruned = Model(steps.m_step(model, expected))
    lattices = steps.relattice(pruned, model, lattices)
    kept, _ = steps.prune(pruned, lattices, len(pruned.pieces) - 1)
    steps.tokens(Model(steps.reachable(Model(kept))))
