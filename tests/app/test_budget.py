"""Issue 28: every training a visitor can start stops when its time is up or its visitor has left."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
from app_helpers import new_app

import bpeviz
from bpeviz import engine
from bpeviz.app import budget, runs
from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora
from bpeviz.lessons import mix

TEXT = "\n".join(corpora.documents("udhr-en") + corpora.documents("udhr-pt"))


def ticking(step: float = 1.0):
    """A clock that moves `step` seconds at every reading."""
    counter = itertools.count()
    return lambda: next(counter) * step


def test_the_budget_stops_on_time_and_when_the_visitor_leaves():
    seen = []
    watch = budget.Budget(seconds=2.5, clock=ticking()).watch(lambda done, total: seen.append(done))
    watch(1, 10)
    watch(2, 10)
    with pytest.raises(BpevizError, match="more than 2 s") as caught:
        watch(3, 10)
    assert caught.value.code == "budget_time" and seen == [1, 2]
    here = iter([True, False])
    gone = budget.Budget(still_here=lambda: next(here)).watch()
    gone(1, 2)
    with pytest.raises(BpevizError) as caught:
        gone(2, 2)
    assert caught.value.code == "visitor_left"


def test_the_budget_stops_a_run_that_grows_the_servers_memory_too_much():
    readings = iter([100, 150, 260])  # bytes: at the start, then at two progress calls
    watch = budget.Budget(memory_bytes=100, memory=lambda: next(readings)).watch()
    watch(1, 10)  # grew by 50: within budget
    with pytest.raises(BpevizError, match="more than 0 MB") as caught:
        watch(2, 10)  # grew by 160
    assert caught.value.code == "budget_memory"


def test_runs_that_each_stay_within_their_own_budget_stop_when_the_server_as_a_whole_is_full():
    """Issue 49.5: three visitors' runs at once took the server to 4.9 GB, each within its own 1.2 GB."""
    server = [2_900]  # bytes the server holds: every run reads the same process
    runs = [budget.Budget(memory_bytes=1_000, server_bytes=3_000, memory=lambda: server[0]).watch() for _ in range(3)]
    for watch in runs:
        watch(1, 10)  # all within both budgets
    server[0] = 3_400  # each grew by 500 / 3: within its own 1 000, but the server is past 3 000
    for watch in runs:
        with pytest.raises(BpevizError) as caught:
            watch(2, 10)
        assert caught.value.code == "budget_server_memory"


@pytest.mark.skipif(budget.resident_bytes() is None, reason="no /proc here: the memory budget is off, as the module says")
def test_the_memory_budget_reads_the_real_resident_set():
    held = []
    watch = budget.Budget(memory_bytes=30_000_000).watch()
    watch(0, 2)
    held.append(bytes(range(256)) * 312_500)  # 80 MB written, so resident, not only reserved
    with pytest.raises(BpevizError) as caught:
        watch(1, 2)
    assert caught.value.code == "budget_memory" and len(held[0]) == 80_000_000


TRAININGS = {
    "bpe": lambda p: bpeviz.train(TEXT, vocab_size=1500, level="bytes", engine="python", progress=p),
    "wordpiece": lambda p: bpeviz.train(TEXT, vocab_size=900, algorithm="wordpiece", progress=p),
    "unigram": lambda p: bpeviz.train(TEXT, vocab_size=300, algorithm="unigram", progress=p),
    "superbpe": lambda p: bpeviz.train(TEXT, vocab_size=1500, level="bytes", algorithm="superbpe", transition=900, progress=p),
    "boundless": lambda p: bpeviz.train(TEXT[:8000], vocab_size=700, level="bytes", algorithm="boundless", progress=p),
    "parity": lambda p: mix.train_mix({"en": 1, "ru": 1}, 1500, parity=True, progress=p),
}
if "compiled" in engine.engines():
    TRAININGS["compiled"] = lambda p: bpeviz.train(TEXT, vocab_size=1500, level="bytes", engine="compiled", progress=p)


@pytest.mark.parametrize("kind", sorted(TRAININGS))
def test_every_trainer_stops_at_a_progress_call_once_the_visitor_has_left(kind):
    calls = []

    def still_here() -> bool:
        calls.append(1)
        return len(calls) < 2  # gone after the first report

    with pytest.raises(BpevizError) as caught:
        TRAININGS[kind](budget.Budget(still_here=still_here).watch())
    assert caught.value.code == "visitor_left" and len(calls) == 2


