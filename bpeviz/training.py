"""Text-level training: documents in, a Tokenizer out.

Validates the settings, counts distinct pre-tokens once, turns them into base ids (characters
or bytes) in corpus order, and hands them to the ids-only trainer in `trainer.py`.
"""

from __future__ import annotations

import operator
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypedDict, Unpack

from . import counting, pretokenize, rules
from . import engine as engines
from .counting import CountTable
from .errors import BpevizError
from .records import (
    ALGORITHM_SPECS,
    LEVELS,
    MAX_VOCAB_SIZE,
    Algorithm,
    Corpus,
    Prepared,
    Settings,
    documents_of,
    has_raw_bytes,
    to_bytes,
)
from .tokenizer import Tokenizer, TokenizerBase, build
from .trainer import Rules as TrainerRules
from .trainer import paused_gc, rules_for


def corpus_words(docs: Sequence[str], settings: Settings, workers: int = 1) -> Counter[str]:
    """Distinct pre-tokens of the documents with their counts, as training with these settings sees them.

    workers > 1 counts a big corpus (PARALLEL_MIN_BYTES or more) in that many forked processes; the
    table is the same, order included. Only a single-threaded process forks (a fork copies other
    threads' locks mid-use; spawn would re-run the caller's script): a server counts here.
    """
    if settings.dummy_prefix:
        docs = [" " + doc for doc in docs]
    if workers > 1 and can_fork() and sum(map(len, docs)) >= counting.PARALLEL_MIN_BYTES:
        blocks = counting.text_blocks(docs, settings.pretokenizer)
        return counting.count_blocks(blocks, settings.pretokenizer, workers=workers)
    return pretokenize.count_pieces(docs, settings.pretokenizer)


def can_fork() -> bool:
    """Whether worker processes may be forked from here: a POSIX process with no other thread."""
    return os.name == "posix" and threading.active_count() == 1


def prepare(docs: list[str], level: str, pretokenizer: str, counts: Counter[str] | None = None) -> Prepared:
    """Split documents, count distinct pre-tokens once, and turn them into base ids in corpus order."""
    counts = counts if counts is not None else pretokenize.count_pieces(docs, pretokenizer)
    if level == "chars":
        if any(has_raw_bytes(word) for word in counts):
            raise BpevizError("corpus_not_utf8", "The corpus is not valid UTF-8; train it at level 'bytes'.")
        alphabet = sorted({ch for word in counts for ch in word})
        char_ids = {ch: i for i, ch in enumerate(alphabet)}
        sequences = [([char_ids[ch] for ch in word], n) for word, n in counts.items()]
        corpus_bytes = sum(len(to_bytes(word)) * n for word, n in counts.items())
        return Prepared(alphabet, sequences, corpus_bytes, sum(len(w) * n for w, n in counts.items()))
    sequences = [(to_bytes(word), n) for word, n in counts.items()]  # bytes are sequences of ints
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


def resolve_settings(vocab_size: object, *, level: str | None = None, pretokenizer: str | None = None,
                     tie_break: str | None = None, count_rule: str | None = None, dialect: str | None = None,
                     algorithm: str = "bpe", transition: int | None = None) -> Settings:
    """Settings from train's arguments: what is given wins, then the dialect's rule, then bpeviz's default.

    Example: resolve_settings(1024, level="bytes", pretokenizer="gpt4", dialect="hf").tie_break -> "hf"
    """
    spec = algorithm_spec(algorithm)
    if transition is not None and not spec.transition:
        raise BpevizError("transition_needs_superbpe", "transition is SuperBPE's switch to merges across spaces; "
                          "use it with algorithm 'superbpe'.", algorithm=algorithm)
    given = [name for name, value in (("tie_break", tie_break), ("count_rule", count_rule), ("dialect", dialect)) if value]
    if given and not spec.rules:
        raise BpevizError("algorithm_rules", f"{', '.join(given)} are rules of BPE training; {algorithm} has its own.",
                          algorithm=algorithm, rules=", ".join(given))
    if spec.family == "superword":
        return _superword_settings(vocab_size, spec, transition, level=level, pretokenizer=pretokenizer,
                                   tie_break=tie_break, count_rule=count_rule, dialect=dialect)
    if spec.family == "pieces":
        return _pieces_settings(vocab_size, spec, level, pretokenizer)
    d = rules.dialect(dialect) if dialect else None
    level = level or (d.level if d and d.level else "chars")
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; use 'chars' or 'bytes'.")
    pretokenizer = pretokenizer if pretokenizer is not None else (d.pretokenizer if d and d.pretokenizer else "gpt2")
    if d is not None:
        pretokenizer = dict(d.split_as).get(pretokenizer, pretokenizer)
    tie_break = tie_break or (d.tie_break if d else "first")
    count_rule = count_rule or (d.count_rule if d else "overlapping")
    rules.tie_rule(tie_break)
    rules.count_rule(count_rule)
    return Settings(vocab_size=check_vocab_size(vocab_size), level=level, pretokenizer=pretokenizer, tie_break=tie_break,
                    count_rule=count_rule, dialect=d.name if d else "", dummy_prefix=bool(d and d.dummy_prefix),
                    unique_tokens=bool(d and d.unique_tokens))


