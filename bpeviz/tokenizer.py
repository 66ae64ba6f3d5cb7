"""A trained BPE tokenizer: settings, merges, and encoding by replaying merges in rank order.

Two symbol levels. `bytes`: ids 0-255 are bytes, merges from 256. `chars`: ids 0..n-1 are
the corpus's characters in code-point order, merges from n; at encode time a character
outside the alphabet falls back to its UTF-8 bytes as byte tokens (ids after the specials).
Special tokens get ids right after the merges. Drawing and I/O formats live elsewhere.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import chain
from pathlib import Path

from . import pretokenize
from .trainer import TIE_BREAKS, RawMerge, train_ids

LEVELS = ("chars", "bytes")
ENDOFTEXT = "<|endoftext|>"
FORMAT_NAME = "bpeviz"
FORMAT_VERSION = 1
MAX_VOCAB_SIZE = 1_000_000

Token = str | bytes  # str at level "chars", bytes at level "bytes" and for byte fallback


@dataclass(frozen=True, slots=True)
class Merge:
    """One merge as a class reads it: rank 1 is the first merge learned."""

    rank: int
    left: Token
    right: Token
    token: Token
    count: int
    id: int
    left_id: int
    right_id: int
    ties: tuple[tuple[Token, Token], ...] = ()  # other pairs with the same count (at most 8)
    tokens_after: int = 0  # corpus length in tokens after this merge
    top: tuple[tuple[int, int, int], ...] = ()  # (left id, right id, count) of the best pairs before it, if recorded
    tie_ids: tuple[tuple[int, int], ...] = ()  # the ties as ids


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One row of an encoding trace: the merge that fired (None at the start) and the pieces after it."""

    rank: int | None
    pieces: tuple[Token, ...]
    merge: Merge | None = None
    fired: int = 0  # how many places the merge fired


@dataclass(frozen=True)
class Settings:
    """How a tokenizer was trained; kept apart from what it learned."""

    vocab_size: int
    level: str = "chars"
    pretokenizer: str = "gpt2"
    tie_break: str = "first"


Corpus = str | bytes | Sequence[str]


def documents_of(corpus: Corpus) -> list[str]:
    """Normalise a corpus to a list of documents; bytes become str via surrogateescape.

    Example: documents_of(["a b", "c"]) -> ["a b", "c"]
    """
    if isinstance(corpus, bytes):
        return [corpus.decode("utf-8", errors="surrogateescape")]
    if isinstance(corpus, str):
        return [corpus]
    docs = list(corpus)
    for doc in docs:
        if not isinstance(doc, str):
            raise ValueError(f"A corpus is a string or a list of strings; got an item of type {type(doc).__name__}.")
    return docs


def to_bytes(text: str) -> bytes:
    """UTF-8 bytes of text; surrogates that stand for raw bytes (invalid UTF-8 input) come back as those bytes."""
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"The text contains a lone surrogate ({text[exc.start]!r} at {exc.start}), which is not a character "
            "and has no UTF-8 form. Remove it or load the file as bytes."
        ) from exc


def _has_raw_bytes(text: str) -> bool:
    return any("\udc80" <= ch <= "\udcff" for ch in text)


