"""The Beyond greedy page through AppTest: superwords, fairer merges and the optimality gap, in English and Portuguese."""

from __future__ import annotations

import re

import pytest
from app_helpers import new_app, plain, player_data
from test_i18n import english_fragments, page_text

from bpeviz.lessons import optimal

PAGE = "bpeviz/app/pages/beyond.py"


def open_page(**state):
    at = new_app(**state)
    at.switch_page(PAGE).run(timeout=300)
    assert not at.exception and not at.error
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def html(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_superwords_on_the_sidebar_corpus():
    at = open_page(corpus="udhr-en", vocab_size=600, level="bytes")
    shown = metrics(at)
    assert set(shown) == {"BPE", "SuperBPE", "BoundlessBPE"} and all(float(v) > 1 for v in shown.values())
    assert any("Transition t = 497 of 600 tokens: 241 merges" in plain(c.value) for c in at.caption)
    table = html(at)
    assert "stage 2 from token 497: merges may cross spaces" in table and "2 · superwords" in table
    assert re.search(r"\*\*\d+ superwords born in SuperBPE", table) and "supermerges in BoundlessBPE" in table
    history = player_data(at, "player_superbpe")["history"]  # the Train page's player, on SuperBPE's run
    assert history["n"] == 600 - 256 and "␣of␣the" in history["tokens"][497:]
    assert any(len(piece) > 40 for doc in history["window"] for piece in doc)  # pieces span words: stage 2's cut
    at.select_slider(key="_w_beyond_t").set_value(100).run(timeout=300)
    assert any("Transition t = 600 of 600" in plain(c.value) for c in at.caption)
    assert any("No merge after the transition" in plain(c.value) for c in at.caption)


def test_superwords_need_text_not_a_file_of_merges():
    at = open_page(source="gpt2")
    assert any("need text" in i.value for i in at.info)


def test_parity_aware_merges_lower_the_gini():
    at = open_page(beyond_part="parity", parity_vocab=1024)
    shown = metrics(at)
    assert float(shown["Gini, parity-aware"]) < float(shown["Gini, classic"])
    assert shown["Tokens in all, parity vs classic"].startswith("+")
    chosen = at.dataframe[0].value
    assert chosen.iloc[:, 1].sum() == 1024 - 256  # every merge was chosen for one language of the mix
    assert "chosen for" in html(at)


def test_the_optimality_gap_on_the_papers_example_and_typed_words():
    at = open_page(beyond_part="optimal")
    assert metrics(at) == {"greedy BPE saves": "5", "the best list saves": "6", "greedy / best": "83%"}
    assert any("saves 1 more" in s.value for s in at.success)
    assert any("no list of merges saves more" in plain(c.value) for c in at.caption)
    at.radio(key="_w_opt_corpus").set_value("typed").run(timeout=300)
    at.text_area(key="_w_opt_text").set_value("<img/src=x> <img/src=x> <img/src=x> ![p](x)").run(timeout=300)
    at.slider(key="_w_opt_merges").set_value(8).run(timeout=300)
    assert not at.exception and "<img" not in html(at) and "&lt;img" in html(at)  # typed text is escaped in the tables
    words = {"<img/src=x>": 3, "![p](x)": 1}
    assert metrics(at)["the best list saves"] == str(optimal.best_merges(words, 8)[1])


def test_the_button_finds_words_where_greedy_loses():
    at = open_page(beyond_part="optimal", opt_corpus="toy")
    at.button[0].click().run(timeout=300)
    assert at.radio(key="_w_opt_corpus").value == "typed"
    shown = metrics(at)
    assert int(shown["greedy BPE saves"]) < int(shown["the best list saves"])


def test_the_page_keeps_its_choices_after_a_visit_elsewhere():
    at = open_page()
    at.select_slider(key="_w_beyond_t").set_value(50).run(timeout=300)
    at.segmented_control(key="_w_beyond_part").set_value("optimal").run(timeout=300)
    at.radio(key="_w_opt_corpus").set_value("typed").run(timeout=300)
    at.text_area(key="_w_opt_text").set_value("ab ab abc").run(timeout=300)
    at.switch_page("bpeviz/app/pages/train.py").run()
    at.switch_page(PAGE).run(timeout=300)
    assert at.segmented_control(key="_w_beyond_part").value == "optimal"
    assert at.text_area(key="_w_opt_text").value == "ab ab abc"
    at.segmented_control(key="_w_beyond_part").set_value("superword").run(timeout=300)
    assert at.select_slider(key="_w_beyond_t").value == 50


@pytest.mark.parametrize("part", ["superword", "parity", "optimal"])
def test_every_part_in_portuguese(part):
    at = open_page(lang="pt", beyond_part=part, parity_vocab=1024)
    assert at.title[0].value == "Além do BPE guloso"
    text = page_text(at)
    assert {fragment: key for fragment, key in english_fragments().items() if fragment in text} == {}


@pytest.mark.slow  # searches random corpora
def test_when_plain_bpe_wins_on_a_small_corpus_the_page_says_why():
    toy = open_page()  # the toy corpus: eight sentences
    shown = metrics(toy)
    assert float(shown["BPE"]) > float(shown["SuperBPE"])
    assert any("plain BPE packs as many bytes per token as SuperBPE" in i.value for i in toy.info)
    prose = open_page(corpus="english", vocab_size=1024, level="bytes")  # where the paper's result shows
    shown = metrics(prose)
    assert float(shown["SuperBPE"]) > float(shown["BPE"])
    assert not any("plain BPE packs" in i.value for i in prose.info)