def algorithm_spec(algorithm: object) -> Algorithm:
    """The registry entry (records.ALGORITHM_SPECS) of an algorithm's name, or a BpevizError that lists them."""
    if not isinstance(algorithm, str) or algorithm not in ALGORITHM_SPECS:
        raise BpevizError("unknown_algorithm", f"Unknown algorithm {algorithm!r}; choose one of "
                          f"{', '.join(ALGORITHM_SPECS)}.", algorithm=str(algorithm)[:40])
    return ALGORITHM_SPECS[algorithm]


def _superword_settings(vocab_size: object, spec: Algorithm, transition: int | None, **given: str | None) -> Settings:
    """BPE's settings for the words, then the superword split; the transition where the algorithm takes one."""
    from .superword import SUPERWORD_SPLIT, check_transition

    words = resolve_settings(vocab_size, **given)
    if words.pretokenizer == SUPERWORD_SPLIT:
        raise BpevizError("superword_inner_split", f"{spec.name} learns words in a split that keeps spaces apart; choose "
                          "gpt2, gpt4, words... (the superword split is its second stage).", algorithm=spec.name)
    cut = check_transition(transition, words.vocab_size) if spec.transition else 0
    return replace(words, algorithm=spec.name, transition=cut, inner_split=words.pretokenizer, pretokenizer=SUPERWORD_SPLIT)


def _pieces_settings(vocab_size: object, spec: Algorithm, level: str | None, pretokenizer: str | None) -> Settings:
    """WordPiece and Unigram: characters only (with byte fallback), the algorithm's own default split."""
    if level not in (None, "chars"):
        raise BpevizError("algorithm_level", f"{spec.name} works on characters here (with byte fallback); use level 'chars'.",
                          algorithm=spec.name)
    pretokenizer = spec.default_split if pretokenizer is None else pretokenizer
    pretokenize.resolve(pretokenizer)
    return Settings(vocab_size=check_vocab_size(vocab_size), level="chars", pretokenizer=pretokenizer,
                    dummy_prefix=bool(spec.dummy_prefix_split) and pretokenizer == spec.dummy_prefix_split,
                    algorithm=spec.name)


def train_rules(settings: Settings, prepared: Prepared) -> TrainerRules:
    """The trainer's rules for these settings (texts of the base symbols when a rule reads them)."""
    texts = prepared.alphabet if prepared.alphabet is not None else [bytes([b]) for b in range(256)]
    return rules_for(settings.tie_break, settings.count_rule, texts, settings.unique_tokens)


class TrainOptions(TypedDict, total=False):
    """The keywords `train` and `train_counts` share, each as `train` describes it."""

    level: str | None
    tie_break: str | None
    count_rule: str | None
    dialect: str | None
    progress: Callable[[int, int], None] | None
    record_top: int
    algorithm: str
    engine: str


def _options(options: dict, function: str) -> dict:
    """options checked as Python checks keywords (a misspelt one is a TypeError, not silently ignored)."""
    unknown = sorted(set(options) - set(TrainOptions.__annotations__))
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    return options


def train(corpus: Corpus, *, vocab_size: int, pretokenizer: str | None = None, workers: int = 1,
          transition: int | None = None, **options: Unpack[TrainOptions]) -> TokenizerBase:
    """Train a tokenizer to vocab_size = base symbols + merges (BPE), distinct tokens (WordPiece) or pieces (Unigram).

    algorithm: "bpe" (the default), "wordpiece" (wordpiece.py) or "unigram" (unigram.py; splits
    at spaces with a dummy prefix unless pretokenizer is given).
    Defaults: level "chars", pretokenizer "gpt2", tie_break "first", count_rule "overlapping"; a
    dialect (rules.DIALECTS: "minbpe", "hf", "sentencepiece-bpe", "tiktoken-educational") supplies
    the rules of a real trainer for what is not given. Stops early (with fewer merges) when no pair
    is left. progress(done, total) is called now and then; record_top=N keeps the N best pairs of
    every step (Merge.top). engine: "auto", "python" or "compiled" (numba, the `fast` extra) runs BPE's
    merge loop (Unigram's EM and pruning), with the same result either way; tok.engine says which ran. workers=N counts a big
    corpus in N processes (see corpus_words). "superbpe" (superword.py) learns words up to the vocabulary size
    `transition`, then merges across spaces (Merge.stage 2); "boundless" (boundless.py) merges whole words too.
    Example: train(["o gato", "o cão"], vocab_size=12).merges[0].token -> " " + ...
    """
    o = _options(options, "train")
    settings = resolve_settings(vocab_size, level=o.get("level"), pretokenizer=pretokenizer, tie_break=o.get("tie_break"),
                                count_rule=o.get("count_rule"), dialect=o.get("dialect"), algorithm=o.get("algorithm", "bpe"),
                                transition=transition)
    return train_settings(corpus, settings, progress=o.get("progress"), record_top=o.get("record_top", 0),
                          engine=o.get("engine", "auto"), workers=workers)


