"""BPE from counted words: base ids (characters or bytes) in corpus order, the engine's merge loop, a Tokenizer out.

Also replaying merges learned elsewhere (GPT-2's, a file's) on a class's own corpus (`replay_on`). The loop itself is
the engine's (engine/python.py, or compiled); the slow obvious trainer that both must match is `educational.py`.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

from bpeviz import engine as engines
from bpeviz.core.errors import BpevizError
from bpeviz.core.gc import paused_gc
from bpeviz.core.records import Corpus, Prepared, Settings, documents_of, has_raw_bytes, to_bytes
from bpeviz.core.rules import Rules, rules_for
from bpeviz.counting import blocks
from bpeviz.models.bpe import Tokenizer, build
from bpeviz.pre_tokenizers import splits
from bpeviz.pre_tokenizers.oniguruma import split_as_hf


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


def corpus_words(docs: Sequence[str], settings: Settings, workers: int | str = 1) -> Counter[str]:
    """Distinct pre-tokens of the documents with their counts, as training with these settings sees them.

    A big corpus (PARALLEL_MIN_BYTES or more; PARALLEL_MIN_BYTES_COMPILED where the compiled counter serves) is counted
    in forked processes: "auto" every core, a number as many (at most the cores); the table is the same, order
    included. Only a single-threaded process forks (a fork copies
    other threads' locks mid-use; spawn would re-run the caller's script): a server, or a notebook, counts here.
    """
    if splits.reads_meta_as_space(settings):  # SentencePiece reads a ▁ as the space it writes ▁
        docs = [doc.replace("\u2581", " ") for doc in docs]
    if settings.dummy_prefix:  # not before an empty document: SentencePiece skips an empty sentence, as the CLI does
        docs = [" " + doc for doc in docs if doc]
    if settings.hf_unicode:  # split as HF's engine reads Unicode 15.1 (the hf dialect)
        return Counter(piece for doc in docs for piece in split_as_hf(doc, partial(splits.split_text,
                                                                                     pretokenizer=settings.pretokenizer)))
    size = sum(map(len, docs))
    n = blocks.workers_for(workers, size, settings.pretokenizer)
    if n > 1 and can_fork() and size >= blocks.PARALLEL_MIN_BYTES:
        parts = blocks.text_blocks(docs, settings.pretokenizer)
        return blocks.count_blocks(parts, settings.pretokenizer, workers=n, total_bytes=size)
    return blocks.counter(settings.pretokenizer, size)(docs, settings.pretokenizer)


def can_fork() -> bool:
    """Whether worker processes may be forked from here: a POSIX process with no other thread."""
    return os.name == "posix" and threading.active_count() == 1


def prepare(docs: list[str], level: str, pretokenizer: str, counts: Counter[str] | None = None) -> Prepared:
    """Split documents, count distinct pre-tokens once, and turn them into base ids in corpus order."""
    counts = counts if counts is not None else splits.count_pieces(docs, pretokenizer)
    if level == "chars":
        if any(has_raw_bytes(word) for word in counts):
            raise BpevizError("corpus_not_utf8", "The corpus is not valid UTF-8; train it at level 'bytes'.")
        alphabet = sorted({ch for word in counts for ch in word})
        char_ids = {ch: i for i, ch in enumerate(alphabet)}
        sequences = [([char_ids[ch] for ch in word], n) for word, n in counts.items()]
        corpus_bytes = sum(len(to_bytes(word)) * n for word, n in counts.items())
        return Prepared(alphabet, sequences, corpus_bytes, sum(len(w) * n for w, n in counts.items()))
    raw = [(to_bytes(word), n) for word, n in counts.items()]  # bytes are sequences of ints
    corpus_bytes = sum(len(ids) * n for ids, n in raw)
    return Prepared(None, raw, corpus_bytes, corpus_bytes)


def train_rules(settings: Settings, prepared: Prepared) -> Rules:
    """The trainer's rules for these settings (texts of the base symbols when a rule reads them)."""
    texts = prepared.alphabet if prepared.alphabet is not None else [bytes([b]) for b in range(256)]
    return rules_for(settings.tie_break, settings.count_rule, texts, settings.unique_tokens)


