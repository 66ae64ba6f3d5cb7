"""The rules behind a merge, as named data: how ties between equally frequent pairs are broken.

The trainer, the step replay and the views all read these records; none re-implements a rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Pair = tuple[int, int]


@dataclass(frozen=True)
class TieRule:
    """How the trainer orders pairs with the same count: `order(pair, first_seen)`, smaller wins."""

    name: str
    description: str
    order: Callable[[Pair, int], object]
    uses_position: bool  # the trainer keys its heap on a pair's first position rather than on its ids


TIE_RULES: dict[str, TieRule] = {
    "first": TieRule(
        "first",
        "the pair that occurs first when the corpus is read in order",
        lambda pair, first_seen: first_seen,
        uses_position=True,
    ),
    "smallest": TieRule(
        "smallest",
        "the pair with the smallest ids (left id, then right id)",
        lambda pair, first_seen: pair,
        uses_position=False,
    ),
}
TIE_BREAKS = tuple(TIE_RULES)


def tie_rule(name: str) -> TieRule:
    """The tie rule called name, or a ValueError that lists the choices."""
    if name not in TIE_RULES:
        raise ValueError(f"Unknown tie-break rule {name!r}; use one of {', '.join(TIE_RULES)}.")
    return TIE_RULES[name]