class Tokenizer:
    """A trained tokenizer. Build one with `bpeviz.train` or `bpeviz.load`."""

    def __init__(
        self,
        *,
        settings: Settings,
        alphabet: Sequence[str] | None,
        merges: Sequence[Merge],
        corpus_bytes: int = 0,
        corpus_tokens: int = 0,
        special_tokens: Sequence[str] = (ENDOFTEXT,),
    ) -> None:
        if settings.level not in LEVELS:
            raise ValueError(f"Unknown level {settings.level!r}; use 'chars' or 'bytes'.")
        self.settings = settings
        self.alphabet: tuple[str, ...] | None = tuple(alphabet) if alphabet is not None else None
        self.merges: list[Merge] = list(merges)
        self.corpus_bytes = corpus_bytes  # UTF-8 bytes of the training corpus
        self.corpus_tokens = corpus_tokens  # its length in base symbols, before any merge
        self.n_base = 256 if settings.level == "bytes" else len(self.alphabet or ())
        self.vocab: dict[int, Token] = base_vocab(settings.level, self.alphabet)  # id -> token
        self.ranks: dict[tuple[int, int], tuple[int, int]] = {}  # (left id, right id) -> (rank, new id)
        for m in self.merges:
            self.vocab[m.id] = m.token
            self.ranks[(m.left_id, m.right_id)] = (m.rank, m.id)
        next_id = self.n_base + len(self.merges)
        self.special_tokens: dict[str, int] = {s: next_id + k for k, s in enumerate(special_tokens)}
        self.byte_fallback_start = next_id + len(self.special_tokens)  # chars level only
        self._char_ids = {ch: i for i, ch in enumerate(self.alphabet or ())}
        self._word_cache = _WordCache(self._encode_piece)  # pre-token -> ids
        self._chunk_cache = _WordCache(self._encode_chunk)  # text between safe cuts -> ids
        self._chunkable = settings.pretokenizer in pretokenize.CHUNKABLE

    # -- what it is -------------------------------------------------------------------

    @property
    def level(self) -> str:
        return self.settings.level

    @property
    def vocab_size(self) -> int:
        """Base symbols plus merges (special tokens and byte fallback not counted)."""
        return self.n_base + len(self.merges)

    def __repr__(self) -> str:
        s = self.settings
        return f"Tokenizer(level={s.level!r}, pretokenizer={s.pretokenizer!r}, vocab_size={self.vocab_size})"

    def token_of(self, token_id: int) -> Token:
        """The str (chars) or bytes (bytes level, byte fallback) behind an id."""
        if token_id in self.vocab:
            return self.vocab[token_id]
        for name, sid in self.special_tokens.items():
            if sid == token_id:
                return name
        if self.level == "chars" and 0 <= token_id - self.byte_fallback_start < 256:
            return bytes([token_id - self.byte_fallback_start])
        raise ValueError(f"Token id {token_id} is not in this tokenizer's vocabulary.")

    def is_byte_fallback(self, token_id: int) -> bool:
        return self.level == "chars" and 0 <= token_id - self.byte_fallback_start < 256

    def token_bytes(self, token_id: int) -> bytes:
        token = self.token_of(token_id)
        return token if isinstance(token, bytes) else to_bytes(token)

    def truncated(self, n_merges: int) -> Tokenizer:
        """The same tokenizer with only its first n_merges merges (for stepping and curves)."""
        n = max(0, min(n_merges, len(self.merges)))
        return Tokenizer(
            settings=self.settings,
            alphabet=self.alphabet,
            merges=self.merges[:n],
            corpus_bytes=self.corpus_bytes,
            corpus_tokens=self.corpus_tokens,
            special_tokens=tuple(self.special_tokens),
        )

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

    def _merge_word(self, ids: list[int]) -> list[int]:
        """Apply merges to one pre-token, lowest rank first (short words: rescan each time)."""
        ranks = self.ranks
        if len(ids) > 64:
            return self._merge_long(ids)
        while len(ids) > 1:
            best = None
            for pair in zip(ids, ids[1:]):
                found = ranks.get(pair)
                if found is not None and (best is None or found < best[0]):
                    best = (found, pair)
            if best is None:
                break
            (_, new_id), (a, b) = best
            out: list[int] = []
            i, n = 0, len(ids)
            while i < n:
                if i < n - 1 and ids[i] == a and ids[i + 1] == b:
                    out.append(new_id)
                    i += 2
                else:
                    out.append(ids[i])
                    i += 1
            ids = out
        return ids

    def _merge_long(self, ids: list[int]) -> list[int]:
        """Rank-order merging for long sequences with a heap keyed on (rank, position)."""
        ranks = self.ranks
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
            rank, i, a, b = heapq.heappop(heap)
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

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        return tuple(self._merge_word(self.base_ids(piece)))

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        pieces = pretokenize.split_text(chunk, self.settings.pretokenizer)
        return tuple(chain.from_iterable(map(self._word_cache.__getitem__, pieces)))

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text, treating special-token strings as plain text."""
        self._check_text(text)
        if self._chunkable:  # most chunks (" word,") repeat: their lookups and the flattening run in C
            return list(chain.from_iterable(map(self._chunk_cache.__getitem__, pretokenize.chunks(text))))
        return list(self._encode_chunk(text))

    def encode(self, text: str, *, allowed_special: Collection[str] | str = ()) -> list[int]:
        """Encode text to ids. Special-token strings are refused unless allowed (as in tiktoken).

        Example: tok.encode("o gato") -> [14, 31] (ids depend on the training run)
        """
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
        for part, special in _split_on_specials(text, found):
            ids.extend(self.encode_ordinary(part))
            if special is not None:
                ids.append(self.special_tokens[special])
        return ids

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.token_bytes(i) for i in ids)

    def decode(self, ids: Iterable[int]) -> str:
        """Join the tokens' bytes and decode UTF-8; bytes cut mid-character become U+FFFD."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def _check_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise ValueError(f"Text to encode must be a str, not {type(text).__name__}.")
        if self.level == "chars" and _has_raw_bytes(text):
            raise ValueError("This text holds raw bytes that are not valid UTF-8; encode it with a bytes-level tokenizer.")

    def trace(self, text: str) -> list[TraceStep]:
        """The encoding of text as a class reads it: the start, then one step per merge that fired.

        Example: tok.trace("o gato")[0].pieces -> ("o", " ", "g", "a", "t", "o")
        """
        self._check_text(text)
        words = [self.base_ids(p) for p in pretokenize.split_text(text, self.settings.pretokenizer)]
        steps = [TraceStep(None, self._pieces(words))]
        ranks = self.ranks
        while True:
            best = None
            for ids in words:
                for pair in zip(ids, ids[1:]):
                    found = ranks.get(pair)
                    if found is not None and (best is None or found < best[0]):
                        best = (found, pair)
            if best is None:
                return steps
            (rank, new_id), (a, b) = best
            fired = 0
            for w, ids in enumerate(words):
                out, i, n = [], 0, len(ids)
                while i < n:
                    if i < n - 1 and ids[i] == a and ids[i + 1] == b:
                        out.append(new_id)
                        fired += 1
                        i += 2
                    else:
                        out.append(ids[i])
                        i += 1
                words[w] = out
            steps.append(TraceStep(rank, self._pieces(words), self.merges[rank - 1], fired))

    def _pieces(self, words: list[list[int]]) -> tuple[Token, ...]:
        return tuple(self.token_of(i) for ids in words for i in ids)

    def vocab_ids(self) -> dict[Token, int]:
        """token -> id for the base symbols and merges (the first id wins if two merges make the same token)."""
        ids: dict[Token, int] = {}
        for i, token in self.vocab.items():
            ids.setdefault(token, i)
        return ids

    # -- saving -----------------------------------------------------------------------

    def to_dict(self) -> dict:
        """Everything about this tokenizer as JSON-ready data (lossless)."""

        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "settings": asdict(self.settings),
            "alphabet": list(self.alphabet) if self.alphabet is not None else None,
            "corpus_bytes": self.corpus_bytes,
            "corpus_tokens": self.corpus_tokens,
            "special_tokens": list(self.special_tokens),
            "merges": [
                {
                    "rank": m.rank,
                    "left_id": m.left_id,
                    "right_id": m.right_id,
                    "id": m.id,
                    "count": m.count,
                    "tokens_after": m.tokens_after,
                    "ties": [list(pair) for pair in m.tie_ids],
                    **({"top": [list(entry) for entry in m.top]} if m.top else {}),
                }
                for m in self.merges
            ],
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")

    @classmethod
    def from_dict(cls, data: dict) -> Tokenizer:
        if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
            raise ValueError("This is not a bpeviz tokenizer file (no \"format\": \"bpeviz\" field).")
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"bpeviz file version {data.get('version')!r} is not supported; this bpeviz reads version {FORMAT_VERSION}.")
        try:
            settings = Settings(**data["settings"])
            alphabet = data["alphabet"]

            raw = [
                RawMerge(r["left_id"], r["right_id"], r["id"], r["count"], tuple(tuple(pair) for pair in r["ties"]),
                         r["tokens_after"], tuple(tuple(entry) for entry in r.get("top", ())))
                for r in data["merges"]
            ]
            return build(settings, alphabet, raw, corpus_bytes=data["corpus_bytes"], corpus_tokens=data["corpus_tokens"],
                         special_tokens=data.get("special_tokens", [ENDOFTEXT]))
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"The bpeviz tokenizer file is damaged: {exc!r} is missing or malformed.") from exc


