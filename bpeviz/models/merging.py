"""Merging one pre-token's ids by rank, and the cache of pre-tokens already encoded: the machinery under encode.

Works on ids only; `tokenizer.py` turns text into ids and back.
"""

from __future__ import annotations

import heapq
import weakref
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, chain, compress, repeat
from typing import TypeVar

from bpeviz.core.records import Merge, Token, TraceStep

Pair = tuple[int, int]
T = TypeVar("T")  # a token: an id, or WordPiece's (continues, text) key
LONG_WORD = 64  # longer pre-tokens merge with a heap instead of rescanning
POSITION_BITS = 40  # a heap key's low bits: the position (pre-tokens up to 10**12 symbols)
NO_RANK = 1 << 62  # the rank of a pair that never merges


def merge_pair(ids: Sequence[T], pair: tuple[T, T], new_id: T) -> tuple[list[T], int]:
    """Replace each occurrence of pair, left to right; return the new ids and how many places fired.

    Example: merge_pair([1, 1, 1], (1, 1), 9) -> ([9, 1], 1)
    """
    a, b = pair
    out: list[T] = []
    fired, i, n = 0, 0, len(ids)
    while i < n:
        if i < n - 1 and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            fired += 1
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out, fired


def merge_by_rank(ids: list[int], rank_of: dict[Pair, int], new_ids: Sequence[int],
                  ranks: dict[Pair, tuple[int, int]]) -> list[int]:
    """Merge one pre-token's ids, the lowest-ranked pair first, every occurrence left to right, until none merges.

    Each round looks up the rank of every adjacent pair at once (in C, as tiktoken's
    `_byte_pair_merge` does in Rust), which is what replaying the merges in order does (the
    trace; tests check they agree). rank_of: pair -> rank; new_ids[rank]: the id that rank makes;
    ranks: pair -> (rank, new id), for the heap that long pre-tokens use.
    Example: merge_by_rank([1, 2, 3], {(1, 2): 1}, [0, 9], {(1, 2): (1, 9)}) -> [9, 3]
    """
    if len(ids) > LONG_WORD:
        return merge_long(ids, ranks)
    while len(ids) > 1:
        found = list(map(rank_of.get, zip(ids, ids[1:]), repeat(NO_RANK)))
        rank = min(found)
        if rank == NO_RANK:
            break
        new_id, out, start = new_ids[rank], [], 0
        i = found.index(rank)
        while True:  # every occurrence, left to right; the one after an occurrence overlaps it
            out += ids[start:i]
            out.append(new_id)
            start = i + 2
            try:
                i = found.index(rank, start)
            except ValueError:
                break
        out += ids[start:]
        ids = out
    return ids


def best_pair(words: Iterable[Sequence[int]], ranks: dict[Pair, tuple[int, int]]) -> tuple[tuple[int, int], Pair] | None:
    """The adjacent pair with the lowest merge rank in any word, as ((rank, new id), pair); None if none merges.

    Example: best_pair([[1, 2, 3]], {(2, 3): (1, 9)}) -> ((1, 9), (2, 3))
    """
    best = None
    for ids in words:
        for pair in zip(ids, ids[1:]):
            found = ranks.get(pair)
            if found is not None and (best is None or found < best[0]):
                best = (found, pair)
    return best


def merge_long(ids: list[int], ranks: dict[Pair, tuple[int, int]]) -> list[int]:
    """Rank-order merging for long sequences with a heap of rank << POSITION_BITS | position, links in typed arrays:
    ~64 bytes a symbol (20 MB of spaces in 1.3 GB; tuples and lists took over 3 GB). A pushed entry whose pair has
    changed is skipped: ranks name pairs one to one, so the pair there has its rank only if it is still that pair."""
    n = len(ids)
    tokens = array("q", ids)
    nxt = array("q", range(1, n + 1))
    nxt[-1] = -1
    prv = array("q", range(-1, n - 1))
    heap = [found[0] << POSITION_BITS | i for i, found in enumerate(map(ranks.get, zip(ids, ids[1:]))) if found is not None]
    heapq.heapify(heap)
    mask = (1 << POSITION_BITS) - 1
    while heap:
        key = heapq.heappop(heap)
        i = key & mask
        a = tokens[i]
        j = nxt[i] if a >= 0 else -1
        if j < 0:
            continue
        found = ranks.get((a, tokens[j]))
        if found is None or found[0] != key >> POSITION_BITS:
            continue  # stale: one side was merged already
        new_id = found[1]
        k = nxt[j]
        tokens[i], tokens[j] = new_id, -1
        nxt[i] = k
        if k >= 0:
            prv[k] = i
            found = ranks.get((new_id, tokens[k]))
            if found is not None:
                heapq.heappush(heap, found[0] << POSITION_BITS | i)
        p = prv[i]
        if p >= 0:
            found = ranks.get((tokens[p], new_id))
            if found is not None:
                heapq.heappush(heap, found[0] << POSITION_BITS | p)
    return [t for t in tokens if t >= 0]  # the links only skip merged-away places: order is position order


