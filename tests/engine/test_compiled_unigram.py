"""Unigram training on the compiled engine (numba) against the Python steps, the oracle: the same seeds, rounds, pieces.

The Python steps are themselves checked against SentencePiece (test_unigram.py), so equal here
means the compiled engine trains SentencePiece's vocabulary too.
"""

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz import engine as engines
from bpeviz.core.errors import BpevizError
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.engine.unigram_python import PythonSteps
from bpeviz.models.unigram import Model
from bpeviz.trainers.unigram import train_unigram

compiled_unigram = pytest.importorskip("bpeviz.engine.unigram_compiled", reason="the compiled engine needs numba")

# Spaces, a letter sharing its first UTF-8 byte with another (ж/з), a 4-byte character, digits and punctuation
DOCS = st.lists(st.text(alphabet="ab ab c жз\U0001f600.1\n", max_size=60), min_size=1, max_size=8)


def both(docs, vocab_size, **options):
    """The tokenizers both engines train, and their (pieces and scores, rounds, corpus length)."""
    python = bpeviz.train(docs, vocab_size=vocab_size, algorithm="unigram", engine="python", **options)
    fast = bpeviz.train(docs, vocab_size=vocab_size, algorithm="unigram", engine="compiled", **options)
    assert (python.engine, fast.engine) == ("python", "compiled")
    return [(t.scored, t.rounds, t.corpus_tokens) for t in (python, fast)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=DOCS, extra=st.integers(0, 40), pretokenizer=st.sampled_from(["spaces", "gpt2", "none"]))
def test_compiled_equals_python_on_random_corpora(docs, extra, pretokenizer):
    alphabet = {ch for doc in docs for ch in doc} | {" "}
    try:
        python, fast = both(docs, len(alphabet) + extra, pretokenizer=pretokenizer)
    except BpevizError as error:  # an empty corpus, or fewer pieces than characters: both engines must refuse alike
        with pytest.raises(BpevizError) as again:
            bpeviz.train(docs, vocab_size=len(alphabet) + extra, algorithm="unigram", engine="compiled",
                         pretokenizer=pretokenizer)
        assert again.value.code == error.code
        return
    assert fast == python


@pytest.mark.parametrize(("corpus", "vocab_size"), [
    ("toy_pt", 40), pytest.param("english", 4000, marks=pytest.mark.slow), ("udhr-ja", 900), ("udhr-zh", 700),
    ("udhr-ru", 600), ("udhr-ar", 600), ("udhr-hi", 600), pytest.param("python", 1000, marks=pytest.mark.slow)])
def test_compiled_equals_python_on_the_shipped_corpora(corpus, vocab_size):
    python, fast = both(corpora.corpus_text(corpus), vocab_size)
    assert len(python[0]) == vocab_size or python[1]  # it trained: the full size, or rounds that ended short
    assert fast == python


def test_eight_scripts_and_long_words_cut_into_windows():
    mixed = "\n".join(corpora.corpus_text(f"udhr-{code}")[:3000] for code in ("en", "ru", "el", "ar", "hi", "th", "ja", "ko"))
    words = [("x" * 300 + "yz" * 200, 2)]  # longer than MAX_TRAIN_WORD: cut into windows
    python, fast = both([mixed, "".join(w for w, _ in words)], 1500, pretokenizer="spaces")
    assert fast == python


def test_each_step_gives_the_reference_numbers():
    items = list(Counter(corpora.corpus_text("portuguese")[:40_000].split(" ")).items())
    finals = Counter({items[-1][0]: 1})
    ref, fast = PythonSteps(items), compiled_unigram.Steps(items)
    seeds = ref.seeds(finals)
    assert fast.seeds(finals) == seeds and len(seeds) > 1000
    model = Model(seeds)
    lattices, arrays = ref.lattices(model), fast.lattices(model)
    assert [list(zip(*(a[arrays.off[w]:arrays.off[w + 1]].tolist() for a in arrays[:3]))) for w in range(len(items))] == lattices
    expected, objective, tokens = ref.e_step(model, lattices)
    fast_expected, fast_objective, fast_tokens = fast.e_step(model, arrays)
    assert fast_expected.tolist() == expected and (fast_objective, fast_tokens) == (objective, tokens)
    after = Model(ref.m_step(model, expected))
    assert fast.m_step(model, fast_expected) == after.pieces and len(after.pieces) < len(seeds)
    lattices, arrays = ref.relattice(after, model, lattices), fast.relattice(after, model, arrays)
    keep = int(0.75 * len(after.pieces))
    assert fast.prune(after, arrays, keep) == ref.prune(after, lattices, keep)
    assert fast.reachable(after) == ref.reachable(after) and fast.tokens(after) == ref.tokens(after)


def test_progress_and_rounds_come_alike():
    items = list(Counter(corpora.corpus_text("english")[:60_000].split(" ")).items())
    seen: dict[str, list] = {}
    for engine in (engines.PYTHON, engines.COMPILED):
        calls, logged = [], []
        tok = train_unigram(items, Settings(vocab_size=800, algorithm="unigram"), engine=engine,
                            progress=lambda done, total, calls=calls: calls.append((done, total)), log=logged.append)
        seen[tok.engine] = [calls, logged, tok.scored]
    assert seen["compiled"] == seen["python"] and len(seen["python"][1]) >= 2


def test_the_engine_is_chosen_and_said():
    assert bpeviz.train("o gato sentou", vocab_size=20, algorithm="unigram", engine="python").engine == "python"
    assert engines.resolve("compiled", group="unigram").name == "compiled"  # loaded here
    assert bpeviz.train("o gato sentou", vocab_size=20, algorithm="unigram").engine == "compiled"  # auto, once loaded
    with pytest.raises(BpevizError, match="runs BPE's and Unigram's loops") as info:
        bpeviz.train("o gato", vocab_size=12, algorithm="wordpiece", engine="compiled")
    assert info.value.code == "engine_algorithm"


def test_the_command_line_says_which_engine_trained_the_pieces(tmp_path, capsys):
    from bpeviz.cli import main

    path = tmp_path / "prose.txt"
    path.write_text(corpora.corpus_text("english")[:30_000], encoding="utf-8")
    printed = {}
    for name in ("python", "compiled"):
        assert main(["train", str(path), "--algorithm", "unigram", "--vocab-size", "500", "--engine", name]) == 0
        out, err = capsys.readouterr()
        assert "500 pieces in " in err and f"on the {name} engine" in err
        printed[name] = out
    assert printed["python"] == printed["compiled"] and printed["python"].count("\n") == 500