def train_settings(corpus: Corpus, settings: Settings, *, progress: Callable[[int, int], None] | None = None,
                   record_top: int = 0, engine: str = "auto", workers: int = 1) -> TokenizerBase:
    """train with settings resolved already (resolve_settings): what the app and the sources pass through, resolved once."""
    check_engine(engine, settings)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number of processes, 1 or more, not {workers!r}.")
    docs = corpus_documents(corpus, settings.level)
    if ALGORITHM_SPECS[settings.algorithm].family == "superword":
        return _train_superword(docs, settings, progress, record_top, engine)
    with paused_gc():  # nothing here makes cycles; collecting would cost a third of the time
        words = corpus_words(docs, settings, workers)
    finals = None
    if settings.algorithm == "unigram":
        from .unigram_train import sentence_ends

        finals = sentence_ends(docs, settings)
    return _train_words(words, settings, progress, record_top, engine, finals)


def check_engine(engine: str, settings: Settings) -> None:
    """The engine must exist and be installed; WordPiece and BoundlessBPE have no compiled loop."""
    engines.choose(engine, 0)
    if engine == "compiled" and not ALGORITHM_SPECS[settings.algorithm].compiled:
        raise BpevizError("engine_algorithm", f"The compiled engine runs BPE's and Unigram's loops; {settings.algorithm} "
                          "trains in Python (engine 'python' or 'auto').", algorithm=settings.algorithm)


def train_counts(table: CountTable, *, vocab_size: int, **options: Unpack[TrainOptions]) -> TokenizerBase:
    """Train from a count table (counting.py) as `train` would on the text it was counted from: the same merges.

    The table's pretokenizer (and SentencePiece's dummy prefix) must be the ones these settings use.
    """
    o = _options(options, "train_counts")
    settings = resolve_settings(vocab_size, level=o.get("level"), pretokenizer=table.pretokenizer, tie_break=o.get("tie_break"),
                                count_rule=o.get("count_rule"), dialect=o.get("dialect"), algorithm=o.get("algorithm", "bpe"))
    if settings.pretokenizer != table.pretokenizer or settings.dummy_prefix != table.dummy_prefix:
        cut = f"pretokenizer {settings.pretokenizer!r}" + (" with a dummy prefix" if settings.dummy_prefix else "")
        raise BpevizError("counts_other_settings", f"These settings split with {cut}; count the corpus that way "
                          "(bpeviz count --pretokenizer ... with the same --dialect) and train again.", wanted=cut)
    if not table.counts:
        raise BpevizError("corpus_empty", "The count table is empty: count some text first.")
    if ALGORITHM_SPECS[settings.algorithm].family == "superword":
        raise BpevizError("superword_needs_text", f"{settings.algorithm} merges across the words of a count table: "
                          "train it on the text (bpeviz.train).", algorithm=settings.algorithm)
    engine = o.get("engine", "auto")
    check_engine(engine, settings)
    return _train_words(table.counts, settings, o.get("progress"), o.get("record_top", 0), engine)


def _train_words(words: Counter[str], settings: Settings, progress: Callable[[int, int], None] | None,
                 record_top: int, engine: str = "auto", finals: Counter[str] | None = None) -> TokenizerBase:
    if ALGORITHM_SPECS[settings.algorithm].family == "pieces":
        return _train_pieces(words, settings, progress, finals, engine)
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
        raw, used = engines.train_ids(prepared.sequences, settings.vocab_size - prepared.n_base, prepared.n_base,
                                      rules=train_rules(settings, prepared), engine=engine, progress=progress,
                                      record_top=record_top)
        tok = build(settings, prepared.alphabet, raw, corpus_bytes=prepared.corpus_bytes,
                    corpus_tokens=prepared.corpus_tokens, engine=used)
        del raw, prepared  # freed before the collector comes back
    return tok


