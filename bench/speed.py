"""Every speed ratio of the fast trainer and encoder, in one run: against HF tokenizers, against tiktoken,
and the command line on 10 MB (and 100 MB) with its peak memory.

    python bench/speed.py            # about 15 minutes: corpora of 150 KB, 1 MB and 10 MB, the CLI on 10 and 100 MB
    python bench/speed.py --quick    # a few minutes: 150 KB and 1 MB, 3 runs each, encoding, the CLI on 10 MB
    python bench/speed.py --gb       # also 1 GB through the command line (several minutes more, 1 GB of disk)

Every figure says which path gave it: "loaded" rows run with the compiled engine loaded (numba's cache holds it);
"first run" rows start a fresh process with an empty numba cache, as a fresh install does, and use the default path.

Timings are medians of interleaved runs (bpeviz, then HF, then bpeviz ...), so that the
machine's drift hits both sides alike. Training: GPT-4 split, byte level; HF's BpeTrainer gets the
same split (as its regex engine reads it) and the ByteLevel alphabet, with its default threads, and
the text as documents cut where no pre-token crosses (common.hf_documents), which its threads share;
bpeviz gets the text whole.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, hf_documents, hf_train, machine, sentencepiece_unigram, sized_text

import bpeviz
from bpeviz import formats
from bpeviz.counting import blocks as counting
from bpeviz.data import corpora
from bpeviz.pre_tokenizers import splits as pretokenize


def interleaved(fns: list, repeat: int) -> list[float]:
    """Median seconds of each function, run in turn `repeat` times."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def training_rows(quick: bool) -> None:
    sizes = [("English prose 150 KB", corpora.corpus_text("english")), ("mixed 1 MB", sized_text(1_000_000))]
    if not quick:
        sizes.append(("mixed 10 MB", sized_text(10_000_000)))
    hf_pattern = pretokenize.PRETOKENIZERS["gpt4-hf"].pattern
    bpeviz.engine.warm()  # "loaded": these rows measure the engines themselves; first_run_rows measures a fresh install
    cores = counting.MAX_LOCAL_WORKERS
    columns = [(e, 1) for e in bpeviz.engines()] + [("compiled", cores)] * ("compiled" in bpeviz.engines() and cores > 1)
    print(f"training, GPT-4 split, bytes; seconds, and time / HF's (HF on its default threads; bpeviz counting on "
          f"1 core, or all {cores} with workers='auto'); goals, compiled: <= 0.8 at 150 KB / 4 096, <= 0.5 at 1 and 10 MB")
    print(f"  {'corpus':<22} {'vocab':>6}  {'HF':>7}  " + "  ".join(f"{e + ' ' + str(w) + 'c':>11} {'/HF':>6}"
                                                                   for e, w in columns))
    for label, text in sizes:
        docs = hf_documents(text, hf_pattern)  # HF's threads share documents: it gets blocks with the same pre-tokens
        assert hf_train(docs, 4096, hf_pattern).to_str() == hf_train(text, 4096, hf_pattern).to_str()
        for vocab in (4096, 16384) if len(text) < 5_000_000 else (16384, 32768):
            repeat = 3 if quick or len(text) > 5_000_000 else 5
            runs = [lambda t=text, v=vocab, e=e, w=w: bpeviz.train(t, vocab_size=v, level="bytes", pretokenizer="gpt4",
                                                                   engine=e, workers=w) for e, w in columns]
            *ours, hf = interleaved([*runs, lambda d=docs, v=vocab: hf_train(d, v, hf_pattern)], repeat)
            print(f"  {label:<22} {vocab:>6}  {hf:7.3f}  " + "  ".join(f"{o:11.3f} {o / hf:5.2f}x" for o in ours))


def wordpiece_row(lines: list[str], vocab: int) -> None:
    """WordPiece beside HF's WordPieceTrainer on the same lines (HF's picks pairs by frequency: another algorithm)."""
    try:
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    except ImportError:
        return

    def hf() -> None:
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.train_from_iterator(lines, trainers.WordPieceTrainer(vocab_size=vocab, show_progress=False))

    ours, theirs = interleaved([lambda: bpeviz.train(lines, vocab_size=vocab, algorithm="wordpiece"), hf], 3)
    print(f"  WordPiece at {vocab}: bpeviz {ours:6.2f} s, HF WordPieceTrainer {theirs:6.2f} s ({ours / theirs:5.2f}x; HF's "
          "trainer merges by frequency, bpeviz by the course's score)")


