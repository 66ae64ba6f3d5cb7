"""The compiled engine (numba) against the Python trainer, record for record: the Python one is the oracle.

Every field of every RawMerge is compared: the pair, its id, count, the tokens after it, the
tied pairs and the top pairs. The Python trainer is itself checked against the naive oracle and
the real libraries (test_trainer.py, test_dialects.py).
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz import engine as engines
from bpeviz.core import rules
from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora
from bpeviz.engine import loading
from bpeviz.engine import python as trainer
from bpeviz.trainers.bpe import prepare

compiled = pytest.importorskip("bpeviz.compiled.bpe", reason="the compiled engine needs numba: pip install -e '.[fast]'")

ENGLISH = corpora.corpus_text("english")
CORPUS = st.lists(st.text(alphabet="aab c1\né", max_size=30), min_size=1, max_size=6)


def both(sequences, n, first, rules_, record_top=0):
    want = trainer.train_ids(sequences, n, first, rules=rules_, record_top=record_top)
    got = compiled.train_ids(sequences, n, first, rules_, record_top=record_top)
    return want, got


def texts_of(p):
    return p.alphabet if p.alphabet is not None else [bytes([b]) for b in range(256)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=CORPUS, tie_break=st.sampled_from(list(rules.TIE_RULES)), count_rule=st.sampled_from(list(rules.COUNT_RULES)),
       level=st.sampled_from(bpeviz.LEVELS), unique=st.booleans(), pretokenizer=st.sampled_from(["none", "gpt2", "spaces"]),
       n=st.integers(1, 40), record_top=st.sampled_from([0, 1, 3, 12]))
def test_compiled_equals_python_on_random_corpora(docs, tie_break, count_rule, level, unique, pretokenizer, n, record_top):
    p = prepare(docs, level, pretokenizer)
    rules_ = trainer.rules_for(tie_break, count_rule, texts_of(p), unique)
    want, got = both(p.sequences, n, p.n_base, rules_, record_top)
    assert got == want


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=CORPUS, tie_break=st.sampled_from(list(rules.TIE_RULES)), count_rule=st.sampled_from(list(rules.COUNT_RULES)),
       level=st.sampled_from(bpeviz.LEVELS), record_top=st.sampled_from([0, 2, 12]), data=st.data())
def test_compiled_replay_equals_python(docs, tie_break, count_rule, level, record_top, data):
    p = prepare(docs, level, "gpt2")
    rules_ = trainer.rules_for(tie_break, count_rule, texts_of(p))
    learned = trainer.train_ids(p.sequences, 30, p.n_base, rules=rules_)
    pairs = [(m.left_id, m.right_id) for m in learned]
    # merges learned elsewhere: some never occur here, one may come twice
    if p.n_base:
        ids = st.integers(0, p.n_base - 1)
        pairs += data.draw(st.lists(st.tuples(ids, ids), max_size=5))
    want = trainer.replay_ids(p.sequences, pairs, p.n_base, rules=rules_, record_top=record_top)
    assert compiled.replay_ids(p.sequences, pairs, p.n_base, rules_, record_top=record_top) == want


@pytest.mark.slow  # an oracle over many cases or a big real tokenizer: CI runs it, the quick run does not
@pytest.mark.parametrize("tie_break", list(rules.TIE_RULES))
@pytest.mark.parametrize(("level", "pretokenizer"), [("bytes", "gpt4"), ("chars", "gpt2"), ("bytes", "none")])
def test_compiled_equals_python_on_english_prose_to_4096(tie_break, level, pretokenizer):
    p = prepare([ENGLISH], level, pretokenizer)
    n = 4096 - p.n_base if pretokenizer != "none" else 1500
    want, got = both(p.sequences, n, p.n_base, trainer.rules_for(tie_break, "overlapping", texts_of(p)), record_top=12)
    assert len(got) == n and got == want


@pytest.mark.parametrize("dialect", list(rules.DIALECTS))
def test_every_dialect_trains_the_same_tokenizer_on_both_engines(dialect):
    lines = [line for line in ENGLISH.splitlines() if line.strip()][:1500]
    python = bpeviz.train(lines, vocab_size=1200, dialect=dialect, engine="python", record_top=5)
    fast = bpeviz.train(lines, vocab_size=1200, dialect=dialect, engine="compiled", record_top=5)
    assert (python.engine, fast.engine) == ("python", "compiled")
    assert fast.merges == python.merges and fast.vocab == python.vocab


def test_a_large_alphabet_at_level_chars():
    text = "\n".join(corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES)
    p = prepare([text], "chars", "gpt2")
    assert p.n_base > 300  # many scripts: ids above 255 on both sides of pairs
    for tie_break in rules.TIE_RULES:
        want, got = both(p.sequences, 800, p.n_base, trainer.rules_for(tie_break, "nonoverlapping", texts_of(p)), 4)
        assert got == want


def test_nonoverlapping_runs_and_early_stop():
    for ids in ([5] * 7, [1, 2] * 5, [1, 1, 2, 1, 1, 1, 2, 2, 2]):
        for tie_break in rules.TIE_RULES:
            r = trainer.rules_for(tie_break, "nonoverlapping", [str(k) for k in range(10)])
            want, got = both([(ids, 3), (ids[::-1], 2)], 50, 10, r, 3)
            assert got == want and len(got) < 50  # stopped when every sequence was one token


def test_arrays_grow_when_a_merge_needs_more_room(monkeypatch):
    """The text buffers start small here, so that merges must grow them between chunks; nothing changes."""
    monkeypatch.setattr(compiled, "TEXT_ROOM_PER_TOKEN", 0)
    grown = []
    real = compiled._make_room
    monkeypatch.setattr(compiled, "_make_room", lambda state: grown.append(1) or real(state))
    p = prepare([ENGLISH[:40_000]], "chars", "spaces")
    r = trainer.rules_for("sentencepiece", "overlapping", texts_of(p), True)
    want, got = both(p.sequences, 600, p.n_base, r, 3)
    assert got == want and len(grown) > 3
    grown.clear()
    pairs = [(m.left_id, m.right_id) for m in want]
    assert compiled.replay_ids(p.sequences, pairs, p.n_base, r, record_top=2) == \
        trainer.replay_ids(p.sequences, pairs, p.n_base, rules=r, record_top=2)
    assert len(grown) > 3  # the texts, and the replay's index of pairs


def test_progress_comes_in_chunks_and_ends_at_the_total():
    p = prepare([ENGLISH], "bytes", "gpt4")
    calls = []
    compiled.train_ids(p.sequences, 3000, 256, trainer.rules_for(), progress=lambda done, total: calls.append((done, total)))
    assert len(calls) >= 10 and calls[-1] == (3000, 3000)
    assert all(total == 3000 for _, total in calls) and [d for d, _ in calls] == sorted({d for d, _ in calls})


def test_engine_names_and_choice(monkeypatch):
    assert bpeviz.engines() == engines.engines() == ["python", "compiled"]
    assert engines.resolve("python", size=10**9).name == "python"
    assert engines.resolve("compiled", group="bpe").name == "compiled"  # asked for: loaded here
    assert engines.status("bpe") == "loaded"
    assert engines.resolve("auto", size=1).name == "compiled"  # once loaded, auto takes it at any size
    assert bpeviz.train(["o gato"], vocab_size=12).engine == "compiled"
    with pytest.raises(BpevizError, match="choose one of auto, python, compiled"):
        bpeviz.train(["o gato"], vocab_size=12, engine="turbo")
    with pytest.raises(BpevizError, match="runs BPE's and Unigram's loops") as info:
        bpeviz.train(["o gato"], vocab_size=12, algorithm="wordpiece", engine="compiled")
    assert info.value.code == "engine_algorithm"
    monkeypatch.setattr(loading, "numba_installed", lambda: False)  # as on a machine without numba
    assert bpeviz.engines() == ["python"] and engines.resolve("auto", size=10**9).name == "python"
    assert engines.status("bpe") == "unavailable"
    with pytest.raises(BpevizError, match=r'pip install "bpeviz\[fast\]"') as info:
        bpeviz.train(["o gato"], vocab_size=12, engine="compiled")
    assert info.value.code == "engine_unavailable"
    assert bpeviz.train(["o gato"] * 50_000, vocab_size=40, engine="auto").engine == "python"


def test_replay_on_uses_the_engine_asked_for():
    tok = bpeviz.train(ENGLISH, vocab_size=600, level="bytes", pretokenizer="gpt4")
    from bpeviz.trainers.bpe import replay_on

    python = replay_on(tok, ENGLISH[:20_000], engine="python", record_top=4)
    fast = replay_on(tok, ENGLISH[:20_000], engine="compiled", record_top=4)
    assert fast.engine == "compiled" and fast.merges == python.merges


def test_a_replay_meeting_byte_fallback_ids_above_the_merges_equals_python():
    """A chars-level table replayed on text outside its alphabet: byte-fallback ids lie above every merge's id."""
    from bpeviz.trainers.bpe import replay_on

    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)  # 23 characters: English falls back to bytes
    assert tok.base_ids("w") and min(tok.base_ids("w")) >= tok.vocab_size  # 'w' is not in the toy alphabet
    python = replay_on(tok, ENGLISH[:20_000], engine="python", record_top=3)
    fast = replay_on(tok, ENGLISH[:20_000], engine="compiled", record_top=3)
    assert fast.merges == python.merges and fast.engine == "compiled"


