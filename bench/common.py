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


def hf_documents(text: str, pattern: str | None, block: int = 1000) -> list[str]:
    """The text as HF's trainer should get it: documents of `block` word chunks, cut where no pre-token crosses.

    HF's trainer spreads its documents over its threads, and one long string runs on one (1.3-2.5x
    slower from 1 MB up, measured). Cutting at `pretokenize.chunks` leaves every pre-token whole,
    so the merges are those of the whole text (speed.py checks it). No split (None): the text whole.
    """
    from bpeviz.pre_tokenizers import splits as pretokenize

    if pattern is None:
        return [text]
    parts = pretokenize.chunks(text)
    return ["".join(parts[i:i + block]) for i in range(0, len(parts), block)]


def hf_train(text: str | list[str], vocab_size: int, pattern: str | None):
    """HF tokenizers' BpeTrainer on bytes, split by pattern (None: no split), or None if not installed.

    Give it `hf_documents(text, pattern)`, not the text whole, for a fair time (see there).
    """
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
    tok.train_from_iterator([text] if isinstance(text, str) else text, trainer=trainer)
    return tok


def shipped_text(names: tuple[str, ...] | None = None) -> str:
    """The shipped corpora named (default: every one, about 0.8 MB), one after another."""
    from bpeviz.data import corpora

    return "\n".join(corpora.corpus_text(name) for name in (names or corpora.CORPORA))


def machine() -> str:
    """The CPU model and core count, for the figures' caption."""
    import os
    import platform

    model = platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                      if line.startswith("model name")), model)
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def sized_text(n_bytes: int, seed: int = 0, source: tuple[str, ...] | None = None) -> str:
    """n_bytes of text (less a cut character): the shipped corpora, then copies with one letter changed in every 8th word.

    Perturbing the copies keeps the vocabulary growing, as a real corpus's would, instead of
    repeating the same distinct words with bigger counts.
    """
    import random

    base = shipped_text(source)
    parts, size, rng, copy = [base], len(base.encode()), random.Random(seed), 0
    words = base.split(" ")
    letters = "abcdefghijklmnopqrstuvwxyzãéçõ"
    while size < n_bytes:
        copy += 1
        changed = [w if rng.random() > 0.125 or not w else w[:-1] + rng.choice(letters) for w in words]
        part = " ".join(changed)
        parts.append(part)
        size += len(part.encode())
    return "\n".join(parts).encode()[:n_bytes].decode("utf-8", "ignore")


def sentencepiece_unigram(lines: list[str], vocab_size: int, threads: int) -> None:
    """SentencePiece's Unigram trainer as bpeviz's default trains (identity normalization, no extra splits)."""
    import io

    import sentencepiece as spm

    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=io.BytesIO(), vocab_size=vocab_size + 3, model_type="unigram",
        normalization_rule_name="identity", remove_extra_whitespaces=False, split_by_unicode_script=False,
        split_by_number=False, character_coverage=1.0, num_threads=threads, minloglevel=2)
