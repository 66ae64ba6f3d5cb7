"""Training, the entry: a corpus (or a count table) and settings in, a tokenizer of any algorithm out.

`train` resolves its arguments once into `Settings` (settings.py), checks the corpus, counts its distinct pre-tokens
once, and hands them to the algorithm's trainer (TRAINERS): BPE (bpe.py), WordPiece, Unigram, SuperBPE, BoundlessBPE.
Each resolves the engine once, when it knows the run's size (bpeviz.engine.resolve), and says which ran.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack, overload

from bpeviz import engine as engines
from bpeviz.core.errors import BpevizError
from bpeviz.core.gc import paused_gc
from bpeviz.core.records import ALGORITHM_SPECS, Corpus, Settings, has_raw_bytes, to_bytes
from bpeviz.counting.blocks import workers_for
from bpeviz.counting.tables import CountTable
from bpeviz.models.base import TokenizerBase
from bpeviz.models.bpe import Tokenizer

from .bpe import corpus_documents, corpus_words, prepare, train_rules, train_words
from .settings import resolve_settings

if TYPE_CHECKING:
    from bpeviz.models.unigram import UnigramTokenizer
    from bpeviz.models.wordpiece import WordPieceTokenizer

Progress = Callable[[int, int], None]


class TrainOptions(TypedDict, total=False):
    """The keywords `train` and `train_counts` share, each as `train` describes it."""

    level: str | None
    tie_break: str | None
    count_rule: str | None
    dialect: str | None
    progress: Callable[[int, int], None] | None
    record_top: int
    engine: str


def _options(options: Mapping[str, object], function: str) -> Mapping[str, Any]:
    """options checked as Python checks keywords (a misspelt one is a TypeError, not silently ignored)."""
    unknown = sorted(set(options) - set(TrainOptions.__annotations__))
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    return options


@overload
def train(corpus: Corpus, *, vocab_size: int, pretokenizer: str | None = None, workers: int | str = "auto",
          transition: int | None = None, algorithm: Literal["bpe", "superbpe", "boundless"] = "bpe",
          **options: Unpack[TrainOptions]) -> Tokenizer: ...
@overload
def train(corpus: Corpus, *, vocab_size: int, pretokenizer: str | None = None, workers: int | str = "auto",
          transition: int | None = None, algorithm: Literal["wordpiece"],
          **options: Unpack[TrainOptions]) -> WordPieceTokenizer: ...
@overload
def train(corpus: Corpus, *, vocab_size: int, pretokenizer: str | None = None, workers: int | str = "auto",
          transition: int | None = None, algorithm: Literal["unigram"],
          **options: Unpack[TrainOptions]) -> UnigramTokenizer: ...
@overload
def train(corpus: Corpus, *, vocab_size: int, pretokenizer: str | None = None, workers: int | str = "auto",
          transition: int | None = None, algorithm: str, **options: Unpack[TrainOptions]) -> TokenizerBase: ...
def train(corpus: Corpus, *, vocab_size: int, pretokenizer: str | None = None, workers: int | str = "auto",
          transition: int | None = None, algorithm: str = "bpe", **options: Unpack[TrainOptions]) -> TokenizerBase:
    """Train a tokenizer to vocab_size = base symbols + merges (BPE), distinct tokens (WordPiece) or pieces (Unigram).

    algorithm: "bpe" (the default), "wordpiece" or "unigram" (which splits at spaces with a dummy prefix unless
    pretokenizer is given); the type of the result follows it (a BPE `Tokenizer` has `.merges`).
    Defaults: level "chars", pretokenizer "gpt2", tie_break "first", count_rule "overlapping"; a
    dialect (rules.DIALECTS: "minbpe", "hf", "sentencepiece-bpe", "tiktoken-educational") supplies
    the rules of a real trainer for what is not given. Stops early (with fewer merges) when no pair
    is left. progress(done, total) is called now and then; record_top=N keeps the N best pairs of
    every step (Merge.top). engine: "auto", "python" or "compiled" (numba, the `fast` extra) runs BPE's merge loop
    (Unigram's EM and pruning), with the same result either way; tok.engine says which ran. workers: "auto" counts a
    big corpus on every core, N in N processes (at most the cores), 1 here (see bpe.corpus_words). "superbpe"
    (superbpe.py) learns words up to the vocabulary size `transition`, then merges across spaces (Merge.stage 2);
    "boundless" (boundless.py) merges whole words too.
    Example: train(["o gato", "o cão"], vocab_size=12).merges[0].token -> " " + ...
    """
    o = _options(options, "train")
    settings = resolve_settings(vocab_size, level=o.get("level"), pretokenizer=pretokenizer, tie_break=o.get("tie_break"),
                                count_rule=o.get("count_rule"), dialect=o.get("dialect"), algorithm=algorithm,
                                transition=transition)
    return train_settings(corpus, settings, progress=o.get("progress"), record_top=o.get("record_top", 0),
                          engine=o.get("engine", "auto"), workers=workers)


def train_settings(corpus: Corpus, settings: Settings, *, progress: Progress | None = None,
                   record_top: int = 0, engine: str = "auto", workers: int | str = "auto") -> TokenizerBase:
    """train with settings resolved already (resolve_settings): what the app and the sources pass through, resolved once."""
    check_engine(engine, settings)
    workers_for(workers, 0)  # "auto" or a whole number, checked before the corpus is read
    docs = corpus_documents(corpus, settings.level)
    if ALGORITHM_SPECS[settings.algorithm].family == "superword":
        return _train_superword(docs, settings, progress, record_top, engine)
    with paused_gc():  # nothing here makes cycles; collecting would cost a third of the time
        words = corpus_words(docs, settings, workers)
    finals = None
    if settings.algorithm == "unigram":
        from .unigram import sentence_ends

        finals = sentence_ends(docs, settings)
    return _train_words(words, settings, progress, record_top, engine, finals)


def check_engine(engine: str, settings: Settings) -> None:
    """The engine must exist and be installed; WordPiece and BoundlessBPE have no compiled loop."""
    engines.check(engine)
    if engine == "compiled" and not ALGORITHM_SPECS[settings.algorithm].compiled:
        raise BpevizError("engine_algorithm", f"The compiled engine runs BPE's and Unigram's loops; {settings.algorithm} "
                          "trains in Python (engine 'python' or 'auto').", algorithm=settings.algorithm)


@overload
def train_counts(table: CountTable, *, vocab_size: int, algorithm: Literal["bpe"] = "bpe",
                 **options: Unpack[TrainOptions]) -> Tokenizer: ...
@overload
def train_counts(table: CountTable, *, vocab_size: int, algorithm: str, **options: Unpack[TrainOptions]) -> TokenizerBase: ...


def train_counts(table: CountTable, *, vocab_size: int, algorithm: str = "bpe", **options: Unpack[TrainOptions]) -> TokenizerBase:
    """Train from a count table (counting/tables.py) as `train` would on the text it was counted from: the same merges.

    The table's pretokenizer (and SentencePiece's dummy prefix) must be the ones these settings use.
    """
    o = _options(options, "train_counts")
    settings = resolve_settings(vocab_size, level=o.get("level"), pretokenizer=table.pretokenizer, tie_break=o.get("tie_break"),
                                count_rule=o.get("count_rule"), dialect=o.get("dialect"), algorithm=algorithm)
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
    finals = table.ends if settings.algorithm == "unigram" else None  # Unigram seeds from the documents' ends too
    return _train_words(table.counts, settings, o.get("progress"), o.get("record_top", 0), engine, finals)


def _train_words(words: Counter[str], settings: Settings, progress: Progress | None, record_top: int,
                 engine: str = "auto", finals: Counter[str] | None = None) -> TokenizerBase:
    if ALGORITHM_SPECS[settings.algorithm].family == "pieces":
        return _train_pieces(words, settings, progress, finals, engine)
    return train_words(words, settings, engine=engine, progress=progress, record_top=record_top)


def _train_superword(docs: list[str], settings: Settings, progress: Progress | None,
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


def _train_pieces(words: Counter[str], settings: Settings, progress: Progress | None,
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
    job: dict[str, object] = {"finals": finals} if finals else {}  # Unigram's seeds: how often each word ends a document
    if ALGORITHM_SPECS[settings.algorithm].compiled:
        job["engine"] = engines.resolve(engine, size=sum(len(word) for word in words), group=settings.algorithm)
    return TRAINERS[settings.algorithm](words=words, settings=settings, progress=progress, corpus_bytes=corpus_bytes, **job)


# Each algorithm's trainer, by the name records.ALGORITHM_SPECS gives it, imported when first used. "pieces" trainers
# take words=, settings=, progress=, corpus_bytes= (and engine=, an Engine, if compiled); "superword" ones docs=,
# words=, settings=, progress=, record_top=, engine= (a name: they resolve it). BPE's own is bpe.train_words.
# A new algorithm: an entry there, its module, and a line here.
def _wordpiece(**job):
    from .wordpiece import train_wordpiece

    return train_wordpiece(job.pop("words"), job.pop("settings"), **job)


def _unigram(**job):
    from .unigram import train_unigram

    return train_unigram(job.pop("words"), job.pop("settings"), **job)


def _superbpe(*, docs, words, settings, engine, **job):
    from .superbpe import train_superbpe

    prepared = prepare([], settings.level, settings.inner_split, words)
    return train_superbpe(docs, prepared, train_rules(settings, prepared), settings, engine=engine, **job)


def _boundless(*, docs, words, settings, engine, **job):
    from .boundless import train_boundless

    return train_boundless(docs, settings, **job)


TRAINERS: dict[str, Callable[..., TokenizerBase]] = {"wordpiece": _wordpiece, "unigram": _unigram,
                                                      "superbpe": _superbpe, "boundless": _boundless}
