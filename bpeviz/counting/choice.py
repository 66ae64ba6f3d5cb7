"""How a corpus is counted: how many processes (workers_for) and by what (counter: compiled where it serves)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from bpeviz.pre_tokenizers import splits

from . import cluster

__all__ = ["MAX_LOCAL_WORKERS", "PARALLEL_MIN_BYTES", "PARALLEL_MIN_BYTES_COMPILED", "counter", "workers_for"]

PARALLEL_MIN_BYTES = 8 << 20  # below this, starting worker processes costs more than it saves
# the same where the compiled counter serves the split: one process counts about three times as fast, and reading the
# blocks, sending them and adding their tables is then most of the work (2-core VM: even at 30 MB, 1.2x at 100 MB)
PARALLEL_MIN_BYTES_COMPILED = 32 << 20
MAX_LOCAL_WORKERS = cluster.MAX_LOCAL_WORKERS  # local:N starts N processes: no more than the machine's cores


def workers_for(workers: int | str | None, n_bytes: int, pretokenizer: str | None = None) -> int:
    """How many processes count n_bytes: "auto" (or None) every core from PARALLEL_MIN_BYTES up (from
    PARALLEL_MIN_BYTES_COMPILED where the compiled counter serves pretokenizer), else 1; a number is capped at the
    machine's cores (more processes than cores only add start-up and memory).

    Example: workers_for("auto", 1_000) -> 1; workers_for(10_000, 1 << 30) -> the cores
    """
    if workers is None or workers == "auto":
        least = PARALLEL_MIN_BYTES
        if pretokenizer is not None and n_bytes >= least and counter(pretokenizer, n_bytes) is not splits.count_pieces:
            least = PARALLEL_MIN_BYTES_COMPILED
        return MAX_LOCAL_WORKERS if n_bytes >= least else 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be \"auto\" or a whole number of processes, 1 or more, not {str(workers)[:20]!r}.")
    return min(workers, MAX_LOCAL_WORKERS)


def counter(pretokenizer: str, size: int) -> Callable[[Sequence[str], str], Counter[str]]:
    """What counts the pre-tokens of documents (size characters or bytes in all): the compiled counter where the
    engine serves the split (the same table as splits.count_pieces, order included, about three times as fast), else
    splits.count_pieces."""
    from bpeviz.engine.encoder import ENCODER

    return ENCODER.counter(pretokenizer, size) or splits.count_pieces
