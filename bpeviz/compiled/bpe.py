"""The compiled merge loop: trainer._Trainer's algorithm in numba, for big corpora.

Needs the optional `fast` extra (numba); importing this module imports numba. The Python
trainer in `trainer.py` stays the reference: this one must give the same RawMerge records,
merge for merge (tests/test_compiled.py runs both). The layout is the same (one array of every
distinct pre-token's ids, a separator around each, a linked list over positions), without a
hash map in the loop:

- a pair lives in a slot; each position remembers the slot of the pair that starts there, so a
  merge finds the pairs it breaks directly;
- a pair is born only in the merge that makes its new token, with all its positions at once, so
  its positions are one slice of an append-only pool; dense tables indexed by the neighbouring
  token group them and are reset after the merge;
- the heap holds one entry per live pair, (-count, tie key, slot) in parallel arrays; counts only
  fall and positions only die, so entries are lower bounds, fixed when they surface;
- ties and top pairs: pop the next exact entries after the best, record them, push them back.

The loop runs in chunks (progress is called between them, and arrays grow between them when a
merge needs more room), without the GIL: other sessions keep running while one trains.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np

from bpeviz.core.ids import ID_SHIFT, SEPARATOR, Pair, RawMerge
from bpeviz.core.records import MAX_TIES_RECORDED
from bpeviz.core.rules import HF_BYTE_ORDER, Rules

from .heap import (
    EMPTY,
    MODES,
    N_SLOTS,
    NEED_POOL,
    NEED_ROOM,
    NEED_SLOTS,
    NEED_TEXT,
    POOL_N,
    SPACE_KEY,
    TEXT_N,
    TOTAL,
)
from .merge import reindex, replay_chunk, start_heap, train_chunk

TEXT_ROOM_PER_TOKEN = 64  # bytes first set aside per merged token's text (grown when a merge needs more)


class State(NamedTuple):
    """Everything the loop reads and writes, as arrays (numba passes a NamedTuple of arrays by reference)."""

    tok: np.ndarray  # position -> token id, SEPARATOR, or DEAD
    nxt: np.ndarray  # position -> next live position
    prv: np.ndarray  # position -> previous live position
    wt: np.ndarray  # position -> its pre-token's count
    slot_at: np.ndarray  # position -> slot of the pair that starts there (valid while that pair lives there)
    pool: np.ndarray  # positions of every pair, one slice per slot, ascending
    p_left: np.ndarray  # slot -> left id
    p_right: np.ndarray  # slot -> right id
    p_count: np.ndarray  # slot -> weighted overlapping count (<= 0: gone)
    p_start: np.ndarray  # slot -> its slice in pool
    p_len: np.ndarray
    p_skip: np.ndarray  # slot -> leading pool entries known dead
    h1: np.ndarray  # heap: -count (an upper bound on the count)
    h2: np.ndarray  # heap: tie key (first position, packed ids, HF ids; 0 for the text rule)
    hs: np.ndarray  # heap: slot
    hfmap: np.ndarray  # id -> its id in HF's byte order
    t_off: np.ndarray  # id -> its text's offset in tb and kb (texts only when a rule reads them)
    t_blen: np.ndarray  # id -> length of its UTF-8 in tb
    k_blen: np.ndarray  # id -> length of its sort bytes in kb (a space as ▁)
    t_len: np.ndarray  # id -> length of its text (characters, or bytes at level bytes)
    t_hash: np.ndarray  # id -> FNV-1a of its UTF-8
    tb: np.ndarray
    kb: np.ndarray
    known: np.ndarray  # open-addressing set of token texts (unique tokens), by id; -1 empty
    n_grp: np.ndarray  # scratch, by neighbouring token: positions in this merge
    w_grp: np.ndarray  # scratch: their weight
    s_grp: np.ndarray  # scratch: the slice offset, then the new slot
    buf_tok: np.ndarray  # scratch: neighbours of this merge's occurrences (after in the first half, before in the second)
    buf_pos: np.ndarray
    touched: np.ndarray
    index_key: np.ndarray  # when replaying: open-addressing table, packed pair -> slot (-1 empty)
    index_slot: np.ndarray
    held1: np.ndarray  # scratch: entries popped after the best, pushed back
    held2: np.ndarray
    helds: np.ndarray
    sc: np.ndarray  # HEAP_N, N_SLOTS, POOL_N, TOTAL, TEXT_N, and what a merge that did not fit needs


class Out(NamedTuple):
    """What each merge records, one row per merge."""

    left: np.ndarray
    right: np.ndarray
    counts: np.ndarray  # (not `count`: a NamedTuple has a count method)
    after: np.ndarray
    n_ties: np.ndarray
    ties: np.ndarray  # (merge, tie, left/right)
    n_top: np.ndarray
    top: np.ndarray  # (merge, rank, left/right/count)


# -- from Python ---------------------------------------------------------------------------


def _layout(sequences: Sequence[tuple[Sequence[int], int]]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids with a separator around every sequence, and each position's weight (trainer._Trainer's layout)."""
    kept = [(ids, w) for ids, w in sequences if w > 0 and len(ids)]
    lens = np.fromiter((len(ids) for ids, _ in kept), np.int64, len(kept))
    weights = np.fromiter((w for _, w in kept), np.int64, len(kept))
    n = int(lens.sum()) + len(kept) + 1
    tok = np.full(n, SEPARATOR, np.int32)
    word = np.ones(n, bool)
    word[0] = False
    word[np.cumsum(lens + 1)] = False
    if kept and all(isinstance(ids, bytes) for ids, _ in kept):
        tok[word] = np.frombuffer(b"".join(ids for ids, _ in kept), np.uint8)  # type: ignore[misc]  # bytes are sequences of ints
    else:
        tok[word] = np.fromiter(chain.from_iterable(ids for ids, _ in kept), np.int64, int(lens.sum()))
    wt = np.zeros(n, np.int64)
    wt[1:] = np.repeat(weights, lens + 1)
    return tok, wt


