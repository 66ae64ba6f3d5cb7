"""Loading a group of compiled kernels into this process: from numba's cache, or compiling it (warm-up calls)."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from functools import cache

from . import background

_loaded: set[str] = set()  # groups whose kernels this process has loaded
_lock = threading.Lock()


@cache
def numba_installed() -> bool:
    """Whether numba (the `fast` extra) is installed here; checked without importing it."""
    return importlib.util.find_spec("numba") is not None


def _bpe() -> None:
    from bpeviz.compiled import bpe

    bpe.warm()


def _unigram() -> None:
    from . import unigram_compiled

    unigram_compiled.warm()


def _encode() -> None:
    from bpeviz.compiled import count, encode

    encode.warm()
    count.warm()


LOADERS: dict[str, Callable[[], None]] = {"bpe": _bpe, "unigram": _unigram, "encode": _encode}


def loaded(group: str) -> bool:
    return group in _loaded


def load(group: str) -> bool:
    """Load one group (compiling it here if numba's cache lacks it); False when numba is missing or fails."""
    if group in _loaded:
        return True
    if not numba_installed():
        return False
    with _lock:
        if group not in _loaded:
            try:
                LOADERS[group]()
            except ImportError:
                return False
            _loaded.add(group)
            background.mark_ready(group)  # numba's cache holds it now: later processes load it from there
    return True
