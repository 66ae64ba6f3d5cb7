"""A trained BPE tokenizer: encoding by replaying merges in rank order, the trace, decoding.

Two symbol levels. `bytes`: ids 0-255 are bytes, merges from 256. `chars`: ids 0..n-1 are
the corpus's characters in code-point order, merges from n; at encode time a character
outside the alphabet falls back to its UTF-8 bytes as byte tokens (ids after the specials).
Special tokens get ids right after the merges. Training lives in `training.py`, files in
`formats.py`, drawing in `render.py`.
"""

from __future__ import annotations

import heapq
import operator
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence
from itertools import chain, repeat
from pathlib import Path

from . import pretokenize
from .records import ENDOFTEXT, LEVELS, Merge, Settings, Token, TraceStep, as_tiktoken_reads, to_bytes
from .trainer import RawMerge

Pair = tuple[int, int]
LONG_WORD = 64  # longer pre-tokens merge with a heap instead of rescanning
NO_RANK = 1 << 62  # the rank of a pair that never merges
COLD_TEXT = 1 << 16  # characters: a text this long on a fresh tokenizer is split whole, not chunk by chunk


def merge_pair(ids: Sequence[int], pair: Pair, new_id: int) -> tuple[list[int], int]:
    """Replace each occurrence of pair, left to right; return the new ids and how many places fired.

    Example: merge_pair([1, 1, 1], (1, 1), 9) -> ([9, 1], 1)
    """
    a, b = pair
    out: list[int] = []
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
        return _merge_long(ids, ranks)
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


