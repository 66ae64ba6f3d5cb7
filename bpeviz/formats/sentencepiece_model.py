"""SentencePiece `.model` files, read without protobuf: the wire format of the three messages a model needs.

A `.model` is a serialized `ModelProto` (sentencepiece_model.proto): field 1 repeats the pieces (text, score, kind),
field 2 is the trainer spec (model type, byte fallback, …), field 3 the normalizer spec, field 5 the denormalizer's.
Reading is one linear pass with every length checked against the bytes left; a file that is not a model, or breaks
a rule SentencePiece itself checks when it loads one (model_interface.cc), gets a BpevizError that says which.
The reader is held to `sentencepiece_model_pb2` on real files by tests/formats/test_sentencepiece.py.
"""

from __future__ import annotations

import struct

from bpeviz.core.errors import BpevizError, cut
from bpeviz.models.bpe import Tokenizer
from bpeviz.models.sentencepiece import (
    BPE,
    BYTE,
    CONTROL,
    KINDS,
    MODEL_TYPES,
    NORMAL,
    UNIGRAM,
    UNKNOWN,
    ModelSpec,
    Piece,
    SentencePieceTokenizer,
)
from bpeviz.normalizers.sentencepiece import NormalizerSpec

from .listings import merges_from_tokens

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
MAX_PIECE_BYTES = 8000  # SentencePiece refuses a longer piece


def looks_like_model(data: bytes) -> bool:
    """True when data starts as a ModelProto does: field 1 (a piece), length-delimited, holding field 1 (its text)."""
    return len(data) > 3 and data[0] == 0x0A and _starts_a_piece(data)


def _starts_a_piece(data: bytes) -> bool:
    try:
        length, at = _varint(data, 1, "")
    except BpevizError:
        return False
    return 0 < length <= len(data) - at and data[at] == 0x0A


def _broken(name: str, what: str) -> BpevizError:
    return BpevizError("sentencepiece_broken", f"{name} is not a SentencePiece model bpeviz can read: {what}.",
                       name=name, part=what)


def _varint(data: bytes, at: int, name: str) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise _broken(name, "a number runs past the end of the file")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if byte < 0x80:
            return value, at


def fields(data: bytes, name: str) -> list[tuple[int, int, int | bytes]]:
    """A message's fields in file order: (number, wire type, value); a varint as int, anything else as bytes."""
    out: list[tuple[int, int, int | bytes]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at, name)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == VARINT:
            value, at = _varint(data, at, name)
        elif wire in (FIXED64, FIXED32, LENGTH):
            size = 8 if wire == FIXED64 else 4 if wire == FIXED32 else None
            if size is None:
                size, at = _varint(data, at, name)
            if at + size > len(data):
                raise _broken(name, "a field runs past the end of the file")
            value, at = data[at:at + size], at + size
        else:
            raise _broken(name, f"field {number} has wire type {wire}, which no model uses")
        if number == 0:
            raise _broken(name, "a field is numbered 0")
        out.append((number, wire, value))
    return out


class _Message:
    """One message's fields by number, the last occurrence of a scalar winning (protobuf's rule)."""

    def __init__(self, data: bytes, name: str) -> None:
        self.name = name
        self.all = fields(data, name)
        self.last = {number: (wire, value) for number, wire, value in self.all}

    def _get(self, number: int, wire: int, what: str) -> int | bytes | None:
        if number not in self.last:
            return None
        found_wire, value = self.last[number]
        if found_wire != wire:
            raise _broken(self.name, f"{what} has the wrong wire type")
        return value

    def text(self, number: int, what: str, default: str = "") -> str:
        value = self._get(number, LENGTH, what)
        try:
            return default if not isinstance(value, bytes) else value.decode("utf-8")
        except UnicodeDecodeError:
            raise _broken(self.name, f"{what} is not UTF-8") from None

    def raw(self, number: int, what: str) -> bytes:
        value = self._get(number, LENGTH, what)
        return b"" if value is None else value  # type: ignore[return-value]  # a LENGTH field is bytes

    def flag(self, number: int, what: str, default: bool) -> bool:
        value = self._get(number, VARINT, what)
        return default if value is None else bool(value)

    def number(self, number: int, what: str, default: int) -> int:
        value = self._get(number, VARINT, what)
        return default if value is None else value  # type: ignore[return-value]  # a VARINT field is int

    def score(self, number: int, what: str) -> float:
        value = self._get(number, FIXED32, what)
        return 0.0 if value is None else struct.unpack("<f", value)[0]  # type: ignore[arg-type]  # FIXED32: bytes

    def messages(self, number: int, what: str) -> list[_Message]:
        found = []
        for n, wire, value in self.all:
            if n == number:
                if wire != LENGTH:
                    raise _broken(self.name, f"{what} has the wrong wire type")
                found.append(_Message(value, self.name))  # type: ignore[arg-type]  # a LENGTH field is bytes
        return found


def _normalizer(message: _Message | None) -> NormalizerSpec:
    if message is None:
        return NormalizerSpec()
    return NormalizerSpec(name=message.text(1, "the normalizer's name"),
                          charsmap=message.raw(2, "the precompiled charsmap"),
                          add_dummy_prefix=message.flag(3, "add_dummy_prefix", True),
                          remove_extra_whitespaces=message.flag(4, "remove_extra_whitespaces", True),
                          escape_whitespaces=message.flag(5, "escape_whitespaces", True))


def _piece(message: _Message, k: int) -> Piece:
    kind = message.number(3, "a piece's type", NORMAL)
    if kind not in KINDS:
        raise _broken(message.name, f"piece {k} has the type {kind}, which SentencePiece does not define")
    return Piece(message.text(1, f"piece {k}"), message.score(2, f"piece {k}'s score"), kind)


