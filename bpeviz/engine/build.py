"""`python -m bpeviz.engine.build GROUP ...`: compile a group of kernels into numba's cache, then write its marker.

Started by background.start (a detached, lower-priority process); run by hand it does the same in the foreground.
"""

from __future__ import annotations

import os
import sys
import traceback

from . import background
from .loading import LOADERS


def build(group: str, *, locked: bool = False) -> bool:
    """Compile one group under its lock (taken here unless the starting process took it for us); write the ready
    marker, or the failed one with the reason."""
    folder = background.writable_dir()
    if folder is None or not locked and not background.take_lock(folder, group):
        return False  # nowhere to write, or another process builds it
    lock = background.lock_path(folder, group)
    lock.write_text(str(os.getpid()))
    try:
        LOADERS[group]()
    except Exception:  # noqa: BLE001 - any failure is written down once, so no run starts the build again
        background.marker(folder, group, "failed").write_text(traceback.format_exc(limit=3))
        return False
    finally:
        lock.unlink(missing_ok=True)
    background.marker(folder, group).write_text(f"compiled by pid {os.getpid()}\n")
    return True


def main(args: list[str]) -> int:
    locked = args[:1] == ["--locked"]  # background.start took the lock for this process
    groups = args[1:] if locked else args
    if not groups or any(g not in LOADERS for g in groups):
        print(f"usage: python -m bpeviz.engine.build {' | '.join(LOADERS)} ...", file=sys.stderr)
        return 2
    if hasattr(os, "nice"):
        os.nice(10)  # the user's own work comes first
    return 0 if all([build(g, locked=locked) for g in groups]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