def _pairs(tok: np.ndarray, wt: np.ndarray) -> dict[str, np.ndarray]:
    """Every adjacent pair's slot: its ids, weighted count and ascending positions (slices of one pool)."""
    idx = np.flatnonzero((tok[:-1] >= 0) & (tok[1:] >= 0))
    base = int(tok.max(initial=0)) + 1
    keys = tok[idx].astype(np.int64) * base + tok[idx + 1]
    # a stable sort of 16-bit keys is a radix sort, several times faster (bytes: 256 x 256 pairs)
    order = np.argsort(keys.astype(np.uint16) if base <= 256 else keys, kind="stable")
    keys, positions = keys[order], idx[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, np.int64)
    lengths = np.diff(np.r_[starts, len(keys)])
    slot_at = np.full(len(tok), -1, np.int32)
    slot_at[positions] = np.repeat(np.arange(len(starts)), lengths)
    counts = np.add.reduceat(wt[positions], starts) if len(starts) else np.zeros(0, np.int64)
    keys = keys[starts]
    return {"keys": keys // base * ID_SHIFT + keys % base, "starts": starts, "lengths": lengths, "positions": positions,
            "slot_at": slot_at, "counts": counts}


def _grown(a: np.ndarray, size: int, fill: int = 0) -> np.ndarray:
    if size <= a.size:
        return a
    b = np.full(max(size, 2 * a.size), fill, a.dtype)
    b[:a.size] = a
    return b


def _texts(texts: Sequence[str | bytes], n_tokens: int, room: int) -> dict[str, np.ndarray]:
    """The base symbols' UTF-8 and sort bytes (a space as ▁) in one buffer each, with room for merged tokens."""
    raw = [t.encode("utf-8", "surrogateescape") if isinstance(t, str) else bytes(t) for t in texts]
    keys = [r.replace(b" ", SPACE_KEY) for r in raw]
    blen = np.zeros(n_tokens, np.int64)
    klen = np.zeros(n_tokens, np.int64)
    blen[:len(raw)] = [len(r) for r in raw]
    klen[:len(raw)] = [len(k) for k in keys]
    off = np.zeros(n_tokens, np.int64)
    off[:len(raw)] = np.r_[0, np.cumsum(klen[:len(raw)])[:-1]] if raw else []
    used = int(klen.sum())
    tb = np.zeros(used + room, np.uint8)
    kb = np.zeros(used + room, np.uint8)
    for k, (r, key) in enumerate(zip(raw, keys)):
        tb[off[k]:off[k] + len(r)] = np.frombuffer(r, np.uint8)
        kb[off[k]:off[k] + len(key)] = np.frombuffer(key, np.uint8)
    t_len = np.zeros(n_tokens, np.int64)
    t_len[:len(texts)] = [len(t) for t in texts]
    return {"t_off": off, "t_blen": blen, "k_blen": klen, "t_len": t_len, "tb": tb, "kb": kb, "used": np.array(used)}


