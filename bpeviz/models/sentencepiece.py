"""A SentencePiece model (Llama 2, Mistral, T5, Gemma ship them as `.model` files), encoding as SentencePiece does.

The model's own pieces and ids, kinds and all: normal pieces, user-defined symbols (kept whole, never merged),
control symbols (`<s>`), the unknown piece, unused pieces, and the 256 byte pieces `<0x00>`…`<0xFF>` of byte
fallback. Text goes through the model's normalizer (normalizers/sentencepiece.py), then its algorithm
(sentencepiece_encode.py): BPE by piece score, or Unigram by Viterbi. A piece the vocabulary lacks becomes its UTF-8
bytes with byte fallback, else the unknown id (a run of them, one). `formats.import_file("x.model")` reads the file.

A BPE model's merges are derived, for the Files and Train pages: each piece's last merge when SentencePiece encodes
the piece alone, in score order (a piece whose parts rank later comes right after them). A piece no merge makes is
counted in `not_merges`; `truncated(k)` keeps the first k merges and encodes as SentencePiece would with only those.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from bpeviz.core.records import Merge, Settings, Token
from bpeviz.normalizers.sentencepiece import SPACE, Normalizer, NormalizerSpec, Symbols

from . import sentencepiece_encode as encode
from .base import TokenizerBase, as_ids

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
KINDS = {NORMAL: "normal", UNKNOWN: "unknown", CONTROL: "control", USER_DEFINED: "user-defined", UNUSED: "unused",
         BYTE: "byte"}
UNIGRAM, BPE = 1, 2
MODEL_TYPES = {UNIGRAM: "unigram", BPE: "bpe", 3: "word", 4: "char"}
MAX_CACHED = 200_000  # chunks whose BPE pieces are kept
MAX_CACHED_LENGTH = 256


@dataclass(frozen=True)
class Piece:
    text: str  # as the file spells it: ▁ for a space
    score: float
    kind: int = NORMAL


@dataclass(frozen=True)
class ModelSpec:
    """What a `.model` file says, read and checked (formats/sentencepiece_model.py reads one)."""

    pieces: tuple[Piece, ...]
    model_type: int
    normalizer: NormalizerSpec
    denormalizer: NormalizerSpec | None = None
    byte_fallback: bool = False
    treat_whitespace_as_suffix: bool = False
    unk_surface: str = " ⁇ "
    raw: bytes = b""  # the file read, whose first raw_pieces pieces are these: a graft writes it back with its own after
    raw_pieces: int = 0


class SentencePieceTokenizer(TokenizerBase):
    """A SentencePiece model with its own ids. Example: tok.pieces("o gato") -> [" o", " g", "ato"] (model-dependent)"""

    kept_as = "SentencePiece .model"  # no bpeviz format holds its normalizer and piece kinds: keep the file itself

    def __init__(self, spec: ModelSpec, *, name: str = "the model", disabled: frozenset[str] = frozenset()) -> None:
        self.spec, self.name, self._disabled = spec, name, disabled
        pieces = spec.pieces
        algorithm = "bpe" if spec.model_type == BPE else "unigram"
        self.settings = Settings(vocab_size=len(pieces), level="chars", pretokenizer="none", algorithm=algorithm)
        self.reserved = {p.text: i for i, p in enumerate(pieces) if p.kind in (CONTROL, UNKNOWN, BYTE)}
        self.ids = {p.text: i for i, p in enumerate(pieces) if p.kind in (NORMAL, USER_DEFINED, UNUSED)
                    and p.text not in disabled}
        self.unk_id = next(i for i, p in enumerate(pieces) if p.kind == UNKNOWN)
        self.byte_ids = [self.reserved[f"<0x{b:02X}>"] for b in range(256)] if spec.byte_fallback else None
        user = [p.text for p in pieces if p.kind == USER_DEFINED]
        self.symbols = Symbols(user)
        self.normalizer = Normalizer(spec.normalizer, symbols=self.symbols, suffix=spec.treat_whitespace_as_suffix,
                                     name=name)
        self.denormalizer = Normalizer(spec.denormalizer, name=name) \
            if spec.denormalizer is not None and spec.denormalizer.charsmap else None
        self.space = SPACE if spec.normalizer.escape_whitespaces else " "
        self.vocab: dict[int, Token] = {i: self._spelled(p) for i, p in enumerate(pieces)}
        self._unused = {p.text for p in pieces if p.kind == UNUSED}
        self._scores = {t: pieces[i].score for t, i in self.ids.items()}
        self._longest = max((len(t) for t in self.ids), default=1)
        normal = [p.score for p in pieces if p.kind == NORMAL]
        self._unk_score = encode.f32(min(normal, default=0.0) - encode.UNK_PENALTY)
        self._max_score = max([encode.FLT_MIN, *normal])
        self._scores_by_id = [p.score for p in pieces]
        self._user_ids = {i for i, p in enumerate(pieces) if p.kind == USER_DEFINED}
        self._unused_ids = {i for i, p in enumerate(pieces) if p.kind == UNUSED}
        # no piece holds a space after another character: BPE's pieces never cross the start of a word, so each
        # word is encoded alone and remembered (the same pieces, in far less time)
        self._by_words = not any(re.search(f"[^{self.space}]{self.space}", t) for t in self.ids)
        self._cache: dict[str, list[str]] = {}
        self._init_codec(len(pieces), ())

    def _spelled(self, piece: Piece) -> Token:
        if piece.kind == BYTE:
            return bytes([int(piece.text[3:5], 16)])
        return piece.text.replace(SPACE, " ") if piece.kind in (NORMAL, USER_DEFINED, UNUSED) else piece.text

    @property
    def vocab_size(self) -> int:
        return len(self.spec.pieces)

    def kind(self, token_id: int) -> str:
        """The piece's kind: normal, user-defined, control, unknown, unused or byte."""
        return KINDS[self.spec.pieces[self._in(token_id)].kind]

    def _token(self, token_id: int) -> Token | None:
        return self.vocab.get(token_id)

    def is_byte_fallback(self, token_id: int) -> bool:
        inner = self._in(token_id)
        return 0 <= inner < len(self.spec.pieces) and self.spec.pieces[inner].kind == BYTE

    def _surface(self, token_id: int) -> Token:
        kind = self.spec.pieces[token_id].kind
        return "" if kind == CONTROL else self.spec.unk_surface if kind == UNKNOWN else self.vocab[token_id]

    # -- encoding ---------------------------------------------------------------------------------------------------

    def normalize(self, text: str) -> str:
        """The text as the model's pieces are matched against it (its normalizer, ▁ for spaces)."""
        return self.normalizer.normalize(self._check_text(text))

    def encode_ordinary(self, text: str, *, continued: bool = False) -> list[int]:
        """Encode text as SentencePiece does (it reads no special tokens in text).

        continued: the text goes on from an earlier call (a file read in blocks cut before a space): no dummy prefix.
        """
        return self._out(self._encode_text(self._check_text(text), continued=continued))

    def _encode_text(self, text: str, *, continued: bool = False) -> list[int]:
        normalized = self.normalizer.normalize(text, continued=continued)
        if self.spec.model_type == BPE:
            found = [(w, self.reserved.get(w, self.ids.get(w, self.unk_id))) for w in self._bpe(normalized)]
        else:
            found = [(w, self.unk_id if i < 0 else i) for w, i in encode.viterbi(
                normalized, self.ids, self._scores_by_id, self._user_ids, self._unused_ids, self._longest,
                self._unk_score, self._max_score)]
        out: list[int] = []
        after_unknown = False
        for piece, i in found:
            unknown = i == self.unk_id
            if unknown and self.byte_ids is not None:
                out += [self.byte_ids[b] for b in piece.encode("utf-8")]
            elif not (unknown and after_unknown):  # a run of unknown pieces is one unknown id
                out.append(i)
            after_unknown = unknown
        return out

    def _bpe(self, normalized: str) -> list[str]:
        if not self._by_words:
            return encode.bpe(normalized, self._scores, self.symbols, self._unused)
        out: list[str] = []
        for word in re.split(f"(?<=[^{self.space}])(?={self.space})", normalized):
            found = self._cache.get(word)
            if found is None:
                found = encode.bpe(word, self._scores, self.symbols, self._unused)
                if len(word) <= MAX_CACHED_LENGTH and len(self._cache) < MAX_CACHED:
                    self._cache[word] = found
            out += found
        return out

    # -- decoding ---------------------------------------------------------------------------------------------------

    def decode(self, ids: Iterable[int]) -> str:
        """Text from ids as SentencePiece decodes: ▁ is a space, the dummy prefix's space is dropped, control ids
        are nothing, the unknown id is " ⁇ ", byte pieces join into UTF-8 (a byte that cannot, U+FFFD)."""
        pieces, spec = self.spec.pieces, self.spec
        out: list[str] = []
        pending = bytearray()
        at_start, start_space_seen = True, False
        strip = spec.normalizer.add_dummy_prefix or spec.normalizer.remove_extra_whitespaces
        for token_id in as_ids(ids):
            inner = self._in(token_id)
            if not 0 <= inner < len(pieces):
                raise ValueError(f"Token id {token_id} is not in this tokenizer's vocabulary.")
            piece = pieces[inner]
            if piece.kind == BYTE:
                pending.append(int(piece.text[3:5], 16))  # <0xAB>
                continue
            out.append(_utf8_or_replacement(bytes(pending)))
            pending.clear()
            if start_space_seen or any(out):
                at_start = False
            text, start_space_seen = self._piece_text(piece, at_start and strip)
            out.append(text)
        out.append(_utf8_or_replacement(bytes(pending)))
        text = "".join(out)
        return self.denormalizer.normalize(text) if self.denormalizer is not None else text

    def _piece_text(self, piece: Piece, at_start: bool) -> tuple[str, bool]:
        if piece.kind == CONTROL:
            return "", False
        if piece.kind == UNKNOWN:
            return self.spec.unk_surface, False
        text, seen = piece.text, False
        if at_start and text.startswith(SPACE):
            text, seen = text[1:], not self.spec.normalizer.remove_extra_whitespaces
        return text.replace(SPACE, " "), seen

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return self.decode(ids).encode("utf-8", "surrogatepass")

    # -- merges (BPE) -----------------------------------------------------------------------------------------------

    @cached_property
    def merges(self) -> list[Merge]:  # type: ignore[override]  # derived once, when first asked
        if self.spec.model_type != BPE:
            return []
        pieces = self.spec.pieces
        ranked = sorted((i for i, p in enumerate(pieces) if p.kind == NORMAL and len(p.text) > 1
                         and p.text not in self._disabled), key=lambda i: (-pieces[i].score, i))
        rank = {pieces[i].text: k for k, i in enumerate(ranked)}
        parents: dict[str, tuple[str, str]] = {}
        for i in ranked:
            trace: list[tuple[str, str]] = []
            if encode.bpe(pieces[i].text, self._scores, self.symbols, self._unused, trace) == [pieces[i].text]:
                parents[pieces[i].text] = trace[-1]
        when: dict[str, float] = {}

        def ready(token: str) -> float:  # when a token can first exist: its rank, or just after its parts
            if token not in parents:
                return -1.0
            if token not in when:
                left, right = parents[token]
                when[token] = max(float(rank[token]), ready(left) + 0.5, ready(right) + 0.5)
            return when[token]

        order = sorted(parents, key=lambda t: (ready(t), rank[t]))
        self.not_merges = len(ranked) - len(order)
        spell, id_of = (lambda t: t.replace(SPACE, " ")), (lambda t: self.ids.get(t, self.unk_id))
        return [Merge(k, spell(parents[t][0]), spell(parents[t][1]), spell(t), 0, id_of(t), id_of(parents[t][0]),
                      id_of(parents[t][1])) for k, t in enumerate(order, start=1)]

    def truncated(self, n: int) -> SentencePieceTokenizer:
        """BPE: the model with only its first n merges' pieces, encoding as SentencePiece would with those."""
        merges = self.merges
        if self.spec.model_type != BPE or n >= len(merges):
            return self
        kept = {m.token for m in merges[:n]}
        made = {p.text for p in self.spec.pieces if p.kind == NORMAL and len(p.text) > 1}
        cut = SentencePieceTokenizer(self.spec, name=self.name, disabled=frozenset(
            t for t in made if t.replace(SPACE, " ") not in kept))
        cut.__dict__["merges"] = merges[:n]
        cut.not_merges = self.not_merges
        return cut


def _utf8_or_replacement(data: bytes) -> str:
    """Bytes as text, each byte that starts no valid UTF-8 character read as U+FFFD (SentencePiece's rule)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out, i = [], 0
    while i < len(data):
        for size in (1, 2, 3, 4):
            try:
                out.append(data[i:i + size].decode("utf-8"))
                i += size
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)