class _WordCache(dict):
    """piece -> ids of an encoding; a missing piece is encoded, and kept while the cache is small."""

    MAX_ENTRIES = 200_000
    MAX_PIECE = 256  # long pieces (no split) are rarely seen twice

    def __init__(self, encode: Callable[[str], tuple[int, ...]]) -> None:
        super().__init__()
        self._encode = encode

    def __missing__(self, piece: str) -> tuple[int, ...]:
        ids = self._encode(piece)
        if len(self) < self.MAX_ENTRIES and len(piece) <= self.MAX_PIECE:
            self[piece] = ids
        return ids


def _split_on_specials(text: str, specials: list[str]) -> list[tuple[str, str | None]]:
    import regex

    pattern = regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
    parts: list[tuple[str, str | None]] = []
    position = 0
    for match in pattern.finditer(text):
        parts.append((text[position : match.start()], match.group()))
        position = match.end()
    parts.append((text[position:], None))
    return parts


def base_vocab(level: str, alphabet: Sequence[str] | None) -> dict[int, Token]:
    """id -> token for the base symbols: the 256 bytes, or the alphabet in code-point order."""
    return {i: bytes([i]) for i in range(256)} if level == "bytes" else dict(enumerate(alphabet or ()))


def build(
    settings: Settings,
    alphabet: Sequence[str] | None,
    raw_merges: Sequence[RawMerge],
    *,
    corpus_bytes: int = 0,
    corpus_tokens: int = 0,
    special_tokens: Sequence[str] = (ENDOFTEXT,),
) -> Tokenizer:
    """Make a Tokenizer from merges in ids, naming every token."""
    vocab = base_vocab(settings.level, alphabet)
    merges = []
    for rank, raw in enumerate(raw_merges, start=1):
        left, right = vocab[raw.left], vocab[raw.right]
        vocab[raw.token] = left + right  # type: ignore[operator]  # same type on both sides
        ties = tuple((vocab[a], vocab[b]) for a, b in raw.ties)
        merges.append(Merge(rank, left, right, vocab[raw.token], raw.count, raw.token, raw.left, raw.right, ties,
                            raw.tokens_after, raw.top, raw.ties))
    return Tokenizer(settings=settings, alphabet=alphabet, merges=merges, corpus_bytes=corpus_bytes,
                     corpus_tokens=corpus_tokens, special_tokens=special_tokens)


