"""The records a run produces and the settings it was made with: plain frozen data.

Nothing here trains, encodes or reads files; every other stage passes these around.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

LEVELS = ("chars", "bytes")


@dataclass(frozen=True)
class Algorithm:
    """One training algorithm as the rest of bpeviz needs to know it; `training` dispatches on `family`.

    family: "bpe" (BPE's rules, dialects and engines), "pieces" (its own rules; characters with byte fallback;
    trained from counted words: `module.train_words`), "superword" (BPE's rules, then merges across words; trained
    from the documents: `module.train_docs`).
    """

    name: str
    label: str  # as a table, a tab or a chart says it
    family: str
    module: str  # its trainer's module in bpeviz/trainers/
    default_split: str = "gpt2"  # when no pretokenizer is given
    compiled: bool = False  # the compiled engine can run its loops (BPE's merge loop; Unigram's EM and pruning)
    rules: bool = True  # takes BPE's tie and counting rules and its dialects
    transition: bool = False  # takes train(..., transition=T)
    dummy_prefix_split: str = ""  # with this split, a space goes before every document (SentencePiece style)
    positional: bool = False  # a character that starts a word and one that continues it are two pieces (WordPiece's ##)


ALGORITHM_SPECS: dict[str, Algorithm] = {
    "bpe": Algorithm("bpe", "BPE", "bpe", "bpe", compiled=True),
    "wordpiece": Algorithm("wordpiece", "WordPiece", "pieces", "wordpiece", rules=False, positional=True),
    "unigram": Algorithm("unigram", "Unigram", "pieces", "unigram", default_split="spaces", rules=False,
                         dummy_prefix_split="spaces", compiled=True),
    # stage 1's default split puts no space before a digit, as the final split never does (GPT-2's learns " 1")
    "superbpe": Algorithm("superbpe", "SuperBPE", "superword", "superbpe", default_split="r2l-digits", compiled=True,
                          transition=True),
    "boundless": Algorithm("boundless", "BoundlessBPE", "superword", "boundless", rules=False),
}
ALGORITHMS = tuple(name for name, a in ALGORITHM_SPECS.items() if a.family != "superword")  # the Algorithms page's three
SUPERWORD_ALGORITHMS = tuple(name for name, a in ALGORITHM_SPECS.items() if a.family == "superword")  # merges cross spaces
ENDOFTEXT = "<|endoftext|>"
MAX_VOCAB_SIZE = 1_000_000  # the most the library trains; the app allows less (its own cap)
MAX_PRUNED_RECORDED = 200  # pruned pieces kept per Unigram round, for the app
MAX_TIES_RECORDED = 4  # each costs a validated heap pop per merge; the app draws whole tie sets from `top`

Token = str | bytes  # str at level "chars"; bytes at level "bytes" and for byte fallback
Corpus = str | bytes | Sequence[str]


@dataclass(frozen=True)
class Settings:
    """How a tokenizer was trained; kept apart from what it learned. Hashable: the app's cache key."""

    vocab_size: int
    level: str = "chars"
    pretokenizer: str = "gpt2"  # a preset name or a custom regex
    tie_break: str = "first"
    count_rule: str = "overlapping"
    dialect: str = ""  # the named rule set these came from, if any (see rules.DIALECTS)
    dummy_prefix: bool = False  # a space is put before every document and text (SentencePiece)
    unique_tokens: bool = False  # a merge whose token exists already was skipped
    algorithm: str = "bpe"  # one of ALGORITHMS or SUPERWORD_ALGORITHMS
    transition: int = 0  # superbpe: the vocabulary size at which merges start to cross spaces (stage 2)
    inner_split: str = ""  # superbpe, boundless: the split words are learned in (pretokenizer is then "superword")
    hf_unicode: bool = False  # split as HF tokenizers does: code points newer than its Unicode 15.1 read as unassigned


@dataclass(frozen=True, slots=True)
class Merge:
    """One merge as a class reads it: rank 1 is the first merge learned."""

    rank: int
    left: Token
    right: Token
    token: Token
    count: int  # 0 when unknown (merges replayed from a file)
    id: int  # the new token's id
    left_id: int
    right_id: int
    ties: tuple[tuple[Token, Token], ...] = ()  # other pairs with the same count (at most MAX_TIES_RECORDED)
    tokens_after: int = 0  # corpus length in tokens after this merge
    top: tuple[tuple[int, int, int], ...] = ()  # (left id, right id, count) of the best pairs before it, if recorded
    tie_ids: tuple[tuple[int, int], ...] = ()  # the ties as ids
    stage: int = 1  # superbpe: 2 for a merge learned once spaces stopped splitting; boundless: 2 for a supermerge


