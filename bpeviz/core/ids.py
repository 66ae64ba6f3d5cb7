"""Token ids and the record of one learned merge in ids: what every engine reads and returns.

Inside the loops a pair (left, right) is one int, left * ID_SHIFT + right: ints hash and compare
faster than tuples (`pack`, `unpack`).
"""

from __future__ import annotations

from dataclasses import dataclass

Pair = tuple[int, int]
ID_SHIFT = 1 << 21  # ids below 2 097 152: (left, right) packs into one int
SHIFT = 1 << 42  # tie keys (a position, or two packed ids) stay below this
SHIFT2 = SHIFT * SHIFT  # a heap entry, -count * SHIFT2 + tie key * SHIFT + packed pair, over this is -count
SEPARATOR = -2  # the token between sequences (-1 marks a position merged away)


@dataclass(frozen=True, slots=True)
class RawMerge:
    """One learned merge in ids: left_id + right_id -> token_id, with its count and the pairs it beat."""

    left_id: int
    right_id: int
    token_id: int
    count: int
    tie_ids: tuple[Pair, ...]  # other pairs with the same count, in tie-break order (at most MAX_TIES_RECORDED)
    tokens_after: int  # corpus length in tokens once this merge is applied
    top: tuple[tuple[int, int, int], ...] = ()  # (left id, right id, count) of the best pairs before it, best first


def pack(pair: Pair) -> int:
    """A pair as one int. Example: pack((1, 2)) -> 2097154"""
    return pair[0] * ID_SHIFT + pair[1]


def unpack(key: int) -> Pair:
    """A packed pair back as (left, right). Example: unpack(2097154) -> (1, 2)"""
    left, right = divmod(key, ID_SHIFT)
    return left, right
