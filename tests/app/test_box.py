"""Issue 43, rows 1 and 8: a visitor's heavy task runs in a process of its own, memory-capped, stopped with its visitor."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from app_helpers import new_app

import bpeviz
from bpeviz.app import box, budget
from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora
from bpeviz.pretrained.encodings import ENCODINGS


def task_children() -> list[int]:
    """Live processes running a box task whose parent is this process."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if b"bpeviz.app.tasks" in cmdline and int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
            found.append(int(entry.name))
    return found


def test_a_task_over_its_memory_is_stopped_with_a_message_and_the_server_goes_on(monkeypatch):
    monkeypatch.setattr(box, "TASK_MEMORY_BYTES", 1_500_000_000)
    with pytest.raises(BpevizError) as caught:
        box.run("hog", {"megabytes": 2_000}, [], budget=budget.Budget())
    assert caught.value.code == "budget_memory_task" and "1500 MB" in str(caught.value)
    assert box.run("hog", {"megabytes": 10}, [], budget=budget.Budget()) == {"held": 10_000_000}  # the next one runs
    assert task_children() == []


def test_a_task_is_killed_when_its_time_is_up_or_its_visitor_leaves():
    with pytest.raises(BpevizError) as caught:
        box.run("hog", {"megabytes": 1, "seconds": 60}, [], budget=budget.Budget(seconds=0.5))
    assert caught.value.code == "budget_time"
    assert task_children() == []  # killed, not left working for no one
    here = threading.Event()
    here.set()
    threading.Timer(0.8, here.clear).start()  # the visitor closes the tab
    with pytest.raises(BpevizError) as caught:
        box.run("hog", {"megabytes": 1, "seconds": 60}, [], budget=budget.Budget(still_here=here.is_set))
    assert caught.value.code == "visitor_left" and task_children() == []


def test_tasks_beyond_the_workers_wait_their_turn_and_hear_how_many_are_ahead(monkeypatch):
    monkeypatch.setattr(box, "_slots", threading.Semaphore(1))
    first_started = threading.Event()
    results: list[dict] = []

    def first() -> None:
        results.append(box.run("hog", {"megabytes": 1, "seconds": 1.5}, [], budget=budget.Budget(),
                               on_message=lambda m: first_started.set()))

    worker = threading.Thread(target=first)
    worker.start()
    assert first_started.wait(30)
    ahead: list[int] = []
    second = box.run("hog", {"megabytes": 2}, [], budget=budget.Budget(), on_wait=ahead.append)
    worker.join()
    assert results == [{"held": 1_000_000}] and second == {"held": 2_000_000}
    assert ahead and set(ahead) == {1}  # told it was next in the queue while it waited


def test_a_visitor_who_leaves_the_queue_gives_up_their_place(monkeypatch):
    """The queue must not wait for someone who has gone: the task behind them starts."""
    monkeypatch.setattr(box, "_slots", threading.Semaphore(1))
    started = threading.Event()
    runner = threading.Thread(target=lambda: box.run("hog", {"seconds": 1.5}, [], budget=budget.Budget(),
                                                     on_message=lambda m: started.set()))
    runner.start()
    assert started.wait(30)
    here = threading.Event()
    here.set()
    leaver_done = threading.Event()

    def leaver() -> None:
        with pytest.raises(BpevizError):
            box.run("hog", {}, [], budget=budget.Budget(still_here=here.is_set))
        leaver_done.set()

    threading.Thread(target=leaver).start()
    places: list[int] = []
    third = threading.Thread(target=lambda: places.append(box.run("hog", {"megabytes": 3}, [], budget=budget.Budget(),
                                                                  on_wait=places.append)))
    third.start()
    here.clear()  # the second visitor leaves while waiting
    assert leaver_done.wait(30)
    third.join(60)
    runner.join()
    assert places[-1] == {"held": 3_000_000} and 1 in places[:-1]  # it moved up to first, then ran


@pytest.mark.slow  # seven real tokenizers, here and in the task's process
def test_the_count_of_a_file_equals_each_tokenizer_on_the_whole_file():
    """Counted in blocks in the task's process, the counts are the real libraries' on the whole text."""
    text = ("\n".join(corpora.documents("udhr-pt"))[:40_000] + "\n\n" + " " * 70_000 + "fim\u3000\u3000"
            + "def f(x):\n\treturn x  # código\n" * 300)
    data = text.encode()
    tok = bpeviz.train(text[:20_000], vocab_size=400)
    trained = bpeviz.formats.FORMATS["json"].write(tok)
    got = box.run("count_file", {"names": list(ENCODINGS), "cut_at": "gpt2", "trained": "here"}, [data, trained],
                  budget=budget.Budget())["tokens"]
    expected = {name: len(bpeviz.reference(name).encode_ordinary(text)) for name in ENCODINGS}
    assert got == {"here": len(tok.encode_ordinary(text)), **expected}


@pytest.mark.slow  # the page, and seven real tokenizers in the task's process
def test_the_encode_page_counts_a_file_and_a_stopped_count_keeps_the_file(monkeypatch):
    at = new_app(lang="pt")
    at.switch_page("bpeviz/app/pages/encode.py").run()
    text = "o gato subiu no telhado e desceu pela escada. " * 2_000
    monkeypatch.setattr(budget, "RUN_SECONDS", 0.05)  # the count cannot finish in time
    at.file_uploader(key="count_upload").set_value(("gatos.txt", text.encode(), "text/plain")).run()
    assert any("foi interrompido" in e.value for e in at.error), [e.value for e in at.error]
    assert task_children() == []
    monkeypatch.setattr(budget, "RUN_SECONDS", 90.0)
    at.run()  # the file is still there: counted now
    assert not at.error
    table = at.table[-1].value
    counted = len(bpeviz.reference("o200k_base").encode_ordinary(text))
    assert table.loc["o200k_base (GPT-4o)", "tokens"] == f"{counted:,}".replace(",", ".")  # Portuguese: 12.345
    assert len(table) == len(ENCODINGS) + 1  # and the tokenizer trained here
