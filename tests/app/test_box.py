"""Issue 43, rows 1 and 8: a visitor's heavy task runs in a process of its own, memory-capped, stopped with its visitor."""

from __future__ import annotations

import os
import random
import signal
import string
import threading
from collections import Counter
from pathlib import Path

import pytest
from app_helpers import new_app

import bpeviz
from bpeviz.app import box, budget, runs, tasks
from bpeviz.core.errors import BpevizError
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.lessons import render, sources, steps
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


def test_a_task_that_crashes_is_said_to_have_failed_not_to_have_run_out_of_memory():
    for fail, reason in (("raise", "RuntimeError: a bug in a task"), ("abort", f"code {-signal.SIGABRT}")):
        with pytest.raises(BpevizError) as caught:
            box.run("hog", {"megabytes": 1, "fail": fail}, [], budget=budget.Budget())
        assert caught.value.code == "task_failed" and reason in str(caught.value), str(caught.value)
    assert box.run("hog", {"megabytes": 1}, [], budget=budget.Budget()) == {"held": 1_000_000}
    assert task_children() == []


def test_a_task_runs_at_the_lowest_priority_so_the_server_s_pages_come_first():
    heard: list[dict] = []
    box.run("hog", {"megabytes": 1}, [], budget=budget.Budget(), on_message=heard.append)
    expected = "idle" if hasattr(os, "SCHED_IDLE") else f"nice {os.nice(0) + tasks.WORKER_NICENESS}"
    assert [m["policy"] for m in heard if "holding" in m] == [expected]


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


def big_paste() -> str:
    """A visitor's own text past runs.BOX_MIN_BYTES: it trains in a worker process."""
    text = "\n".join(corpora.documents("udhr-pt"))
    text = (text * (runs.BOX_MIN_BYTES // len(text.encode()) + 1))[: runs.BOX_MIN_BYTES + 5_000]
    assert len(text.encode()) >= runs.BOX_MIN_BYTES
    return text


def test_a_visitor_s_big_text_trains_in_a_worker_with_the_same_merges_and_records(monkeypatch):
    """Issue 43 row 8, 49 row 5: the server holds no visitor's training peak; what comes back is what it would have made."""
    source = sources.Pasted(big_paste())
    settings = Settings(vocab_size=600, level="bytes")
    here = sources.tokenizer_for(source, settings, record_top=runs.RECORD_TOP)
    calls: list[tuple[int, int]] = []

    def not_here(*args, **kwargs):
        raise AssertionError("trained in the server's process")

    monkeypatch.setattr(sources, "tokenizer_for", not_here)
    assert runs.in_box(source) and not runs.in_box(sources.Pasted("o gato subiu no telhado"))
    assert not runs.in_box(sources.Shipped("english"))  # shipped corpora are known and shared: trained in place
    made, history = runs.train_in_box(source, settings, "auto", lambda done, total: calls.append((done, total)), None)
    words = Counter(runs.corpus_words(source.documents(), settings))
    assert history == steps.train_history(here, source.documents(), words)  # the player's, made there
    assert made.merges == here.merges and made.merges[5].top  # pairs, counts, ties and the pair chart's records
    assert made.encode("o gato subiu no telhado") == here.encode("o gato subiu no telhado")
    assert calls and calls[-1][0] == len(here.merges)  # progress heard from the worker
    assert task_children() == []


@pytest.mark.slow  # two runs of the app, one a training in a worker
def test_a_training_worker_out_of_memory_leaves_the_visitor_a_message_and_their_text(monkeypatch):
    """Must-hold of 43: a worker killed for memory; the visitor gets the message with their text kept, the next run works."""
    rng = random.Random(43)
    text = " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 12))) for _ in range(30_000))
    at = new_app(source="paste", pasted=text, vocab_size=2000, lang="pt")
    monkeypatch.setattr(box, "TASK_MEMORY_BYTES", 70_000_000)  # 250 KB of distinct words need more to count
    at.run(timeout=120)
    assert any("precisou de mais de 70 MB" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["pasted"] == text and task_children() == []
    monkeypatch.setattr(box, "TASK_MEMORY_BYTES", 3_000_000_000)
    at.run(timeout=120)
    assert not at.error and at.session_state["pasted"] == text and at.session_state["vocab_size"] == 2000
    assert len(at.session_state["_boxed_runs"]) == 1  # trained in a worker this time, and kept in the session


def test_a_big_unigram_run_is_measured_and_refused_in_its_worker(monkeypatch):
    """The size check reads every distinct word: for a visitor's big text that is the worker's work, with the same refusal."""
    rng = random.Random(7)
    text = "".join(rng.choices(string.ascii_lowercase, k=runs.MAX_UNIGRAM_CHARS + 1_000))  # no spaces: all distinct

    def not_here(*args, **kwargs):
        raise AssertionError("the corpus's words were read in the server's process")

    monkeypatch.setattr(runs, "words", not_here)
    with pytest.raises(BpevizError) as caught:
        runs.run(sources.Pasted(text), Settings(vocab_size=400, algorithm="unigram"))
    assert caught.value.code == "unigram_too_big" and caught.value.values["cap"] == runs.MAX_UNIGRAM_CHARS
    assert task_children() == []


@pytest.mark.slow  # the box's limits and messages stay in the quick run
def test_a_run_on_one_endless_word_stays_with_its_visitor_and_shows_bounded_tokens():
    """Issue 49 row 5: 2.5 MB of no-break spaces made 32 tokens of up to a million characters; the server kept them in
    the shared store (63 MB) and sent 126 MB of token texts to the browser. Now the run lives in the visitor's session
    (gone with them) and the player gets each token's start and end."""
    data = ("\u00a0" * 500_000).encode()
    at = new_app(source="upload", vocab_size=50256)
    at.run(timeout=120)
    stored = runs.trained_runs().trained
    at.file_uploader(key="upload").set_value(("blank.txt", data, "text/plain")).run(timeout=120)
    assert not at.error
    assert runs.trained_runs().trained == stored  # nothing of this visitor's in the shared store
    (tok, history), = at.session_state["_boxed_runs"].values()
    longest = max(tok.merges, key=lambda m: len(m.token)).token
    assert len(longest) > 100_000  # the tokens are what BPE made
    shown = history["tokens"][max(tok.merges, key=lambda m: len(m.token)).id]
    nbsp = render.show("\u00a0")  # drawn as a visible escape
    assert len(shown) <= steps.SHOWN_TOKEN_CHARS * len(nbsp) + 1 and shown.startswith(nbsp * 10) and "…" in shown


class _Hostile:
    def __reduce__(self):
        return (os.system, ("touch /tmp/bpeviz-pwned",))


def test_what_a_worker_hands_back_is_read_as_bpeviz_objects_only():
    """carry.unpack builds bpeviz's own classes and nothing else: a pickle that calls a function is refused, unrun."""
    import pickle

    from bpeviz.app import carry

    tok = bpeviz.train("o gato subiu no telhado " * 20, vocab_size=300, level="bytes")
    back = carry.unpack(carry.pack((tok, {"n": 1})))
    assert back[0].merges == tok.merges and back[0].encoder is tok.encoder and back[1] == {"n": 1}
    for hostile in (_Hostile(), Counter("ab")):
        with pytest.raises(pickle.UnpicklingError):
            carry.unpack(pickle.dumps(hostile))
    assert not Path("/tmp/bpeviz-pwned").exists()
