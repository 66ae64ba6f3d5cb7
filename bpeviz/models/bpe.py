"""A trained BPE tokenizer: encoding by replaying merges in rank order, the trace, decoding.

Two symbol levels. `bytes`: ids 0-255 are bytes, merges from 256. `chars`: ids 0..n-1 are
the corpus's characters in code-point order, merges from n; at encode time a character
outside the alphabet falls back to its UTF-8 bytes as byte tokens (ids after the specials).
Special tokens get ids right after the merges. Training lives in `training.py`, files in
`formats.py`, drawing in `render.py`.
"""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import reduce
from itertools import chain, compress, repeat
from operator import iconcat, is_, methodcaller
from typing import Any, Protocol

from bpeviz.core.ids import RawMerge
from bpeviz.core.records import ENDOFTEXT, LEVELS, Merge, Settings, Token, TraceStep, join, to_bytes
from bpeviz.pre_tokenizers import splits

from .base import TokenizerBase, check_special_tokens
from .merging import LONG_WORD, NO_RANK, Pair, WordCache, best_pair, merge_by_rank, merge_long, merge_pair, regroup, trace_steps
from .tiktoken_merge import Proof, tiktoken_merger

# A weak reference to the tokenizer's encoder of new pieces (their ids end to end, and each one's count)
NewPieces = Callable[[], Callable[[list[str]], tuple[array, array]] | None]
# A weak reference to what gives a byte-level tokenizer's merges ((left, right) -> rank, rank -> new id), or None
MergeRule = Callable[[], Callable[[], tuple[dict[Pair, int], list[int]] | None] | None]


class PieceTable(Protocol):
    """A long-text encoder's state for one tokenizer: the pieces met so far, and encode (compiled/encode.py)."""

    def encode(self, text: str) -> list[int]: ...


class LongTextEncoder(Protocol):
    """What a tokenizer is handed to encode long texts faster (the compiled engine's, engine/encoder.py), or None."""

    def piece_table(self, pretokenizer: str, encode_new: NewPieces, size: int,
                    merges: MergeRule | None = None) -> PieceTable | None: ...

__all__ = ["LONG_WORD", "NO_RANK", "COLD_TEXT", "Tokenizer", "TokenizerBase", "WordCache", "base_vocab", "best_pair", "build",
           "check_special_tokens", "merge_by_rank", "merge_long", "merge_pair", "tiktoken_merger"]
COLD_TEXT = 1 << 16  # characters: a text this long has its new pieces and chunks encoded in one pass each
_UTF8 = methodcaller("encode", "utf-8", "surrogateescape")


