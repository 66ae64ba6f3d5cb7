"""What an engine is: one object per run that trains BPE's merges and Unigram's steps (see python.py, compiled.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from bpeviz.core.ids import Pair, RawMerge
from bpeviz.core.rules import Rules
from bpeviz.models.unigram import Model

Sequences = Sequence[tuple[Sequence[int], int]]  # (base ids, count) per distinct pre-token, in corpus order
Progress = Callable[[int, int], None]


class UnigramSteps(Protocol):
    """Unigram training's loops over words and pieces; `trainers/unigram.py` runs the rounds around them."""

    engine: str
    items: list[tuple[str, int]]

    # lattices: each engine's own (lists of nodes in Python, arrays compiled), handed back to it unread: Any
    def seeds(self, finals: Counter[str] | None) -> list[tuple[str, float]]: ...
    def lattices(self, model: Model) -> Any: ...
    def relattice(self, model: Model, old: Model, lattices: Any) -> Any: ...
    def e_step(self, model: Model, lattices: Any) -> tuple[Any, float, int]: ...
    def m_step(self, model: Model, expected: Any) -> list[tuple[str, float]]: ...
    def prune(self, model: Model, lattices: Any, keep: int) -> tuple[list[tuple[str, float]], list[str]]: ...
    def reachable(self, model: Model) -> list[tuple[str, float]]: ...
    def tokens(self, model: Model) -> int: ...


class Engine(Protocol):
    """An engine resolved for one run: its name says which ran ("python" or "compiled"); both give the same records."""

    name: str

    def train_ids(self, sequences: Sequences, n_merges: int, first_token: int, *, rules: Rules,
                  progress: Progress | None = None, record_top: int = 0) -> list[RawMerge]:
        """Learn up to n_merges merges; new tokens are numbered from first_token."""
        ...

    def replay_ids(self, sequences: Sequences, pairs: Sequence[Pair], first_token: int, *, rules: Rules,
                   progress: Progress | None = None, record_top: int = 0) -> list[RawMerge]:
        """Apply merges learned elsewhere, recording each one's count here."""
        ...

    def unigram_steps(self, items: list[tuple[str, int]]) -> UnigramSteps:
        """Unigram's loops over these (word, count) items."""
        ...
