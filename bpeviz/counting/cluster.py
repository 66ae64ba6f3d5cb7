"""Counting on a Dask cluster: each worker reads its own byte ranges of the files; the tables add up in a tree.

The client sends no text, only (file, start, end). A range begins and ends at the first safe cut
at or after its nominal edge (the cuts `counting.read_blocks` makes: after a newline with `lines`,
before a space that follows a non-space, ...). Both neighbours find that cut in the same window of
the same bytes, so the ranges tile each file exactly. Cuts sit at ASCII bytes, where UTF-8 decoding
starts afresh, so a range decodes as it would inside the whole file. The tables are added left to
right in a binary tree on the workers, so the result equals counting the files in one process,
order included. Workers must see the files at the same paths (one machine, or a shared disk); when
they do not, the blocks are read here and sent, as before.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from bpeviz.core.errors import BpevizError
from bpeviz.pre_tokenizers import splits

RANGE_BYTES = 16 << 20  # one task reads about this much
MAX_LOCAL_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)  # cores
FIRST_WINDOW = 1 << 16  # bytes looked at for a cut after a range's edge; doubled until one is found
MAX_WINDOW = 32_000_000  # bytes with no place to cut: counting.MAX_UNCUT_CHARS, about


@contextmanager
def connect(scheduler: str) -> Iterator[tuple[object, int]]:
    """A Dask client for "local:N" (a loopback cluster of N worker processes) or "tcp://HOST:PORT", and its worker count."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise BpevizError("dask_missing", "Counting on a cluster needs Dask: pip install -e \".[cluster]\"") from None
    local = re.fullmatch(r"local:(\d+)", scheduler)
    if local is None and not re.fullmatch(r"tcp://[^\s/]+:\d+", scheduler):
        raise BpevizError("bad_scheduler", f"--scheduler is local:N or tcp://HOST:PORT, not {scheduler!r}.")
    if local is None:
        with Client(scheduler, timeout="10s") as client:
            yield client, max(1, len(client.scheduler_info().get("workers", {})))
        return
    n = max(1, int(local.group(1)))
    if n > MAX_LOCAL_WORKERS:
        raise BpevizError("too_many_workers", f"--scheduler local:{n} asks for more worker processes than this machine "
                          f"has cores ({MAX_LOCAL_WORKERS}); give at most local:{MAX_LOCAL_WORKERS}.",
                          n=n, cap=MAX_LOCAL_WORKERS)
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client:
        yield client, n


def count_files(paths: Sequence[str | Path], blocks: Iterable, pretokenizer: str, scheduler: str, add_in_order: Callable,
                *, lines: bool, dummy_prefix: bool, progress: Callable[[int, int], None] | None, total: int,
                range_bytes: int = RANGE_BYTES) -> Counter[str]:
    """The files' table on a cluster: from byte ranges the workers read, else from the blocks (read here) sent to them.

    add_in_order: counting._add_in_order, which adds the blocks' tables in order as they come back.
    """
    done = 0

    def advance(n_bytes: int) -> None:
        nonlocal done
        done += n_bytes
        if progress is not None:
            progress(done, total)

    with connect(scheduler) as (client, n):
        counts = count_paths(client, paths, pretokenizer, lines=lines, dummy_prefix=dummy_prefix, advance=advance,
                             range_bytes=range_bytes)
        if counts is None:  # the workers cannot see the files
            counts = count_blocks(client, blocks, pretokenizer, n, lambda *job: add_in_order(
                *job, advance=lambda block: advance(block.n_bytes)))
    return counts


