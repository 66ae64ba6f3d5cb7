"""Every Python example in the README runs as written, in order, and shows what its comments say (issue 27.10)."""

import ast
import re

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


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


def test_the_readme_examples_run_and_show_what_they_say():
    namespace: dict = {}
    checked = 0
    for block in BLOCKS:
        for line in block.splitlines():
            code, _, comment = line.partition("   # ") if "   # " in line else (line, "", "")
            if not code.strip():
                continue
            try:
                expected = stated(comment.strip())
            except KeyError:
                exec(code, namespace)  # noqa: S102 - the README's own examples
                continue
            assert eval(code, namespace) == expected, line  # noqa: S307
            checked += 1
    assert len(BLOCKS) >= 4 and checked >= 5