def test_the_command_line_says_which_engine_trained(tmp_path, capsys):
    from bpeviz.cli import main

    path = tmp_path / "prose.txt"
    path.write_text(ENGLISH[:30_000], encoding="utf-8")
    printed = {}
    for name in ("python", "compiled"):
        assert main(["train", str(path), "--vocab-size", "700", "--engine", name]) == 0
        out, err = capsys.readouterr()
        assert f"merges on the {name} engine" in err
        printed[name] = out
    assert printed["python"] == printed["compiled"] and printed["python"].count("\n") == 700 - 256


@pytest.mark.parametrize("pretokenizer", ["gpt4", "gpt2", "none"])
def test_text_blocks_cut_only_where_no_pre_token_crosses(pretokenizer):
    from collections import Counter

    from bpeviz.counting import blocks as counting
    from bpeviz.pre_tokenizers import splits as pretokenize

    docs = [ENGLISH[:20_000], "x" * 5000, "o gato\n\n  subiu " * 300]
    blocks = list(counting.text_blocks(docs, pretokenizer, block_chars=1000))
    assert "".join(d for b in blocks for d in b.docs) == "".join(docs)
    assert len(blocks) > 10 if pretokenizer != "none" else len(blocks) == 3
    counted: Counter = Counter()
    for block in blocks:
        counted.update(pretokenize.count_pieces(block.docs, pretokenizer))
    whole = pretokenize.count_pieces(docs, pretokenizer)
    assert counted == whole and list(counted) == list(whole)  # the same table, first occurrences in the same order


