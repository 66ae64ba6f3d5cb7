"""What every algorithm's tokenizer shares: special tokens, byte fallback, an imported file's ids, encode and decode.

A subclass (BPE in `tokenizer.py`, `wordpiece.py`, `unigram.py`) supplies the vocabulary and `_encode_text`.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

import regex

from bpeviz.core.records import Merge, Settings, Token, WordPieceMerge, as_tiktoken_reads, to_bytes
from bpeviz.pre_tokenizers import splits
from bpeviz.pre_tokenizers.bert_lag import as_bert_reads
from bpeviz.pre_tokenizers.oniguruma import split_as_hf
from bpeviz.pre_tokenizers.unicode_lag import as_hf_reads

from . import serial


class TokenizerBase:
    """What every algorithm's tokenizer shares: special tokens, byte fallback, encode/decode around `_encode_text`.

    A subclass sets `vocab` (id -> token), calls `_init_codec` once its own ids are known, and
    implements `_encode_text(text) -> list[int]` (no special tokens) and `_surface(id)`.
    """

    prefix_unless_space = False  # HF's Metaspace: no dummy prefix before a text that starts with a space
    engine = ""  # which engine trained it: "python", "compiled", or "" (read from a file); set by its trainer
    kept_as = ""  # a file kind no bpeviz format holds (a SentencePiece .model): saving or exporting it is refused
    meta_as_space = False  # an imported file whose Metaspace writes spaces ▁: a ▁ in the text is a space there too
    not_merges = 0  # an imported file's tokens that no merge of two others makes (left out; Qwen3.6's rank file has 121)
    merges: Sequence[Merge | WordPieceMerge]  # in rank order (Unigram learns none: its history is `rounds`)
    _CACHES: tuple[str, ...] = ()  # what encoding fills as it goes: left out of a copy, which starts them again empty

    def __getstate__(self) -> dict:
        """A copy's state (app/carry.py: a worker process sends back what it trained): all but the caches and fast paths,
        which hold functions and grow with use; the copy starts them again (_start_caches) and encodes the same."""
        return {name: value for name, value in self.__dict__.items() if name not in self._CACHES}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._start_caches()

    def _start_caches(self) -> None:
        """Make the caches in _CACHES again, empty (a subclass with caches says how)."""

    settings: Settings
    vocab: dict[int, Token]
    # An imported file's own ids: bpeviz id -> the file's id, and back (None: the ids are bpeviz's). Inside, every
    # table is in bpeviz ids; encode, decode, token_of and token_bytes speak the file's (see with_file_ids).
    file_ids: dict[int, int] | None = None
    _from_file: dict[int, int] | None = None

    def with_file_ids(self, file_ids: dict[int, int], specials: dict[str, int] | None = None) -> None:
        """Speak the file's ids at the public face: file_ids maps every vocabulary id (bpeviz's) to the file's.

        specials: a special token's own id in the file (tiktoken's <|endoftext|> 100257); the others, and byte
        fallback, follow the largest id. A mapping that misses an id or gives two ids one number is refused (ValueError).
        """
        if set(file_ids) != set(self.vocab) or len(set(file_ids.values())) != len(file_ids):
            raise ValueError("file ids must name every vocabulary id once, each with its own number")
        mapped = dict(file_ids)
        mapped.update({self.special_tokens[name]: i for name, i in (specials or {}).items() if name in self.special_tokens})
        extra = sorted({*self.special_tokens.values(), *range(self.byte_fallback_start, self.byte_fallback_start + 256)}
                       - set(mapped))
        top = max(mapped.values(), default=-1)
        mapped.update({i: top + 1 + k for k, i in enumerate(extra)})
        if len(set(mapped.values())) != len(mapped):
            raise ValueError("a special token's id is one the vocabulary uses")
        if all(k == v for k, v in mapped.items()):
            return  # the file numbers tokens as bpeviz does
        self.file_ids, self._from_file = mapped, {v: k for k, v in mapped.items()}

    def file_id(self, token_id: int) -> int:
        """The id this tokenizer speaks for one of bpeviz's own ids (the file's, for an imported or grafted one)."""
        return token_id if self.file_ids is None else self.file_ids[token_id]

    def file_specials(self) -> dict[str, int]:
        """The special tokens with the ids this tokenizer speaks."""
        return {name: self.file_id(i) for name, i in self.special_tokens.items()}

    def _out(self, ids: list[int]) -> list[int]:
        """bpeviz ids -> the ids this tokenizer speaks."""
        return ids if self.file_ids is None else list(map(self.file_ids.__getitem__, ids))

    def _in(self, token_id: object) -> int:
        """An id as the caller gave it -> bpeviz's (an unknown one stays unknown)."""
        token_id = as_id(token_id)
        return token_id if self._from_file is None else self._from_file.get(token_id, -1 - abs(token_id))

    def _init_codec(self, next_id: int, special_tokens: Sequence[str]) -> None:
        check_special_tokens(special_tokens)
        self.special_tokens: dict[str, int] = {s: next_id + k for k, s in enumerate(special_tokens)}
        self.byte_fallback_start = next_id + len(self.special_tokens)  # chars level only
        self._prefix = " " if self.settings.dummy_prefix else ""  # SentencePiece's ▁ before the first word

    def _pretokens(self, text: str) -> list[str]:
        """text split by the settings' pre-tokenizer (as HF's Unicode tables read it, for a tokenizer.json made elsewhere)."""
        if self.settings.hf_unicode:
            bert = self.settings.pretokenizer == splits.BERT_SPLIT  # HF's BertPreTokenizer has tables of its own
            return split_as_hf(text, self._split_plain, as_bert_reads if bert else as_hf_reads)
        return self._split_plain(text)

    def _split_plain(self, text: str) -> list[str]:
        return splits.split_text(text, self.settings.pretokenizer)

    def _prefixed(self, text: str) -> str:
        """The dummy prefix before a text (not before an empty one, nor, as HF's Metaspace does, before a space)."""
        if not text or self.prefix_unless_space and text.startswith(" "):
            return text
        return self._prefix + text

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

    def truncated(self, n: int) -> TokenizerBase:
        """The same tokenizer cut to its first n steps of training (merges; Unigram: pruning rounds)."""
        raise NotImplementedError

    def token_of(self, token_id: int) -> Token:
        """The str (chars) or bytes (bytes level, byte fallback) behind an id."""
        token = self._token(self._in(token_id))
        if token is None:
            raise ValueError(f"Token id {as_id(token_id)} is not in this tokenizer's vocabulary.")
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
        return self._out(self._encode_text(text if continued else self._prefixed(text)))

    def encode_bytes(self, data: bytes) -> list[int]:
        """Encode raw bytes, invalid UTF-8 kept byte for byte (bytes level only); `decode_bytes` gives them back.

        Example: tok.decode_bytes(tok.encode_bytes(b"ol\xe1")) == b"ol\xe1"
        """
        if not isinstance(data, (bytes, bytearray)):
            raise ValueError(f"encode_bytes takes bytes, not {type(data).__name__}; encode text with encode().")
        if self.level != "bytes":
            raise ValueError("Only a bytes-level tokenizer keeps raw bytes; decode the data to text and use encode().")
        text = bytes(data).decode("utf-8", "surrogateescape")  # invalid bytes ride along as U+DC80-U+DCFF
        return self._out(self._encode_text(self._prefixed(text)))

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
        for k, (part, special) in enumerate(split_on_specials(text, found)):
            ids.extend(self._encode_text(self._prefixed(part) if k == 0 else part))
            if special is not None:
                ids.append(self.special_tokens[special])
        return self._out(ids)

    def pieces(self, text: str) -> list[Token]:
        """The tokens of text as the vocabulary spells them. Example: tok.pieces("o gato") -> ["o", " gato"]"""
        return [self.token_of(i) for i in self.encode_ordinary(text)]

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.token_bytes(i) for i in as_ids(ids))

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
        if self.meta_as_space or splits.reads_meta_as_space(self.settings):
            text = text.replace("\u2581", " ")  # SentencePiece, and HF's Metaspace, read a ▁ as the space they write
        return as_tiktoken_reads(text)

    def save(self, path: str | Path) -> None:
        """Write the bpeviz JSON file (lossless); `bpeviz.load(path)` reads it back."""
        Path(path).write_bytes(serial.dumps(self))


