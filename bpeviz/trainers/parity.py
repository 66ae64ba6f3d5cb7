"""Parity-aware BPE (Foroutan et al., 2025, arXiv 2508.04796): each merge goes to the language compressed worst.

At every step, the language whose held-out text (the UDHR's articles 6–10, aligned across languages,
so that token counts compare like with like) needs the most tokens now gets its most frequent
training pair, by the usual tie rule; the merge is then applied in every language. With a single
language this is plain BPE. `mix.train_mix(..., parity=True)` calls it.

The paper's second variant, "window", passes over a language that took more than alpha / n of the last
`window` choices (n languages), so that no language takes every merge for long; the next worst is asked.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Mapping

from bpeviz.core.errors import BpevizError
from bpeviz.core.gc import paused_gc
from bpeviz.core.ids import RawMerge
from bpeviz.core.records import to_bytes
from bpeviz.core.rules import Rules
from bpeviz.engine.python import CorpusState

VARIANTS = ("base", "window")
WINDOW, ALPHA = 100, 2.0  # the window variant's defaults, as the paper's code and HF's ParityBpeTrainer have them


def parity_merges(groups: Mapping[str, Counter[str]], heldout: Mapping[str, Counter[str]], n_merges: int, rules: Rules,
                  progress: Callable[[int, int], None] | None = None, *, variant: str = "base", window: int = WINDOW,
                  alpha: float = ALPHA) -> tuple[list[RawMerge], list[str]]:
    """Byte-level merges chosen language by language, and the language each was chosen for.

    groups: language -> its weighted training pre-token counts; heldout: language -> its held-out counts.
    """
    missing = [lang for lang in groups if lang not in heldout]
    if missing:
        raise BpevizError("parity_heldout", f"Parity-aware training needs held-out text in every language; "
                          f"{missing[0]!r} has none.", language=missing[0])
    if variant not in VARIANTS or window < 1 or not 0 < alpha < float("inf"):
        raise ValueError(f"variant is one of {', '.join(VARIANTS)}, with window >= 1 and alpha > 0.")
    with paused_gc():
        train = {lang: CorpusState([(to_bytes(w), n) for w, n in counts.items()], rules) for lang, counts in groups.items()}
        held = {lang: CorpusState([(to_bytes(w), n) for w, n in heldout[lang].items()], rules) for lang in groups}
        merges: list[RawMerge] = []
        chosen: list[str] = []
        order = list(groups)
        recent: deque[str] = deque(maxlen=window)  # the window variant's last choices
        exhausted: set[str] = set()  # languages with no pair left (merges never give one back)
        while len(merges) < n_merges and len(exhausted) < len(order):
            lengths = [float("-inf") if lang in exhausted else held[lang].tokens for lang in order]
            lang = order[_worst(lengths) if variant == "base" else _worst_in_window(lengths, order, recent, alpha)]
            if variant == "window":
                recent.append(lang)
            best = train[lang].best()
            if best is None:
                exhausted.add(lang)
                continue
            pair, token = best[1], 256 + len(merges)
            count = sum(state.count(pair) for state in train.values())
            for state in (*train.values(), *held.values()):
                state.merge(pair, token)
            merges.append(RawMerge(pair[0], pair[1], token, count, (), sum(s.tokens for s in train.values())))
            chosen.append(lang)
            if progress is not None and (len(merges) % 64 == 1 or len(merges) == n_merges):
                progress(len(merges), n_merges)
    return merges, chosen


def _worst(lengths: list[float], allowed: list[bool] | None = None) -> int:
    """The language with the most held-out tokens, the first on ties (0 when none is allowed and above -inf)."""
    best, value = 0, float("-inf")
    for k, length in enumerate(lengths):
        if (allowed is None or allowed[k]) and length > value:
            best, value = k, length
    return best


def _worst_in_window(lengths: list[float], order: list[str], recent: deque[str], alpha: float) -> int:
    """The worst language that took at most alpha / n of the window's choices; the last one asked if none did."""
    allowed = [True] * len(order)
    share = alpha / len(order)
    while True:  # each turn rules one language out or returns
        k = _worst(lengths, allowed)
        if not allowed[k] or recent.count(order[k]) / (recent.maxlen or 1) <= share:
            return k  # (ruled out already: only languages with no pair were left; HF's loop would not end there)
        allowed[k] = False
        if not any(allowed):
            return k


def gini(values: list[float] | tuple[float, ...]) -> float:
    """The Gini coefficient: mean absolute difference over twice the mean; 0 when all are equal.

    Example: gini([1, 1, 1]) -> 0.0; gini([0, 0, 1]) -> 0.666...
    """
    xs = [float(v) for v in values]
    if not xs:
        raise ValueError("The Gini coefficient needs at least one value.")
    if any(x < 0 for x in xs):
        raise ValueError("The Gini coefficient is for values of 0 or more (premiums, token counts).")
    mean = sum(xs) / len(xs)
    if mean == 0:
        return 0.0
    xs.sort()
    n = len(xs)
    weighted = sum((2 * (i + 1) - n - 1) * x for i, x in enumerate(xs))  # = sum over pairs of |xi - xj| / 2, sorted
    return weighted / (n * n * mean)
