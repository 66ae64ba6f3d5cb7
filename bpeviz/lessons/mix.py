"""Who pays: train on a mix of languages, say which language each merge came from, and measure held-out premiums.

The UDHR ships in 26 languages, aligned document by document (title, preamble, articles 1–10).
Training uses the title, the preamble and articles 1–5 of the chosen languages, each language's
pre-token counts multiplied by its weight; the held-out part is articles 6–10 in every language,
so the premium (a language's tokens / English's tokens on the same articles) compares like with
like. Each merge's count is split by language by replaying the merges on each language's own
counts: the shares add up to the merge's count, because a word's segmentation at a step does not
depend on where the word came from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bpeviz.core.errors import BpevizError
from bpeviz.core.records import Settings, to_bytes
from bpeviz.core.rules import parity_rules, rules_for
from bpeviz.counting.blocks import CountTable
from bpeviz.data import corpora
from bpeviz.engine import ENCODER
from bpeviz.engine.python import replay_ids
from bpeviz.models.bpe import Tokenizer, build
from bpeviz.pre_tokenizers import splits
from bpeviz.trainers.parity import VARIANTS, gini, parity_merges
from bpeviz.trainers.settings import resolve_settings
from bpeviz.trainers.training import train_counts

__all__ = ["HELDOUT_FROM", "MAX_WEIGHT", "PRESETS", "MixRun", "attribute", "check_weights", "fairness", "gini",
           "heldout_text", "heldout_tokens", "mix_settings", "premiums", "train_mix", "training_documents"]

HELDOUT_FROM = 7  # documents 7..11 (articles 6–10) are held out in every language
PRESETS: dict[str, dict[str, int]] = {  # named mixes: language -> weight
    "english": {"en": 1},
    "portuguese": {"pt": 1},
    "equal": dict.fromkeys(corpora.UDHR_LANGUAGES, 1),
    "european": {code: 1 for code in ("en", "pt", "pt-PT", "es", "fr", "de", "it", "nl", "pl")},
}


@dataclass(frozen=True)
class MixRun:
    """A tokenizer trained on a language mix, with each merge's count split by language."""

    tok: Tokenizer
    weights: dict[str, int]
    attribution: dict[str, list[int]]  # language -> its part of each merge's count, in merge order
    parity_language: tuple[str, ...] = ()  # parity-aware runs: the language merge k was chosen for

    def winner(self, k: int) -> str | None:
        """The language that gave merge k (0-based) most of its count; None if the merge never occurred."""
        best = max(self.attribution, key=lambda lang: self.attribution[lang][k], default=None)
        return best if best is not None and self.attribution[best][k] > 0 else None

    def wins(self) -> dict[str, list[int]]:
        """language -> how many of the first k + 1 merges it won, for every k (the stacked area chart)."""
        running = dict.fromkeys(self.attribution, 0)
        out: dict[str, list[int]] = {lang: [] for lang in self.attribution}
        for k in range(len(self.tok.merges)):
            won = self.winner(k)
            if won is not None:
                running[won] += 1
            for lang in out:
                out[lang].append(running[lang])
        return out

    def first_won(self, lang: str, n: int = 5) -> list[int]:
        """The first n merges (0-based) the language won."""
        return [k for k in range(len(self.tok.merges)) if self.winner(k) == lang][:n]


def training_documents(lang: str) -> list[str]:
    return corpora.documents(f"udhr-{lang}")[:HELDOUT_FROM]


def heldout_text(lang: str) -> str:
    return "\n".join(corpora.documents(f"udhr-{lang}")[HELDOUT_FROM:])


MAX_WEIGHT = 1_000  # a language counted a thousand times over is already all the mix


def check_weights(weights: Mapping[str, int]) -> dict[str, int]:
    """Known languages with whole weights from 0 to MAX_WEIGHT; at least one above zero. ValueError names a bad one."""
    if not isinstance(weights, Mapping):
        raise ValueError(f"The weights are a mapping of language to weight, like {{'en': 1, 'pt': 2}}, not "
                         f"{type(weights).__name__}.")
    unknown = [lang for lang in weights if lang not in corpora.UDHR_LANGUAGES]
    if unknown:
        raise ValueError(f"Unknown UDHR language {unknown[0]!r}; choose from {', '.join(corpora.UDHR_LANGUAGES)}.")
    for lang, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= MAX_WEIGHT:
            raise ValueError(f"The weight of {lang!r} must be a whole number from 0 to {MAX_WEIGHT:,}, not {str(w)[:20]!r}.")
    clean = {lang: w for lang, w in weights.items() if w > 0}
    if not clean:
        raise ValueError("Give at least one language a weight above 0 (weights are whole numbers, 0 leaves a language out).")
    return clean


def train_mix(weights: Mapping[str, int], vocab_size: int, *, level: str = "bytes", pretokenizer: str = "gpt4",
              progress: Callable[[int, int], None] | None = None, parity: bool | str = False, dialect: str = "") -> MixRun:
    """Train on the weighted mix and attribute every merge. Example: train_mix({"en": 1}, 1024).winner(0) -> "en"

    parity=True (or "base") trains parity-aware (parity.py): each merge is the best pair of the language whose
    held-out articles take the most tokens at that step; run.parity_language says which. It runs at level bytes.
    parity="window": the paper's moving-window variant (a language that took over 2/n of the last 100 is passed over).
    dialect: a trainer's rules (rules.DIALECTS); "hf" reads the split and breaks ties as HF tokenizers' trainers do.
    """
    weights = check_weights(weights)
    if dialect:
        pretokenizer = resolve_settings(vocab_size, level=level, pretokenizer=pretokenizer, dialect=dialect).pretokenizer
    groups: dict[str, Counter[str]] = {}
    for lang, weight in weights.items():
        counts = splits.count_pieces(training_documents(lang), pretokenizer)
        groups[lang] = Counter({word: n * weight for word, n in counts.items()})
    if parity:
        variant = "base" if parity is True else str(parity)
        return _train_parity(weights, groups, vocab_size, level, pretokenizer, progress, dialect, variant)
    total: Counter[str] = Counter()
    for counts in groups.values():
        total.update(counts)
    tok = train_counts(CountTable(total, pretokenizer), vocab_size=vocab_size, level=level, progress=progress,
                       dialect=dialect or None)
    return MixRun(tok, weights, attribute(tok, groups))