def _train_superword(docs: list[str], settings: Settings, progress: Callable[[int, int], None] | None,
                     record_top: int, engine: str) -> TokenizerBase:
    """SuperBPE and BoundlessBPE: words counted in the inner split, superword pieces of the documents."""
    words = corpus_words(docs, replace(settings, pretokenizer=settings.inner_split))
    if settings.level == "chars" and any(has_raw_bytes(word) for word in words):
        raise BpevizError("corpus_not_utf8", "The corpus is not valid UTF-8; train it at level 'bytes'.")
    n_base = 256 if settings.level == "bytes" else len({ch for word in words for ch in word})
    if settings.vocab_size < n_base:
        raise BpevizError("vocab_too_small", f"vocab_size {settings.vocab_size} is smaller than the {n_base} base symbols of "
                          f"this corpus at level {settings.level!r}; choose at least {n_base}.",
                          vocab=settings.vocab_size, base=n_base, level=settings.level)
    if settings.dummy_prefix:
        docs = [" " + doc for doc in docs]
    return TRAINERS[settings.algorithm](docs=docs, words=words, settings=settings, progress=progress,
                                        record_top=record_top, engine=engine)


def _train_pieces(words: Counter[str], settings: Settings, progress: Callable[[int, int], None] | None,
                  finals: Counter[str] | None = None, engine: str = "auto") -> TokenizerBase:
    if any(has_raw_bytes(word) for word in words):
        raise BpevizError("corpus_not_utf8", f"The corpus is not valid UTF-8; {settings.algorithm} trains on characters.")
    alphabet: set = {ch for word in words for ch in word}
    if ALGORITHM_SPECS[settings.algorithm].positional:
        alphabet = {(k > 0, ch) for word in words for k, ch in enumerate(word)}
    if settings.vocab_size < len(alphabet):
        raise BpevizError(
            "vocab_too_small",
            f"vocab_size {settings.vocab_size} is smaller than the {len(alphabet)} starting pieces of this corpus, which "
            f"{settings.algorithm} always keeps; choose at least {len(alphabet)}.",
            vocab=settings.vocab_size, base=len(alphabet), level="chars",
        )
    corpus_bytes = sum(len(to_bytes(word)) * n for word, n in words.items())
    job = {"finals": finals} if finals else {}  # Unigram's seeds: how often each word ends a document
    if ALGORITHM_SPECS[settings.algorithm].compiled:
        job["engine"] = engines.choose(engine, sum(len(word) for word in words))
    return TRAINERS[settings.algorithm](words=words, settings=settings, progress=progress, corpus_bytes=corpus_bytes, **job)


# Each algorithm's trainer, by the name records.ALGORITHM_SPECS gives it, imported when first used. "pieces" trainers
# take words=, settings=, progress=, corpus_bytes= (and engine=, "python" or "compiled", if compiled); "superword"
# ones docs=, words=, settings=, progress=, record_top=, engine= (BPE's own loop is _train_words). A new algorithm: an
# entry there, its module, and a line here.
def _wordpiece(**job):
    from .wordpiece import train_wordpiece

    return train_wordpiece(job.pop("words"), job.pop("settings"), **job)


def _unigram(*, engine: str = "python", **job):
    from .unigram_train import PythonSteps, train_unigram

    steps = PythonSteps
    if engine == "compiled":
        from .compiled_unigram import Steps as steps  # noqa: N813

    return train_unigram(job.pop("words"), job.pop("settings"), steps=steps, **job)


def _superbpe(*, docs, words, settings, engine, **job):
    from .superword import train_superbpe

    prepared = prepare([], settings.level, settings.inner_split, words)
    return train_superbpe(docs, prepared, train_rules(settings, prepared), settings, engine=engine, **job)


def _boundless(*, docs, words, settings, engine, **job):
    from .boundless import train_boundless

    return train_boundless(docs, settings, **job)


TRAINERS: dict[str, Callable[..., TokenizerBase]] = {"wordpiece": _wordpiece, "unigram": _unigram,
                                                      "superbpe": _superbpe, "boundless": _boundless}


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
        raw, used = engines.replay_ids(sequences, pairs, tok.n_base,
                                       rules=rules_for(tok.settings.tie_break, tok.settings.count_rule, base_texts),
                                       engine=engine, progress=progress, record_top=record_top)
        replayed = build(tok.settings, tok.alphabet, raw, special_tokens=tuple(tok.special_tokens),
                         corpus_bytes=sum(len(to_bytes(word)) * n for word, n in counts.items()),
                         corpus_tokens=sum(len(ids) * n for ids, n in sequences), engine=used)
        del raw
    return replayed