PARALLEL = """
import sys
from bpeviz.data import corpora
from bpeviz.counting import blocks as counting
from bpeviz.trainers import training
calls = []
real = counting.count_blocks
counting.count_blocks = lambda *a, **k: calls.append(k["workers"]) or real(*a, **k)
from bpeviz.counting import choice
# a small corpus takes the parallel path here
counting.PARALLEL_MIN_BYTES = choice.PARALLEL_MIN_BYTES = choice.PARALLEL_MIN_BYTES_COMPILED = 10_000
text = corpora.corpus_text("english")
one = training.train(text, vocab_size=900, level="bytes", pretokenizer="gpt4", record_top=3, workers=1)
two = training.train(text, vocab_size=900, level="bytes", pretokenizer="gpt4", record_top=3, workers=2)
auto = training.train(text, vocab_size=900, level="bytes", pretokenizer="gpt4", record_top=3)  # every core
many = training.train(text, vocab_size=900, level="bytes", pretokenizer="gpt4", record_top=3, workers=10_000)
cores = counting.MAX_LOCAL_WORKERS
assert calls == [2] + [cores, cores] * (cores > 1), calls  # 10 000 is capped at the cores
assert two.merges == one.merges == auto.merges == many.merges and two.corpus_bytes == one.corpus_bytes
print("same")
"""