def read_model(data: bytes, name: str = "the file") -> ModelSpec:
    """The model a `.model` file holds, checked as SentencePiece checks it when it loads one."""
    top = _Message(data, name)
    pieces = tuple(_piece(m, k) for k, m in enumerate(top.messages(1, "a piece")))
    trainers = top.messages(2, "the trainer spec")
    trainer = trainers[-1] if trainers else None
    normalizers = top.messages(3, "the normalizer spec")
    denormalizers = top.messages(5, "the denormalizer spec")
    model_type = trainer.number(3, "the model type", UNIGRAM) if trainer else UNIGRAM
    spec = ModelSpec(
        pieces=pieces, model_type=model_type, normalizer=_normalizer(normalizers[-1] if normalizers else None),
        denormalizer=_normalizer(denormalizers[-1]) if denormalizers else None,
        byte_fallback=trainer.flag(35, "byte_fallback", False) if trainer else False,
        treat_whitespace_as_suffix=trainer.flag(24, "treat_whitespace_as_suffix", False) if trainer else False,
        unk_surface=trainer.text(44, "unk_surface", " ⁇ ") if trainer else " ⁇ ", raw=data, raw_pieces=len(pieces))
    check(spec, name)
    return spec


def write_model(tok: SentencePieceTokenizer) -> bytes:
    """A `.model` file of tok: the file it was read from, then each piece added since (a graft's) as a ModelProto
    piece (field 1: its text, score and kind). Protobuf reads a repeated field's records in file order wherever they
    are, so SentencePiece loads the pieces with their ids."""
    spec = tok.spec
    if not spec.raw:
        raise BpevizError("model_unwritable", f"{tok.name} was not read from a .model file; bpeviz writes .model files "
                          "only for models it read (and their grafts).", name=tok.name)
    out = bytearray(spec.raw)
    for piece in spec.pieces[spec.raw_pieces:]:
        text = piece.text.encode("utf-8")
        body = b"\x0a" + _encode_varint(len(text)) + text + b"\x15" + struct.pack("<f", piece.score)
        if piece.kind != NORMAL:
            body += b"\x18" + _encode_varint(piece.kind)
        out += b"\x0a" + _encode_varint(len(body)) + body
    return bytes(out)


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def check(spec: ModelSpec, name: str) -> None:
    """SentencePiece's own load-time rules, each refused with the reason."""
    if not spec.pieces:
        raise _broken(name, "it has no pieces")
    if spec.model_type not in (UNIGRAM, BPE):
        raise BpevizError("sentencepiece_model_type", f"{name} is a SentencePiece {MODEL_TYPES.get(spec.model_type, '?')} "
                          "model; bpeviz reads BPE and Unigram models.", name=name,
                          model_type=MODEL_TYPES.get(spec.model_type, str(spec.model_type)))
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    for k, piece in enumerate(spec.pieces):
        if not piece.text or "\0" in piece.text or len(piece.text.encode("utf-8")) >= MAX_PIECE_BYTES:
            raise _broken(name, f"piece {k} ({cut(piece.text)}) is empty, holds NUL or is too long")
        reserved = piece.kind in (UNKNOWN, BYTE, CONTROL)  # two maps, as SentencePiece keeps
        if piece.text in seen[reserved]:
            raise _broken(name, f"the piece {cut(piece.text)} is defined twice")
        seen[reserved].add(piece.text)
        if piece.kind == BYTE and not (spec.byte_fallback and _byte_piece(piece.text)):
            raise _broken(name, f"{cut(piece.text)} is a byte piece, but byte fallback is off or it names no byte")
    if sum(p.kind == UNKNOWN for p in spec.pieces) != 1:
        raise _broken(name, "it must define exactly one unknown piece")
    if spec.byte_fallback and sum(p.kind == BYTE for p in spec.pieces) != 256:
        raise _broken(name, "byte fallback is on but the 256 byte pieces are not all there")


def _byte_piece(text: str) -> bool:
    return len(text) == 6 and text.startswith("<0x") and text.endswith(">") and \
        all(c in "0123456789ABCDEF" for c in text[3:5])


def import_model(data: bytes, name: str = "the file") -> SentencePieceTokenizer:
    """A `.model` file as a tokenizer with the model's own ids, encoding as SentencePiece does."""
    return SentencePieceTokenizer(read_model(data, name), name=name)


def merge_table(tok: SentencePieceTokenizer, pretokenizer: str = "sentencepiece", vocab_size: int | None = None) -> Tokenizer:
    """A BPE model's derived merges as a bpeviz tokenizer (characters, a space before each text), for replaying on a
    corpus: the Train page steps through Mistral's merges as through GPT-2's. The alphabet is the characters the
    merges join, in order of first use; vocab_size: keep the most merges that fit with their characters. Its encoding
    is BPE by merge rank, close to SentencePiece's by piece score but not the same; `tok` itself encodes exactly."""
    if tok.algorithm != "bpe":
        raise BpevizError("replay_needs_bpe", f"{tok.name} is a SentencePiece {tok.algorithm} model: it has no BPE merges "
                          "to replay.", name=tok.name, algorithm=tok.algorithm)
    alphabet: list[str] = []
    known: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for m in tok.merges:
        new = [str(part) for part in dict.fromkeys((m.left, m.right)) if len(part) == 1 and part not in known]
        if vocab_size is not None and len(alphabet) + len(new) + len(pairs) + 1 > vocab_size:
            break
        alphabet += new
        known.update(new)
        pairs.append((str(m.left), str(m.right)))
    return merges_from_tokens("chars", alphabet, pairs, tok.name, pretokenizer, dummy_prefix=True)  # type: ignore[arg-type]
