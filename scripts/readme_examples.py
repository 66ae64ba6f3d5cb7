"""Run the Python examples of a Markdown page as written, in order, checking what their comments say.

A line `code   # value` (three spaces before the #) is checked: the code's value must equal the literal the comment
starts with; any other line just runs. Used by tests/package/test_readme.py and, outside the checkout against the
installed wheel, by scripts/wheel_check.sh:

    python scripts/readme_examples.py README.md          # prints how many lines were checked; exit 1 on a mismatch
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def shell_commands(path: Path, program: str = "bpeviz") -> list[str]:
    """The lines of the page's bash blocks that run `program` (comments after them removed)."""
    lines = [line for block in re.findall(r"```bash\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
             for line in block.splitlines()]
    return [line.split("  #", 1)[0].strip() for line in lines if line.startswith(program + " ")]


def stated(comment: str) -> object:
    """The Python value a comment starts with ("# ('o', ' gato')", "# [15339, 1917], offline"), or a KeyError."""
    for end in range(len(comment), 0, -1):
        if comment[:end].rstrip().endswith(","):
            continue  # "[1, 2], offline" is the list, not a one-element tuple
        try:
            return ast.literal_eval(comment[:end])
        except (ValueError, SyntaxError):
            continue
    raise KeyError(comment)


def run_page(path: Path) -> int:
    """Run a page's examples in one namespace; the number of lines whose stated value was checked."""
    namespace: dict = {}
    checked = 0
    for block in python_blocks(path):
        for line in block.splitlines():
            code, _, comment = line.partition("   # ") if "   # " in line else (line, "", "")
            if not code.strip():
                continue
            try:
                expected = stated(comment.strip())
            except KeyError:
                exec(code, namespace)  # noqa: S102 - the page's own examples
                continue
            got = eval(code, namespace)  # noqa: S307
            if got != expected:
                raise AssertionError(f"{path.name}: {line}\n  gave {got!r}")
            checked += 1
    return checked


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: {run_page(Path(name))} stated values checked")
