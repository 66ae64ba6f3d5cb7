"""Choosing the engine once per run: "auto", "python" or "compiled" in, an Engine object out.

"auto" takes the compiled engine when its group of kernels is loaded in this process (at any size), or when numba's
cache holds it and the run is big enough to pay for loading it (AUTO_MIN_SYMBOLS); otherwise the Python engine runs
the call, and a run that big starts the group's compile in the background (background.py), once, for later runs.
So with "auto" nothing compiles inside a call, and a first run is never slower than the Python engine.
"compiled" loads the group here, compiling it in the call if the cache is empty: the user asked for it.
"""

from __future__ import annotations

from bpeviz.core.errors import BpevizError

from . import background, loading
from .base import Engine
from .compiled import COMPILED
from .python import PYTHON

ENGINES = ("auto", "python", "compiled")
AUTO_MIN_SYMBOLS = 100_000  # base symbols of distinct pre-tokens: below this the Python loop takes a fraction of a second
INSTALL_HINT = 'pip install "bpeviz[fast]"'
STATUSES = ("loaded", "ready", "compiling", "failed", "absent", "unavailable")


def engines() -> list[str]:
    """The engines usable here, e.g. ["python", "compiled"]."""
    return ["python", "compiled"] if loading.numba_installed() else ["python"]


def check(name: object) -> str:
    """The engine's name, or a BpevizError that lists the names (and says how to install the compiled one)."""
    if name not in ENGINES:
        raise BpevizError("unknown_engine", f"Unknown engine {str(name)[:40]!r}; choose one of {', '.join(ENGINES)}.",
                          engine=str(name)[:40])
    if name == "compiled" and not loading.numba_installed():
        raise BpevizError("engine_unavailable", f"The compiled engine needs numba, which is not installed here: {INSTALL_HINT}.",
                          hint=INSTALL_HINT)
    return str(name)


def resolve(name: str = "auto", *, size: int = 0, group: str = "bpe") -> Engine:
    """The engine a run uses, resolved once. size: the run's base symbols; group: "bpe", "unigram" (or "encode")."""
    if check(name) == "python":
        return PYTHON
    if name == "compiled":
        if not loading.load(group):
            raise BpevizError("engine_unavailable", f"The compiled engine did not load here; reinstall numba: {INSTALL_HINT}.",
                              hint=INSTALL_HINT)
        return COMPILED
    if not loading.numba_installed():
        return PYTHON
    if loading.loaded(group):
        return COMPILED
    if size < AUTO_MIN_SYMBOLS:
        return PYTHON
    if background.ready(group) and loading.load(group):
        load_ready()  # numba is imported now: the other ready groups cost a fifth of a second more (encode long texts)
        return COMPILED
    background.start(group)
    return PYTHON


def status(group: str = "bpe") -> str:
    """Where a group of compiled kernels stands here: one of STATUSES."""
    if not loading.numba_installed():
        return "unavailable"
    if loading.loaded(group):
        return "loaded"
    if background.ready(group):
        return "ready"
    if background.running(group):
        return "compiling"
    return "failed" if background.failed(group) else "absent"


def warm() -> bool:
    """Load every group now (from numba's cache, or compiling it here: ~25 s once per install); False without numba.

    Optional: "auto" loads what it needs, and compiles in the background what is not in the cache.
    """
    return all([loading.load(group) for group in background.GROUPS])


def is_warm() -> bool:
    """Whether every group of compiled kernels is loaded in this process."""
    return all(loading.loaded(group) for group in background.GROUPS)


def load_ready() -> list[str]:
    """Load every group that numba's cache holds (a server does this at start, in a thread); the groups now loaded."""
    if not loading.numba_installed():
        return []
    return [group for group in background.GROUPS if loading.loaded(group) or background.ready(group) and loading.load(group)]


def start_background(groups: tuple[str, ...] = background.GROUPS) -> list[str]:
    """Start compiling, in the background, each group numba's cache lacks; the groups that started."""
    if not loading.numba_installed():
        return []
    return [group for group in groups if background.start(group)]