def test_workers_count_in_processes_and_learn_the_same_merges():
    import subprocess
    import sys

    # a fresh single-threaded process: only such a process forks workers (this one runs Streamlit's threads)
    done = subprocess.run([sys.executable, "-c", PARALLEL], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "same", done.stderr
    with pytest.raises(ValueError, match="workers must be \"auto\" or a whole number"):
        bpeviz.train("o gato", vocab_size=12, workers=0)


FIRST_RUN = """
import json, sys, bpeviz
from bpeviz import engine
from bpeviz.data import corpora
text = corpora.corpus_text("english") + corpora.corpus_text("portuguese")
tok = bpeviz.train(text, vocab_size=600, level="bytes", pretokenizer="gpt4")
print(json.dumps([tok.engine, engine.status("bpe"), "numba" in sys.modules]))
"""


@pytest.mark.slow  # a background process compiles BPE's kernels into an empty cache (tens of seconds on 2 cores)
def test_a_first_run_on_an_empty_cache_compiles_in_the_background_and_a_later_run_uses_it(tmp_path):
    import json
    import os
    import subprocess
    import sys
    import time

    cache = tmp_path / "numba"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)

    first = run("-c", FIRST_RUN)
    assert json.loads(first.stdout) == ["python", "compiling", False], first.stderr  # numba not even imported in the call
    (tmp_path / "prose.txt").write_text(corpora.corpus_text("portuguese"), encoding="utf-8")
    cli = run("-m", "bpeviz", "train", "prose.txt", "--vocab-size", "300")
    assert cli.returncode == 0 and "merges on the python engine" in cli.stderr
    assert "the fast engine is compiling in the background, once; this run uses the Python loop" in cli.stderr
    deadline = time.monotonic() + 900
    while not list((cache / "bpeviz").glob("bpeviz-ready-bpe-*")):  # the background build's marker
        assert not list((cache / "bpeviz").glob("bpeviz-failed-bpe-*")) and time.monotonic() < deadline
        time.sleep(0.5)
    later = run("-c", FIRST_RUN)
    assert json.loads(later.stdout) == ["compiled", "loaded", True], later.stderr


def test_counts_past_64_bits_train_exactly_on_python_or_are_refused_by_the_compiled_engine():
    """Issue 49.6: pair counts of 1.8e19 wrapped in the compiled loop's int64 and it chose other merges."""
    from collections import Counter

    from bpeviz.counting.tables import CountTable
    from bpeviz.trainers.training import train_counts

    counts = Counter({f" ab{k}": 9 * 10**17 for k in range(20)})  # each fits 18 digits; ' ' + 'a' then occurs 1.8e19 times
    counts.update({" cd": 5})
    table = CountTable(counts=counts, pretokenizer="gpt2")
    exact = train_counts(table, vocab_size=262, level="bytes", engine="python")
    assert (exact.merges[0].left, exact.merges[0].right, exact.merges[0].count) == (b" ", b"a", 18 * 10**18)
    engines.resolve("compiled", group="bpe")  # loaded: "auto" would pick it for a run this size
    auto = train_counts(table, vocab_size=262, level="bytes")
    assert auto.engine == "python" and [m.token for m in auto.merges] == [m.token for m in exact.merges]
    with pytest.raises(BpevizError) as caught:
        train_counts(table, vocab_size=262, level="bytes", engine="compiled")
    assert caught.value.code == "counts_too_large"