class TokenizerBase:
    """What every algorithm's tokenizer shares: special tokens, byte fallback, encode/decode around `_encode_text`.

    A subclass sets `vocab` (id -> token), calls `_init_codec` once its own ids are known, and
    implements `_encode_text(text) -> list[int]` (no special tokens) and `_surface(id)`.
    """

    settings: Settings
    vocab: dict[int, Token]
    # An imported file's own ids: bpeviz id -> the file's id, and back (None: the ids are bpeviz's). Inside, every
    # table is in bpeviz ids; encode, decode, token_of and token_bytes speak the file's (see with_file_ids).
    file_ids: dict[int, int] | None = None
    _from_file: dict[int, int] | None = None

    def with_file_ids(self, file_ids: dict[int, int]) -> None:
        """Speak the file's ids at the public face: file_ids maps every vocabulary id (bpeviz's) to the file's.

        Special tokens and byte fallback follow the largest file id. A mapping that misses an id or
        gives two ids one number is refused (ValueError).
        """
        if set(file_ids) != set(self.vocab) or len(set(file_ids.values())) != len(file_ids):
            raise ValueError("file ids must name every vocabulary id once, each with its own number")
        mapped = dict(file_ids)
        extra = sorted({*self.special_tokens.values(), *range(self.byte_fallback_start, self.byte_fallback_start + 256)}
                       - set(self.vocab))
        top = max(mapped.values(), default=-1)
        mapped.update({i: top + 1 + k for k, i in enumerate(extra)})
        if all(k == v for k, v in mapped.items()):
            return  # the file numbers tokens as bpeviz does
        self.file_ids, self._from_file = mapped, {v: k for k, v in mapped.items()}

    def _out(self, ids: list[int]) -> list[int]:
        """bpeviz ids -> the ids this tokenizer speaks."""
        return ids if self.file_ids is None else list(map(self.file_ids.__getitem__, ids))

    def _in(self, token_id: object) -> int:
        """An id as the caller gave it -> bpeviz's (an unknown one stays unknown)."""
        token_id = _as_id(token_id)
        return token_id if self._from_file is None else self._from_file.get(token_id, -1 - abs(token_id))

    def _init_codec(self, next_id: int, special_tokens: Sequence[str]) -> None:
        check_special_tokens(special_tokens)
        self.special_tokens: dict[str, int] = {s: next_id + k for k, s in enumerate(special_tokens)}
        self.byte_fallback_start = next_id + len(self.special_tokens)  # chars level only
        self._prefix = " " if self.settings.dummy_prefix else ""  # SentencePiece's ▁ before the first word

    @property
    def level(self) -> str:
        return self.settings.level

    @property
    def algorithm(self) -> str:
        return self.settings.algorithm

    def __repr__(self) -> str:
        s = self.settings
        return f"{type(self).__name__}(level={s.level!r}, pretokenizer={s.pretokenizer!r}, vocab_size={self.vocab_size})"

    @property
    def vocab_size(self) -> int:
        raise NotImplementedError

    def _surface(self, token_id: int) -> Token:
        """The text an id stands for in decoded output (WordPiece drops its ## mark)."""
        return self.vocab[token_id]

    def token_of(self, token_id: int) -> Token:
        """The str (chars) or bytes (bytes level, byte fallback) behind an id."""
        token = self._token(self._in(token_id))
        if token is None:
            raise ValueError(f"Token id {_as_id(token_id)} is not in this tokenizer's vocabulary.")
        return token

    def _token(self, token_id: int) -> Token | None:
        """token_of for a bpeviz id; None if there is no such token."""
        if token_id in self.vocab:
            return self.vocab[token_id]
        for name, special_id in self.special_tokens.items():
            if special_id == token_id:
                return name
        if self.level == "chars" and 0 <= token_id - self.byte_fallback_start < 256:
            return bytes([token_id - self.byte_fallback_start])
        return None

    def is_byte_fallback(self, token_id: int) -> bool:
        return self.level == "chars" and 0 <= self._in(token_id) - self.byte_fallback_start < 256

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes an id adds to decoded output."""
        inner = self._in(token_id)
        token = self._surface(inner) if inner in self.vocab else self.token_of(token_id)
        return token if isinstance(token, bytes) else to_bytes(token)

    def vocab_ids(self) -> dict[Token, int]:
        """token -> id for the learned vocabulary (the first id wins if two ids spell the same token)."""
        ids: dict[Token, int] = {}
        for i, token in self.vocab.items():
            ids.setdefault(token, self.file_ids[i] if self.file_ids else i)
        return ids

    def _encode_text(self, text: str) -> list[int]:
        raise NotImplementedError

    def encode_ordinary(self, text: str, *, continued: bool = False) -> list[int]:
        """Encode text, treating special-token strings as plain text.

        continued: the text goes on from an earlier call (a file read in blocks), so no dummy prefix goes before it.
        """
        text = self._check_text(text)
        return self._out(self._encode_text(self._prefix + text if text and not continued else text))

    def encode_bytes(self, data: bytes) -> list[int]:
        """Encode raw bytes, invalid UTF-8 kept byte for byte (bytes level only); `decode_bytes` gives them back.

        Example: tok.decode_bytes(tok.encode_bytes(b"ol\xe1")) == b"ol\xe1"
        """
        if not isinstance(data, (bytes, bytearray)):
            raise ValueError(f"encode_bytes takes bytes, not {type(data).__name__}; encode text with encode().")
        if self.level != "bytes":
            raise ValueError("Only a bytes-level tokenizer keeps raw bytes; decode the data to text and use encode().")
        text = bytes(data).decode("utf-8", "surrogateescape")  # invalid bytes ride along as U+DC80-U+DCFF
        return self._out(self._encode_text(self._prefix + text if text else text))

    def encode(self, text: str, *, allowed_special: Collection[str] | str = ()) -> list[int]:
        """Encode text to ids. Special-token strings are refused unless allowed (as in tiktoken).

        Example: tok.encode("o gato") -> [14, 31] (ids depend on the training run)
        """
        text = self._check_text(text)
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        found = [s for s in self.special_tokens if s in text]
        refused = [s for s in found if s not in allowed]
        if refused:
            raise ValueError(
                f"The text contains the special token {refused[0]!r}. Pass allowed_special={{{refused[0]!r}}} "
                "to encode it as a special token, or use encode_ordinary() to treat it as plain text."
            )
        if not found:
            return self.encode_ordinary(text)
        ids: list[int] = []
        for k, (part, special) in enumerate(pretokenize.split_on_specials(text, found)):
            ids.extend(self._encode_text(self._prefix + part if k == 0 and part else part))
            if special is not None:
                ids.append(self.special_tokens[special])
        return self._out(ids)

    def pieces(self, text: str) -> list[Token]:
        """The tokens of text as the vocabulary spells them. Example: tok.pieces("o gato") -> ["o", " gato"]"""
        return [self.token_of(i) for i in self.encode_ordinary(text)]

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.token_bytes(i) for i in _as_ids(ids))

    def decode(self, ids: Iterable[int]) -> str:
        """Join the tokens' bytes and decode UTF-8; bytes cut mid-character become U+FFFD."""
        text = self.decode_bytes(ids).decode("utf-8", errors="replace")
        return text[1:] if self._prefix and text.startswith(self._prefix) else text

    def _check_text(self, text: str) -> str:
        """The text to encode, as tiktoken reads it (surrogates: see records.as_tiktoken_reads); bytes are refused."""
        if isinstance(text, (bytes, bytearray)):
            raise ValueError("Text to encode must be a str, not bytes: decode it first, or use encode_bytes() "
                             "(a bytes-level tokenizer keeps invalid bytes).")
        if not isinstance(text, str):
            raise ValueError(f"Text to encode must be a str, not {type(text).__name__}.")
        return as_tiktoken_reads(text)

    def save(self, path: str | Path) -> None:
        """Write the bpeviz JSON file (lossless); `bpeviz.load(path)` reads it back."""
        from .formats import save

        save(self, path)


