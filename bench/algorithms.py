"""WordPiece and Unigram training speed, in one run: Unigram against sentencepiece, WordPiece against the slow oracle.

    python bench/algorithms.py            # English prose (Alice, 151 KB) at vocab 2000; about two minutes
    python bench/algorithms.py --quick    # vocab 800

Unigram: bpeviz's trainer and sentencepiece's (identity normalization, no extra splits, one thread
and its default threads) on the same lines. WordPiece: the fast trainer and tests/naive.py's
oracle (recount everything each step, exact fractions) on the same pre-tokens; HF's
WordPieceTrainer is timed for reference, though it picks pairs by frequency, not by score.
Also: the toy corpus, which the app trains on every first visit.
"""

from __future__ import annotations

import argparse
import sys
import time

from common import ROOT, hf_documents, machine, sentencepiece_unigram

import bpeviz
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.pre_tokenizers import splits as pretokenize
from bpeviz.trainers.wordpiece import train_wordpiece

sys.path.insert(0, str(ROOT / "tests"))
import naive  # noqa: E402  (the oracle lives with the tests)


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def best_of(fn, repeat: int) -> float:
    return min(seconds(fn) for _ in range(repeat))


def sentencepiece_seconds(lines: list[str], vocab_size: int, threads: int) -> float:
    return best_of(lambda: sentencepiece_unigram(lines, vocab_size, threads), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    vocab = 800 if args.quick else 2000
    text = corpora.corpus_text("english")
    lines = [line for line in text.splitlines() if line.strip()]
    print(f"# {machine()}; English prose {len(text.encode()) / 1e3:.0f} KB, vocab {vocab}")

    one, default = sentencepiece_seconds(lines, vocab, 1), sentencepiece_seconds(lines, vocab, 16)
    print(f"unigram    sentencepiece 1 thread {one:5.2f} s, default threads {default:5.2f} s")
    for engine in bpeviz.engines():
        ours = best_of(lambda engine=engine: bpeviz.train(lines, vocab_size=vocab, algorithm="unigram", engine=engine), 3)
        print(f"unigram    bpeviz {engine:8} {ours:6.2f} s | / sentencepiece 1 thread {ours / one:5.2f}x, "
              f"/ default threads {ours / default:5.2f}x (aim <= 1.5x on one thread, compiled)")

    words = list(pretokenize.count_pieces([text], "gpt2").items())
    settings = Settings(vocab_size=vocab, algorithm="wordpiece")
    fast = best_of(lambda: train_wordpiece(words, settings), 3)
    slow = seconds(lambda: naive.wordpiece(words, vocab))
    print(f"wordpiece  bpeviz {fast:6.2f} s | slow oracle {slow:7.2f} s | oracle / bpeviz {slow / fast:6.1f}x (aim >= 50x)")
    try:
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

        docs = hf_documents(text, pretokenize.PRETOKENIZERS["gpt2"].pattern)  # its threads share documents

        def hf() -> None:
            tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
            tok.pre_tokenizer = pre_tokenizers.Split(Regex(pretokenize.PRETOKENIZERS["gpt2"].pattern), "isolated")
            tok.train_from_iterator(docs, trainers.WordPieceTrainer(vocab_size=vocab, show_progress=False))

        print(f"           HF WordPieceTrainer (by frequency, for reference) {best_of(hf, 3):5.2f} s")
    except ImportError:
        print("           (tokenizers not installed: no HF reference)")

    toy = corpora.documents("toy_pt")
    for algorithm in ("bpe", "wordpiece", "unigram"):
        took = best_of(lambda algorithm=algorithm: bpeviz.train(toy, vocab_size=64, algorithm=algorithm), 5)
        print(f"toy corpus {algorithm:9} {took * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
