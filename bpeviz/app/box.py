"""One visitor's heavy task in a process of its own: capped in memory, stopped when the visitor leaves or runs out of time.

A task (tasks.py) runs in a fresh `python -m bpeviz.app.tasks`, not in the server: the child caps its own address space
(RLIMIT_AS), ends with the server, and talks through pipes (its input framed on stdin, one JSON line per message on
stdout). The server waits in slices of WAIT_SLICE seconds and asks the visitor's budget at each (time, and is the visitor
still here?); when it says stop, the child is killed, and whatever it held goes with it. A child that runs out of memory
ends with a clear message; nothing it does reaches another visitor. At most WORKERS tasks run at once; the others
wait their turn, and the page says how many are ahead. No Streamlit import here.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from itertools import count
from pathlib import Path
from typing import Any

from bpeviz.core.errors import BpevizError

from .budget import Budget
from .tasks import failed, out_of_memory

WORKERS = max(1, os.cpu_count() or 1)  # tasks at once: one per core
TASK_MEMORY_BYTES = 3_000_000_000  # address space a task may map (Python, numpy and seven tokenizers take ~1.2 GB)
WAIT_SLICE = 0.2  # seconds between two looks at the budget

_slots = threading.Semaphore(WORKERS)
_order = threading.Condition()
_tickets = count()
_queue: deque[int] = deque()  # tickets waiting for a worker, first come first served


def run(task: str, header: dict, blobs: Sequence[bytes], *, budget: Budget,
        on_message: Callable[[dict], None] | None = None, on_wait: Callable[[int], None] | None = None) -> Any:
    """Run tasks.TASKS[task](header, blobs, send) in a child process and return its result (a JSON value, or bytes).

    on_message gets each message the task sends (progress); on_wait(n): every worker is busy, and this task is the
    n-th in the queue. Raises the task's BpevizError, budget_memory_task when it ran out of memory, task_failed when it
    crashed, or the budget's own error.
    """
    _take_slot(budget, on_wait)
    try:
        return _run_child(task, header, blobs, budget, on_message)
    finally:
        _release_slot()


def _take_slot(budget: Budget, on_wait: Callable[[int], None] | None) -> None:
    """Wait for a free worker in arrival order, checking the budget (a visitor who leaves gives up their place)."""
    with _order:
        ticket = next(_tickets)
        _queue.append(ticket)
    try:
        while True:
            with _order:
                if _queue[0] == ticket and _slots.acquire(blocking=False):
                    _queue.popleft()
                    _order.notify_all()
                    return
                place = _queue.index(ticket) + 1  # 1: the next to start
                _order.wait(WAIT_SLICE)
            if on_wait is not None:
                on_wait(place)
            budget.check()
    except BaseException:
        with _order:
            if ticket in _queue:
                _queue.remove(ticket)
            _order.notify_all()
        raise


def _release_slot() -> None:
    with _order:
        _slots.release()
        _order.notify_all()


def _run_child(task: str, header: dict, blobs: Sequence[bytes], budget: Budget,
               on_message: Callable[[dict], None] | None) -> Any:
    package_root = str(Path(__file__).resolve().parents[2])  # the child imports this bpeviz, wherever the server started
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
    proc = subprocess.Popen([sys.executable, "-m", "bpeviz.app.tasks"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": path, "BPEVIZ_TASK_MEMORY": str(TASK_MEMORY_BYTES)})
    feeder = threading.Thread(target=_feed, args=(proc, task, header, blobs), daemon=True)
    feeder.start()
    assert proc.stdout is not None
    try:
        return _read_child(proc, budget, on_message)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()


def _read_child(proc: subprocess.Popen, budget: Budget, on_message: Callable[[dict], None] | None) -> Any:
    """The child's messages, one JSON line each, until its result: a line's value, or the bytes a
    {"result_bytes": n} line announces. The budget is asked every WAIT_SLICE seconds, messages or not."""
    assert proc.stdout is not None
    buffered, expected = bytearray(), -1  # expected: the bytes of a binary result still to come, or -1 while reading lines
    while True:
        ready, _, _ = select.select([proc.stdout], [], [], WAIT_SLICE)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise _ended(proc)
            buffered += chunk
            while expected < 0 and b"\n" in buffered:
                line, buffered = buffered.split(b"\n", 1)
                message = json.loads(line)
                if "result" in message:
                    return message["result"]
                if "error" in message:
                    raise BpevizError(message["error"], message["message"], **message.get("kwargs", {}))
                if "result_bytes" in message:
                    expected = int(message["result_bytes"])
                elif on_message is not None:
                    on_message(message)
            if 0 <= expected <= len(buffered):
                return bytes(buffered[:expected])
        budget.check()


def _feed(proc: subprocess.Popen, task: str, header: dict, blobs: Sequence[bytes]) -> None:
    """The task's input: one JSON line (task, header, the blobs' sizes), then the blobs."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(json.dumps({"task": task, "header": header, "sizes": [len(b) for b in blobs]}).encode() + b"\n")
        for blob in blobs:
            proc.stdin.write(blob)
        proc.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the child was stopped before it read everything


def _ended(proc: subprocess.Popen) -> BpevizError:
    """The child ended without a result. Killed (SIGKILL: the kernel's out-of-memory killer) or ended with Python's
    exit code 1 (a MemoryError too deep to report) is memory; a crash by another signal is said as a failure."""
    code = proc.wait()
    if code in (-signal.SIGKILL, 1):
        return out_of_memory(TASK_MEMORY_BYTES)
    return failed(f"its process ended with code {code}")