class Tokenizer(TokenizerBase):
    """A trained BPE tokenizer. Build one with `bpeviz.train` or `bpeviz.load`."""

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
        self._char_ids = {ch: i for i, ch in enumerate(self.alphabet or ())}
        self._word_cache = WordCache(self._encode_piece)  # pre-token -> ids
        self._chunk_cache = WordCache(self._encode_chunk)  # text between safe cuts -> ids
        self._chunkable = pretokenize.is_chunkable(settings.pretokenizer)
        preset = pretokenize.PRETOKENIZERS.get(settings.pretokenizer)  # a preset's split covers all text: call it directly
        self._split = pretokenize.preset_split(preset.name) if preset is not None and preset.pattern else None
        self._warm = False  # True once a long text was encoded: chunks are worth caching
        self._fast_checked = False
        # How many leading merges are known to merge their own bytes back into their token (see tiktoken_merger),
        # shared with truncations: when every merge's parts come before it, a token's check reads only earlier merges.
        self._proof = _Proof(self.merges)
        self._fast_merge: Callable[[bytes], list[int]] | None = None  # tiktoken's merge of one piece, when it agrees

    @property
    def vocab_size(self) -> int:
        """Base symbols plus merges (special tokens and byte fallback not counted)."""
        return self.n_base + len(self.merges)

    def truncated(self, n_merges: int) -> Tokenizer:
        """The same tokenizer with only its first n_merges merges (for stepping and curves)."""
        n = max(0, min(n_merges, len(self.merges)))
        tok = Tokenizer(settings=self.settings, alphabet=self.alphabet, merges=self.merges[:n],
                        corpus_bytes=self.corpus_bytes, corpus_tokens=self.corpus_tokens,
                        special_tokens=tuple(self.special_tokens), engine=self.engine)
        if self.file_ids is not None:
            tok.with_file_ids({i: self.file_ids[i] for i in tok.vocab})
        if self._proof.shareable:
            tok._proof = self._proof  # one proof for the whole family of prefixes
        return tok

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
            self._word_cache.use(lambda piece: tuple(fast(piece.encode("utf-8", "surrogateescape"))))

    def _split_text(self, text: str) -> list[str]:
        return self._split(text) if self._split is not None else pretokenize.split_text(text, self.settings.pretokenizer)

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        return tuple(chain.from_iterable(map(self._word_cache.__getitem__, self._split_text(chunk))))

    def _encode_text(self, text: str) -> list[int]:
        if self._chunkable and (self._warm or len(text) < COLD_TEXT):
            # most chunks (" word,") repeat: their lookups and the flattening run in C
            return list(chain.from_iterable(map(self._chunk_cache.__getitem__, pretokenize.chunks(text))))
        if len(text) < COLD_TEXT:
            return list(self._encode_chunk(text))
        # a long text on a fresh tokenizer: one split of the whole text beats a split per chunk,
        # and its new pieces are encoded in one pass rather than one cache miss at a time
        self._start_fast_merge(len(text))
        self._warm = True  # the chunk cache fills from the next text on
        pieces = self._split_text(text)
        self._word_cache.fill(pieces)
        return list(chain.from_iterable(map(self._word_cache.__getitem__, pieces)))

    def trace(self, text: str) -> list[TraceStep]:
        """The encoding of text as a class reads it: the start, then one step per merge that fired.

        Example: tok.trace("o gato")[0].pieces -> ("o", " ", "g", "a", "t", "o")
        """
        text = self._check_text(text)
        text = self._prefix + text if text else text
        words = [self.base_ids(p) for p in pretokenize.split_text(text, self.settings.pretokenizer)]
        steps = [TraceStep(None, self._pieces(words))]
        while (best := best_pair(words, self.ranks)) is not None:
            (rank, new_id), pair = best
            fired = 0
            for w, ids in enumerate(words):
                words[w], n = merge_pair(ids, pair, new_id)
                fired += n
            steps.append(TraceStep(rank, self._pieces(words), self.merges[rank - 1], fired))
        return steps

    def _pieces(self, words: list[list[int]]) -> tuple[Token, ...]:
        return tuple(self._token(i) for ids in words for i in ids)  # type: ignore[misc]

    def merge_of(self, token_id: int) -> Merge | None:
        """The merge that made a token (the id as encode gives it), or None for a base symbol or special token."""
        inner = self._in(token_id)
        k = inner - self.n_base
        return self.merges[k] if 0 <= k < len(self.merges) and self.merges[k].id == inner else None