def test_the_app_stops_a_run_over_budget_and_keeps_the_text(monkeypatch):
    text = "uma frase nova para este teste de orçamento. " * 40
    at = new_app(source="paste", pasted=text, vocab_size=300)
    monkeypatch.setattr(budget, "RUN_SECONDS", -1.0)  # every run is over budget at its first report
    before = runs.trained_runs().trained
    at.run(timeout=120)
    assert any("the most one visitor may use" in e.value for e in at.error)
    assert runs.trained_runs().trained == before  # nothing half-trained was stored
    monkeypatch.setattr(budget, "RUN_SECONDS", 90.0)
    at.run(timeout=120)
    assert not at.error and at.session_state["pasted"] == text
    assert runs.trained_runs().trained == before + 1


def test_mixture_inference_stops_at_a_progress_call_once_the_visitor_has_left():
    """Issue 43 row 2: Inspect's mixture inference ran with no budget, on for a visitor who had gone."""
    from bpeviz.lessons import inspect

    en, pt = "\n".join(corpora.documents("udhr-en")), "\n".join(corpora.documents("udhr-pt"))
    tok = bpeviz.train(en[:20_000] + pt[:20_000], vocab_size=600, level="bytes")
    calls = []
    assert inspect.infer_mixture(tok, {"en": en, "pt": pt}, n_merges=300, progress=lambda d, n: calls.append(d))
    assert len(calls) >= 5  # during the replay (every 64 merges) and after each solver round
    here = iter([True, True, False])
    with pytest.raises(BpevizError) as caught:
        inspect.infer_mixture(tok, {"en": en, "pt": pt}, n_merges=300,
                              progress=budget.Budget(still_here=lambda: next(here, False)).watch())
    assert caught.value.code == "visitor_left"


def test_the_checker_stops_at_a_progress_call_once_the_visitor_has_left():
    """Issue 43 row 2: the Rules page's checker replayed a 5 000-row table with no budget."""
    from bpeviz.lessons import checker
    from bpeviz.trainers.settings import resolve_settings

    settings = resolve_settings(400, level="chars")
    tok = bpeviz.train(TEXT, vocab_size=400)
    table = "\n".join(f"{render_token(m.left)} + {render_token(m.right)}" for m in tok.merges)
    rows = checker.parse_table(table, "chars")
    calls = []
    verdicts = checker.check_table(rows, TEXT, settings, progress=lambda d, n: calls.append(d))
    assert len(verdicts) == len(rows) and calls == list(range(0, len(rows), 64))
    here = iter([True, True, False])
    with pytest.raises(BpevizError) as caught:
        checker.check_table(rows, TEXT, settings, progress=budget.Budget(still_here=lambda: next(here, False)).watch())
    assert caught.value.code == "visitor_left"


def render_token(token: str) -> str:
    return token.replace(" ", "␣")


GLIBC_BIG_BLOCK_PROBE = """
import ctypes, ctypes.util, sys
from bpeviz.app import budget
libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
if sys.argv[1] == "fixed":
    budget.map_big_blocks()
libc.free(libc.malloc(20_000_000))  # one visitor's upload, freed: glibc's default raises its threshold to 20 MB
block = libc.malloc(2_000_000)
header = ctypes.c_size_t.from_address(block - ctypes.sizeof(ctypes.c_size_t)).value
print("mapped" if header & 2 else "heap")  # IS_MMAPPED, the second bit of a glibc chunk's size field
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator: Linux only")
def test_after_a_big_upload_is_freed_big_blocks_still_get_pages_of_their_own():
    """glibc raises its mmap threshold to the largest block freed; the server fixes it, so a 2 MB block after a freed
    20 MB one is mapped on its own (returned whole when freed) and not carved out of the heap."""
    def probe(mode: str) -> str:
        done = subprocess.run([sys.executable, "-c", GLIBC_BIG_BLOCK_PROBE, mode], capture_output=True, text=True,
                              timeout=120, check=True)
        return done.stdout.strip()

    assert probe("default") == "heap"  # what the server met: the block lands in the heap
    assert probe("fixed") == "mapped"