def _train_parity(weights: dict[str, int], groups: dict[str, Counter[str]], vocab_size: int, level: str, pretokenizer: str,
                  progress: Callable[[int, int], None] | None, dialect: str = "", variant: str = "base") -> MixRun:
    if variant not in VARIANTS:
        raise BpevizError("parity_variant", f"parity is True, \"base\" or \"window\", not {variant[:20]!r}.",
                          variant=variant[:20])
    if level != "bytes":
        raise BpevizError("parity_level", "Parity-aware training runs at level 'bytes' (held-out text may hold characters "
                          "the training text lacks).", level=level)
    settings = resolve_settings(vocab_size, level=level, pretokenizer=pretokenizer, dialect=dialect or None)
    if settings.vocab_size < 256:
        raise BpevizError("vocab_too_small", f"vocab_size {settings.vocab_size} is smaller than the 256 bytes; choose at "
                          "least 256.", vocab=settings.vocab_size, base=256, level=level)
    heldout = {lang: splits.count_pieces([heldout_text(lang)], pretokenizer) for lang in groups}
    texts = [bytes([b]) for b in range(256)]
    raw, chosen = parity_merges(groups, heldout, settings.vocab_size - 256,
                                parity_rules(dialect, settings.tie_break, settings.count_rule, texts), progress,
                                variant=variant)
    total_bytes = sum(len(to_bytes(word)) * n for counts in groups.values() for word, n in counts.items())
    tok = build(settings, None, raw, corpus_bytes=total_bytes, corpus_tokens=total_bytes, engine="python", encoder=ENCODER)
    return MixRun(tok, weights, attribute(tok, groups), tuple(chosen))


def heldout_tokens(tok: Tokenizer, languages: Sequence[str]) -> dict[str, list[int]]:
    """language -> its held-out articles' length in tokens before any merge, then after each of tok's merges."""
    pairs = [(m.left_id, m.right_id) for m in tok.merges]
    texts = [tok.token_of(i) for i in range(tok.n_base)]
    rules = rules_for(tok.settings.tie_break, tok.settings.count_rule, texts)
    out = {}
    for lang in languages:
        counts = splits.count_pieces([heldout_text(lang)], tok.settings.pretokenizer)
        sequences = [(tok.base_ids(word), n) for word, n in counts.items()]
        start = sum(len(ids) * n for ids, n in sequences)
        out[lang] = [start] + [raw.tokens_after for raw in replay_ids(sequences, pairs, tok.n_base, rules=rules)]
    return out


def fairness(tok: Tokenizer, languages: Sequence[str], points: int = 24) -> list[dict]:
    """At about `points` vocabulary sizes: the Gini of the languages' held-out premiums (tokens / English's) and
    their total held-out tokens, the price of fairness."""
    langs = list(dict.fromkeys(languages))
    curves = heldout_tokens(tok, list(dict.fromkeys(["en", *langs])))
    n = len(tok.merges)
    steps = sorted({round(n * k / points) for k in range(points + 1)})
    rows = []
    for k in steps:
        english = curves["en"][k]
        rows.append({"merges": k, "vocab_size": tok.n_base + k, "total_tokens": sum(curves[lang][k] for lang in langs),
                     "gini": gini([curves[lang][k] / english for lang in langs]) if english else 0.0})
    return rows


def attribute(tok: Tokenizer, groups: Mapping[str, Counter[str]]) -> dict[str, list[int]]:
    """Each group's part of each merge's count: tok's merges replayed on the group's own pre-token counts."""
    pairs = [(m.left_id, m.right_id) for m in tok.merges]
    texts = [tok.token_of(i) for i in range(tok.n_base)]
    rules = rules_for(tok.settings.tie_break, tok.settings.count_rule, texts)
    out = {}
    for name, counts in groups.items():
        sequences = [(tok.base_ids(word), n) for word, n in counts.items()]
        out[name] = [raw.count for raw in replay_ids(sequences, pairs, tok.n_base, rules=rules)]
    return out


def premiums(encoders: Mapping[str, Callable[[str], Sequence[int]]], languages: Sequence[str] | None = None
             ) -> list[dict]:
    """Held-out tokens, tokens per word and premium (÷ English) per language and tokenizer."""
    from .metrics import count_words

    languages = list(languages or corpora.UDHR_LANGUAGES)
    texts = {lang: heldout_text(lang) for lang in dict.fromkeys(["en", *languages])}
    rows = []
    for name, encode in encoders.items():
        english = len(encode(texts["en"]))
        for lang in languages:
            n = len(encode(texts[lang]))
            words = count_words(texts[lang])
            rows.append({"language": lang, "tokenizer": name, "tokens": n, "tokens_per_word": n / words if words else 0.0,
                         "premium": n / english if english else 0.0})
    return rows


def mix_settings(vocab_size: int, level: str = "bytes", pretokenizer: str = "gpt4") -> Settings:
    """The settings a mix trains with (for cache keys)."""
    return Settings(vocab_size=vocab_size, level=level, pretokenizer=pretokenizer)