class _Proof:
    """The number of leading merges of a table whose tokens' bytes merge back into them, shared by its truncations."""

    __slots__ = ("upto", "shareable")

    def __init__(self, merges: Sequence[Merge]) -> None:
        self.upto = 0
        self.shareable = all(m.left_id < m.id and m.right_id < m.id for m in merges)  # as every trained table


def tiktoken_merger(tok: Tokenizer, proven: int = 0) -> Callable[[bytes], list[int]] | None:
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
    if any(tok.merge_ids(list(m.token)) != [m.id] for m in tok.merges[proven:]):  # type: ignore[arg-type]
        return None
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - tiktoken is a dependency
        return None
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({m.token: m.id for m in tok.merges})  # type: ignore[misc]
    encoding = tiktoken.Encoding(name="bpeviz-merges", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    # bytes in, ids out, raw bytes welcome: the Rust method itself where this tiktoken exposes it, else its wrapper
    core = getattr(getattr(encoding, "_core_bpe", None), "encode_single_piece", None)
    return core or getattr(encoding, "_encode_single_piece", None)


def _merge_long(ids: list[int], ranks: dict[Pair, tuple[int, int]]) -> list[int]:
    """Rank-order merging for long sequences with a heap keyed on (rank, position)."""
    n = len(ids)
    tokens = list(ids)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    heap = []
    for i in range(n - 1):
        found = ranks.get((tokens[i], tokens[i + 1]))
        if found is not None:
            heap.append((found[0], i, tokens[i], tokens[i + 1]))
    heapq.heapify(heap)
    while heap:
        _, i, a, b = heapq.heappop(heap)
        j = nxt[i] if tokens[i] == a else -1
        if j < 0 or tokens[j] != b:
            continue  # stale: one side was merged already
        new_id = ranks[(a, b)][1]
        k = nxt[j]
        tokens[i], tokens[j] = new_id, -1
        nxt[i] = k
        if k >= 0:
            prv[k] = i
            found = ranks.get((new_id, tokens[k]))
            if found is not None:
                heapq.heappush(heap, (found[0], i, new_id, tokens[k]))
        p = prv[i]
        if p >= 0:
            found = ranks.get((tokens[p], new_id))
            if found is not None:
                heapq.heappush(heap, (found[0], p, tokens[p], new_id))
    out = []
    i = 0
    while i >= 0:
        out.append(tokens[i])
        i = nxt[i]
    return out


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
        self._encode = weakref.WeakMethod(encode)  # type: ignore[arg-type]
        self.size = 0  # bytes held, as _cost counts them

    @staticmethod
    def _cost(piece: str, ids: tuple[int, ...]) -> int:
        return 200 + len(piece) + 8 * len(ids)  # the str, the tuple and the dict slot, near enough

    def use(self, encode: Callable[[str], tuple[int, ...]]) -> None:
        """Encode missing pieces with a plain function from now on (held strongly: it must not hold the tokenizer)."""
        self._encode = lambda: encode

    def fill(self, pieces: Iterable[str]) -> None:
        """Encode the pieces not cached yet, each once, as far as the cache has room (the others stay misses)."""
        encode = self._encode()
        for piece in set(pieces).difference(self):
            if len(self) >= self.MAX_ENTRIES or self.size >= self.MAX_BYTES:
                return  # full: the rest are encoded when met, and not kept
            if len(piece) <= self.MAX_PIECE:
                self._keep(piece, encode(piece))  # type: ignore[misc]

    def _keep(self, piece: str, ids: tuple[int, ...]) -> None:
        cost = self._cost(piece, ids)
        if len(self) < self.MAX_ENTRIES and self.size + cost <= self.MAX_BYTES and len(piece) <= self.MAX_PIECE:
            self[piece] = ids
            self.size += cost

    def __missing__(self, piece: str) -> tuple[int, ...]:
        ids = self._encode()(piece)  # type: ignore[misc]
        self._keep(piece, ids)
        return ids


def _as_id(token_id: object) -> int:
    """An int id from an int-like value (NumPy integers included); ValueError for anything else."""
    if isinstance(token_id, bool):
        raise ValueError(f"A token id is a whole number, not {token_id!r}.")
    try:
        return operator.index(token_id)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"A token id is a whole number, not {type(token_id).__name__} {str(token_id)[:40]!r}.") from None


