"""The notebook widgets' state (issue 47): steps, the lesson file both ways with the app, check's explanations, the
module that is the app's own player, and the notebooks in docs/notebooks run as a reader would run them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT

import bpeviz
from bpeviz.app import state
from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora

widgets = pytest.importorskip("bpeviz.widgets")
DOCS = corpora.documents("toy_pt")


@pytest.fixture(scope="module")
def toy():
    return bpeviz.train(DOCS, vocab_size=64, level="chars")


def test_a_player_holds_the_run_and_its_step(toy):
    player = widgets.Player(toy, corpus=DOCS)
    assert player.n_steps == 41 and player.step == 0 and player.data["kind"] == "train"
    history = player.data["history"]
    assert history["n"] == 41 and history["counted"] and history["window"]  # pair counts and corpus chips
    player.step = 12
    assert player.step == 12
    player.step = 500
    assert player.step == 41  # clamped to the run
    assert widgets.Player(toy, 7, corpus=DOCS, language="pt").data["labels"]["next"] != player.data["labels"]["next"]


def test_the_module_is_the_app_s_own_player_and_loads_nothing(toy):
    from bpeviz.widgets import players

    source = (ROOT / "bpeviz" / "app" / "assets" / "player.js").read_text(encoding="utf-8")
    module = players.module()
    assert source.replace(players.MARKER, "function mountPlayer(component)") in module
    assert "export default {" in module and "http://" not in module and "https://" not in module
    assert "import " not in module.replace("important", "")


def test_a_lesson_round_trips_between_the_notebook_and_the_app(toy, tmp_path):
    player = widgets.Player(toy, 17, corpus=DOCS)
    path = tmp_path / "lesson.json"
    player.to_lesson(path)
    lesson = state.read_snapshot(path.read_bytes())  # the app's own reader
    assert lesson["step"] == 17 and lesson["source"] == "shipped" and lesson["corpus"] == "toy_pt"
    back = widgets.Player.from_lesson(path)
    assert back.step == 17 and [m.token for m in back.tokenizer.merges] == [m.token for m in toy.merges]
    saved = state.snapshot_bytes({"source": "paste", "pasted": "aaab aab\nab ab", "vocab_size": 20, "level": "chars",
                                  "pretokenizer": "gpt2", "tie_break": "smallest", "step": 3})  # as the app writes one
    (tmp_path / "app.json").write_bytes(saved)
    opened = widgets.Player.from_lesson(tmp_path / "app.json")
    assert opened.step == 3 and opened.tokenizer.settings.tie_break == "smallest"
    (tmp_path / "bad.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(BpevizError, match="not a bpeviz lesson"):
        widgets.Player.from_lesson(tmp_path / "bad.json")


def test_the_app_opens_a_lesson_the_notebook_wrote(toy, tmp_path):
    from app_helpers import new_app, player_data

    player = widgets.Player(toy, 23, corpus=DOCS)
    player.to_lesson(tmp_path / "lesson.json")
    at = new_app().run()
    at.file_uploader(key="snapshot_upload").set_value(
        ("lesson.json", (tmp_path / "lesson.json").read_bytes(), "application/json")).run()
    assert player_data(at)["step"] == 23


def test_a_trace_and_a_comparison(toy):
    trace = widgets.Trace(toy, "o gato subiu no")
    fired = [s for s in toy.trace("o gato subiu no")[1:] if s.merge is not None]
    assert trace.n_steps == trace.step == len(fired)
    other = bpeviz.train(DOCS, vocab_size=64, level="chars", tie_break="smallest")
    both = widgets.Compare(toy, other, corpus=DOCS)
    assert both.divergence.kind == "tie" and "'smallest'" in both.explanation
    assert both.a.step == both.b.step == both.divergence.step - 1


def test_check_says_where_a_students_merges_part_and_why():
    text = corpora.corpus_text("english")[:8000]
    mine = bpeviz.train(text, vocab_size=316, level="bytes", pretokenizer="gpt4-minbpe")
    as_minbpe = {}
    ids = {bytes([b]): b for b in range(256)}
    for k, m in enumerate(mine.merges):  # minbpe's own shape: {(id, id): new id}
        as_minbpe[(ids[m.left], ids[m.right])] = 256 + k
        ids[m.token] = 256 + k
    assert bpeviz.check(as_minbpe, text, convention="minbpe").ok
    tied = bpeviz.train(text, vocab_size=316, level="bytes", pretokenizer="gpt4-minbpe", tie_break="smallest")
    result = bpeviz.check([(m.left, m.right) for m in tied.merges], text, convention="minbpe")
    assert not result.ok and result.first_wrong is not None and "tie" in result.explanation
    assert result.likely == "the 'smallest' tie rule"
    gpt2 = bpeviz.train(text, vocab_size=316, level="bytes", pretokenizer="gpt2")
    split = bpeviz.check([(m.left, m.right) for m in gpt2.merges], text, convention="minbpe")
    assert not split.ok and "split" in split.likely


def test_check_reads_hf_s_merge_strings():
    tokenizers = pytest.importorskip("tokenizers")
    text = corpora.corpus_text("english")[:8000]
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
        tokenizers.pre_tokenizers.Split(tokenizers.Regex(bpeviz.PRETOKENIZERS["gpt4"].pattern), behavior="isolated"),
        tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=300, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
                                             show_progress=False)
    hf.train_from_iterator([text], trainer=trainer)
    merges = json.loads(hf.to_str())["model"]["merges"]
    as_strings = [" ".join(m) if isinstance(m, list) else m for m in merges]
    assert bpeviz.check(as_strings, text, convention="hf", pretokenizer="gpt4").ok
    unsaid = bpeviz.check(as_strings, text, convention="hf")  # the split left to the convention's default (GPT-2's)
    assert not unsaid.ok and unsaid.likely == "the 'gpt4' split"


@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_the_documentation_notebooks_run(path: Path, tmp_path):
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"]
    assert errors == []
    printed = "".join(o.get("text", "") for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs)
    assert "10 of 41" in printed