def trace_steps(units: list, best: Callable[[list], tuple[int, Pair, int] | None], apply: Callable,
                pieces: Callable[[list], tuple[Token, ...]], merges: Sequence[Merge]) -> list[TraceStep]:
    """Replay merges one rank at a time over every unit (a word's ids, or BoundlessBPE's groups of words), recording the
    pieces after each: best(units) -> (rank, pair, new id) or None; apply(unit, pair, new id) -> (unit, places fired)."""
    steps = [TraceStep(None, pieces(units))]
    while (found := best(units)) is not None:
        rank, pair, new_id = found
        fired = 0
        for k, unit in enumerate(units):
            units[k], n = apply(unit, pair, new_id)
            fired += n
        steps.append(TraceStep(rank, pieces(units), merges[rank - 1], fired))
    return steps


class WordCache(dict):
    """piece -> ids of an encoding; a missing piece is encoded, and kept while the cache is small.

    Small in entries and in bytes (a piece of 256 characters with its ids is about 2.5 KB): the
    tokenizers of the app are shared by every visitor, so their caches must not grow with what one types.
    It holds its tokenizer's method weakly: a strong one would make a cycle, and a tokenizer (its
    merges, its caches) would then outlive its last user until a full garbage collection.
    """

    MAX_ENTRIES = 200_000
    MAX_BYTES = 32_000_000  # about; see _cost
    MAX_PIECE = 256  # long pieces (no split) are rarely seen twice

    def __init__(self, encode: Callable[[str], tuple[int, ...]]) -> None:
        super().__init__()
        # a weak reference to the tokenizer's method (the cache must not keep its tokenizer alive), or a plain function
        self._encode: Callable[[], Callable[[str], tuple[int, ...]] | None] = weakref.WeakMethod(encode)
        self._encode_many: Callable[[list[str]], list[tuple[int, ...]]] | None = None
        self.size = 0  # bytes held, as _cost counts them

    @staticmethod
    def _cost(piece: str, ids: tuple[int, ...]) -> int:
        return 200 + len(piece) + 8 * len(ids)  # the str, the tuple and the dict slot, near enough

    def use(self, encode: Callable[[str], tuple[int, ...]],
            encode_many: Callable[[list[str]], list[tuple[int, ...]]] | None = None) -> None:
        """Encode missing pieces with a plain function from now on (held strongly: it must not hold the tokenizer);
        encode_many, if given, encodes a list of them in one call (fill's batch)."""
        self._encode = lambda: encode
        self._encode_many = encode_many

    def fill(self, pieces: Iterable[str]) -> None:
        """Encode the pieces not cached yet, each once, as far as the cache has room (the others stay misses)."""
        encode = self._encode()
        limit = self.MAX_PIECE
        missing = [piece for piece in set(pieces).difference(self) if len(piece) <= limit]
        del missing[max(0, self.MAX_ENTRIES - len(self)):]  # no more than there is room for
        # the weak method is alive while its tokenizer encodes
        encoded = self._encode_many(missing) if self._encode_many is not None else list(map(encode, missing))  # type: ignore
        self.keep(missing, encoded)

    def keep(self, pieces: list[str], encoded: list[tuple[int, ...]]) -> None:
        """Keep pieces not cached yet with their ids, as far as the cache has room (the others stay misses)."""
        if max(map(len, pieces), default=0) > self.MAX_PIECE:
            short = list(map(self.MAX_PIECE.__ge__, map(len, pieces)))
            pieces, encoded = list(compress(pieces, short)), list(compress(encoded, short))
        cost = 200 * len(pieces) + sum(map(len, pieces)) + 8 * sum(map(len, encoded))  # _cost, all at once
        if self.size + cost <= self.MAX_BYTES and len(self) + len(pieces) <= self.MAX_ENTRIES:
            self.update(zip(pieces, encoded))
            self.size += cost
            return
        for piece, ids in zip(pieces, encoded):
            if self.size >= self.MAX_BYTES or len(self) >= self.MAX_ENTRIES:
                return  # full: the rest are encoded when met, and not kept
            self._keep(piece, ids)

    def _keep(self, piece: str, ids: tuple[int, ...]) -> None:
        cost = self._cost(piece, ids)
        if len(self) < self.MAX_ENTRIES and self.size + cost <= self.MAX_BYTES and len(piece) <= self.MAX_PIECE:
            self[piece] = ids
            self.size += cost

    def __missing__(self, piece: str) -> tuple[int, ...]:
        ids = self._encode()(piece)  # type: ignore[misc]  # the weak method is alive while its tokenizer encodes
        self._keep(piece, ids)
        return ids


def regroup(ids: list[tuple[int, ...]], piece_lengths: Iterable[int], part_lengths: Iterable[int]) -> list[tuple[int, ...]]:
    """The ids of pieces that cover a text, joined into the ids of parts that cover it too (each part a run of pieces).

    Every step runs in C: a part's ids end where the piece that ends with the part ends.
    Example: regroup([(1,), (2, 3), (4,)], [1, 2, 1], [3, 1]) -> [(1, 2, 3), (4,)]
    """
    part_ends = list(accumulate(part_lengths))
    ends_a_part = map(set(part_ends).__contains__, accumulate(piece_lengths))
    stops = list(compress(accumulate(map(len, ids)), ends_a_part))  # in ids, where each part ends
    if len(stops) != len(part_ends):
        raise ValueError("the parts do not end where pieces end")
    flat = tuple(chain.from_iterable(ids))
    return list(map(flat.__getitem__, map(slice, [0, *stops[:-1]], stops)))
