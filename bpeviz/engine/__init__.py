"""Engine: the loops that train (BPE's merges, Unigram's EM and pruning) and encode long texts, in readable Python
or compiled by numba (the `fast` extra), resolved once per run into an `Engine` object.

    run_engine = bpeviz.engine.resolve("auto", size=symbols, group="bpe")   # PYTHON or COMPILED
    run_engine.train_ids(sequences, n_merges, first_token, rules=rules); run_engine.name -> "python" | "compiled"

Both engines give the same records (tests/test_compiled.py); the Python one is the reference a class reads
(python.py, merge_loop.py, unigram_python.py) and the fallback everywhere. With "auto" nothing compiles inside a
call: see choice.py and background.py. `warm()` loads everything now; it is optional.
"""

from __future__ import annotations

from .base import Engine, UnigramSteps
from .choice import (
    AUTO_MIN_SYMBOLS,
    ENGINES,
    INSTALL_HINT,
    STATUSES,
    check,
    engines,
    is_warm,
    load_ready,
    resolve,
    start_background,
    status,
    warm,
)
from .compiled import COMPILED, CompiledEngine
from .encoder import ENCODER, CompiledEncoder
from .python import PYTHON, PythonEngine

__all__ = ["AUTO_MIN_SYMBOLS", "COMPILED", "ENCODER", "ENGINES", "INSTALL_HINT", "PYTHON", "STATUSES", "CompiledEncoder",
           "CompiledEngine", "Engine", "PythonEngine", "UnigramSteps", "check", "engines", "is_warm", "load_ready", "resolve",
           "start_background", "status", "warm"]
