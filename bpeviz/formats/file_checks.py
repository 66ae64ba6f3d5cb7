"""Checks for what a file holds: plain ValueErrors that say what is wrong, with long values cut.

Every reader (tokenizer files, lesson files, count tables) uses these; none imports a tokenizer.
"""

from __future__ import annotations

import json
from pathlib import Path

from bpeviz.core.errors import cut
from bpeviz.core.reading import read_capped


def parse_json(data: bytes | str, name: str = "the file") -> object:
    """json.loads with the errors a hostile file can cause turned into one ValueError."""
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{name} is not a JSON file: {exc}") from exc
    except RecursionError:
        raise ValueError(f"{name} is nested too deeply to be a tokenizer or lesson file.") from None


def whole(value: object, what: str, minimum: int = 0) -> int:
    """value if it is an int of at least minimum (not a bool), else a ValueError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{what} must be a whole number of at least {minimum}, not {cut(value)}.")
    return value


def a_list(value: object, what: str) -> list:
    """value if it is a list, else a ValueError naming `what`."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, not {type(value).__name__}.")
    return value


MAX_TOKENIZER_FILE = 200_000_000  # bytes: the largest real tokenizer files are a few tens of MB


def read_path(path: str | Path) -> bytes:
    """A tokenizer file's bytes, or a BpevizError (a ValueError) naming the path: missing, a folder, over 200 MB."""
    return read_capped(path, MAX_TOKENIZER_FILE, "a tokenizer import")
