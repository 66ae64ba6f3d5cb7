"""The Python engine's BPE entry points: learn or replay merges on weighted id sequences with `MergeLoop`.

Works on ids only; turning text into base ids (chars or bytes) happens in `trainers/bpe.py`.
Every sequence is laid out in one array with a linked list over positions, so a merge
touches only the occurrences of its pair and their neighbours (`merge_loop.py`, its steps
numbered). The slow obvious trainer, `trainers/educational.py`, must agree merge for merge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bpeviz.core.gc import paused_gc
from bpeviz.core.ids import Pair, RawMerge, pack, unpack
from bpeviz.core.rules import Rules, rules_for

from .base import Sequences
from .merge_loop import MergeLoop
from .unigram_python import PythonSteps

__all__ = ["PYTHON", "CorpusState", "PythonEngine", "replay_ids", "train_ids"]


def replay_ids(
    sequences: Sequence[tuple[Sequence[int], int]],
    pairs: Sequence[Pair],
    first_token: int,
    *,
    rules: Rules | None = None,
    progress: Callable[[int, int], None] | None = None,
    record_top: int = 0,
) -> list[RawMerge]:
    """Apply given merges (pair k makes token first_token + k) to weighted sequences, as training would.

    Each RawMerge gets the pair's count on these sequences at its step (0 if it does not occur),
    the corpus length after it, and with record_top=N the N best pairs before it (by the rules).
    Example: replay_ids([([1, 2, 1, 2], 1)], [(2, 1)], 3) -> [RawMerge(2, 1, 3, 1, (), 3)]
    """
    with paused_gc():
        return MergeLoop(sequences, rules or rules_for()).replay(pairs, first_token, progress, record_top)


def train_ids(
    sequences: Sequence[tuple[Sequence[int], int]],
    n_merges: int,
    first_token: int,
    *,
    tie_break: str = "first",
    rules: Rules | None = None,
    progress: Callable[[int, int], None] | None = None,
    record_top: int = 0,
) -> list[RawMerge]:
    """Learn up to n_merges merges from (ids, weight) sequences, given in corpus order.

    Stops early when no pair is left. New tokens are numbered from first_token. `rules` (see
    rules_for) overrides tie_break. With record_top=N each merge also keeps the N best pairs of
    its step (for drawing).
    Example: train_ids([([1, 2, 1, 2], 1)], 1, 3) -> [RawMerge(1, 2, 3, 2, (), 2)]
    """
    with paused_gc():
        return MergeLoop(sequences, rules or rules_for(tie_break)).run(n_merges, first_token, progress, record_top)


class CorpusState:
    """The corpus between merges, as the trainer sees it: ask for counts and the best pair, apply any merge.

    For replaying a table someone wrote by hand (checker.py): the merges need not be the best ones.
    """

    def __init__(self, sequences: Sequence[tuple[Sequence[int], int]], rules: Rules) -> None:
        self._trainer = MergeLoop(sequences, rules)

    def best(self) -> tuple[int, Pair, tuple[Pair, ...]] | None:
        """The pair the rules take now: (its count, the pair, up to MAX_TIES_RECORDED pairs tied with it)."""
        best, ties, held = self._trainer._take_best(0)
        self._trainer._keep(([best] if best is not None else []) + held)
        return None if best is None else (best[0], unpack(best[2]), tuple(map(unpack, ties)))

    @property
    def tokens(self) -> int:
        """The corpus length in tokens now (weighted)."""
        return self._trainer.total

    def count(self, pair: Pair) -> int:
        """The pair's count now, by the counting rule (0 when it does not occur)."""
        return self._trainer._count(pack(pair))

    def merge(self, pair: Pair, token: int) -> None:
        """Replace the pair by token everywhere, left to right; a pair that does not occur only names the token."""
        if self.count(pair):
            self._trainer._merge(pack(pair), token)
        elif self._trainer.reads_texts:  # the token's text, for tie rules that read a later pair's tokens
            self._trainer.texts.append(self._trainer.texts[pair[0]] + self._trainer.texts[pair[1]])


class PythonEngine:
    """The readable engine: `MergeLoop` for BPE, `PythonSteps` for Unigram. The reference, and the fallback everywhere."""

    name = "python"

    def train_ids(self, sequences: Sequences, n_merges: int, first_token: int, *, rules: Rules,
                  progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
        return train_ids(sequences, n_merges, first_token, rules=rules, progress=progress, record_top=record_top)

    def replay_ids(self, sequences: Sequences, pairs: Sequence[Pair], first_token: int, *, rules: Rules,
                   progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
        return replay_ids(sequences, pairs, first_token, rules=rules, progress=progress, record_top=record_top)

    def unigram_steps(self, items: list[tuple[str, int]]) -> PythonSteps:
        return PythonSteps(items)


PYTHON = PythonEngine()
