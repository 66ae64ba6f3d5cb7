"""Shared bits for the benchmarks: timing with medians, the corpus, HF trainers."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the naive oracle


def median_time(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def hf_train(text: str, vocab_size: int, pattern: str | None):
    """HF tokenizers' BpeTrainer on bytes, split by pattern (None: no split), or None if not installed."""
    try:
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
    except ImportError:
        return None
    tok = Tokenizer(models.BPE())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.pre_tokenizer = byte_level if pattern is None else pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(pattern), behavior="isolated"), byte_level])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False, min_frequency=0)
    tok.train_from_iterator([text], trainer=trainer)
    return tok
