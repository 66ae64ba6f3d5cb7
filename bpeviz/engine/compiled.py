"""The compiled engine: the same loops in numba (bpeviz/compiled/), called as the Python engine's are.

Importing this module imports nothing heavy; each call imports its kernels (and numba) when first used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bpeviz.core.ids import Pair, RawMerge
from bpeviz.core.rules import Rules

from .base import Sequences, UnigramSteps


class CompiledEngine:
    """BPE's merge loop and Unigram's steps compiled by numba: the same records as PythonEngine, faster."""

    name = "compiled"

    def train_ids(self, sequences: Sequences, n_merges: int, first_token: int, *, rules: Rules,
                  progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
        from bpeviz.compiled import bpe

        return bpe.train_ids(sequences, n_merges, first_token, rules, progress, record_top)

    def replay_ids(self, sequences: Sequences, pairs: Sequence[Pair], first_token: int, *, rules: Rules,
                   progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
        from bpeviz.compiled import bpe

        return bpe.replay_ids(sequences, pairs, first_token, rules, progress, record_top)

    def unigram_steps(self, items: list[tuple[str, int]]) -> UnigramSteps:
        from .unigram_compiled import Steps

        return Steps(items)


COMPILED = CompiledEngine()
