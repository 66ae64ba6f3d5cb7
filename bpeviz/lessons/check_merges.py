"""Check my merges: a merge list from a student's own trainer against bpeviz's, the first difference explained.

`bpeviz.check(merges, corpus, convention="minbpe")` replays the student's merges on the corpus under a trainer's
conventions (its level, split, counting and tie rule: rules.DIALECTS) and stops at the first merge the conventions
would not make; then it looks for the one rule that, changed, makes the student's list right further on (a tie
rule, counting without overlaps, another split, characters or bytes), as the Rules page explains two runs.
Merges are read as a list of pairs (str or bytes), minbpe's dict {(id, id): id}, or HF's ["a b", ...] strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bpeviz.core.byte_chars import CHAR_BYTES
from bpeviz.core.errors import BpevizError, cut
from bpeviz.core.records import Corpus, Settings, Token
from bpeviz.core.rules import COUNT_RULES, TIE_RULES
from bpeviz.trainers.settings import resolve_settings

from . import checker, render

CONVENTIONS = {"bpeviz": None, "minbpe": "minbpe", "hf": "hf", "sentencepiece": "sentencepiece-bpe",
               "tiktoken-educational": "tiktoken-educational"}  # convention -> dialect
SPLITS = ("gpt2", "gpt4", "gpt4-minbpe", "gpt4-hf", "o200k", "gpt2-original", "words", "sentencepiece", "none")
LOOK_AHEAD = 50  # merges past the first difference an alternative rule must also explain


@dataclass(frozen=True)
class CheckResult:
    """What checking found: the verdict of each merge up to the first wrong one, and why it differs."""

    convention: str
    settings: Settings
    verdicts: tuple[checker.Verdict, ...]
    n_merges: int
    first_wrong: int | None  # 1-based; None when every merge is one the conventions make
    explanation: str
    likely: str  # the one rule that, changed, explains the student's list further on ("" if none does)

    @property
    def ok(self) -> bool:
        return self.first_wrong is None

    def __str__(self) -> str:
        return self.explanation

    def _repr_markdown_(self) -> str:
        return render.md(self.explanation).replace("\n", "  \n")


def as_pairs(merges: object) -> list[tuple[Token, Token]]:
    """A merge list in any of the three shapes as pairs of tokens, in order."""
    if isinstance(merges, Mapping):  # minbpe: {(left id, right id): new id}, ids above 255 made by earlier merges
        vocab: dict[int, bytes] = {b: bytes([b]) for b in range(256)}
        out: list[tuple[Token, Token]] = []
        for (a, b), new in sorted(merges.items(), key=lambda item: item[1]):
            if a not in vocab or b not in vocab:
                raise BpevizError("check_merges", f"merge {new} joins ids {a} and {b}, which no earlier merge makes.")
            vocab[new] = vocab[a] + vocab[b]
            out.append((vocab[a], vocab[b]))
        return out
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Sequence):
        raise BpevizError("check_merges", "merges are a list of pairs, minbpe's dict, or HF's list of \"a b\" strings.")
    return [_pair(m, k) for k, m in enumerate(merges, start=1)]


def _pair(m: object, k: int) -> tuple[Token, Token]:
    if isinstance(m, str):  # HF: "Ġt he", each side in ByteLevel's characters
        parts = m.split(" ")
        if len(parts) != 2 or not all(parts):
            raise BpevizError("check_merges", f"merge {k} is {cut(m)}; HF writes a merge as \"left right\".")
        return _from_byte_level(parts[0]), _from_byte_level(parts[1])
    if isinstance(m, (tuple, list)) and len(m) == 2 and all(isinstance(x, (str, bytes)) and x for x in m):
        return m[0], m[1]
    raise BpevizError("check_merges", f"merge {k} is {cut(m)}, not a pair of tokens.")


def _from_byte_level(text: str) -> Token:
    return bytes(CHAR_BYTES[c] for c in text) if all(c in CHAR_BYTES for c in text) else text


def _settings(convention: str, pairs: list[tuple[Token, Token]], **given: object) -> Settings:
    if convention not in CONVENTIONS:
        raise BpevizError("check_convention", f"Unknown convention {convention!r}; choose one of {', '.join(CONVENTIONS)}.")
    level = given.pop("level", None) or ("bytes" if pairs and isinstance(pairs[0][0], bytes) else None)
    return resolve_settings(256 + len(pairs), level=level, dialect=CONVENTIONS[convention], **given)  # type: ignore[arg-type]


def _rows(pairs: list[tuple[Token, Token]], settings: Settings) -> list[checker.Row]:
    as_level = [(_level(a, settings.level), _level(b, settings.level)) for a, b in pairs]
    return [checker.Row(k, a, b) for k, (a, b) in enumerate(as_level, start=1)]


def _level(token: Token, level: str) -> Token:
    if level == "bytes":
        return token if isinstance(token, bytes) else token.encode("utf-8")
    return token if isinstance(token, str) else token.decode("utf-8", "surrogateescape")


def _first_wrong(verdicts: list[checker.Verdict]) -> int | None:
    return next((v.row.line for v in verdicts if not v.ok or v.status == "tie" and v.best is not None
                 and (v.best[0], v.best[1]) != (v.row.left, v.row.right)), None)


def check(merges: object, corpus: Corpus, convention: str = "bpeviz", **settings: object) -> CheckResult:
    """The student's merges against bpeviz's under a trainer's conventions, the first difference explained.

    settings override the convention's (pretokenizer="gpt4", tie_break="smallest", ...).
    Example: bpeviz.check(minbpe_tokenizer.merges, text, convention="minbpe").ok -> True
    """
    pairs = as_pairs(merges)
    if not pairs:
        raise BpevizError("check_merges", "There are no merges to check.")
    chosen = _settings(convention, pairs, **settings)
    rows = _rows(pairs, chosen)
    verdicts = checker.check_table(rows, corpus, chosen)
    wrong = _first_wrong(verdicts)
    if wrong is None and len(verdicts) == len(rows):
        return CheckResult(convention, chosen, tuple(verdicts), len(rows), None,
                           f"All {len(rows):,} merges are the ones {convention}'s conventions make on this corpus.", "")
    wrong = wrong if wrong is not None else verdicts[-1].row.line
    said = checker.explain(verdicts[wrong - 1]).split(": ", 1)[1]  # without its "line N: "
    likely = _likely(rows, corpus, chosen, wrong)
    why = f" They follow {likely} instead: changed, that one rule makes them right at least {LOOK_AHEAD} merges further." \
        if likely else " No single rule changed (ties, counting, split, level) explains it: check the merge itself."
    return CheckResult(convention, chosen, tuple(verdicts), len(rows), wrong,
                       f"{_agree(wrong - 1, convention)} merge {wrong}: {said}.{why}", likely)


def _agree(n: int, convention: str) -> str:
    if n == 0:
        return f"The very first merge parts from {convention}'s:"
    return f"The first merge agrees with {convention}'s;" if n == 1 else f"The first {n:,} merges agree with {convention}'s;"


def _likely(rows: list[checker.Row], corpus: Corpus, settings: Settings, wrong: int) -> str:
    """The one changed rule under which the rows stay right furthest past `wrong` (at least LOOK_AHEAD more)."""
    head = rows[:wrong + LOOK_AHEAD]
    need = min(len(head), wrong + LOOK_AHEAD)
    tried: list[tuple[str, Settings]] = [(f"the {name!r} tie rule", replace(settings, tie_break=name))
                                         for name in TIE_RULES if name != settings.tie_break]
    tried += [(f"{name} counting", replace(settings, count_rule=name)) for name in COUNT_RULES if name != settings.count_rule]
    tried += [(f"the {name!r} split", replace(settings, pretokenizer=name)) for name in SPLITS if name != settings.pretokenizer]
    best, reach = "", wrong
    for label, other in tried:
        try:
            verdicts = checker.check_table(head, corpus, other)
        except ValueError:
            continue
        right = _first_wrong(verdicts)
        got = (right - 1) if right is not None else len(verdicts)
        if got >= need and got > reach:
            best, reach = label, got
    return best
