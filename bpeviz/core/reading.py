"""Files read whole, but never past a cap: a file (or /dev/zero) longer than the cap is refused, not loaded.

`read_capped` reads at most cap + 1 bytes, so the size on disk (0 for a device or a pipe) is never trusted.
"""

from __future__ import annotations

from pathlib import Path

from .errors import BpevizError


def read_capped(path: str | Path, cap: int, what: str = "bpeviz") -> bytes:
    """The file's bytes; a BpevizError for a missing file, a folder, or more than `cap` bytes (naming the cap).

    Example: read_capped("table.txt", 50_000_000, "bpeviz check") -> b"..."
    """
    try:
        with open(path, "rb") as file:
            data = file.read(cap + 1)
    except FileNotFoundError:
        raise BpevizError("no_such_file", f"no such file: {path}", path=str(path)) from None
    except IsADirectoryError:
        raise BpevizError("is_folder", f"{path} is a folder; give a file.", path=str(path)) from None
    if len(data) > cap:
        raise BpevizError("file_too_big", f"{path} is over {cap / 1e6:,.0f} MB; {what} reads at most {cap / 1e6:,.0f} MB "
                          "whole.", path=str(path), cap=f"{cap / 1e6:,.0f}")
    return data
