"""The tasks a visitor's page runs in a process of its own (box.py starts `python -m bpeviz.app.tasks`).

The child reads one JSON line (task, header, blob sizes) and the blobs from stdin, caps its own address space at
BPEVIZ_TASK_MEMORY bytes, ends when the server ends, runs the task, and writes one JSON line per message: progress,
then {"result": ...} (or {"result_bytes": n} and n bytes) or {"error": code, "message": ..., "kwargs": ...}. A task
runs at the lowest priority (Linux's SCHED_IDLE, else nice 10): a core it would take from the server's pages stays
theirs. No Streamlit import here.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import sys
from collections.abc import Callable, Iterable
from typing import Any

from bpeviz.core.errors import BpevizError

Send = Callable[[dict], None]

WORKER_NICENESS = 10  # where SCHED_IDLE is missing, a task yields the cores this way (0 is the server's own priority)
COUNT_BLOCK_CHARS = 1_000_000  # a file is counted in blocks of about this many characters, each a progress message


def count_file(header: dict, blobs: list[bytes], send: Send) -> dict:
    """Tokens of a file (blobs[0]) under each named real tokenizer and, if given, a trained one (blobs[1], bpeviz JSON).

    The file is cut where no pre-token of `header["cut_at"]` crosses, so the counts are those of the whole file.
    Result: {"tokens": {label: n}}; a progress message after each block: {"label", "done", "total"}.
    """
    from bpeviz import formats
    from bpeviz.counting.blocks import text_blocks
    from bpeviz.pretrained.encodings import reference

    text = blobs[0].decode("utf-8", "surrogateescape")
    counters: list[tuple[str, Callable[[str, bool], int]]] = []
    if header.get("trained"):
        counters.append((header["trained"], _counter(formats.import_data(blobs[1], "trained.json"), continued=True)))
    for name in header["names"]:
        encoding = reference(name)  # a SentencePiece model puts its dummy prefix once, before the whole file
        counters.append((name, _counter(encoding, continued=hasattr(encoding, "tokenizer"))))
    blocks = [block.docs for block in text_blocks([text], header.get("cut_at", "gpt2"), COUNT_BLOCK_CHARS)] or [[""]]
    tokens = {}
    for k, (label, counter) in enumerate(counters):
        n, first = 0, True
        for b, docs in enumerate(blocks):
            for part in docs:
                n += counter(part, first)
                first = False
            send({"label": label, "tokenizer": k, "tokenizers": len(counters), "done": b + 1, "total": len(blocks)})
        tokens[label] = n
    return {"tokens": tokens}


def _counter(encoder: Any, *, continued: bool) -> Callable[[str, bool], int]:
    """count(part, first part of the file)."""
    if continued:
        return lambda part, first: len(encoder.encode_ordinary(part, continued=not first))
    return lambda part, first: len(encoder.encode_ordinary(part))


def train(header: dict, blobs: list[bytes], send: Send) -> bytes:
    """A lesson's tokenizer and its player's history: blobs[0] is the (source, settings) the server packed (carry.py);
    the result is the packed (tokenizer, history), records included: all that reads the whole corpus is done here
    (a Unigram run's size check, the training, the history's pair counts; BPE's players only). A progress message
    {"done", "total"} at each of the trainer's progress calls.
    """
    from collections import Counter

    from bpeviz.lessons import sources, steps
    from bpeviz.models.bpe import Tokenizer
    from bpeviz.trainers.bpe import corpus_words

    from .carry import pack, unpack

    source, settings = unpack(blobs[0])
    documents = source.documents()
    if settings.algorithm == "unigram":
        check_unigram_words(corpus_words(documents, settings), int(header["unigram_cap"]))
    tok = sources.tokenizer_for(source, settings, progress=lambda done, total: send({"done": done, "total": total}),
                                record_top=int(header.get("record_top", 0)), engine=str(header.get("engine", "auto")))
    history = {}
    if isinstance(tok, Tokenizer):
        history = steps.train_history(tok, documents, Counter(corpus_words(documents, tok.settings)))
    return pack((tok, history))


def check_unigram_words(words: Iterable[str], cap: int) -> None:
    """Refuse a Unigram run the shared server cannot afford: its lattices take about 2 KB per character of distinct words.

    Prose has few distinct words (1 MB of English: 60 000 characters of them); a text with no spaces is all distinct.
    """
    size = sum(len(word) for word in words)
    if size > cap:
        raise BpevizError("unigram_too_big", f"Unigram would train on {size:,} characters of distinct words here; the app "
                          f"takes at most {cap:,} (about 2 KB of memory each). Use less text, or the command "
                          "line: bpeviz train FILE --algorithm unigram.", size=size, cap=cap)


def hog(header: dict, blobs: list[bytes], send: Send) -> dict:
    """Holds header["megabytes"] of memory, then waits header["seconds"], then fails as header["fail"] says ("raise":
    an unexpected exception, "abort": the process dies of SIGABRT): what the box's tests stop."""
    import signal
    import time

    held = bytearray(int(header.get("megabytes", 0)) * 1_000_000)
    send({"holding": len(held), "policy": _policy()})
    time.sleep(float(header.get("seconds", 0)))
    if header.get("fail") == "raise":
        raise RuntimeError("a bug in a task")
    if header.get("fail") == "abort":
        os.kill(os.getpid(), signal.SIGABRT)
    return {"held": len(held)}


def out_of_memory(limit: int) -> BpevizError:
    """What a visitor reads when their task ran out of its address space (limit bytes), in the child or seen by box."""
    megabytes = f"{limit / 1e6:.0f}"
    return BpevizError("budget_memory_task", f"This task needed more than {megabytes} MB of memory; it was stopped, and "
                       "nothing else was touched. Try less text or a smaller file.", megabytes=megabytes)


def failed(reason: str) -> BpevizError:
    """What a visitor reads when their task failed for another reason (a bug): said as such, not as memory."""
    return BpevizError("task_failed", f"This task failed in its own process ({reason}); nothing else was touched. "
                       "Your text and settings are kept: try again, or report it with the text that caused it.",
                       reason=reason)


TASKS: dict[str, Callable[[dict, list[bytes], Send], dict | bytes]] = {"count_file": count_file, "train": train, "hog": hog}


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG


def _yield_to_the_server() -> None:
    """The server's own pages come first on a busy machine: SCHED_IDLE runs this process only on a core nothing else
    wants (nice 10 still gave a worker a tenth of a core the server was using); nice 10 where it is missing."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    if hasattr(os, "SCHED_IDLE"):
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def _policy() -> str:
    if hasattr(os, "sched_getscheduler") and os.sched_getscheduler(0) == getattr(os, "SCHED_IDLE", None):
        return "idle"
    return f"nice {os.nice(0)}"


def main() -> int:
    _die_with_parent()
    _yield_to_the_server()
    limit = int(os.environ.get("BPEVIZ_TASK_MEMORY", "0"))
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = sys.stdout.buffer

    def send(message: dict) -> None:
        out.write(json.dumps(message).encode() + b"\n")
        out.flush()

    request = json.loads(sys.stdin.buffer.readline())
    blobs = [sys.stdin.buffer.read(size) for size in request["sizes"]]
    try:
        result = TASKS[request["task"]](request["header"], blobs, send)
        if isinstance(result, bytes):  # a binary result: its size on a line, then the bytes
            send({"result_bytes": len(result)})
            out.write(result)
            out.flush()
        else:
            send({"result": result})
    except BpevizError as exc:
        send(_error_message(exc))
    except MemoryError:
        del blobs
        send(_error_message(out_of_memory(limit)))
    except Exception as exc:  # a bug: the visitor is told it failed, not that it ran out of memory
        send(_error_message(failed(f"{type(exc).__name__}: {str(exc)[:200]}")))
    return 0


def _error_message(exc: BpevizError) -> dict:
    values = {k: v if isinstance(v, (int, float, str)) else str(v) for k, v in exc.values.items()}
    return {"error": exc.code, "message": str(exc), "kwargs": values}


if __name__ == "__main__":
    sys.exit(main())
