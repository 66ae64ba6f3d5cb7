"""The error bpeviz raises for bad input: a plain English message, plus a code and values to translate it.

A library user reads the message; an interface looks up `code` in its own language and fills
in `values`. It is a ValueError, so `except ValueError` still catches it.
"""

from __future__ import annotations

from collections.abc import Sized


class BpevizError(ValueError):
    """Bad input: str(error) says what to do; error.code and error.values let an interface say it in another language."""

    def __init__(self, code: str, message: str, **values: object) -> None:
        super().__init__(message)
        self.code = code
        self.values = values

    def __reduce__(self) -> tuple:
        """Pickled whole, code and values too: a worker process or a Dask worker raises it back in the caller."""
        return _rebuild, (self.code, str(self), self.values)


def _rebuild(code: str, message: str, values: dict) -> BpevizError:
    return BpevizError(code, message, **values)


def cut(value: object, limit: int = 40) -> str:
    """repr(value), cut for a message. Example: cut(b"x" * 100, 8) -> "b'xxxxx…' (100 long)" """
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value):,} long)" if isinstance(value, Sized) else ""
    return text[: limit - 3] + "…" + text[-1] + size