def unigram_rows(quick: bool) -> None:
    """Unigram training against SentencePiece's on one thread (and its default threads), each engine."""
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        print("\nunigram: sentencepiece not installed here, no ratio")
        return
    text = corpora.corpus_text("english") if quick else sized_text(1_000_000)
    lines = [line for line in text.splitlines() if line.strip()]
    vocab = 2000 if quick else 8000
    engines = bpeviz.engines()
    runs = [lambda e=e: bpeviz.train(lines, vocab_size=vocab, algorithm="unigram", engine=e) for e in engines]
    *ours, one, many = interleaved([*runs, lambda: sentencepiece_unigram(lines, vocab, 1),
                                    lambda: sentencepiece_unigram(lines, vocab, 16)], 3)
    print(f"\nunigram training, {len(text.encode()) / 1e6:.2f} MB of lines, vocab {vocab}; seconds, and time / "
          "SentencePiece's on one thread (compiled target <= 1.5)")
    print(f"  SentencePiece 1 thread {one:6.2f}, default threads {many:6.2f}")
    for engine, seconds in zip(engines, ours):
        print(f"  bpeviz {engine:<15} {seconds:6.2f}  {seconds / one:5.2f}x  ({seconds / many:5.2f}x its default threads)")
    wordpiece_row(lines, vocab)


COMPILE = """import time; t = time.time(); from bpeviz import engine; engine.warm(); print(time.time() - t)"""
FIRST = """import sys, time, bpeviz
sys.path.insert(0, "bench"); from common import sized_text
text = sized_text(1_000_000); t = time.time()
tok = bpeviz.train(text, vocab_size=16384, level="bytes", pretokenizer="gpt4", engine=sys.argv[1])
print(time.time() - t, tok.engine)"""


def first_run_rows() -> None:
    """A fresh install's first training of 1 MB at 16 384: an empty numba cache, the default engine ("auto") against
    the Python one, each in a fresh process; then a later process, once the background compile has filled the cache."""
    if "compiled" not in bpeviz.engines():
        return
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}

        def run(engine: str) -> tuple[float, str]:
            out = subprocess.run([sys.executable, "-c", FIRST, engine], capture_output=True, text=True, check=True,
                                 cwd=ROOT, env=env).stdout.split()
            return float(out[0]), out[1]

        first, used = run("auto")
        python, _ = run("python")
        deadline = time.monotonic() + 600
        while bpeviz_status(env) != "ready" and time.monotonic() < deadline:
            time.sleep(1)
        later, later_used = run("auto")
    print(f"\nfirst run, 1 MB at 16 384, empty numba cache: default {first:.2f} s ({used}), Python engine {python:.2f} s "
          f"({first / python:.2f}x; goal <= 1.2x); a later process {later:.2f} s ({later_used})")


def bpeviz_status(env: dict) -> str:
    code = "from bpeviz import engine; print(engine.status('bpe'))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env).stdout.strip()


def compile_rows() -> None:
    """What the compiled engine costs before its first merge: a compile with an empty cache, then a load from it."""
    if "compiled" not in bpeviz.engines():
        print("\ncompiled engine: not installed here (pip install -e '.[fast]')")
        return
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        seconds = [float(subprocess.run([sys.executable, "-c", COMPILE], capture_output=True, text=True, check=True,
                                        cwd=ROOT, env=env).stdout) for _ in range(2)]
    print(f"\ncompiled engine (every group): import and compile with an empty cache {seconds[0]:.1f} s; import and load "
          f"from the cache {seconds[1]:.2f} s")


def encoding_rows(quick: bool) -> None:
    """Encoding against tiktoken with the same merges: cold (a fresh tokenizer's first text) and warm (the same text again),
    by the Python encoder and by the compiled one (numba; long texts with the gpt4 split)."""
    english = sized_text(1_000_000, source=("english",))
    mixed = corpora.corpus_text("portuguese") + corpora.corpus_text("python")
    mixed += "".join(corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES)
    mixed = (mixed * 2)[:1_000_000]
    texts = [("English 1 MB", english), ("mixed languages 1 MB", mixed), ("mixed 1 MB, unseen", sized_text(1_000_000, seed=1))]
    if not quick:
        texts.append(("mixed 10 MB, unseen", sized_text(10_000_000, seed=1)))
    small = bpeviz.train(corpora.corpus_text("english"), vocab_size=4096, level="bytes", pretokenizer="gpt4")
    big = bpeviz.train(sized_text(1_000_000), vocab_size=256 + 16384, level="bytes", pretokenizer="gpt4")
    engines = ["python", "compiled"] if bpeviz.engine.warm() else ["python"]
    print("\nencoding, GPT-4 split; MB/s, and bpeviz/tiktoken throughput with the same merges (target at 16 384 merges: "
          "cold >= 0.7, warm >= 1.0)")
    heads = "  ".join(f"{e + ' cold':>19}  {e + ' warm':>19}" for e in engines)
    print(f"  {'merges':>6}  {'text':<21} {'tiktoken':>8}  {heads}")
    for tok in (small, big):
        same_merges = formats.tiktoken_encoding(tok)
        tok.truncated(len(tok.merges)).encode_ordinary(english)  # the first ever proves tiktoken may merge (once)
        for label, text in texts:
            encoding_row(tok, same_merges, engines, label, text, 3 if quick or len(text) > 5_000_000 else 5)


