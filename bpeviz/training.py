"""Text-level training: documents in, a Tokenizer out.

Validates the settings, counts distinct pre-tokens once, turns them into base ids (characters
or bytes) in corpus order, and hands them to the ids-only trainer in `trainer.py`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field

from . import pretokenize
from .errors import BpevizError
from .records import LEVELS, MAX_VOCAB_SIZE, Corpus, Settings, documents_of, has_raw_bytes, to_bytes
from .rules import tie_rule
from .tokenizer import Tokenizer, build
from .trainer import replay_ids, train_ids


@dataclass
class Prepared:
    """A corpus as the trainer reads it: (base ids, count) per distinct pre-token, in corpus order."""

    alphabet: list[str] | None  # None at level bytes
    sequences: list[tuple[list[int], int]] = field(default_factory=list)
    corpus_bytes: int = 0
    corpus_tokens: int = 0

    @property
    def n_base(self) -> int:
        return 256 if self.alphabet is None else len(self.alphabet)


def prepare(docs: list[str], level: str, pretokenizer: str) -> Prepared:
    """Split documents, count distinct pre-tokens once, and turn them into base ids in corpus order."""
    counts = pretokenize.count_pieces(docs, pretokenizer)
    if level == "chars":
        if any(has_raw_bytes(word) for word in counts):
            raise BpevizError("corpus_not_utf8", "The corpus is not valid UTF-8; train it at level 'bytes'.")
        alphabet = sorted({ch for word in counts for ch in word})
        char_ids = {ch: i for i, ch in enumerate(alphabet)}
        sequences = [([char_ids[ch] for ch in word], n) for word, n in counts.items()]
        corpus_bytes = sum(len(to_bytes(word)) * n for word, n in counts.items())
        return Prepared(alphabet, sequences, corpus_bytes, sum(len(w) * n for w, n in counts.items()))
    sequences = [(list(to_bytes(word)), n) for word, n in counts.items()]
    corpus_bytes = sum(len(ids) * n for ids, n in sequences)
    return Prepared(None, sequences, corpus_bytes, corpus_bytes)


def check_vocab_size(vocab_size: object) -> int:
    """vocab_size as an int (NumPy integers accepted), or a ValueError that says what is wrong."""
    if isinstance(vocab_size, bool):
        raise ValueError(f"vocab_size must be a whole number, not {vocab_size!r}.")
    try:
        size = operator.index(vocab_size)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"vocab_size must be a whole number, not {vocab_size!r}.") from None
    if size > MAX_VOCAB_SIZE:
        raise BpevizError("vocab_too_large", f"vocab_size {size:,} is too large; the most bpeviz trains is {MAX_VOCAB_SIZE:,}.",
                          vocab=size, cap=MAX_VOCAB_SIZE)
    return size


def corpus_documents(corpus: Corpus, level: str) -> list[str]:
    """The corpus as non-empty documents, decoding bytes (strictly at level chars)."""
    if isinstance(corpus, bytes) and level == "chars":
        try:
            corpus = corpus.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BpevizError("corpus_not_utf8",
                              f"The corpus is not valid UTF-8 (byte {exc.start}); train it at level 'bytes'.") from exc
    docs = documents_of(corpus)
    if not any(docs):
        raise BpevizError("corpus_empty", "The corpus is empty: paste or choose some text to train on.")
    return docs


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
    tie_rule(tie_break)
    vocab_size = check_vocab_size(vocab_size)
    docs = corpus_documents(corpus, level)
    prepared = prepare(docs, level, pretokenizer)
    if vocab_size < prepared.n_base:
        raise BpevizError(
            "vocab_too_small",
            f"vocab_size {vocab_size} is smaller than the {prepared.n_base} base symbols of this corpus at level "
            f"{level!r}; choose at least {prepared.n_base}.",
            vocab=vocab_size, base=prepared.n_base, level=level,
        )
    raw = train_ids(prepared.sequences, vocab_size - prepared.n_base, prepared.n_base, tie_break=tie_break,
                    progress=progress, record_top=record_top)
    settings = Settings(vocab_size=vocab_size, level=level, pretokenizer=pretokenizer, tie_break=tie_break)
    return build(settings, prepared.alphabet, raw, corpus_bytes=prepared.corpus_bytes, corpus_tokens=prepared.corpus_tokens)


def replay_on(
    tok: Tokenizer,
    corpus: Corpus,
    *,
    progress: Callable[[int, int], None] | None = None,
    record_top: int = 0,
) -> Tokenizer:
    """tok's merges, in order, measured on a corpus: each merge's count there, the corpus length after it, the best pairs.

    For merges learned elsewhere (GPT-2's, a file's): the class sees what they buy on its own text.
    Example: replay_on(gpt2_tok, "the cat").merges[0].count -> how often " t" occurs in "the cat"
    """
    docs = corpus_documents(corpus, "bytes")
    counts = pretokenize.count_pieces(docs, tok.settings.pretokenizer)
    sequences = [(tok.base_ids(word), n) for word, n in counts.items()]
    pairs = [(m.left_id, m.right_id) for m in tok.merges]
    raw = replay_ids(sequences, pairs, tok.n_base, tie_break=tok.settings.tie_break, progress=progress, record_top=record_top)
    return build(tok.settings, tok.alphabet, raw, special_tokens=tuple(tok.special_tokens),
                 corpus_bytes=sum(len(to_bytes(word)) * n for word, n in counts.items()),
                 corpus_tokens=sum(len(ids) * n for ids, n in sequences))
