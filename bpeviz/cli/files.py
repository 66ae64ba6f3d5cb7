"""Writing a command's output safely: never over one of its inputs, never over a file unless asked (--force), and
always whole: the data goes to a temporary file beside the target, renamed into place only once complete, so an
interrupted command (Ctrl-C, a kill, a full disk) leaves the old file as it was.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from bpeviz.core.reading import read_capped


class OutputError(ValueError):
    """An output the command refuses to write, with the reason and what to do."""


def check_output(path: str, *, force: bool, inputs: Sequence[str] = ()) -> None:
    """Refuse an output that is one of the inputs, or an existing file without --force."""
    target = Path(path)
    for source in inputs:
        with contextlib.suppress(OSError):
            if Path(source).resolve() == target.resolve() or target.exists() and os.path.samefile(source, target):
                raise OutputError(f"{path} is also an input of this command; write the output to another file")
    if target.is_dir():
        raise OutputError(f"{path} is a folder; give a file name")
    if target.exists() and not force:
        raise OutputError(f"{path} exists; add --force to replace it (the old file stays until the new one is complete)")


def write_atomic(path: str, write: Callable[[Path], object]) -> None:
    """Call write(temporary path), then rename the temporary file over `path`; on any failure the target is untouched."""
    target = Path(path)
    part = target.with_name(f".{target.stem}.{os.getpid()}.part{target.suffix}")  # the suffix kept: .parquet, .json
    try:
        write(part)
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)


def write_bytes(path: str, data: bytes) -> None:
    write_atomic(path, lambda part: part.write_bytes(data))


MAX_TEXT_BYTES = 500_000_000  # a text file read whole (bpeviz extend): bigger ones go through bpeviz count


def read_text(path: str) -> str:
    """A whole text file as str, or a one-line reason: missing, a folder, too big, not UTF-8."""
    from bpeviz.core.errors import BpevizError

    data = read_capped(path, MAX_TEXT_BYTES, "this command")  # the size on disk is not trusted (/dev/zero says 0)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BpevizError("not_utf8", f"{path} is not valid UTF-8 (byte {exc.start:,}); save it as UTF-8.", path=path) from None