def encoding_row(tok: bpeviz.Tokenizer, same_merges, engines: list[str], label: str, text: str, repeat: int) -> None:
    mb = len(text.encode()) / 1e6
    expected = same_merges.encode_ordinary(text)
    cells, tt = [], 0.0
    for engine in engines:
        copies = [tok.truncated(len(tok.merges)) for _ in range(repeat + 1)]  # made before the clock
        for copy in copies:
            copy.encode_engine = "python" if engine == "python" else "auto"
        warm = copies.pop()
        assert warm.encode_ordinary(text) == expected
        # the lambdas run within this turn of the loop (B023 is about later calls)
        reference = lambda: same_merges.encode_ordinary(text)  # noqa: E731, B023
        cold, tt = interleaved([lambda: copies.pop().encode_ordinary(text), reference], repeat)  # noqa: B023
        hot, tt2 = interleaved([lambda: warm.encode_ordinary(text), reference], repeat)  # noqa: B023
        cells.append(f"{mb / cold:6.2f} MB/s {tt / cold:5.2f}x  {mb / hot:6.2f} MB/s {tt2 / hot:5.2f}x")
    print(f"  {len(tok.merges):>6}  {label:<21} {mb / tt:8.2f}  " + "  ".join(cells))


DEFAULT_PATH = """import sys, time, bpeviz
sys.path.insert(0, "bench"); from common import sized_text
from bpeviz import formats
tok = bpeviz.train(sized_text(1_000_000), vocab_size=256 + 16384, level="bytes", pretokenizer="gpt4")
same = formats.tiktoken_encoding(tok); text = sized_text(1_000_000, seed=1)
t = time.perf_counter(); ids = tok.encode_ordinary(text); cold = time.perf_counter() - t
t = time.perf_counter(); tok.encode_ordinary(text); warm = time.perf_counter() - t
t = time.perf_counter(); theirs = same.encode_ordinary(text); tt = time.perf_counter() - t
assert ids == theirs
print(cold, warm, tt, tok.engine, bpeviz.engine.status("encode"))"""


def default_path_rows() -> None:
    """A user's own process: train 1 MB at 16 384 by the default path, encode an unseen 1 MB with a fresh tokenizer
    (no warm() call anywhere), and the same text again; tiktoken with the same merges in the same process."""
    out = subprocess.run([sys.executable, "-c", DEFAULT_PATH], capture_output=True, text=True, check=True, cwd=ROOT)
    cold, warm, tt, engine, status = out.stdout.split()
    cold, warm, tt = float(cold), float(warm), float(tt)
    print(f"\ndefault path, a fresh process: trained by the {engine} engine; the encoder {status}; first unseen 1 MB "
          f"{tt / cold:.2f}x tiktoken's throughput (goal >= 1.0), again {tt / warm:.2f}x (goal >= 2.0)")


PEAK = """import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
sys.exit(done.returncode) if done.returncode else print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"""


def cli_rows(quick: bool, gb: bool = False) -> None:
    print("\nbpeviz train FILE --vocab-size 32768 --pretokenizer gpt4 (streamed, counted on every core; goal at 1 GB: "
          "under 40 s and 1 GB)")
    print("  corpus     seconds   counting   peak memory")
    sizes = (10_000_000,) if quick else (10_000_000, 100_000_000)
    for n in sizes + ((1_000_000_000,) if gb else ()):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "corpus.txt"
            path.write_text(sized_text(n), encoding="utf-8")
            command = [sys.executable, "-m", "bpeviz.cli", "train", str(path), "--vocab-size", "32768",
                       "--pretokenizer", "gpt4", "--progress", "-o", str(Path(tmp) / "tok.json")]
            start = time.perf_counter()
            # a fresh parent process, so that its children's peak memory is this run's alone
            out = subprocess.run([sys.executable, "-c", PEAK, *command], capture_output=True, text=True, check=True, cwd=ROOT)
            seconds = time.perf_counter() - start
        peak = int(out.stdout.strip().splitlines()[-1]) / 1024  # MB, the largest of the command's processes
        counted = next((line for line in out.stderr.splitlines() if "counted" in line), "")
        counting = counted.rsplit(",", 1)[-1].strip() if counted else "?"
        print(f"  {n / 1e6:5.0f} MB  {seconds:8.1f}   {counting:>8}   {peak:7.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few minutes' check: smaller corpora, fewer runs")
    parser.add_argument("--gb", action="store_true", help="also train on 1 GB through the command line")
    args = parser.parse_args()
    print(f"machine: {machine()}\n")
    first_run_rows()
    training_rows(args.quick)
    unigram_rows(args.quick)
    compile_rows()
    encoding_rows(args.quick)
    default_path_rows()
    cli_rows(args.quick, args.gb)


if __name__ == "__main__":
    main()
