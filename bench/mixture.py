"""Mixture inference, measured where a user meets it: tokenizers trained here on random known mixes, inferred from
samples that are not their training text (issue 46). Prints the mean and largest error, in points, per mix size and
per way of keeping the samples apart from the training text:

- documents: the training text and each sample are separate draws of DRAWN words from a language's frequencies
  (wordfreq): no document in common, the same source, as in Hayase et al.'s controlled experiments;
- words: the training text is every other word of each word list by rank, the samples the other half: no *word* in
  common (harsher than any two texts: "the" is in one half only);
- udhr: for the languages bpeviz ships the Declaration in, its articles (another source, ~10 KB a language);
- help: trained as for documents, inferred from software manuals in each language (another source: LibreOffice's,
  GNOME's and GIMP's help, 0.12-8 MB a language; bench/help_text.py says how to fetch them, once, by hand). The
  mixes are then drawn from the languages the folders given have: 31 for the three;
- help-trained: the other way round, as `bpeviz infer-mix` reads a real tokenizer: trained on the help (real prose),
  inferred from the word-list samples the product uses by default (lessons/samples.word_list).

    python bench/mixture.py                         # 5 and 10 languages, 3 mixes each, 2 000 merges
    python bench/mixture.py --sizes 5 10 30 --mixes 5 --merges 3000
    python bench/mixture.py --designs documents help help-trained --sizes 5 10 30 \
        --help-text /tmp/help-text /tmp/gnome-text /tmp/gimp-text
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bpeviz  # noqa: E402
from bpeviz.counting.tables import CountTable  # noqa: E402
from bpeviz.data import corpora  # noqa: E402
from bpeviz.lessons import inspect, mixture, samples  # noqa: E402
from bpeviz.pre_tokenizers import splits  # noqa: E402

DRAWN = 300_000  # words drawn for a training text's language, and again for its sample


def drawn(lang: str, split, rng, n: int = DRAWN) -> Counter:
    """n word uses drawn from the language's frequencies (its WORDS most frequent words), as pre-token counts."""
    import numpy as np
    import wordfreq

    items = list(wordfreq.get_frequency_dict(lang, wordlist="best").items())[:samples.WORDS]
    shares = np.array([share for _, share in items])
    space = "" if lang in samples.NO_SPACES else " "
    out: Counter = Counter()
    for (word, _), k in zip(items, rng.multinomial(n, shares / shares.sum())):
        for piece in split(space + word) if k else ():
            out[piece] += int(k)
    return out


def train_on(weights: dict[str, float], n_merges: int, texts: dict[str, Counter]) -> bpeviz.Tokenizer:
    """Each language's pre-token counts scaled so that its bytes are its share of the training text."""
    total: Counter = Counter()
    for lang, share in weights.items():
        size = sum(len(w.encode()) * n for w, n in texts[lang].items())
        for w, n in texts[lang].items():
            total[w] += max(1, round(n * share * 1e7 / size))
    return bpeviz.train_counts(CountTable(total, "gpt4"), vocab_size=256 + n_merges, level="bytes")


@cache
def help_sample(folders: tuple[Path, ...], lang: str, split) -> Counter:
    """A language's help text (bench/help_text.py wrote it) from every folder that has it, as pre-token counts."""
    out: Counter = Counter()
    for folder in folders:
        if (folder / f"{lang}.txt").exists():
            out.update(split((folder / f"{lang}.txt").read_text(encoding="utf-8")))
    return out


def errors(found: dict, weights: dict) -> list[float]:
    return [abs(found[lang] - share) * 100 for lang, share in weights.items()]


