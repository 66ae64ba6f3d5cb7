"""The rules behind a merge, as named data: how pairs are counted, how ties are broken, and the
dialects (sets of rules) that real trainers follow.

The trainer, the step replay, the naive oracle's tests and the views all read these records;
none re-implements a rule. Two implementations differ in these small rules, not in BPE.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .byte_chars import BYTE_CHARS
from .ids import Pair
from .records import join


def _hf_byte_order() -> list[int]:
    """Where HF tokenizers puts each byte: its ByteLevel alphabet (GPT-2's byte stand-ins) sorted by code point."""
    order = sorted(range(256), key=lambda b: ord(BYTE_CHARS[b]))
    position = [0] * 256
    for rank, byte in enumerate(order):
        position[byte] = rank
    return position


HF_BYTE_ORDER = _hf_byte_order()  # byte -> its id in HF's ByteLevel vocabulary


@dataclass(frozen=True)
class TieRule:
    """How the trainer orders pairs with the same count; the smaller key wins.

    kind: "position" (first occurrence in the corpus), "ids" (the pair of ids), "hf-ids" (ids with
    bytes in HF's order), "text" (the shorter merged token, then the smaller one as UTF-8), "hf-spelled-max"
    (the larger pair of token spellings in HF's ByteLevel alphabet, left then right).
    """

    name: str
    description: str
    kind: str

    @property
    def uses_position(self) -> bool:
        return self.kind == "position"

    @property
    def reads_texts(self) -> bool:
        return self.kind in ("text", "hf-spelled-max")

    def order(self, pair: Pair, first_seen: int, texts: Sequence[str | bytes] = ()) -> object:
        """The key of a pair: first_seen is where it first occurs in corpus order; texts name ids (kind "text")."""
        if self.kind == "position":
            return first_seen
        if self.kind == "hf-ids":
            return hf_key(pair)
        if self.kind == "text":
            return text_key(texts[pair[0]], texts[pair[1]])
        if self.kind == "hf-spelled-max":
            return (_larger_first(texts[pair[0]]), _larger_first(texts[pair[1]]))
        return pair


def hf_key(pair: Pair) -> Pair:
    left, right = pair
    return (HF_BYTE_ORDER[left] if left < 256 else left, HF_BYTE_ORDER[right] if right < 256 else right)


def _larger_first(token: str | bytes) -> tuple[int, ...]:
    """A key under which the larger spelling (HF's ByteLevel characters, compared as Python compares strings) comes
    first: each character's code point negated, then 1, so that a spelling sorts after the longer ones it starts."""
    raw = token if isinstance(token, bytes) else token.encode("utf-8", "surrogateescape")
    return (*(-ord(BYTE_CHARS[b]) for b in raw), 1)


def text_key(left: str | bytes, right: str | bytes) -> tuple[int, bytes]:
    """Length, then UTF-8, of the merged token, a space written as SentencePiece's ▁ (which sorts after letters)."""
    merged = join(left, right)
    raw = merged if isinstance(merged, bytes) else merged.encode("utf-8", "surrogateescape")
    return (len(merged), raw.replace(b" ", "▁".encode()))


TIE_RULES: dict[str, TieRule] = {
    "first": TieRule("first", "the pair that occurs first when the corpus is read in order", "position"),
    "smallest": TieRule("smallest", "the pair with the smallest ids (left id, then right id)", "ids"),
    "hf": TieRule("hf", "the pair with the smallest ids, bytes numbered in HF tokenizers' ByteLevel order", "hf-ids"),
    "sentencepiece": TieRule("sentencepiece", "the shorter merged token, then the smaller one as UTF-8 (SentencePiece)", "text"),
}
TIE_BREAKS = tuple(TIE_RULES)
# Not a choice of its own (one trainer's, with parity only): the tie rule of HF tokenizers' ParityBpeTrainer.
HF_PARITY_TIE = TieRule("hf-parity", "the pair whose tokens, spelled in HF's ByteLevel alphabet, are the larger strings "
                        "(left, then right), as the paper's Python max() picks", "hf-spelled-max")


@dataclass(frozen=True)
class CountRule:
    """How occurrences of a pair are counted in a run of the same token (only `a a` pairs differ)."""

    name: str
    description: str
    overlapping: bool


COUNT_RULES: dict[str, CountRule] = {
    "overlapping": CountRule("overlapping", "every adjacent position counts: in aaaaa the pair a a occurs 4 times", True),
    "nonoverlapping": CountRule("nonoverlapping", "only what one left-to-right merge can replace: in aaaaa, 2", False),
}


@dataclass(frozen=True)
class Dialect:
    """A named set of rules that a real trainer follows; None leaves a setting to the caller."""

    name: str
    description: str
    level: str | None
    pretokenizer: str | None
    tie_break: str
    count_rule: str
    split_as: tuple[tuple[str, str], ...] = ()  # a preset this trainer's regex engine reads differently -> its reading
    unique_tokens: bool = False  # a merge whose token already exists is skipped, not learned twice
    dummy_prefix: bool = False  # every document starts with a space (SentencePiece's add_dummy_prefix)
    reads_15_1: bool = False  # its regex engine reads Unicode 15.1: newer code points split as unassigned (HF's)
    library: str = ""  # what to compare it with
    parity_tie: TieRule | None = None  # the tie rule of this library's parity-aware trainer, where it differs


DIALECTS: dict[str, Dialect] = {
    "minbpe": Dialect("minbpe", "Karpathy's minbpe RegexTokenizer: bytes, the GPT-4 split as minbpe writes it (no \\s++$, "
                      "whitespace runs end in \\s+), overlapping counts, the first pair to occur wins a tie", "bytes",
                      "gpt4", "first", "overlapping", split_as=(("gpt4", "gpt4-minbpe"),), library="minbpe (not on PyPI)"),
    "hf": Dialect("hf", "Hugging Face tokenizers' BpeTrainer: bytes (ByteLevel alphabet), overlapping counts, a tie goes to "
                  "the smallest pair of ids in HF's byte order; its regex engine reads \\p{N}{1,3}+ as a repeated group and "
                  "Unicode 15.1 (a newer letter is no letter there)",
                  "bytes", None, "hf", "overlapping", split_as=(("gpt4", "gpt4-hf"),), reads_15_1=True,
                  library="tokenizers", parity_tie=HF_PARITY_TIE),
    "sentencepiece-bpe": Dialect("sentencepiece-bpe", "SentencePiece's BPE trainer: characters, a space (▁) starts each "
                                 "word and each sentence, only spaces split, overlapping counts, a tie goes to the shorter "
                                 "then the smaller piece, a piece made twice is learned once, U+001F never joins a piece; it "
                                 "stops at the last pair", "chars", "sentencepiece",
                                 "sentencepiece", "overlapping", unique_tokens=True, dummy_prefix=True, library="sentencepiece"),
    "tiktoken-educational": Dialect("tiktoken-educational", "tiktoken's educational bpe_train: bytes, GPT-2's pattern as "
                                    "first published, overlapping counts, the first pair to occur wins a tie", "bytes",
                                    "gpt2-original", "first", "overlapping", library="tiktoken._educational"),
}


def tie_rule(name: str) -> TieRule:
    """The tie rule called name, or a ValueError that lists the choices."""
    if name not in TIE_RULES:
        raise ValueError(f"Unknown tie-break rule {name!r}; use one of {', '.join(TIE_RULES)}.")
    return TIE_RULES[name]


def count_rule(name: str) -> CountRule:
    if name not in COUNT_RULES:
        raise ValueError(f"Unknown counting rule {name!r}; use one of {', '.join(COUNT_RULES)}.")
    return COUNT_RULES[name]


def dialect(name: str) -> Dialect:
    if name not in DIALECTS:
        raise ValueError(f"Unknown dialect {name!r}; use one of {', '.join(DIALECTS)}.")
    return DIALECTS[name]


def count_pairs(words: Sequence[Sequence[int]], weights: Sequence[int], rule: CountRule) -> dict[Pair, int]:
    """Pair counts over weighted words, in first-occurrence order, by the counting rule.

    Non-overlapping: in a run of one token, every other position counts (what a merge replaces).
    Example: count_pairs([[1, 1, 1, 1, 1]], [1], COUNT_RULES["nonoverlapping"]) -> {(1, 1): 2}
    """
    counts: dict[Pair, int] = {}
    for ids, weight in zip(words, weights):
        skip = -1  # a position whose `a a` overlaps the one just counted
        for i, pair in enumerate(zip(ids, ids[1:])):
            if i == skip and pair[0] == pair[1]:
                continue
            counts[pair] = counts.get(pair, 0) + weight
            if not rule.overlapping and pair[0] == pair[1]:
                skip = i + 1
    return counts


@dataclass(frozen=True)
class Rules:
    """What the trainer needs to know of the rules: the tie rule, the counting rule, and texts for rules that read tokens."""

    tie: TieRule
    overlapping: bool = True
    texts: tuple[str | bytes, ...] = ()  # base id -> its text, for the "text" tie rule and unique tokens
    unique_tokens: bool = False  # skip a merge whose token text already exists (SentencePiece)


def rules_for(tie_break: str = "first", count_rule_name: str = "overlapping", texts: Sequence[str | bytes] | None = None,
              unique_tokens: bool = False) -> Rules:
    """The trainer's rules from their registry names (ValueError for unknown names)."""
    tie = tie_rule(tie_break)
    needs_texts = tie.reads_texts or unique_tokens
    if needs_texts and texts is None:
        raise ValueError("This tie rule (or unique tokens) needs the text of every base symbol.")
    return Rules(tie, count_rule(count_rule_name).overlapping, tuple(texts or ()) if needs_texts else (), unique_tokens)


def parity_rules(dialect_name: str, tie_break: str, count_rule_name: str, texts: Sequence[str | bytes]) -> Rules:
    """A parity-aware trainer's rules: the dialect's own tie rule for parity where it has one (HF's), else the usual."""
    own = dialect(dialect_name).parity_tie if dialect_name else None
    if own is None:
        return rules_for(tie_break, count_rule_name, texts)
    return Rules(own, count_rule(count_rule_name).overlapping, tuple(texts))
