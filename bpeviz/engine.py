"""Which engine runs the merge loop (and Unigram's EM and pruning): readable Python, or compiled (numba, the `fast` extra).

Once warm() has loaded it, long texts with the gpt4 split are encoded compiled too (compiled_encode.py).

Both give the same RawMerge records (tests/test_compiled.py); the Python one is the reference a
class reads and the fallback everywhere. "auto" takes the compiled engine when numba imports here
and the corpus is big enough to pay for loading it (about 0.5 s the first time in a process).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from . import trainer
from .errors import BpevizError
from .trainer import Pair, RawMerge, Rules

ENGINES = ("auto", "python", "compiled")
AUTO_MIN_SYMBOLS = 100_000  # base symbols of distinct pre-tokens; below this the Python loop takes a fraction of a second
INSTALL_HINT = 'pip install "bpeviz[fast]"'

_state: dict[str, bool] = {}  # "available": numba imports; "warm": the compiled loop is loaded in this process
_lock = threading.Lock()


def compiled_available() -> bool:
    """Whether numba imports here (checked once per process)."""
    if "available" not in _state:
        try:
            from . import compiled  # noqa: F401  (imports numba)
        except ImportError:
            _state["available"] = False
        else:
            _state["available"] = True
    return _state["available"]


def engines() -> list[str]:
    """The engines usable here, e.g. ["python", "compiled"]."""
    return ["python", "compiled"] if compiled_available() else ["python"]


def warm() -> bool:
    """Load the compiled loops (from numba's cache, or compile them: about 25 s once per install); False without numba."""
    with _lock:
        if not _state.get("warm") and compiled_available():
            from . import compiled, compiled_encode, compiled_unigram

            compiled.warm()
            compiled_unigram.warm()
            compiled_encode.warm()
            _state["warm"] = True
    return bool(_state.get("warm"))


def is_warm() -> bool:
    return bool(_state.get("warm"))


def choose(engine: str, symbols: int) -> str:
    """The engine that runs: "python" or "compiled" (BpevizError for an unknown or unavailable one)."""
    if engine not in ENGINES:
        raise BpevizError("unknown_engine", f"Unknown engine {str(engine)[:40]!r}; choose one of {', '.join(ENGINES)}.",
                          engine=str(engine)[:40])
    if engine == "compiled" and not compiled_available():
        raise BpevizError("engine_unavailable", f"The compiled engine needs numba, which is not installed here: {INSTALL_HINT}.",
                          hint=INSTALL_HINT)
    if engine == "auto":
        return "compiled" if symbols >= AUTO_MIN_SYMBOLS and compiled_available() else "python"
    return engine


def _symbols(sequences: Sequence[tuple[Sequence[int], int]]) -> int:
    return sum(len(ids) for ids, _ in sequences)


def train_ids(sequences: Sequence[tuple[Sequence[int], int]], n_merges: int, first_token: int, *, rules: Rules,
              engine: str = "auto", progress: Callable[[int, int], None] | None = None,
              record_top: int = 0) -> tuple[list[RawMerge], str]:
    """trainer.train_ids on the chosen engine; also says which engine ran."""
    return _on(engine, "train_ids", sequences, n_merges, first_token, rules, progress, record_top)


def replay_ids(sequences: Sequence[tuple[Sequence[int], int]], pairs: Sequence[Pair], first_token: int, *, rules: Rules,
               engine: str = "auto", progress: Callable[[int, int], None] | None = None,
               record_top: int = 0) -> tuple[list[RawMerge], str]:
    """trainer.replay_ids on the chosen engine; also says which engine ran."""
    return _on(engine, "replay_ids", sequences, pairs, first_token, rules, progress, record_top)


def _on(engine: str, function: str, sequences: Sequence[tuple[Sequence[int], int]], what: object, first_token: int,
        rules: Rules, progress: Callable[[int, int], None] | None, record_top: int) -> tuple[list[RawMerge], str]:
    """Call `function` (train_ids or replay_ids) of the engine that runs: what is n_merges or the pairs."""
    used = choose(engine, _symbols(sequences))
    if used == "compiled":
        from . import compiled

        return getattr(compiled, function)(sequences, what, first_token, rules, progress, record_top), used
    return getattr(trainer, function)(sequences, what, first_token, rules=rules, progress=progress, record_top=record_top), used