def _state(sequences: Sequence[tuple[Sequence[int], int]], n_tokens: int, rules: Rules, replaying: bool,
           record_top: int) -> tuple[State, int]:
    """The loop's arrays for these sequences, with ids below n_tokens; also the number of first pairs.

    A replay may meet ids above the merges' (a chars-level table's byte fallback on another corpus): every
    per-token array is sized for the largest id in the sequences too.
    """
    tok, wt = _layout(sequences)
    n_tokens = max(n_tokens, int(tok.max(initial=0)) + 1)
    if n_tokens >= ID_SHIFT:
        raise ValueError(f"The compiled engine handles ids below {ID_SHIFT:,}.")
    n = len(tok)
    first = _pairs(tok, wt)
    n_pairs, n_pos = len(first["starts"]), len(first["positions"])
    pool = np.zeros(3 * n_pos + 16, np.int32)
    pool[:n_pos] = first["positions"]
    per_token = _per_token(rules, n_tokens)
    held = max(record_top, MAX_TIES_RECORDED + 1)
    index_size = 1 << (4 * n_pairs + 64).bit_length() if replaying else 1
    sc = np.zeros(8, np.int64)
    sc[N_SLOTS], sc[POOL_N], sc[TEXT_N] = n_pairs, n_pos, per_token.pop("used")
    sc[TOTAL] = int(wt[tok >= 0].sum())
    st = State(
        tok=tok, nxt=np.arange(1, n + 1, dtype=np.int32), prv=np.arange(-1, n - 1, dtype=np.int32), wt=wt,
        slot_at=first["slot_at"], pool=pool, **_per_slot(first, n_pairs, n_pos),
        buf_tok=np.zeros(2 * n_pos + 2, np.int32), buf_pos=np.zeros(2 * n_pos + 2, np.int32),
        index_key=np.full(index_size, -1, np.int64), index_slot=np.zeros(index_size, np.int64),
        held1=np.zeros(held, np.int64), held2=np.zeros(held, np.int64), helds=np.zeros(held, np.int64), sc=sc,
        **per_token,
    )
    return st, n_pairs


