"""Mistral's tokenizers, offline, from the files the `mistral-common` package ships (Apache-2.0), hash-checked.

- `mistral-v3`: the SentencePiece BPE model of Mistral 7B Instruct v0.3 (`mistral_instruct_tokenizer_240323.model.v3`),
  read by bpeviz's own `.model` reader and encoded as SentencePiece does: characters, an unknown one as its UTF-8
  bytes `<0x..>` (byte fallback).
- `tekken`: Mistral NeMo's Tekken (`tekken_240718.json`), a tiktoken-style byte-level BPE: its split pattern from
  the file's config, its first `default_vocab_size - default_num_special_tokens` ranks, every id moved up by the
  1 000 special tokens that come first, as mistral-common's `Tekkenizer` does.
The package's code is not run (its files are found without importing it). Both answer tiktoken's methods (encode,
encode_ordinary, decode, decode_single_token_bytes, n_vocab); tests/pretrained/test_mistral.py holds them to
mistral-common's own tokenizers.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from itertools import groupby

from bpeviz.data.shipped import package_file
from bpeviz.formats.rank_files import split_by_lower_ranks
from bpeviz.formats.sentencepiece_model import import_model
from bpeviz.models.sentencepiece import CONTROL, UNKNOWN, SentencePieceTokenizer

from .open_models import PanicSafeEncoding, tiktoken_parts

PACKAGE, MODULE = "mistral-common", "mistral_common"
MISTRAL_V3_FILE = "data/mistral_instruct_tokenizer_240323.model.v3"
MISTRAL_V3_SHA256 = "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33"  # mistral-common 1.13.1
TEKKEN_FILE = "data/tekken_240718.json"
TEKKEN_SHA256 = "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516"  # mistral-common 1.13.1
# the special tokens a v3 Tekken file without its own list gets (mistral-common's Tekkenizer.DEPRECATED_SPECIAL_TOKENS);
# the rest of the first default_num_special_tokens ids are fillers "<SPECIAL_n>"
TEKKEN_V3_SPECIALS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]",
    "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)


class SentencePieceEncoding:
    """A SentencePiece model with tiktoken's methods, for the pages that show the real tokenizers side by side."""

    def __init__(self, name: str, tok: SentencePieceTokenizer) -> None:
        self.name, self.tokenizer = name, tok
        self.n_vocab = tok.vocab_size
        self._parents: dict[int, tuple[bytes, bytes]] | None = None

    def encode(self, text: str, **_: object) -> list[int]:
        """SentencePiece reads no special tokens in text: encode is encode_ordinary (tiktoken's options are ignored)."""
        return self.tokenizer.encode_ordinary(text)

    def encode_ordinary(self, text: str, *, continued: bool = False) -> list[int]:
        """continued: the text goes on from an earlier part cut before a space (no dummy prefix); for Mistral's model
        (no normalizer rules, spaces kept, no piece holds a space after a letter) the parts' ids are the whole's."""
        return self.tokenizer.encode_ordinary(text, continued=continued)

    def decode(self, tokens: Iterable[int]) -> str:
        return self.tokenizer.decode(tokens)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The token's bytes (a space for ▁); a control or the unknown piece as its name."""
        kind = self.tokenizer.spec.pieces[token].kind
        if kind in (CONTROL, UNKNOWN):
            return self.tokenizer.spec.pieces[token].text.encode()
        return self.tokenizer.token_bytes(token)

    def rank_of(self, token: int) -> int | None:
        """None: a SentencePiece model ranks pieces by score, not by id (the Files page lists its derived merges)."""
        return None

    def parents(self, token: int) -> tuple[bytes, bytes] | None:
        """The two pieces the derived merge joins into this one; None for a character, a byte or a symbol."""
        if self._parents is None:
            self._parents = {m.id: (str(m.left).encode(), str(m.right).encode()) for m in self.tokenizer.merges}
        return self._parents.get(token)


class TekkenEncoding:
    """Tekken: a tiktoken Encoding of the file's ranks, its ids moved up past the special tokens."""

    def __init__(self, encoding, specials: list[str], n_vocab: int) -> None:
        self.name = "tekken"
        self._encoding, self.specials, self.n_vocab = encoding, specials, n_vocab
        self.offset = len(specials)

    def encode(self, text: str, **_: object) -> list[int]:
        """Tekken reads no special tokens in text (mistral-common's `encode`): encode is encode_ordinary."""
        return self.encode_ordinary(text)

    def encode_ordinary(self, text: str) -> list[int]:
        return [i + self.offset for i in self._encoding.encode_ordinary(text)]

    def decode(self, tokens: Iterable[int]) -> str:
        """Text from ids; special ids are dropped, and the text between them decoded apart (mistral-common's rule)."""
        out = []
        for special, group in groupby(list(tokens), lambda i: i < self.offset):
            if not special:
                out.append(self._encoding.decode([i - self.offset for i in group]))
        return "".join(out)

    def decode_single_token_bytes(self, token: int) -> bytes:
        if token < self.offset:
            return self.specials[token].encode()
        return self._encoding.decode_single_token_bytes(token - self.offset)

    def rank_of(self, token: int) -> int | None:
        """The token's rank among the merges (its id less the special tokens before it); None for a special token."""
        return token - self.offset if token >= self.offset else None

    def parents(self, token: int) -> tuple[bytes, bytes] | None:
        """The two tokens whose merge makes this one (the split its lower ranks make), as bytes."""
        if token < self.offset + 256:
            return None
        data = self.decode_single_token_bytes(token)
        ranks = tiktoken_parts(self._encoding)[0]  # type: ignore[index]  # a tiktoken Encoding: always its parts
        return split_by_lower_ranks(data, token - self.offset, ranks)


def mistral_v3() -> SentencePieceEncoding:
    data = package_file(PACKAGE, MODULE, MISTRAL_V3_FILE, MISTRAL_V3_SHA256)
    return SentencePieceEncoding("mistral-v3", import_model(data, "mistral-v3"))


def tekken() -> TekkenEncoding:
    import tiktoken

    data = json.loads(package_file(PACKAGE, MODULE, TEKKEN_FILE, TEKKEN_SHA256))
    config = data["config"]
    n_special = config["default_num_special_tokens"]
    inner = config["default_vocab_size"] - n_special
    ranks = {base64.b64decode(row["token_bytes"]): row["rank"] for row in data["vocab"][:inner]}
    named = [t["token_str"] for t in data["special_tokens"]] if "special_tokens" in data else list(TEKKEN_V3_SPECIALS)
    specials = named + [f"<SPECIAL_{i}>" for i in range(len(named), n_special)]
    encoding = tiktoken.Encoding("tekken", pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={})
    return TekkenEncoding(PanicSafeEncoding(encoding), specials, config["default_vocab_size"])