def one_mix(langs: list[str], weights: dict, args, split, rng, nrng) -> dict[str, tuple[dict, dict]]:
    """What each design reads for one random mix, each design's training text its own: (found, true weights)."""
    out: dict[str, tuple[dict, dict]] = {}
    if "documents" in args.designs or "help" in args.designs:
        tok = train_on(weights, args.merges, {lang: drawn(lang, split, nrng) for lang in langs})
        if "documents" in args.designs:
            found = inspect.infer_mixture(tok, {lang: drawn(lang, split, nrng) for lang in langs}, args.merges)
            out["documents"] = (found, weights)
        if "help" in args.designs:
            found = inspect.infer_mixture(tok, {lang: help_sample(args.help_text, lang, split) for lang in langs},
                                          args.merges)
            out["help"] = (found, weights)
    if "help-trained" in args.designs:
        tok = train_on(weights, args.merges, {lang: help_sample(args.help_text, lang, split) for lang in langs})
        found = inspect.infer_mixture(tok, {lang: samples.word_list(lang, split) for lang in langs}, args.merges)
        out["help-trained"] = (found, weights)
    if "words" in args.designs or "udhr" in args.designs:
        tok = train_on(weights, args.merges, {lang: samples.word_list(lang, split, parity=0) for lang in langs})
        if "words" in args.designs:
            found = inspect.infer_mixture(tok, {lang: samples.word_list(lang, split, parity=1) for lang in langs},
                                          args.merges)
            out["words"] = (found, weights)
        known = [lang for lang in langs if lang in corpora.UDHR_LANGUAGES]
        if "udhr" in args.designs and len(known) >= 2:
            share = sum(weights[lang] for lang in known)
            found = inspect.infer_mixture(tok, {lang: samples.udhr(lang, split) for lang in known}, args.merges)
            out["udhr"] = (found, {lang: weights[lang] / share for lang in known})
    return out


def main() -> None:
    import numpy as np

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--mixes", type=int, default=3)
    parser.add_argument("--merges", type=int, default=2000)
    parser.add_argument("--designs", nargs="+", default=["documents", "words", "udhr"],
                        choices=["documents", "words", "udhr", "help", "help-trained"])
    parser.add_argument("--help-text", type=Path, nargs="+", default=None,
                        help="the folders bench/help_text.py wrote (the help designs; a language's sample is its text in "
                             "all of them, and the mixes are drawn from the languages any of them has)")
    parser.add_argument("--pair-slack", type=float, default=None, help="override mixture.PAIR_SLACK")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if bool({"help", "help-trained"} & set(args.designs)) != (args.help_text is not None):
        parser.error("the help designs and --help-text go together")
    if args.help_text:
        args.help_text = tuple(args.help_text)
        pool = sorted({p.stem for folder in args.help_text for p in folder.glob("*.txt")})
    else:
        pool = list(samples.languages())
    if args.pair_slack is not None:
        mixture.PAIR_SLACK = args.pair_slack
    split = splits.preset_split("gpt4")
    rng, nrng = random.Random(args.seed), np.random.default_rng(args.seed)
    print(f"pair slack {mixture.PAIR_SLACK}, {args.merges} merges, GPT-4's split, byte level, seed {args.seed}")
    for size in args.sizes:
        found: dict[str, list[float]] = {design: [] for design in args.designs}
        worst: dict[str, tuple[float, str]] = {}
        for _ in range(args.mixes):
            langs = rng.sample(pool, size)
            raw = [rng.random() for _ in langs]
            weights = {lang: x / sum(raw) for lang, x in zip(langs, raw)}
            started = time.perf_counter()
            for design, (read, true) in one_mix(langs, weights, args, split, rng, nrng).items():
                found[design] += errors(read, true)
                lang = max(true, key=lambda lang: abs(read[lang] - true[lang]))
                said = f"{lang} {true[lang] * 100:.1f} % read as {read[lang] * 100:.1f} %"
                worst[design] = max(worst.get(design, (-1.0, "")), (abs(read[lang] - true[lang]), said))
            print(f"  {size} languages: {time.perf_counter() - started:.0f} s", flush=True)
        for design, errs in found.items():
            if errs:
                print(f"{size:>3} languages  {design:<9}  mean {statistics.mean(errs):4.1f}  max {max(errs):4.1f} points "
                      f"({worst[design][1]})",
                      flush=True)


if __name__ == "__main__":
    main()