def count_paths(client, paths: Sequence[str | Path], pretokenizer: str, *, lines: bool, dummy_prefix: bool,
                advance: Callable[[int], None], range_bytes: int = RANGE_BYTES) -> Counter[str] | None:
    """The files' table, counted by the workers from byte ranges; None when the workers cannot read the files here."""
    from distributed import as_completed

    paths = [str(Path(p).resolve()) for p in paths]
    sizes = [os.path.getsize(p) for p in paths]
    seen = client.run(_sizes, paths)  # every worker's view of the files
    if not seen or any(view != sizes for view in seen.values()):
        return None
    preset = splits.PRETOKENIZERS.get(pretokenizer)
    newlines = preset is not None and preset.newline_cut
    jobs = [(path, start, min(start + range_bytes, size), size)
            for path, size in zip(paths, sizes) for start in range(0, max(size, 1), range_bytes)]
    level = [client.submit(count_range, path, start, end, size, pretokenizer, lines, dummy_prefix, newlines, pure=False)
             for path, start, end, size in jobs]
    spans = {leaf.key: end - start for leaf, (_, start, end, _) in zip(level, jobs)}
    waiting = as_completed(level)
    while len(level) > 1:  # add neighbours, left before right, so first occurrences keep their order
        level = [client.submit(_added, *level[i:i + 2], pure=False) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    for leaf in waiting:  # each range's table is dropped once added to its neighbour's
        advance(spans[leaf.key])
    return level[0].result()


def _sizes(paths: list[str]) -> list[int]:
    return [os.path.getsize(p) if os.path.isfile(p) else -1 for p in paths]


def _added(left: Counter[str], right: Counter[str]) -> Counter[str]:
    left.update(right)
    return left


def count_range(path: str, start: int, end: int, size: int, pretokenizer: str, lines: bool, dummy_prefix: bool,
                newlines: bool) -> Counter[str]:
    """Count the pre-tokens between the first cuts at or after start and end (a worker's task)."""
    with open(path, "rb") as file:
        begin = 0 if start == 0 else _boundary(file, start, size, lines, newlines, path)
        stop = size if end >= size else _boundary(file, end, size, lines, newlines, path)
        if stop <= begin:
            return Counter()
        file.seek(begin)
        text = file.read(stop - begin).decode("utf-8", "surrogateescape")
    if lines:
        docs = [(" " + line if dummy_prefix else line) for line in text.splitlines() if line]
    else:
        docs = [(" " if dummy_prefix and begin == 0 else "") + text]
    return splits.count_pieces(docs, pretokenizer)


def _boundary(file, position: int, size: int, lines: bool, newlines: bool, path: str) -> int:
    """The first safe cut at or after position, in bytes (size when there is none before the end)."""
    window = FIRST_WINDOW
    while True:
        file.seek(position)
        raw = file.read(window)
        text = raw.decode("utf-8", "surrogateescape")
        end = len(text) if position + len(raw) >= size else len(text) - 4  # a cut near a window's end waits for more
        cut = _first_cut(text, end, lines, newlines)
        if cut:
            return position + len(text[:cut].encode("utf-8", "surrogateescape"))
        if position + len(raw) >= size:
            return size
        if window >= MAX_WINDOW:
            raise BpevizError("no_place_to_cut", f"{path}: {window:,} bytes with no place where a pre-token ends (one "
                              "endless word?). Split the file into lines (--lines) or smaller files.",
                              path=path, cap=window)
        window *= 2


def _first_cut(text: str, end: int, lines: bool, newlines: bool) -> int:
    """The first place before end where text may be cut (0: none): the rules of counting._last_cut, read forwards."""
    if lines:
        return text.find("\n", 0, end) + 1
    cuts = [i for i in (_first_space_cut(text, end), _first_newline_cut(text, end) if newlines else 0) if i]
    return min(cuts, default=0)


def _first_space_cut(text: str, end: int) -> int:
    i = 0
    while True:
        i = text.find(" ", i + 1, end)
        if i <= 0:
            return 0
        if not text[i - 1].isspace():
            return i


def _first_newline_cut(text: str, end: int) -> int:
    i = 0
    while True:
        i = text.find("\n", i + 1, end - 1)
        if i <= 0:
            return 0
        if not text[i - 1].isspace() and not text[i + 1].isspace():
            return i + 1


def count_blocks(client, blocks: Iterable, pretokenizer: str, n_workers: int, add_in_order: Callable) -> Counter[str]:
    """Blocks read here and sent to the workers (text in memory, or files the workers cannot see)."""
    counts: Counter[str] = Counter()
    add_in_order(counts, blocks, lambda docs: client.submit(splits.count_pieces, docs, pretokenizer, pure=False),
                 2 * n_workers)
    return counts
