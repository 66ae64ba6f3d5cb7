"""Mixture inference, measured where a user meets it: tokenizers trained here on random known mixes, inferred from
samples that are not their training text (issue 46). Prints the mean and largest error, in points, per mix size.

    python bench/mixture.py              # 5 and 10 languages, 3 mixes each, 2 000 merges
    python bench/mixture.py --sizes 5 10 30 --mixes 5 --merges 3000

Training text: each language's word list (wordfreq), every other word by rank; samples: the other half (no word in
common), and, for the languages bpeviz ships the UDHR in, the Declaration's articles (another source entirely).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bpeviz  # noqa: E402
from bpeviz.counting.tables import CountTable  # noqa: E402
from bpeviz.data import corpora  # noqa: E402
from bpeviz.lessons import inspect, mixture, samples  # noqa: E402
from bpeviz.pre_tokenizers import splits  # noqa: E402


def train_on(weights: dict[str, float], n_merges: int, split) -> bpeviz.Tokenizer:
    total: Counter = Counter()
    for lang, share in weights.items():
        counts = samples.word_list(lang, split, parity=0)
        size = sum(len(w.encode()) * n for w, n in counts.items())
        for w, n in counts.items():
            total[w] += max(1, round(n * share * 1e7 / size))
    return bpeviz.train_counts(CountTable(total, "gpt4"), vocab_size=256 + n_merges, level="bytes")


def errors(found: dict, weights: dict) -> list[float]:
    return [abs(found[lang] - share) * 100 for lang, share in weights.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--mixes", type=int, default=3)
    parser.add_argument("--merges", type=int, default=2000)
    parser.add_argument("--pair-slack", type=float, default=None, help="override mixture.PAIR_SLACK")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.pair_slack is not None:
        mixture.PAIR_SLACK = args.pair_slack
    split = splits.preset_split("gpt4")
    udhr = set(corpora.UDHR_LANGUAGES)
    rng = random.Random(args.seed)
    print(f"pair slack {mixture.PAIR_SLACK}, {args.merges} merges, GPT-4's split, byte level")
    for size in args.sizes:
        held, other = [], []
        for _ in range(args.mixes):
            langs = rng.sample(samples.languages(), size)
            raw = [rng.random() for _ in langs]
            weights = {lang: x / sum(raw) for lang, x in zip(langs, raw)}
            started = time.perf_counter()
            tok = train_on(weights, args.merges, split)
            found = inspect.infer_mixture(tok, {lang: samples.word_list(lang, split, parity=1) for lang in langs}, args.merges)
            held += errors(found, weights)
            known = [lang for lang in langs if lang in udhr]
            if len(known) >= 2:
                share = sum(weights[lang] for lang in known)
                found_u = inspect.infer_mixture(tok, {lang: samples.udhr(lang, split) for lang in known}, args.merges)
                other += errors(found_u, {lang: weights[lang] / share for lang in known})
            print(f"  {size} languages: {time.perf_counter() - started:.0f} s", flush=True)
        print(f"{size:>3} languages  other half of the word lists: mean {statistics.mean(held):.1f}, max {max(held):.1f} points"
              + (f"; the UDHR: mean {statistics.mean(other):.1f}, max {max(other):.1f}" if other else ""), flush=True)


if __name__ == "__main__":
    main()