class Tokenizer(TokenizerBase):
    """A trained BPE tokenizer. Build one with `bpeviz.train` or `bpeviz.load`."""

    base_merges = 0  # a graft (bpeviz.extend): how many of its merges are its base's
    base_size = 0  # and how many ids the base uses; the new tokens are numbered from here
    hf_template: dict | None = None  # a graft of a tokenizer.json: the file's splits, decoder and added tokens (its export)

    def __init__(
        self,
        *,
        settings: Settings,
        alphabet: Sequence[str] | None,
        merges: Sequence[Merge],
        corpus_bytes: int = 0,
        corpus_tokens: int = 0,
        special_tokens: Sequence[str] = (ENDOFTEXT,),
        engine: str = "",
        encoder: LongTextEncoder | None = None,
    ) -> None:
        if settings.level not in LEVELS:
            raise ValueError(f"Unknown level {settings.level!r}; use 'chars' or 'bytes'.")
        self.settings = settings
        self.alphabet: tuple[str, ...] | None = tuple(alphabet) if alphabet is not None else None
        self.merges: list[Merge] = list(merges)
        self.corpus_bytes = corpus_bytes  # UTF-8 bytes of the training corpus
        self.corpus_tokens = corpus_tokens  # its length in base symbols, before any merge
        self.engine = engine  # which merge loop trained it: "python", "compiled", or "" (read from a file)
        self.n_base = 256 if settings.level == "bytes" else len(self.alphabet or ())
        self.vocab: dict[int, Token] = base_vocab(settings.level, self.alphabet)  # id -> token
        self.ranks: dict[Pair, tuple[int, int]] = {}  # (left id, right id) -> (rank, new id)
        for m in self.merges:
            self.vocab[m.id] = m.token
            self.ranks[(m.left_id, m.right_id)] = (m.rank, m.id)
        self._rank_of = {pair: rank for pair, (rank, _) in self.ranks.items()}  # for encoding: ints compare fastest
        self._new_ids = [0] + [m.id for m in self.merges]  # rank -> the id it makes
        self._init_codec(self.n_base + len(self.merges), special_tokens)
        self._init_encoding(encoder)

    def _init_encoding(self, encoder: LongTextEncoder | None) -> None:
        """The caches and fast paths encoding fills as it goes (none of it changes what encode returns)."""
        settings = self.settings
        self._char_ids = {ch: i for i, ch in enumerate(self.alphabet or ())}
        self._word_cache = WordCache(self._encode_piece)  # pre-token -> ids
        self._warm = False  # True once a long text was encoded
        # "auto": a long text goes to the encoder this tokenizer was handed (the compiled one, when it can);
        # "python": never (benches and tests compare the two)
        self.encode_engine = "auto"
        self.encoder = encoder
        self._piece_table: PieceTable | None = None  # the encoder's pieces for this tokenizer, made at first use
        self._tail_cache = WordCache(self._encode_tail)  # a chunk after its opening space -> ids (splits.chunk_tails)
        self._chunkable = splits.is_chunkable(settings.pretokenizer)
        preset = splits.PRETOKENIZERS.get(settings.pretokenizer)  # a preset's split covers all text: call it directly
        self._split = splits.preset_split(preset.name) if preset is not None and preset.pattern else None
        self.split_function: Callable[[str], list[str]] | None = None  # see use_split
        self._fast_checked = False
        # How many leading merges are known to merge their own bytes back into their token (see tiktoken_merger),
        # shared with truncations: when every merge's parts come before it, a token's check reads only earlier merges.
        self._proof = Proof(self.merges)
        self._fast_merge: Callable[[bytes], list[int]] | None = None  # tiktoken's merge of one piece, when it agrees

    _CACHES: tuple[str, ...] = ("_char_ids", "_word_cache", "_warm", "_piece_table", "_tail_cache", "_chunkable", "_split",
                                "_fast_checked", "_fast_merge")  # _init_encoding's but the encoder, split and proof

    def _start_caches(self) -> None:
        engine, split, proof = self.encode_engine, self.split_function, self._proof
        self._init_encoding(self.encoder)
        self.encode_engine, self._proof = engine, proof
        if split is not None:
            self.use_split(split)

    def proven_by_training(self) -> None:
        """Its merges are a BPE trainer's own, so each token's bytes merge back into it, which is what tiktoken_merger
        checks merge by merge before tiktoken may merge for it (a quarter of a second for 16 000 merges, on the
        first long text). Why it holds: a trainer makes token k where its pair sits in some word, after merges 1..k-1
        were applied to that word in rank order, left to right. No earlier merge crossed the edges of that span (no
        merge is ever undone, and the span ends as two tokens), so the span's bytes went through the same merges
        alone as in the word; merge_ids replays them so, then joins the pair. tests/models/test_tokenizer.py checks it
        on random trained tables of every dialect."""
        self._proof.upto = max(self._proof.upto, len(self.merges))

    @property
    def vocab_size(self) -> int:
        """Base symbols plus merges (special tokens and byte fallback not counted)."""
        return self.n_base + len(self.merges)

    def truncated(self, n_merges: int) -> Tokenizer:
        """The same tokenizer with only its first n_merges merges (for stepping and curves)."""
        n = max(0, min(n_merges, len(self.merges)))
        settings = self.settings
        if settings.algorithm == "superbpe" and not any(m.stage == 2 for m in self.merges[:n]):
            settings = replace(settings, pretokenizer=settings.inner_split)  # still learning words: split as then
        tok = type(self)(settings=settings, alphabet=self.alphabet, merges=self.merges[:n],
                        corpus_bytes=self.corpus_bytes, corpus_tokens=self.corpus_tokens,
                        special_tokens=tuple(self.special_tokens), engine=self.engine, encoder=self.encoder)
        if self.file_ids is not None:
            tok.with_file_ids({i: self.file_ids[i] for i in tok.vocab}, self.file_specials())
        if self._proof.shareable:
            tok._proof = self._proof  # one proof for the whole family of prefixes
        return tok if self.split_function is None else tok.use_split(self.split_function)

    def bytes_per_token_after(self, k: int) -> float:
        """Bytes per token on the training corpus after the first k merges (k=0: base symbols)."""
        tokens = self.corpus_tokens if k == 0 else self.merges[k - 1].tokens_after
        return self.corpus_bytes / tokens if tokens else 0.0

    # -- encoding ---------------------------------------------------------------------

    def base_ids(self, piece: str) -> list[int]:
        """A pre-token as base ids; at level chars, unknown characters fall back to byte tokens."""
        if self.level == "bytes":
            return list(to_bytes(piece))
        char_ids = self._char_ids
        ids: list[int] = []
        for ch in piece:
            i = char_ids.get(ch)
            if i is None:
                ids.extend(self.byte_fallback_start + b for b in to_bytes(ch))
            else:
                ids.append(i)
        return ids

    def merge_ids(self, ids: list[int]) -> list[int]:
        """Apply the merges to one pre-token's ids, lowest rank first (see merge_by_rank).

        Example: tok.merge_ids(tok.base_ids(" gato")) -> [the id of " gato"] after the toy run
        """
        return merge_by_rank(ids, self._rank_of, self._new_ids, self.ranks)

    def encode_word(self, piece: str) -> tuple[int, ...]:
        """The ids of one pre-token (cached)."""
        return self._word_cache[piece]

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        if self._fast_merge is not None:
            return tuple(self._fast_merge(piece.encode("utf-8", "surrogateescape")))
        return tuple(self.merge_ids(self.base_ids(piece)))

    def _start_fast_merge(self, text_length: int) -> None:
        """Before a long cold text: let tiktoken merge new words, if that provably gives merge_ids' answer (once)."""
        proof, n = self._proof, len(self.merges)
        proven = min(proof.upto, n)
        if self._fast_checked or (n - proven) * 8 > text_length:  # about one merge_ids per merge not yet proven
            return
        self._fast_checked = True
        self._fast_merge = tiktoken_merger(self, proven=proven)
        if self._fast_merge is not None:
            proof.upto = max(proof.upto, n)
            fast = self._fast_merge
            self._word_cache.use(lambda piece: tuple(fast(piece.encode("utf-8", "surrogateescape"))),
                                 lambda pieces: list(map(tuple, map(fast, map(_UTF8, pieces)))))  # each step in C

    def use_split(self, split: Callable[[str], list[str]]) -> Tokenizer:
        """Cut text with split, a function, from now on: a real tokenizer's pre-tokenizer that no one regex
        writes (DeepSeek V4's three regex splits in a row). settings.pretokenizer then no longer says how text
        is cut, so such a tokenizer is for encoding and inspecting, not for saving."""
        self._split, self._chunkable, self.split_function = split, False, split
        self._word_cache.clear()
        self._word_cache.size = 0
        return self

    def split_text(self, text: str) -> list[str]:
        """The pre-tokens of text as this tokenizer cuts it."""
        return self._split_text(text)

    def _split_text(self, text: str) -> list[str]:
        return self._pretokens(text)

    def _split_plain(self, text: str) -> list[str]:
        return self._split(text) if self._split is not None else splits.split_text(text, self.settings.pretokenizer)

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        return tuple(chain.from_iterable(map(self._word_cache.__getitem__, self._split_text(chunk))))

    def _encode_tail(self, tail: str) -> tuple[int, ...]:
        return self._encode_chunk(" " + tail)

    def _encode_text(self, text: str) -> list[int]:
        long = len(text) >= COLD_TEXT
        if long:
            compiled = self._compiled_ids(text)  # new pieces merged in the compiled kernel: no tiktoken merger needed
            if compiled is not None:
                return compiled
            self._start_fast_merge(len(text))
        if not self._chunkable or long and not self._warm:
            # a fresh tokenizer's first long text: cut into pre-tokens at once, its new ones encoded in one pass
            self._warm = self._warm or long  # chunks are worth caching from the next long text on
            return self._encode_pieces(text)
        # most chunks (" word,") repeat: one lookup each, in C
        head, *tails = splits.chunk_tails(text)
        ids = self._encode_pieces(head)
        found = list(map(self._tail_cache.get if long else self._tail_cache.__getitem__, tails))
        if long and not all(found):  # new chunks (None; no chunk's ids are empty): encoded in one pass, then looked up again
            self._fill_tails(set(compress(tails, map(is_, found, repeat(None)))), tails[-1])
            found = list(map(self._tail_cache.__getitem__, tails))
        return flatten(found, ids)

    def _compiled_ids(self, text: str) -> list[int] | None:
        """text's ids by the long-text encoder this tokenizer was handed, when it can encode this split; else None."""
        if (self.encode_engine == "python" or self.encoder is None or self.settings.hf_unicode
                or self.split_function is not None):
            return None
        if self._piece_table is None:
            new = weakref.WeakMethod(self._encode_new)  # the table must not keep its tokenizer alive
            merges = weakref.WeakMethod(self._merge_rule)
            self._piece_table = self.encoder.piece_table(self.settings.pretokenizer, new, len(text), merges)
            if self._piece_table is None:
                return None
        return self._piece_table.encode(text)

    def _merge_rule(self) -> tuple[dict[Pair, int], list[int]] | None:
        """The merges as merge_ids applies them, for a long-text encoder that merges new pieces itself; None where its
        pieces' base ids are not their UTF-8 bytes (level chars) or a subclass merges otherwise."""
        mine = type(self)
        own = (mine.merge_ids, mine._encode_piece, mine._encode_new)
        if self.level != "bytes" or own != (Tokenizer.merge_ids, Tokenizer._encode_piece, Tokenizer._encode_new):
            return None
        return self._rank_of, self._new_ids

    def _encode_new(self, pieces: list[str]) -> tuple[array, array]:
        """Pieces' ids end to end and each one's count (tiktoken's merge where it agrees, else merge_ids).

        A few hundred at a time, so that the per-piece lists die young: thousands of them alive at once
        would reach the GC's oldest generation and set off a full collection (tens of ms in a big process).
        """
        fast = self._fast_merge
        ids, counts = array("q"), array("q")
        for k in range(0, len(pieces), 256):
            part = pieces[k:k + 256]
            batch = list(map(fast, map(_UTF8, part))) if fast is not None else list(map(self._encode_piece, part))
            counts.extend(map(len, batch))
            ids.extend(chain.from_iterable(batch))
        return ids, counts

    def _encode_pieces(self, text: str) -> list[int]:
        """text's ids piece by piece; a long text's new pieces are encoded in one pass, not one cache miss at a time."""
        pieces = self._split_text(text)
        if len(text) >= COLD_TEXT:
            self._word_cache.fill(pieces)
        return flatten(list(map(self._word_cache.__getitem__, pieces)), [])

    def _fill_tails(self, new: set[str], last: str) -> None:
        """Encode new chunks in one pass: one split of them all, joined, then regrouped by chunk.

        Joined by spaces they cut back into themselves, so no pre-token crosses a join; only a text's
        last tail may end in a space, and it is left to the cache's own miss.
        """
        new.discard(last)
        if not new:
            return
        fresh = list(new)
        pieces = self._split_text(" " + " ".join(fresh))
        self._word_cache.fill(pieces)
        ids = list(map(self._word_cache.__getitem__, pieces))
        self._tail_cache.keep(fresh, regroup(ids, map(len, pieces), [len(t) + 1 for t in fresh]))

    def trace(self, text: str) -> list[TraceStep]:
        """The encoding of text as a class reads it: the start, then one step per merge that fired.

        Example: tok.trace("o gato")[0].pieces -> ("o", " ", "g", "a", "t", "o")
        """
        text = self._check_text(text)
        text = self._prefix + text if text else text
        words = [self.base_ids(p) for p in self._split_text(text)]

        def best(units: list[list[int]]) -> tuple[int, Pair, int] | None:
            found = best_pair(units, self.ranks)
            return None if found is None else (found[0][0], found[1], found[0][1])

        return trace_steps(words, best, merge_pair, self._pieces, self.merges)

    def _pieces(self, words: list[list[int]]) -> tuple[Token, ...]:
        return tuple(self._token(i) for ids in words for i in ids)  # type: ignore[misc]  # every id here is a token's

    def merge_of(self, token_id: int) -> Merge | None:
        """The merge that made a token (the id as encode gives it), or None for a base symbol or special token."""
        inner = self._in(token_id)
        k = inner - self.n_base
        return self.merges[k] if 0 <= k < len(self.merges) and self.merges[k].id == inner else None

