"""Settings resolved once: train's arguments (an algorithm, a dialect, rules, a split) in, one `Settings` out.

What is given wins, then the dialect's rule, then bpeviz's default; every name is checked against its registry here,
so the trainers receive a `Settings` value and never resolve a name again.
"""

from __future__ import annotations

import operator
from dataclasses import replace
from typing import Any

from bpeviz.core import rules
from bpeviz.core.errors import BpevizError
from bpeviz.core.records import ALGORITHM_SPECS, LEVELS, MAX_VOCAB_SIZE, Algorithm, Settings
from bpeviz.pre_tokenizers import splits
from bpeviz.pre_tokenizers.splits import SUPERWORD_SPLIT


def check_vocab_size(vocab_size: object) -> int:
    """vocab_size as an int (NumPy integers accepted), or a ValueError that says what is wrong."""
    if isinstance(vocab_size, bool):
        raise ValueError(f"vocab_size must be a whole number, not {vocab_size!r}.")
    try:
        size = operator.index(vocab_size)  # type: ignore[arg-type]  # any object: a TypeError is the answer
    except TypeError:
        raise ValueError(f"vocab_size must be a whole number, not {vocab_size!r}.") from None
    if size > MAX_VOCAB_SIZE:
        raise BpevizError("vocab_too_large", f"vocab_size {size:,} is too large; the most bpeviz trains is {MAX_VOCAB_SIZE:,}.",
                          vocab=size, cap=MAX_VOCAB_SIZE)
    return size


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
        pretokenizer = pretokenizer if pretokenizer is not None or dialect else spec.default_split
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
                    unique_tokens=bool(d and d.unique_tokens), hf_unicode=bool(d and d.reads_15_1))


def algorithm_spec(algorithm: object) -> Algorithm:
    """The registry entry (records.ALGORITHM_SPECS) of an algorithm's name, or a BpevizError that lists them."""
    if not isinstance(algorithm, str) or algorithm not in ALGORITHM_SPECS:
        raise BpevizError("unknown_algorithm", f"Unknown algorithm {algorithm!r}; choose one of "
                          f"{', '.join(ALGORITHM_SPECS)}.", algorithm=str(algorithm)[:40])
    return ALGORITHM_SPECS[algorithm]


def _superword_settings(vocab_size: object, spec: Algorithm, transition: int | None, **given: Any) -> Settings:
    """BPE's settings for the words, then the superword split; the transition where the algorithm takes one."""
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
    splits.resolve(pretokenizer)
    return Settings(vocab_size=check_vocab_size(vocab_size), level="chars", pretokenizer=pretokenizer,
                    dummy_prefix=bool(spec.dummy_prefix_split) and pretokenizer == spec.dummy_prefix_split,
                    algorithm=spec.name)


def check_transition(transition: object, vocab_size: int) -> int:
    """The transition vocabulary size as an int: None means vocab_size (plain BPE); below 1 or not whole is an error."""
    if transition is None:
        return vocab_size
    if isinstance(transition, bool) or not isinstance(transition, int) or transition < 1:
        raise BpevizError("bad_transition", f"transition is the vocabulary size at which SuperBPE starts to merge across "
                          f"spaces: a whole number from the base symbols up to vocab_size ({vocab_size:,}), not "
                          f"{str(transition)[:20]!r}.", transition=str(transition)[:20])
    return min(transition, vocab_size)
