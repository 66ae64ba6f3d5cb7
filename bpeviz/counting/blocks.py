"""Counting pre-tokens at scale: stream files in blocks, count them on all cores or a Dask cluster, keep the table.

The count table (distinct pre-token -> count, in order of first occurrence) is all the merge
loop reads, so the expensive part, which parallelises, can run once and elsewhere, and be saved:
`bpeviz count` writes it, `bpeviz train --counts` reads it back.

Files are read in blocks and never held whole. A block ends where no pre-token can cross: after
a newline with `lines` (each line is a document), otherwise before a space that follows a
non-space (`splits.chunks`), for every preset that allows it. Blocks are counted
independently and their tables added in block order, so the result equals counting the
whole text at once, order included.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bpeviz.core.errors import BpevizError
from bpeviz.pre_tokenizers import splits

from . import cluster
from .choice import MAX_LOCAL_WORKERS, PARALLEL_MIN_BYTES, PARALLEL_MIN_BYTES_COMPILED, counter, workers_for
from .tables import HEADER, CountTable, escape_piece, read_counts, unescape_piece, write_counts

__all__ = ["BLOCK_BYTES", "HEADER", "MAX_LOCAL_WORKERS", "PARALLEL_MIN_BYTES", "PARALLEL_MIN_BYTES_COMPILED", "Block",
           "CountTable", "count_blocks", "count_files", "count_tokens", "counter", "escape_piece", "read_blocks",
           "read_counts", "text_blocks", "unescape_piece", "write_counts"]

BLOCK_BYTES = 4 << 20  # read this much at a time; a block holds about as much text
def _die_with_parent(parent: int) -> None:
    """In a counting process: end when the process that started it ends (Linux), so none outlives a killed command.

    A parent killed between the fork and this call sends no signal: the child then finds itself adopted and ends.
    """
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)


@dataclass(frozen=True)
class Block:
    """Documents cut from the input, and how many bytes of the files they stand for."""

    docs: list[str]
    n_bytes: int


Progress = Callable[[int, int], None]  # (bytes done, bytes in all)


MAX_UNCUT_CHARS = 8_000_000  # text held with no place to cut it: one pre-token this long takes about 1.4 GB to train on
MAX_WHOLE_CHARS = 200_000_000  # a file read whole (no split, or a custom one): /dev/zero stops here, not at MemoryError


def _last_cut(text: str, start: int, lines: bool, newlines: bool = False) -> int:
    """Where text may be cut (0: nowhere): after its last newline, or before its last space that follows a non-space.

    newlines: a newline between two non-spaces may be cut after too (see splits.Pretokenizer.newline_cut).
    Only cuts at `start` or later are looked for: the text before it was looked at already.
    """
    if lines:
        return text.rfind("\n", start) + 1
    return max(_last_space_cut(text, start), _last_newline_cut(text, start) if newlines else 0)


def _last_space_cut(text: str, start: int) -> int:
    i = len(text)
    while True:
        i = text.rfind(" ", max(start, 1), i)
        if i <= 0:
            return 0
        if not text[i - 1].isspace():  # str.isspace is `re`'s \s, as splits.chunks cuts
            return i


def _last_newline_cut(text: str, start: int) -> int:
    i = len(text) - 1  # the character after the newline must be in the text
    while True:
        i = text.rfind("\n", max(start, 1), i)
        if i <= 0:
            return 0
        if not text[i - 1].isspace() and not text[i + 1].isspace():
            return i + 1


def read_blocks(paths: Sequence[str | Path], *, lines: bool = False, pretokenizer: str = "gpt2",
                dummy_prefix: bool = False, block_bytes: int = BLOCK_BYTES) -> Iterator[Block]:
    """The files as blocks of documents, read block_bytes at a time; bytes that are not UTF-8 become surrogates.

    Each file is one document (or one per non-empty line with `lines`); dummy_prefix puts a space
    before each document, as SentencePiece does. A pre-tokenizer that cannot be cut at spaces
    (`none`, a custom regex) without `lines` reads each file whole.
    """
    streamable = lines or splits.is_chunkable(pretokenizer)
    preset = splits.PRETOKENIZERS.get(pretokenizer)
    newlines = preset is not None and preset.newline_cut
    meta = dummy_prefix and pretokenizer in ("sentencepiece", "spaces")  # splits.reads_meta_as_space, from the table's terms
    for path in paths:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        carry, pending, first = "", 0, True
        with open(path, "rb") as file:
            while True:
                raw = file.read(block_bytes)
                pending += len(raw)
                text = carry + decoder.decode(raw, final=not raw)
                # the end of the file ends the last block; the carry holds no cut, so look after it
                cut = (_last_cut(text, len(carry), lines, newlines) if streamable else 0) if raw else len(text)
                # with no split a whole document is one pre-token: bounded as one word of the default split is
                cap = MAX_UNCUT_CHARS if streamable or pretokenizer == "none" else MAX_WHOLE_CHARS
                if not cut and len(text) > cap:
                    raise BpevizError("no_place_to_cut", f"{path}: {len(text):,} characters with no place where a pre-token "
                                      f"ends (one endless word?); bpeviz holds at most {cap:,} between cuts. "
                                      "Split the file into lines (--lines) or smaller files.", path=str(path), cap=cap)
                if cut:
                    part, text = text[:cut], text[cut:]
                    yield Block(_documents(part, lines, dummy_prefix, first, meta), pending)
                    first = False
                    pending = 0
                if not raw:
                    break
                carry = text


def text_blocks(docs: Iterable[str], pretokenizer: str, block_chars: int = BLOCK_BYTES) -> Iterator[Block]:
    """Documents held in memory as blocks of about block_chars characters, for worker processes.

    A long document is cut only where no pre-token of this pretokenizer crosses (as read_blocks
    cuts files), so counting the pieces gives the same table; one it cannot cut stays whole.
    """
    cuttable = splits.is_chunkable(pretokenizer)
    preset = splits.PRETOKENIZERS.get(pretokenizer)
    newlines = preset is not None and preset.newline_cut
    batch: list[str] = []
    size = 0
    for doc in docs:
        while cuttable and len(doc) > block_chars:
            window, cut = block_chars, 0
            while not cut and window < len(doc):
                cut = _last_cut(doc[:window], 0, False, newlines)
                window *= 2
            if not cut:
                break
            batch.append(doc[:cut])
            yield Block(batch, size + cut)
            batch, size, doc = [], 0, doc[cut:]
        batch.append(doc)
        size += len(doc)
        if size >= block_chars:
            yield Block(batch, size)
            batch, size = [], 0
    if batch:
        yield Block(batch, size)


def count_blocks(blocks: Iterable[Block], pretokenizer: str, *, workers: int = 1, scheduler: str | None = None,
                 progress: Progress | None = None, total_bytes: int = 0) -> Counter[str]:
    """Count the pre-tokens of all blocks: here (workers=1), in worker processes, or on a Dask scheduler.

    scheduler: "local:N" starts a Dask LocalCluster of N worker processes on loopback,
    "tcp://HOST:PORT" uses a running one. The table is the same every way, order included.
    """
    splits.resolve(pretokenizer)  # a bad pattern fails here, once, not in every worker
    done = 0

    def advance(block: Block) -> None:
        nonlocal done
        done += block.n_bytes
        if progress is not None:
            progress(done, total_bytes)

    if scheduler:
        with cluster.connect(scheduler) as (client, n):
            return cluster.count_blocks(
                # the cluster hands the same arguments
                client, blocks, pretokenizer, n, lambda *job: _add_in_order(*job, advance=advance))  # type: ignore[misc]
    counts: Counter[str] = Counter()
    count = counter(pretokenizer, total_bytes)  # resolved here: forked workers inherit a loaded kernel
    if workers <= 1:
        for block in blocks:
            counts.update(count(block.docs, pretokenizer))
            advance(block)
        return counts
    import multiprocessing

    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_die_with_parent,
                               initargs=(os.getpid(),))
    try:
        _add_in_order(counts, blocks, lambda docs: _submit_held(pool, count, docs, pretokenizer), 2 * workers, advance)
    except BaseException:  # Ctrl-C, a bad block, a stopped run: stop now, not after the blocks in flight
        _stop_now(pool)
        raise
    pool.shutdown()
    return counts


def _submit_held(pool: ProcessPoolExecutor, *job: object) -> Future:
    """pool.submit with Ctrl-C held back: the first submit forks the workers, and Python drops a KeyboardInterrupt raised
    in an at-fork handler (logging's lock), so the count ran on and wrote its output (1 run in 12 on a busy machine).
    Held, it is raised when submit returns; the workers inherit the mask: Ctrl-C is the command's (_stop_now)."""
    import signal
    import threading

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return pool.submit(*job)  # type: ignore[arg-type]
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return pool.submit(*job)  # type: ignore[arg-type]
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """End a pool at once: its queued blocks dropped, its processes ended mid-block (their counts are not wanted)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # the executor has no public kill
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
        process.join(timeout=5)


def _add_in_order(counts: Counter[str], blocks: Iterable[Block], submit: Callable[[list[str]], Future],
                  in_flight: int, advance: Callable[[Block], None]) -> None:
    """Submit blocks, at most in_flight at a time (memory stays bounded), and add their tables in block order."""
    waiting: deque[tuple[Block, Future]] = deque()
    for block in blocks:
        waiting.append((block, submit(block.docs)))
        while len(waiting) >= in_flight:
            done_block, future = waiting.popleft()
            counts.update(future.result())
            advance(done_block)
    while waiting:
        done_block, future = waiting.popleft()
        counts.update(future.result())
        advance(done_block)


def count_files(paths: Sequence[str | Path], pretokenizer: str, *, lines: bool = False, dummy_prefix: bool = False,
                workers: int | None = None, scheduler: str | None = None, progress: Progress | None = None,
                block_bytes: int = BLOCK_BYTES, ends: bool = False) -> CountTable:
    """Stream the files and count their pre-tokens. workers=None: every core when the files are big enough to pay.

    ends: also count how often each pre-token ends a document (a line with lines=True, else a file), for Unigram.
    """
    sizes = []
    for path in paths:
        p = Path(path)
        if not p.exists():
            raise BpevizError("no_such_file", f"no such file: {path}")
        if p.is_dir():
            raise BpevizError("is_folder", f"{path} is a folder; give a text file")
        sizes.append(p.stat().st_size)
    total = sum(sizes)
    workers = workers_for(workers, total, pretokenizer)
    blocks = read_blocks(paths, lines=lines, pretokenizer=pretokenizer, dummy_prefix=dummy_prefix, block_bytes=block_bytes)
    endings = DocumentEnds(pretokenizer, dummy_prefix) if ends else None
    if endings is not None and lines:
        blocks = endings.watch(blocks)
    elif endings is not None:  # a file is one document: its end is its last pre-token
        for path in paths:
            endings.add(_tail(path, 16 * endings.limit))
    if scheduler and (lines or splits.is_chunkable(pretokenizer)):  # the workers read their own byte ranges
        splits.resolve(pretokenizer)
        counts = cluster.count_files(paths, blocks, pretokenizer, scheduler, _add_in_order, lines=lines,
                                           dummy_prefix=dummy_prefix, progress=progress, total=total,
                                           range_bytes=4 * block_bytes)
    else:
        counts = count_blocks(blocks, pretokenizer, workers=workers, scheduler=scheduler, progress=progress,
                              total_bytes=total)
    return CountTable(counts, pretokenizer, dummy_prefix, endings.counted() if endings is not None else None)


def _documents(part: str, lines: bool, dummy_prefix: bool, first: bool, meta: bool) -> list[str]:
    """A block's text as documents: one per non-empty line, or the text itself; a space before each (SentencePiece)."""
    if meta:  # SentencePiece reads a ▁ as the space it writes ▁
        part = part.replace("\u2581", " ")
    if lines:
        return [(" " + line if dummy_prefix else line) for line in part.splitlines() if line]
    return [(" " if dummy_prefix and first else "") + part]


def _tail(path: str | Path, n_bytes: int) -> str:
    """The last n_bytes of a file as text (a character cut at the start is dropped)."""
    with open(path, "rb") as f:
        f.seek(max(0, Path(path).stat().st_size - n_bytes))
        return f.read().decode("utf-8", "ignore")


class DocumentEnds:
    """The last pre-token of each document, counted as blocks go by (the documents' ends Unigram seeds from)."""

    def __init__(self, pretokenizer: str, dummy_prefix: bool, limit: int = 256) -> None:
        self.pretokenizer, self.prefix, self.limit = pretokenizer, " " if dummy_prefix else "", limit
        self.ends: Counter[str] = Counter()
        self.last = ""

    def add(self, doc: str) -> None:
        tail = splits.split_text((self.prefix + doc)[-4 * self.limit:], self.pretokenizer) if doc else []
        if tail and len(tail[-1]) <= self.limit:
            self.ends[tail[-1]] += 1
            self.last = tail[-1]

    def watch(self, blocks: Iterable[Block]) -> Iterator[Block]:
        """The blocks, each document's end counted on the way."""
        for block in blocks:
            for doc in block.docs:
                self.add(doc)
            yield block

    def counted(self) -> Counter[str]:
        """The ends, the last document's first (as trainers/unigram.sentence_ends orders them)."""
        return Counter({self.last: self.ends.pop(self.last)} | self.ends) if self.last else self.ends


def count_tokens(paths: Sequence[str | Path], counters: dict[str, Callable[[str, bool], int]], *, cut_at: str = "gpt2",
                 progress: Progress | None = None) -> list[dict]:
    """Tokens, characters and bytes of each file under each tokenizer, streamed block by block, then the totals.

    counters: label -> count(text, first block of its file); cut_at: a split whose pre-tokens the
    blocks must not cut (a non-chunkable one reads each file whole). Example row:
    {"file": "a.txt", "tokenizer": "cl100k_base", "tokens": 36927, "characters": 144600, "bytes": 151095, ...}
    """
    total = sum(Path(p).stat().st_size for p in paths)
    rows, done = [], 0
    for path in paths:
        tokens, chars, n_bytes, first = dict.fromkeys(counters, 0), 0, 0, True
        for block in read_blocks([path], pretokenizer=cut_at):
            for text in block.docs:
                chars += len(text)
                for label, count in counters.items():
                    tokens[label] += count(text, first)
                first = False
            n_bytes += block.n_bytes
            if progress is not None:
                progress(done + n_bytes, total)
        done += n_bytes
        rows += [_token_row(str(path), label, n, chars, n_bytes) for label, n in tokens.items()]
    for label in counters:
        mine = [r for r in rows if r["tokenizer"] == label]
        rows.append(_token_row("(total)", label, sum(r["tokens"] for r in mine), sum(r["characters"] for r in mine),
                               sum(r["bytes"] for r in mine)))
    return rows


def _token_row(path: str, label: str, tokens: int, chars: int, n_bytes: int) -> dict:
    return {"file": path, "tokenizer": label, "tokens": tokens, "characters": chars, "bytes": n_bytes,
            "bytes_per_token": round(n_bytes / tokens, 3) if tokens else None}
