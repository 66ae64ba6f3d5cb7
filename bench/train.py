"""Training speed: bpeviz's fast trainer against the naive one and HF tokenizers, as ratios.

    python bench/train.py            # English prose corpus, vocab 1 024 and 4 096 (the naive runs take minutes)
    python bench/train.py --quick    # skip the naive trainer

The naive trainer is the obvious one from tests/naive.py: every pre-token (or the whole
text, with no split) as its own list, all pairs recounted after every merge.
"""

from __future__ import annotations

import argparse

from common import hf_documents, hf_train, median_time
from naive import naive_train

import bpeviz
from bpeviz.data import corpora
from bpeviz.pre_tokenizers import splits as pretokenize


def naive_seconds(text: str, vocab_size: int, pretokenizer: str) -> float:
    pieces = [list(p.encode("utf-8")) for p in pretokenize.split_text(text, pretokenizer)]
    return median_time(lambda: naive_train(pieces, [1] * len(pieces), vocab_size - 256, 256), repeat=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the naive trainer")
    parser.add_argument("--corpus", default="english", choices=list(corpora.CORPORA))
    args = parser.parse_args()
    text = corpora.corpus_text(args.corpus)
    print(f"corpus {args.corpus}: {len(text.encode()):,} bytes; medians of 5 runs (naive: 1 run)\n")
    print(f"{'mode':<14}{'vocab':>7}{'bpeviz s':>10}{'HF s':>9}{'naive s':>10}{'vs HF':>9}{'vs naive':>10}")
    for vocab_size in (1024, 4096):
        for mode in ("gpt2", "none"):
            fast = median_time(lambda v=vocab_size, m=mode: bpeviz.train(text, vocab_size=v, level="bytes", pretokenizer=m))
            pattern = pretokenize.PRETOKENIZERS[mode].pattern
            docs = hf_documents(text, pattern)
            hf = median_time(lambda v=vocab_size, d=docs, p=pattern: hf_train(d, v, p))
            naive = None if args.quick else naive_seconds(text, vocab_size, mode)
            label = "split (gpt2)" if mode == "gpt2" else "raw (none)"
            hf_ratio = f"{hf / fast:7.2f}x" if hf else "   n/a"
            naive_ratio = f"{naive / fast:8.0f}x" if naive else "     n/a"
            print(f"{label:<14}{vocab_size:>7}{fast:>10.3f}{hf:>9.3f}{(naive or 0):>10.1f}{hf_ratio:>9}{naive_ratio:>10}")
    print("\nvs HF > 1 means bpeviz is faster; targets: split >= 0.67x HF and >= 500x naive; "
          "raw >= 50x naive at 1 024, >= 150x at 4 096, and faster than HF.")


if __name__ == "__main__":
    main()
