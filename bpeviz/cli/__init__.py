"""The `bpeviz` command: train, encode, export and import from a terminal.

Bad input prints one line starting with "bpeviz: error:" and exits 2; never a traceback.
Choices (levels, splits, tie rules, encodings, formats) are read from the library's registries.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .app import run_app
from .arguments import parser
from .commands import UsageError

__all__ = ["main", "parser"]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["app"]:
        return run_app(argv[1:])
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already reported on one line
        return int(exc.code or 0)
    try:
        return args.run(args)
    except (UsageError, ValueError, OSError, RuntimeError) as exc:
        print(f"bpeviz: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bpeviz: interrupted", file=sys.stderr)
        return 130