def _per_slot(first: dict[str, np.ndarray], n_pairs: int, n_pos: int) -> dict[str, np.ndarray]:
    """The arrays indexed by a pair's slot, the first pairs in place; the heap's three columns empty."""
    # Every merged occurrence removes a position and makes at most two pairs: this much room always suffices
    slots = n_pairs + 2 * n_pos + 16

    def slot_array(values: np.ndarray | None = None) -> np.ndarray:
        a = np.zeros(slots, np.int64)
        if values is not None:
            a[:n_pairs] = values
        return a

    return {"p_left": slot_array(first["keys"] // ID_SHIFT), "p_right": slot_array(first["keys"] % ID_SHIFT),
            "p_count": slot_array(first["counts"]), "p_start": slot_array(first["starts"]),
            "p_len": slot_array(first["lengths"]), "p_skip": slot_array(), "h1": slot_array(), "h2": slot_array(),
            "hs": slot_array()}


def _per_token(rules: Rules, n_tokens: int) -> dict[str, np.ndarray]:
    """The arrays indexed by token id: texts (for the rules that read them), HF's byte order, the merge's groups."""
    reads_texts = rules.tie.kind == "text" or rules.unique_tokens
    texts = _texts(rules.texts, n_tokens, TEXT_ROOM_PER_TOKEN * n_tokens) if reads_texts else _texts([], 1, 1)
    known = np.full(1 << max(4, (2 * n_tokens).bit_length()) if rules.unique_tokens else 1, -1, np.int64)
    hfmap = np.arange(n_tokens, dtype=np.int64)
    hfmap[:min(256, n_tokens)] = HF_BYTE_ORDER[:min(256, n_tokens)]
    return {**texts, "t_hash": np.zeros(len(texts["t_off"]), np.uint64), "known": known, "hfmap": hfmap,
            "n_grp": np.zeros(n_tokens, np.int64), "w_grp": np.zeros(n_tokens, np.int64),
            "s_grp": np.zeros(n_tokens, np.int64), "touched": np.zeros(n_tokens, np.int64)}


def _make_room(st: State) -> State:
    """Grow what the last merge needed: slots (and the heap), the pool, the text buffers."""
    need_slots, need_pool, need_text = (int(st.sc[k]) for k in (NEED_SLOTS, NEED_POOL, NEED_TEXT))
    grown = {name: _grown(getattr(st, name), need_slots)
             for name in ("p_left", "p_right", "p_count", "p_start", "p_len", "p_skip", "h1", "h2", "hs")}
    grown.update(pool=_grown(st.pool, need_pool), tb=_grown(st.tb, need_text), kb=_grown(st.kb, need_text))
    if 1 < st.index_key.size < 2 * need_slots:
        size = 1 << (4 * need_slots).bit_length()
        grown.update(index_key=np.full(size, -1, np.int64), index_slot=np.zeros(size, np.int64))
        st = st._replace(**grown)
        reindex(st)
        return st
    return st._replace(**grown)


class _Run:
    """One compiled training or replay: the state, the chunks, the records."""

    def __init__(self, sequences: Sequence[tuple[Sequence[int], int]], n_tokens: int, rules: Rules, replaying: bool,
                 record_top: int) -> None:
        self.rules = rules
        self.mode = MODES[rules.tie.kind]
        self.reads_texts = rules.tie.kind == "text" or rules.unique_tokens
        self.st, n_pairs = _state(sequences, n_tokens, rules, replaying, record_top)
        start_heap(self.st, self.mode, rules.overlapping, n_pairs, len(rules.texts), self.reads_texts,
               rules.unique_tokens)

    def chunks(self, n: int, first_token: int, progress: Callable[[int, int], None] | None, record_top: int,
               step: Callable[..., tuple[int, int]], *args: object) -> list[RawMerge]:
        merges: list[RawMerge] = []
        chunk = max(64, min(4096, n // 32 or 1))
        m = 0
        while m < n:
            stop = min(n, m + chunk)
            out = _out(stop - m, record_top)
            row0 = m
            while True:
                m, status = step(self.st, out, self.mode, self.rules.overlapping, *args, first_token, m, stop,
                                 row0, record_top)
                if status != NEED_ROOM:
                    break
                self.st = _make_room(self.st)
            merges += _records(out, m - row0, first_token + row0)
            if progress is not None and m > row0:
                progress(m, n)
            if status == EMPTY:
                break
        return merges


def _out(rows: int, record_top: int) -> Out:
    return Out(left=np.zeros(rows, np.int64), right=np.zeros(rows, np.int64), counts=np.zeros(rows, np.int64),
               after=np.zeros(rows, np.int64), n_ties=np.zeros(rows, np.int64),
               ties=np.zeros((rows, MAX_TIES_RECORDED, 2), np.int64), n_top=np.zeros(rows, np.int64),
               top=np.zeros((rows, max(record_top, 1), 3), np.int64))


def _records(out: Out, rows: int, first_token: int) -> list[RawMerge]:
    lefts, rights, counts, afters = (a[:rows].tolist() for a in (out.left, out.right, out.counts, out.after))
    ties: list[tuple] = [()] * rows
    for k in np.flatnonzero(out.n_ties[:rows]).tolist():
        ties[k] = tuple(map(tuple, out.ties[k, :out.n_ties[k]].tolist()))
    top: list[tuple] = [()] * rows
    for k in np.flatnonzero(out.n_top[:rows]).tolist():
        top[k] = tuple(map(tuple, out.top[k, :out.n_top[k]].tolist()))
    return [RawMerge(lefts[k], rights[k], first_token + k, counts[k], ties[k], afters[k], top[k]) for k in range(rows)]


def train_ids(sequences: Sequence[tuple[Sequence[int], int]], n_merges: int, first_token: int, rules: Rules,
              progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
    """trainer.train_ids, compiled: the same merges and records."""
    if n_merges <= 0:
        return []
    run = _Run(sequences, first_token + n_merges, rules, False, record_top)
    return run.chunks(n_merges, first_token, progress, record_top, train_chunk, rules.unique_tokens, run.reads_texts)


def replay_ids(sequences: Sequence[tuple[Sequence[int], int]], pairs: Sequence[Pair], first_token: int, rules: Rules,
               progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> list[RawMerge]:
    """trainer.replay_ids, compiled: each pair's count at its step, the corpus length after it, the best pairs before it."""
    table = np.array(pairs, np.int64).reshape(-1, 2)
    if len(table) and (table.min() < 0 or (table.max(axis=1) >= first_token + np.arange(len(table))).any()):
        raise ValueError("Each replayed pair must join ids made before it.")
    if not len(table):
        return []
    run = _Run(sequences, first_token + len(table), rules, True, record_top)
    return run.chunks(len(table), first_token, progress, record_top, _replay_step, run.reads_texts, table)


def _replay_step(st, out, mode, overlapping, reads_texts, table, first_token, m, stop, row0, record_top):
    return replay_chunk(st, out, mode, overlapping, reads_texts, first_token, table, m, stop, row0, record_top)


def warm() -> None:
    """Compile (or load from numba's cache) every rule's loop on a tiny corpus."""
    from bpeviz.core.rules import rules_for

    seqs = [(b"abab aaa", 2), (b"ba", 1)]
    for name in ("first", "smallest", "hf", "sentencepiece"):
        rules = rules_for(name, "overlapping", [bytes([b]) for b in range(256)], name == "sentencepiece")
        train_ids(seqs, 4, 256, rules, record_top=3)
        replay_ids(seqs, [(97, 98)], 256, rules, record_top=3)
    train_ids(seqs, 4, 256, rules_for("first", "nonoverlapping"))