def as_id(token_id: object) -> int:
    """An int id from an int-like value (NumPy integers included); ValueError for anything else."""
    if isinstance(token_id, bool):
        raise ValueError(f"A token id is a whole number, not {token_id!r}.")
    try:
        return operator.index(token_id)  # type: ignore[arg-type]  # any object: a TypeError is the answer
    except TypeError:
        raise ValueError(f"A token id is a whole number, not {type(token_id).__name__} {str(token_id)[:40]!r}.") from None


def as_ids(ids: Iterable[int]) -> list[int]:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise ValueError(f"decode takes a list of token ids, not {type(ids).__name__}.")
    return [as_id(i) for i in ids]


def check_special_tokens(special_tokens: Sequence[str]) -> None:
    if isinstance(special_tokens, str):
        raise ValueError("special_tokens is a list of strings, not one string.")
    for s in special_tokens:
        if not isinstance(s, str) or not s:
            raise ValueError(f"A special token must be a non-empty string, not {s!r}.")
    if len(set(special_tokens)) != len(special_tokens):
        raise ValueError("The special tokens repeat one another; list each once.")


def split_on_specials(text: str, specials: Sequence[str]) -> list[tuple[str, str | None]]:
    """Cut text at special-token strings: [(text before, the special or None at the end)].

    Example: split_on_specials("a<|x|>b", ["<|x|>"]) -> [("a", "<|x|>"), ("b", None)]
    """
    pattern = regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
    parts: list[tuple[str, str | None]] = []
    position = 0
    for match in pattern.finditer(text):
        parts.append((text[position : match.start()], match.group()))
        position = match.end()
    parts.append((text[position:], None))
    return parts