def train_words(words: Counter[str], settings: Settings, *, engine: str = "auto",
                progress: Callable[[int, int], None] | None = None, record_top: int = 0) -> Tokenizer:
    """BPE on distinct pre-tokens with their counts: settings.vocab_size - base symbols merges, by the engine resolved here."""
    # One pause for the whole run: the collector then looks once, at what the tokenizer keeps.
    with paused_gc():
        prepared = prepare([], settings.level, settings.pretokenizer, words)
        if settings.vocab_size < prepared.n_base:
            raise BpevizError(
                "vocab_too_small",
                f"vocab_size {settings.vocab_size} is smaller than the {prepared.n_base} base symbols of this corpus at "
                f"level {settings.level!r}; choose at least {prepared.n_base}.",
                vocab=settings.vocab_size, base=prepared.n_base, level=settings.level,
            )
        run = engines.resolve(engine, size=symbols(prepared.sequences), group="bpe")
        if run is not engines.PYTHON and pair_weight(prepared.sequences) >= COMPILED_MAX_WEIGHT:
            if engine == "compiled":
                raise BpevizError("counts_too_large", "These counts add up past what the compiled engine counts in 64 bits "
                                  "(a pair may occur 2**62 times or more); train them with engine='python', which counts "
                                  "exactly.")
            run = engines.PYTHON  # counts that large: Python's integers, exact (the compiled loop's would wrap)
        raw = run.train_ids(prepared.sequences, settings.vocab_size - prepared.n_base, prepared.n_base,
                            rules=train_rules(settings, prepared), progress=progress, record_top=record_top)
        tok = build(settings, prepared.alphabet, raw, corpus_bytes=prepared.corpus_bytes,
                    corpus_tokens=prepared.corpus_tokens, engine=run.name, encoder=engines.ENCODER)
        tok.proven_by_training()  # its tokens merge back from their bytes: tiktoken may merge for it without a check
        del raw, prepared  # freed before the collector comes back
    return tok


COMPILED_MAX_WEIGHT = 2**62  # the compiled loop counts pairs in int64; no pair count may reach this


def pair_weight(sequences: Sequence[tuple[Sequence[int], int]]) -> int:
    """A bound on any pair's count: every adjacent pair of every pre-token, times its count."""
    return sum(max(len(ids) - 1, 0) * count for ids, count in sequences)


def symbols(sequences: Sequence[tuple[Sequence[int], int]]) -> int:
    """A run's size as an engine sees it: base symbols of the distinct pre-tokens."""
    return sum(len(ids) for ids, _ in sequences)


def replay_on(
    tok: Tokenizer,
    corpus: Corpus,
    *,
    progress: Callable[[int, int], None] | None = None,
    record_top: int = 0,
    engine: str = "auto",
) -> Tokenizer:
    """tok's merges, in order, measured on a corpus: each merge's count there, the corpus length after it, the best pairs.

    For merges learned elsewhere (GPT-2's, a file's): the class sees what they buy on its own text.
    Example: replay_on(gpt2_tok, "the cat").merges[0].count -> how often " t" occurs in "the cat"
    """
    docs = corpus_documents(corpus, "bytes")
    if tok.split_function is not None:  # a real tokenizer's own pre-tokenizer (Tokenizer.use_split)
        counts = Counter(piece for doc in docs for piece in tok.split_function(doc))
    else:
        counts = corpus_words(docs, tok.settings)
    sequences = [(tok.base_ids(word), n) for word, n in counts.items()]
    pairs = [(m.left_id, m.right_id) for m in tok.merges]
    base_texts = [tok.vocab[i] for i in range(tok.n_base)]  # bpeviz ids (an imported file speaks its own)
    with paused_gc():
        run = engines.resolve(engine, size=symbols(sequences), group="bpe")
        raw = run.replay_ids(sequences, pairs, tok.n_base, progress=progress, record_top=record_top,
                             rules=rules_for(tok.settings.tie_break, tok.settings.count_rule, base_texts))
        replayed = build(tok.settings, tok.alphabet, raw, special_tokens=tuple(tok.special_tokens),
                         corpus_bytes=sum(len(to_bytes(word)) * n for word, n in counts.items()),
                         corpus_tokens=sum(len(ids) * n for ids, n in sequences), engine=run.name,
                         encoder=engines.ENCODER)
        del raw
    return replayed