def _as_ids(ids: Iterable[int]) -> list[int]:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise ValueError(f"decode takes a list of token ids, not {type(ids).__name__}.")
    return [_as_id(i) for i in ids]


def check_special_tokens(special_tokens: Sequence[str]) -> None:
    if isinstance(special_tokens, str):
        raise ValueError("special_tokens is a list of strings, not one string.")
    for s in special_tokens:
        if not isinstance(s, str) or not s:
            raise ValueError(f"A special token must be a non-empty string, not {s!r}.")
    if len(set(special_tokens)) != len(special_tokens):
        raise ValueError("The special tokens repeat one another; list each once.")


def base_vocab(level: str, alphabet: Sequence[str] | None) -> dict[int, Token]:
    """id -> token for the base symbols: the 256 bytes, or the alphabet in code-point order."""
    return {i: bytes([i]) for i in range(256)} if level == "bytes" else dict(enumerate(alphabet or ()))


def build(settings: Settings, alphabet: Sequence[str] | None, raw_merges: Sequence[RawMerge], **details: object) -> Tokenizer:
    """Make a Tokenizer from merges in ids, naming every token; details are Tokenizer's keywords (corpus_bytes, ...)."""
    vocab = base_vocab(settings.level, alphabet)
    merges = []
    for rank, raw in enumerate(raw_merges, start=1):
        left, right = vocab[raw.left_id], vocab[raw.right_id]
        vocab[raw.token_id] = left + right  # type: ignore[operator]  # same type on both sides
        ties = tuple([(vocab[a], vocab[b]) for a, b in raw.tie_ids]) if raw.tie_ids else ()
        merges.append(Merge(rank, left, right, vocab[raw.token_id], raw.count, raw.token_id, raw.left_id, raw.right_id,
                            ties, raw.tokens_after, raw.top, raw.tie_ids))
    return Tokenizer(settings=settings, alphabet=alphabet, merges=merges, **details)  # type: ignore[arg-type]