@dataclass
class _Prepared:
    alphabet: list[str] | None
    sequences: list[tuple[list[int], int]] = field(default_factory=list)
    corpus_bytes: int = 0
    corpus_tokens: int = 0


def prepare(docs: list[str], level: str, pretokenizer: str) -> _Prepared:
    """Split documents, count distinct pre-tokens once, and turn them into base ids in corpus order."""
    counts = pretokenize.count_pieces(docs, pretokenizer)
    if level == "chars":
        if any(_has_raw_bytes(word) for word in counts):
            raise ValueError("The corpus is not valid UTF-8; train it at level 'bytes'.")
        alphabet = sorted({ch for word in counts for ch in word})
        char_ids = {ch: i for i, ch in enumerate(alphabet)}
        sequences = [([char_ids[ch] for ch in word], n) for word, n in counts.items()]
        corpus_bytes = sum(len(to_bytes(word)) * n for word, n in counts.items())
        return _Prepared(alphabet, sequences, corpus_bytes, sum(len(w) * n for w, n in counts.items()))
    sequences = [(list(to_bytes(word)), n) for word, n in counts.items()]
    corpus_bytes = sum(len(ids) * n for ids, n in sequences)
    return _Prepared(None, sequences, corpus_bytes, corpus_bytes)


def train(
    corpus: Corpus,
    *,
    vocab_size: int,
    level: str = "chars",
    pretokenizer: str = "gpt2",
    tie_break: str = "first",
    progress: Callable[[int, int], None] | None = None,
    record_top: int = 0,
) -> Tokenizer:
    """Train a BPE tokenizer to vocab_size = base symbols + merges.

    Stops early (with fewer merges) when no pair is left to merge. progress(done, total) is
    called now and then; record_top=N keeps the N best pairs of every step (Merge.top).
    Example: train(["o gato", "o cão"], vocab_size=12).merges[0].token -> " " + ...
    """
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; use 'chars' or 'bytes'.")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"Unknown tie-break rule {tie_break!r}; use 'first' or 'smallest'.")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise ValueError(f"vocab_size must be a whole number, not {vocab_size!r}.")
    if isinstance(corpus, bytes) and level == "chars":
        try:
            corpus = corpus.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"The corpus is not valid UTF-8 (byte {exc.start}); train it at level 'bytes'.") from exc
    docs = documents_of(corpus)
    if not any(doc for doc in docs):
        raise ValueError("The corpus is empty: paste or choose some text to train on.")
    if vocab_size > MAX_VOCAB_SIZE:
        raise ValueError(f"vocab_size {vocab_size:,} is too large; the most bpeviz trains is {MAX_VOCAB_SIZE:,}.")
    prepared = prepare(docs, level, pretokenizer)
    n_base = 256 if level == "bytes" else len(prepared.alphabet or ())
    if vocab_size < n_base:
        raise ValueError(
            f"vocab_size {vocab_size} is smaller than the {n_base} base symbols of this corpus at level "
            f"{level!r}; choose at least {n_base}."
        )
    raw = train_ids(prepared.sequences, vocab_size - n_base, n_base, tie_break=tie_break, progress=progress,
                    record_top=record_top)
    settings = Settings(vocab_size=vocab_size, level=level, pretokenizer=pretokenizer, tie_break=tie_break)
    return build(settings, prepared.alphabet, raw, corpus_bytes=prepared.corpus_bytes, corpus_tokens=prepared.corpus_tokens)


def load(path: str | Path) -> Tokenizer:
    """Load a tokenizer saved with Tokenizer.save."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ValueError(f"No such file: {path}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a JSON file: {exc}") from exc
    return Tokenizer.from_dict(data)