def flatten(parts: list[tuple[int, ...]], out: list[int]) -> list[int]:
    """out extended by every part in turn. Looking all parts up first, then joining, is about twice as fast
    on a long text as one pass of chain.from_iterable (measured: 10 MB, 1.4 M parts, 0.19 + 0.08 s against 0.31 s)."""
    return reduce(iconcat, parts, out)


def base_vocab(level: str, alphabet: Sequence[str] | None) -> dict[int, Token]:
    """id -> token for the base symbols: the 256 bytes, or the alphabet in code-point order."""
    return {i: bytes([i]) for i in range(256)} if level == "bytes" else dict(enumerate(alphabet or ()))


def build(settings: Settings, alphabet: Sequence[str] | None, raw_merges: Sequence[RawMerge], **details: Any) -> Tokenizer:
    """Make a Tokenizer from merges in ids, naming every token; details are Tokenizer's keywords (corpus_bytes, ...)."""
    vocab = base_vocab(settings.level, alphabet)
    merges = []
    for rank, raw in enumerate(raw_merges, start=1):
        left, right = vocab[raw.left_id], vocab[raw.right_id]
        vocab[raw.token_id] = join(left, right)
        ties = tuple([(vocab[a], vocab[b]) for a, b in raw.tie_ids]) if raw.tie_ids else ()
        merges.append(Merge(rank, left, right, vocab[raw.token_id], raw.count, raw.token_id, raw.left_id, raw.right_id,
                            ties, raw.tokens_after, raw.top, raw.tie_ids))
    return Tokenizer(settings=settings, alphabet=alphabet, merges=merges, **details)