@dataclass(frozen=True, slots=True)
class WordPieceMerge:
    """One WordPiece merge: the pair with the best score count(ab) / (count(a) * count(b)), as a class reads it.

    Tokens are spelled WordPiece's way: `##` starts a piece that continues a word.
    """

    rank: int
    left: str
    right: str
    token: str
    count: int  # how often the pair stood side by side
    score: float  # count / (left_count * right_count)
    id: int  # the new token's id (an older id when the token existed already)
    left_id: int
    right_id: int
    left_count: int  # how often each part stood alone as a token
    right_count: int
    tokens_after: int = 0  # corpus length in tokens after this merge
    top: tuple[tuple[str, str, int, float], ...] = ()  # (left, right, count, score): the best pairs by score, winner first
    most_frequent: tuple[str, str, int, float] | None = None  # the pair BPE would take here (most frequent, first on ties)


@dataclass(frozen=True, slots=True)
class PruneRound:
    """One Unigram round: EM re-estimated the piece probabilities (dropping pieces it expects under half a time),
    then, unless the vocabulary was small enough, the pieces whose loss costs least went."""

    round: int
    vocab_before: int
    vocab_after: int
    log_likelihood: float  # of the training words under the model before pruning (higher is better)
    tokens: int  # corpus length in tokens (Viterbi) before pruning
    pruned: tuple[str, ...] = ()  # removed: first those EM found unused, then by loss, least first (at most MAX_PRUNED_RECORDED)


@dataclass
class Prepared:
    """A corpus as the trainer reads it: (base ids, count) per distinct pre-token, in corpus order."""

    alphabet: list[str] | None  # None at level bytes
    sequences: Sequence[tuple[Sequence[int], int]] = field(default_factory=list)
    corpus_bytes: int = 0
    corpus_tokens: int = 0

    @property
    def n_base(self) -> int:
        return 256 if self.alphabet is None else len(self.alphabet)


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One row of an encoding trace: the merge that fired (None at the start) and the pieces after it."""

    rank: int | None
    pieces: tuple[Token, ...]
    merge: Merge | None = None
    fired: int = 0  # how many places the merge fired


def join(left: Token, right: Token) -> Token:
    """Two tokens joined: str + str at level chars, bytes + bytes at level bytes (a table never mixes them).

    Example: join(" g", "ato") -> " gato"
    """
    return left + right  # type: ignore[operator]  # both str or both bytes: one level per tokenizer


def to_bytes(text: str) -> bytes:
    """UTF-8 bytes of text; surrogates that stand for raw bytes (invalid UTF-8 input) come back as those bytes."""
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"The text contains a lone surrogate ({text[exc.start]!r} at {exc.start}), which is not a character "
            "and has no UTF-8 form. Remove it or load the file as bytes."
        ) from exc


_SURROGATE = re.compile("[\ud800-\udfff]")


def as_tiktoken_reads(text: str) -> str:
    """Text as tiktoken reads a str that is not valid Unicode: a surrogate pair becomes its character, a lone surrogate U+FFFD.

    Example: as_tiktoken_reads("\ud83d\udc4d \ud800") -> "\U0001f44d \ufffd"
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def has_raw_bytes(text: str) -> bool:
    """True when text carries bytes that were not valid UTF-8 (as surrogateescape stand-ins)."""
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def documents_of(corpus: Corpus) -> list[str]:
    """Normalise a corpus to a list of documents; bytes become str via surrogateescape.

    Example: documents_of(["a b", "c"]) -> ["a b", "c"]
    """
    if isinstance(corpus, bytes):
        return [corpus.decode("utf-8", errors="surrogateescape")]
    if isinstance(corpus, str):
        return [corpus]
    if not isinstance(corpus, Iterable):
        raise ValueError(f"A corpus is a string, bytes or a list of strings, not {type(corpus).__name__}.")
    docs = list(corpus)
    for doc in docs:
        if not isinstance(doc, str):
            raise ValueError(f"A corpus is a string or a list of strings; got an item of type {type(doc).__name__}.")
    return docs
