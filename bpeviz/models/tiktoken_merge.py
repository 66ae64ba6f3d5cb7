"""tiktoken's Rust merge of one pre-token, used where it provably gives what `merge_ids` gives (a fast path of
models/bpe.py for new pieces of a long text); and the proof's progress, shared by a table's truncations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from bpeviz.core.records import Merge


class MergeTable(Protocol):
    """What the proof reads of a BPE tokenizer."""

    merges: list[Merge]

    @property
    def level(self) -> str: ...

    def merge_ids(self, ids: list[int]) -> list[int]: ...


class Proof:
    """The number of leading merges of a table whose tokens' bytes merge back into them, shared by its truncations."""

    __slots__ = ("upto", "shareable")

    def __init__(self, merges: Sequence[Merge]) -> None:
        self.upto = 0
        self.shareable = all(m.left_id < m.id and m.right_id < m.id for m in merges)  # as every trained table


def tiktoken_merger(tok: MergeTable, proven: int = 0) -> Callable[[bytes], list[int]] | None:
    """tiktoken's merge of one pre-token's bytes, when it provably equals tok.merge_ids; else None.

    tiktoken merges the adjacent pair whose joined bytes have the lowest rank, and takes a piece
    that is a token whole; merge_ids merges the lowest-ranked *pair*. They agree when the tokens
    are distinct byte strings, ids grow with rank, and every token's own bytes merge back into it:
    then two tokens that sit side by side and join into a token T are T's own pair (were they
    not, the span they cover would have become T already, as it does alone), so both merge the
    same pairs in the same order. A trained table always passes; a hand-made one may not, and
    then encoding stays in Python. proven: the last condition is known already for the first
    `proven` merges (checked on a table with the same prefix, whose merges' parts come before them).
    """
    if tok.level != "bytes" or not tok.merges:
        return None
    ids = [m.id for m in tok.merges]
    if len({m.token for m in tok.merges}) != len(ids) or ids != sorted(ids) or ids[0] < 256:
        return None
    if any(tok.merge_ids(list(m.token)) != [m.id] for m in tok.merges[proven:]):  # type: ignore[arg-type]  # bytes
        return None
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        return None
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({m.token: m.id for m in tok.merges if isinstance(m.token, bytes)})  # bytes level: all are
    encoding = tiktoken.Encoding(name="bpeviz-merges", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    # bytes in, ids out, raw bytes welcome: the Rust method itself where this tiktoken exposes it, else its wrapper
    core = getattr(getattr(encoding, "_core_bpe", None), "encode_single_piece", None)
    return core or getattr(encoding, "_encode_single_piece", None)
