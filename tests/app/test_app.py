"""Every page through streamlit.testing.v1.AppTest: runs clean, and an interaction changes what it shows."""

import re
import threading
from unittest import mock

import pytest
from app_helpers import merge_rows, new_app, pairs_before, plain, player_data, trace_rows

from bpeviz.app import runs
from bpeviz.lessons import published
from bpeviz.trainers import training as training_module

PAGES = [f"bpeviz/app/pages/{name}.py"
         for name in ("train", "encode", "rules", "algorithms", "charts", "languages", "quirks", "files")]
XSS = "<img src=x onerror=alert(1)>"


def html_blocks(at, marker: str) -> list[str]:
    return [m.value for m in at.markdown if marker in m.value]


def assert_clean(at) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs(page):
    at = new_app()
    at.switch_page(page).run()
    assert_clean(at)
    assert at.title


def test_train_page_sends_the_whole_run_to_the_player():
    at = new_app().run()
    assert_clean(at)
    data = player_data(at)
    assert data["step"] == 0 and data["history"]["n"] == 41
    assert merge_rows(data["history"])[0] == (1, "␣ + n → ␣n", 7)
    assert merge_rows(data["history"])[-1] == (41, "␣su + b → ␣sub", 2)
    at.session_state["step"] = 1  # as the browser reports it after a Next click
    at.run()
    assert player_data(at)["step"] == 1 and at.query_params["step"] == "1"


def test_stepping_never_retrains():
    calls = []
    real = training_module.train_words

    def counting(*args, **kwargs):
        if threading.current_thread().name != runs.WARM_UP_THREAD:  # the server's warm-up trains the default mix
            calls.append(1)
        return real(*args, **kwargs)

    with mock.patch.object(training_module, "train_words", counting):
        at = new_app(vocab_size=63).run()  # a setting no other test uses, so the run is not cached yet
        assert len(calls) == 1
        for value in (5, 17, 40, 3, 40):  # the step as the browser reports it
            at.session_state["step"] = value
            at.run()
        assert_clean(at)
        assert player_data(at)["step"] == 40 and player_data(at)["history"]["n"] == 40
        assert len(calls) == 1
        at.number_input(key="vocab_size").set_value(50).run()  # a setting change does retrain
        assert len(calls) == 2


def test_encode_page_trace_and_tokenizers():
    at = new_app()
    at.switch_page("bpeviz/app/pages/encode.py").run()
    rows = trace_rows(player_data(at, "player_trace")["history"])
    assert rows[0] == ("o ␣ g a t o ␣ s u b i u ␣ n o", 15)
    assert rows[-1] == ("o ␣gato ␣sub iu ␣no", 5)
    at.button(key="suggest_unseen").click().run()
    assert at.text_area(key="sentence").value == "pássaro"
    assert trace_rows(player_data(at, "player_trace")["history"])[0][0] == "p á s s a r o"
    labels = [plain(m.value) for m in at.markdown if "tokens" in m.value and "**" in m.value]
    assert any("GPT-2" in v for v in labels) and any("o200k_base" in v for v in labels)


def test_encode_page_messages_for_bad_sentences():
    at = new_app(sentence="")
    at.switch_page("bpeviz/app/pages/encode.py").run()
    assert any("Type a sentence" in i.value for i in at.info)
    at.text_area(key="sentence").set_value("x" * 100_001).run()
    assert any("at most 100,000" in e.value for e in at.error)
    assert at.text_area(key="sentence").value == "x" * 100_001  # the text is kept
    at.text_area(key="sentence").set_value("fim<|endoftext|>novo").run()
    assert not at.exception and any("<|endoftext|>" in i.value for i in at.info)


@pytest.mark.slow  # the charts page runs in the quick run (test_every_page_runs)
def test_charts_page_changes_with_corpus():
    at = new_app()
    at.switch_page("bpeviz/app/pages/charts.py").run()
    assert_clean(at)
    first = at.dataframe[0].value.copy()
    at.selectbox(key="_w_chart_corpus").set_value("udhr-pt").run()
    assert_clean(at)
    assert not at.dataframe[0].value.equals(first)


def test_quirks_page_edit_changes_counts():
    at = new_app()
    at.switch_page("bpeviz/app/pages/quirks.py").run()
    numbers = at.dataframe[0].value
    assert numbers.loc[numbers.number == "12345", "cl100k_base (GPT-4)"].item() == "123|45"
    at.text_input(key="_w_q_numbers").set_value("999999").run()
    numbers = at.dataframe[0].value
    assert list(numbers.number) == ["999999"]


def test_files_page_exports_and_refuses_clearly():
    at = new_app()
    at.switch_page("bpeviz/app/pages/files.py").run()
    assert_clean(at)
    assert any("at level chars" in plain(c.value) for c in at.caption)  # tiktoken/hf not possible at chars level
    at.session_state["level"] = "bytes"
    at.session_state["vocab_size"] = 300
    at.run()
    assert not any("at level chars" in plain(c.value) for c in at.caption)


@pytest.mark.parametrize("where", ["pasted", "sentence", "tooltips"])
def test_user_text_is_escaped(where):
    pasted = {"source": "paste", "pasted": f"o gato {XSS} no telhado", "vocab_size": 60}
    state = {"sentence": XSS} if where == "sentence" else pasted
    if where == "tooltips":  # merges learned from hostile text, shown in the inspector of every chip
        state = {**pasted, "pasted": f'o gato "{XSS} no telhado "{XSS}', "sentence": f'"{XSS}', "byte_view": True}
    at = new_app(**state)
    if where != "pasted":
        at.switch_page("bpeviz/app/pages/encode.py")
    at.run()
    if where == "pasted":
        at.session_state["step"] = 10
        at.run()
    assert_clean(at)
    html_out = " ".join(m.value for m in at.markdown)
    assert "<img" not in html_out  # our own HTML never has an img tag: any here came from the user
    assert "&lt;" in html_out  # the text is there, escaped
    if where == "tooltips":
        tips = re.findall(r'data-tip="([^"]*)"', html_out)
        assert any("merge #" in tip and ("&lt;" in tip or "&gt;" in tip) for tip in tips)  # a learned token with < or >
        assert 'data-tip=""' not in html_out and "onerror=" not in " ".join(re.findall(r"<span[^>]*>", html_out)).replace(
            "onerror=alert", "")  # no attribute was broken out of


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"vocab_size": 5}, "choose at least 23"),
        ({"source": "paste", "pasted": "   "}, "Paste or type"),
        ({"pretokenizer": "custom", "custom_pattern": "(unclosed"}, "does not compile"),
    ],
)
def test_bad_settings_show_a_message_and_keep_state(state, message):
    at = new_app(**state).run()
    assert not at.exception
    shown = [e.value for e in at.error] + [i.value for i in at.info]
    assert any(message in m for m in shown), shown
    for key, value in state.items():
        assert at.session_state[key] == value


def test_lesson_from_url_lands_on_step():
    at = new_app()
    at.query_params["step"] = "12"
    at.query_params["s"] = "o cão dormiu"
    at.run()
    assert player_data(at)["step"] == 12 and player_data(at)["history"]["n"] == 41
    assert at.session_state["sentence"] == "o cão dormiu"


def test_bad_url_values_are_ignored_with_a_warning():
    at = new_app()
    at.query_params["level"] = "words"
    at.query_params["step"] = "-4"
    at.run()
    assert not at.exception
    assert at.warning and at.session_state["level"] == "chars"


def test_bad_url_values_are_warned_in_the_language_the_link_asks_for():
    at = new_app()
    at.query_params["level"] = "words"  # before lang in the address: the warning still reads it
    at.query_params["lang"] = "pt"
    at.run()
    assert at.session_state["lang"] == "pt" and at.warning
    assert all("O endereço" in plain(w.value) for w in at.warning), [w.value for w in at.warning]


def test_language_switch_relabels():
    at = new_app().run()
    at.radio(key="lang").set_value("pt").run()
    assert at.title[0].value.startswith("Treino")
    assert player_data(at)["labels"]["next"] == "Próximo"
    at.switch_page("bpeviz/app/pages/encode.py").run()
    assert at.button(key="suggest_unseen").label == "palavra nunca vista"
    assert at.title[0].value == "Codificar uma frase"


def test_trace_row_opens_its_merge_in_the_table():
    at = new_app()
    at.switch_page("bpeviz/app/pages/encode.py").run()
    at.selectbox(key="trace_open").set_value(13).run()
    at.button(key="trace_open_btn").click().run()
    assert_clean(at)
    data = player_data(at)
    assert data["step"] == 13 and merge_rows(data["history"])[12][1] == "i + u → iu"


def test_gpt2_replay_steps_through_gpt2s_own_merges():
    at = new_app(source="gpt2", vocab_size=256 + 50, level="bytes").run()
    assert_clean(at)
    history = player_data(at)["history"]
    assert history["replay"] and history["n"] == 50
    first, second = merge_rows(history)[:2]
    assert first[1] == "␣ + t → ␣t" and second[1] == "␣ + a → ␣a"
    assert first[2] == 3791  # counted on the English prose it is replayed on


def test_invalid_utf8_upload_trains_at_byte_level():
    at = new_app(source="upload").run()
    assert any("Choose a text file" in i.value for i in at.info)
    data = "olá mundo, olá gato ".encode() * 20 + b"\xff\xfe broken \xc3"
    at.file_uploader(key="upload").set_value(("broken.txt", data, "text/plain")).run()
    assert_clean(at)
    assert any("not valid UTF-8" in w.value for w in at.warning)
    assert at.session_state["level"] == "bytes"
    assert player_data(at)["history"]["n"] > 0 and player_data(at)["history"]["level"] == "bytes"


def test_upload_over_the_cap_is_refused_with_a_message(monkeypatch):
    at = new_app(source="upload").run()
    at.file_uploader(key="upload").set_value(("big.txt", b"a" * 5_000_001, "text/plain")).run()
    assert any("the limit here is 5 MB" in e.value for e in at.error)


def test_an_uploaded_tokenizer_file_is_replayed_on_the_train_page():
    import bpeviz
    from bpeviz import formats
    from bpeviz.data import corpora
    from bpeviz.lessons import render

    tok = bpeviz.train(corpora.corpus_text("udhr-pt"), vocab_size=300, level="bytes")
    at = new_app(source="import").run()
    assert any("Choose a tokenizer.json" in i.value for i in at.info)
    at.file_uploader(key="import_replay").set_value(("pt.tiktoken", formats.export(tok, "tiktoken"), "text/plain")).run()
    assert_clean(at)
    at.session_state["vocab_size"] = 300
    at.run()
    history = player_data(at)["history"]
    first = tok.merges[0]
    assert history["n"] == 44
    assert merge_rows(history)[0][1].startswith(f"{render.show(first.left)} + {render.show(first.right)} → ")


def test_files_page_imports_and_encodes_with_a_prefix():
    import bpeviz
    from bpeviz import formats
    from bpeviz.data import corpora

    tok = bpeviz.train(corpora.corpus_text("english")[:20_000], vocab_size=400, level="bytes")
    at = new_app()
    at.switch_page("bpeviz/app/pages/files.py").run()
    at.file_uploader(key="import_file").set_value(("tokenizer.json", formats.export(tok, "hf"), "application/json")).run()
    assert_clean(at)
    assert any("144 merges replayed" in s.value for s in at.success)
    full = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')][-1]
    at.slider(key="import_k").set_value(0).run()
    bare = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')][-1]
    assert full.count("bpe-chip\"") < bare.count("bpe-chip\"") == len("The cat climbed onto the roof.")
    at.file_uploader(key="import_file").set_value(("x.json", b'{"model": {"type": "WordLevel"}}', "application/json")).run()
    assert any("not a Hugging Face tokenizer.json" in plain(e.value) for e in at.error)
    wordpiece = bpeviz.train(corpora.corpus_text("english")[:20_000], vocab_size=300, algorithm="wordpiece")
    at.file_uploader(key="import_file").set_value(("bert.json", formats.export(wordpiece, "hf"), "application/json")).run()
    assert_clean(at)
    assert any("a wordpiece tokenizer with 300 tokens" in plain(s.value) for s in at.success)
    chips = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')][-1]
    assert "##" in chips


def test_lesson_snapshot_round_trip():
    import json

    lesson = {"format": "bpeviz-lesson", "version": 1, "lesson": {"step": 9, "sentence": "o cão subiu", "tie_break": "smallest"}}
    fresh = new_app().run()
    fresh.file_uploader(key="snapshot_upload").set_value(("lesson.json", json.dumps(lesson).encode(), "application/json")).run()
    assert fresh.session_state["sentence"] == "o cão subiu" and fresh.session_state["tie_break"] == "smallest"
    assert player_data(fresh)["step"] == 9
    fresh.file_uploader(key="snapshot_upload").set_value(("bad.json", b"[1, 2]", "application/json")).run()
    assert any("Could not load that lesson" in e.value for e in fresh.error)


def test_quirk_nfc_nfd_panel_counts_differ():
    at = new_app()
    at.switch_page("bpeviz/app/pages/quirks.py").run()
    labels = [m.value for m in at.markdown if m.value.startswith("**NF")]
    assert labels[0].startswith("**NFC** · 9 code points") and labels[1].startswith("**NFD** · 12 code points")


def test_custom_pattern_that_matches_nothing_says_so():
    at = new_app(pretokenizer="custom", custom_pattern="zzz").run()
    assert not at.exception and any("matches nothing" in i.value for i in at.info)


def test_an_upload_with_lone_surrogates_gets_a_message():
    at = new_app(source="upload").run()
    data = b"o gato \xed\xa0\x80 subiu no telhado " * 10  # a UTF-16 surrogate encoded as if UTF-8: not valid UTF-8
    at.file_uploader(key="upload").set_value(("surrogates.txt", data, "text/plain")).run()
    assert_clean(at)
    assert any("not valid UTF-8 (byte 7)" in w.value for w in at.warning)
    at.switch_page("bpeviz/app/pages/encode.py").run()
    assert_clean(at)


def test_replay_marks_the_real_next_merge_and_says_counts_are_local():
    at = new_app(source="gpt2", vocab_size=256 + 20, level="bytes", step=3).run()
    history = player_data(at)["history"]
    assert history["replay"]  # the player says the merges were learned elsewhere
    assert merge_rows(history)[3][1] == "i + n → in"  # GPT-2's fourth merge comes next ...
    assert pairs_before(history, 3)[0] == ("\\xe2 + \\x80", 3247)  # ... while Alice's curly quotes are more frequent here


def test_trained_chart_shows_the_most_frequent_pair_and_its_ties():
    at = new_app(step=2).run()
    pairs = pairs_before(player_data(at)["history"], 2)
    assert pairs[0] == ("t + o", 6)
    assert [p for p, c in pairs[1:] if c == 6] == ["␣ + s", "␣ + c", "ã + o"]
    assert pairs_before(player_data(at)["history"], 41)[0][1] == 2  # after the last merge: what would come next


def test_a_setting_that_changes_by_itself_says_so():
    at = new_app().run()
    at.radio(key="source").set_value("paste").run()
    assert at.session_state["vocab_size"] == 300
    assert any("changed from 64 to 300" in plain(i.value) for i in at.info)


def test_the_usage_panel_adds_up():
    at = new_app()
    at.switch_page("bpeviz/app/pages/quirks.py").run()
    (line,) = [plain(m.value) for m in at.markdown if "tokens used" in m.value]
    used, vocab, unused = (int(x.replace(",", "")) for x in re.findall(r"[\d,]+", line)[:3])
    assert used + unused == vocab == 64


def test_byte_fallback_chips_get_a_legend():
    at = new_app(sentence="pássaro 🐦")
    at.switch_page("bpeviz/app/pages/encode.py").run()
    assert any("Dashed chips" in c.value for c in at.caption)


def test_the_rules_page_compares_two_rule_sets_and_checks_a_table():
    at = new_app()
    at.switch_page("bpeviz/app/pages/rules.py").run()
    assert_clean(at)
    (found,) = [plain(i.value) for i in at.info if "Merge 3" in plain(i.value)]
    assert "a tie at 6 between t + o and ␣ + c" in found.replace("`", "")
    at.button(key="example_wrong").click().run()
    assert any("Merge 5 (line 5) is wrong" in e.value for e in at.error)  # bpeviz check says merge 5 (line 6) of the file
    verdicts = at.dataframe[-1].value
    assert verdicts.iloc[4]["verdict"] == "✗ wrong" and verdicts.iloc[4]["line"] == 5  # the notes are left out of the box
    at.button(key="example_ties").click().run()
    assert any("All 41 rows are right" in s.value for s in at.success)
    at.selectbox(key="cmp_b_dialect").set_value("sentencepiece-bpe").run()
    assert at.session_state["cmp_b_tie"] == "sentencepiece"
    (why,) = [plain(i.value).replace("`", "") for i in at.info if "split" in plain(i.value)]
    assert "(␣ + o: 0 in A, 8 in B)" in why  # the pair the splits count differently, not ␣ + n (7 and 7)


def test_every_pages_choices_survive_another_page_and_travel_in_the_address_and_the_lesson_file():
    at = new_app()
    at.switch_page("bpeviz/app/pages/rules.py").run()
    at.selectbox(key="cmp_b_count").set_value("nonoverlapping").run()
    at.switch_page("bpeviz/app/pages/train.py").run()
    at.switch_page("bpeviz/app/pages/rules.py").run()
    assert at.selectbox(key="cmp_b_count").value == "nonoverlapping"  # Run B was reset after another page
    at.switch_page("bpeviz/app/pages/languages.py").run(timeout=300)
    at.radio(key="_w_mix").set_value("custom").run(timeout=300)
    at.multiselect(key="_w_mix_custom").set_value(["pt", "hi"]).run(timeout=300)
    assert at.query_params["langs"] == "pt,hi" and at.query_params["bcount"] == "nonoverlapping"
    from bpeviz.app.state import DEFAULTS  # the lesson file's fields (state.values())

    assert {"mix_custom", "mix_heavy", "cmp_b_count", "cmp_a_dialect", "chart_corpus", "inspect_tok"} <= set(DEFAULTS)
    shared = new_app()  # a shared link opens on the same custom mix, not on "Pick at least one language"
    for name, value in (("mix", "custom"), ("langs", "pt,hi"), ("itok", "gpt2"), ("chart", "python")):
        shared.query_params[name] = value
    shared.switch_page("bpeviz/app/pages/languages.py").run(timeout=300)
    assert shared.session_state["mix_custom"] == ["pt", "hi"] and not any("Pick at least" in i.value for i in shared.info)
    assert (shared.session_state["inspect_tok"], shared.session_state["chart_corpus"]) == ("gpt2", "python")


def test_choosing_a_dialect_sets_its_rules_and_a_hand_change_leaves_it():
    at = new_app().run()
    at.selectbox(key="dialect").set_value("hf").run()
    ss = at.session_state
    assert (ss["level"], ss["tie_break"], ss["count_rule"], ss["vocab_size"]) == ("bytes", "hf", "overlapping", 512)
    assert any("rules of hf" in plain(i.value) for i in at.info)
    assert player_data(at)["history"]["level"] == "bytes"
    at.radio(key="tie_break").set_value("first").run()
    assert at.session_state["dialect"] == "" and any("you changed one of its rules" in plain(i.value) for i in at.info)


def test_the_count_rule_of_the_sidebar_reaches_the_trainer():
    at = new_app(source="paste", pasted="aaaaaaa aaaaa aaa", vocab_size=5, pretokenizer="none").run()
    assert merge_rows(player_data(at)["history"])[0] == (1, "a + a → aa", 12)
    at.radio(key="count_rule").set_value("nonoverlapping").run()
    assert merge_rows(player_data(at)["history"])[0] == (1, "a + a → aa", 6)  # three a a in aaaaaaa, two in aaaaa, one in aaa


def test_the_algorithms_page_steps_three_runs_and_names_where_they_part():
    at = new_app()
    at.switch_page("bpeviz/app/pages/algorithms.py").run()
    assert_clean(at)
    (found,) = [plain(i.value).replace("`", "") for i in at.info if "Step 1:" in plain(i.value)]
    assert "BPE takes ␣ + n, the most frequent pair (count 7" in found and "WordPiece takes f + á (count 2, score 0.333)" in found
    assert "They part at the very first merge." in found
    wordpiece = player_data(at, "player_alg_wordpiece")
    first = wordpiece["history"]["rows"][0]
    assert first[1:6] == ["##f", "##á", "##fá", 2, 0.333333] and first[6:9] == ["␣", "##n", 7]
    bpe = player_data(at, "player_alg_bpe")["history"]
    assert bpe["n"] == 41
    unigram = player_data(at, "player_alg_unigram")
    assert unigram["history"]["final"] < 64 and any("Unigram kept" in plain(i.value) for i in at.info)
    at.session_state["alg_wordpiece_step"] = 3  # as the browser reports it
    at.run()
    assert player_data(at, "player_alg_wordpiece")["step"] == 3 and at.query_params["wstep"] == "3"
    summary = at.table[0].value
    assert list(summary.index) == ["BPE", "WordPiece", "Unigram"] and summary["vocab size"].iloc[0] == "64"
    # each run's corpus length once trained
    assert summary["tokens"].iloc[0] == f"{bpe['merges'][-1][3]:,}"
    assert summary["tokens"].iloc[1] == f"{wordpiece['history']['rows'][-1][10]:,}"


def test_the_algorithms_page_segments_a_sentence_with_unigram_alternatives():
    at = new_app(source="shipped", corpus="english", vocab_size=400)
    at.switch_page("bpeviz/app/pages/algorithms.py").run()
    assert_clean(at)
    assert "Unigram kept" not in " ".join(i.value for i in at.info)
    unigram = player_data(at, "player_alg_unigram")["history"]
    assert unigram["n"] >= 2 and unigram["rows"][-1][2] <= 440
    at.text_area(key="sentence").set_value("the rabbit hole").run()
    texts = ["".join(re.findall(r">([^<]*)<", re.sub(r"<sub.*?</sub>", "", c))) for c in html_blocks(at, "bpe-chips")]
    spelled = [x.replace("␣", " ").replace("##", "") for x in texts]
    assert spelled.count("the rabbit hole") == 3  # one row of chips per algorithm
    nbest = at.dataframe[0].value
    probabilities = [float(p[:-1]) / 100 if p.endswith("%") else float(p) for p in nbest["probability"]]
    assert len(nbest) == 5 and probabilities == sorted(probabilities, reverse=True) and sum(probabilities) <= 1.005
    overlap = at.dataframe[1].value
    assert list(overlap.columns) == ["only BPE", "only WordPiece", "only Unigram"]


def test_the_algorithms_page_needs_text_not_replayed_merges():
    at = new_app(source="gpt2")
    at.switch_page("bpeviz/app/pages/algorithms.py").run()
    assert_clean(at)
    assert any("train on text" in i.value for i in at.info)


def comparison_rows(at) -> list[str]:
    """The chip rows of the Encode page's comparison: trained here, then the five real tokenizers."""
    blocks = [m.value for m in at.markdown if m.value.startswith('<div class="bpe-chips">')]
    return blocks[1:7]  # the first is the final tokens; the sidebar's split preview comes last


def test_the_inspector_outlines_a_span_in_every_row_and_shows_bytes():
    at = new_app(sentence="o gato çã")
    at.switch_page("bpeviz/app/pages/encode.py").run()
    assert_clean(at)
    assert all("bpe-marked" not in r for r in comparison_rows(at))
    at.slider[0].set_value((2, 6)).run()  # "gato"
    rows = comparison_rows(at)
    assert len(rows) == 6
    for row in rows:
        marked = re.findall(r'class="[^"]*bpe-marked[^"]*"[^>]*>([^<]*)<', row)
        assert "".join(marked).replace("␣", " ").strip() == "gato", marked
    tips = re.findall(r'data-tip="([^"]*)"', rows[0])
    assert any(tip.startswith("id ") and "bytes 20 67" in tip and "merge #" in tip for tip in tips)
    assert any("c3" in tip for tip in re.findall(r'data-tip="([^"]*)"', rows[2]))  # cl100k's bytes of ç
    assert any("made from" in tip for tip in re.findall(r'data-tip="([^"]*)"', rows[2]))  # a real token's two parents
    assert all('tabindex="0"' in chip for chip in re.findall(r'<span class="bpe-chip[^>]*>', rows[1]))  # keyboard reaches each
    at.toggle(key="_w_byte_view").set_value(True).run()
    shown = re.findall(r'<span class="bpe-bytes">([^<]*)</span>', " ".join(comparison_rows(at)))
    assert len(shown) >= 6 * 4 and any("c3 a7" in b for b in shown)  # ç's two bytes under its token
    at.toggle(key="_w_show_whitespace").set_value(False).run()
    labels = re.findall(r'>([^<]*)<sub', comparison_rows(at)[1])  # the chips' own text, not their tooltips
    assert " g" in labels and not any("␣" in label for label in labels)  # GPT-2: ␣g ato


def test_who_pays_trains_the_mix_and_shows_who_won_the_merges():
    at = new_app()
    at.switch_page("bpeviz/app/pages/languages.py").run()
    assert_clean(at)
    assert at.session_state["mix"] == "equal" and at.session_state["mix_vocab"] == 4096
    first = at.dataframe[0].value
    assert len(first) == 26 and first["merges won"].sum() <= 4096 - 256
    at.radio(key="_w_mix").set_value("portuguese").run()
    assert_clean(at)
    assert at.query_params["mix"] == "portuguese"
    table = at.dataframe[0].value
    assert list(table["language"]) == ["Portuguese (BR)"] and table["merges won"].iloc[0] > 0
    assert any("ran out of pairs" in i.value for i in at.info)  # five articles of one language are little text
    at.radio(key="_w_mix").set_value("custom").run()
    assert any("Pick at least one language" in i.value for i in at.info)
    at.multiselect(key="_w_mix_custom").set_value(["en", "pt"]).run()
    assert_clean(at)
    assert set(at.dataframe[0].value["language"]) == {"English", "Portuguese (BR)"}


def test_the_language_chart_never_draws_the_toy_as_the_trained_tokenizer():
    at = new_app()
    at.switch_page("bpeviz/app/pages/charts.py").run()
    series = [c.value for c in at.caption if c.value.startswith("Series")]
    assert len(series) == 1 and "UDHR, 26 languages equal, 4,096" in plain(series[0]) and "Toy" not in series[0]
    at = new_app(source="shipped", corpus="english", vocab_size=512, level="bytes")
    at.switch_page("bpeviz/app/pages/charts.py").run()
    assert any("bpeviz: English prose" in plain(c.value) for c in at.caption if c.value.startswith("Series"))


def test_dropout_on_the_encode_page_is_seeded_and_zero_is_the_encoding():
    at = new_app(sentence="o gato subiu no telhado e o cão dormiu no chão", dropout_p=0.5, dropout_seed=3)
    at.switch_page("bpeviz/app/pages/encode.py").run()
    assert_clean(at)
    (result,) = [c.value for c in at.caption if "tokens with dropout" in c.value]
    again = new_app(sentence="o gato subiu no telhado e o cão dormiu no chão", dropout_p=0.5, dropout_seed=3)
    again.switch_page("bpeviz/app/pages/encode.py").run()
    assert [c.value for c in again.caption if "tokens with dropout" in c.value] == [result]  # same seed, same sample
    skipped = int(re.search(r"(\d+) merges? skipped", result).group(1))
    assert skipped > 0 and at.query_params["drop"] == "0.5" and at.query_params["seed"] == "3"
    at.slider(key="_w_dropout_p").set_value(0.0).run()
    (result,) = [c.value for c in at.caption if "tokens with dropout" in c.value]
    tokens, usual = map(int, re.match(r"(\d+) tokens with dropout \((\d+) without\)", result).groups())
    assert tokens == usual and "0 merges skipped" in result


@pytest.mark.slow  # every page's choices surviving a visit elsewhere stays in the quick run
def test_going_round_every_page_twice_keeps_choices_and_warns_of_nothing():
    """Issue 27.1: choices kept by state.keep / state.bind never meet a widget default (Streamlit warns of that)."""
    at = new_app()
    at.switch_page("bpeviz/app/pages/quirks.py").run()
    at.text_input(key="_w_q_numbers").set_value("31337").run()
    for _ in range(2):
        for page in PAGES:
            at.switch_page(page).run()
            assert_clean(at)
            assert not [w.value for w in at.warning if "Session State" in w.value]
    at.switch_page("bpeviz/app/pages/quirks.py").run()
    assert at.text_input(key="_w_q_numbers").value == "31337"


def test_the_rules_page_compares_real_dialects_on_the_default_lesson():
    """Issue 27.4: at the toy's vocab 64 every byte-level dialect was refused (64 < 256 bytes); a tie was blamed on the
    split; "The first 0 merges agree"."""
    at = new_app()
    at.switch_page("bpeviz/app/pages/rules.py").run()
    at.selectbox(key="cmp_a_dialect").set_value("minbpe").run()
    at.selectbox(key="cmp_b_dialect").set_value("hf").run()
    assert_clean(at)
    said = " ".join(plain(i.value) for i in at.info)
    assert "tie at 7" in said and "boundaries forbid" not in said and "first 0" not in said
    assert at.number_input(key="_w_cmp_merges").value == 41  # the toy lesson's 64 minus its 23 characters


def test_the_who_pays_default_is_warmed_in_the_background_before_a_visit():
    """Issue 27.10: the first visit to Who pays? took 5-7 s; the first run of any page starts training its default."""
    from bpeviz.app import runs, state
    from bpeviz.lessons import mix

    at = new_app()  # the Train page: Who pays? is not visited
    assert_clean(at)
    runs.warm_up().join(timeout=300)  # wait for the condition (the warm-up's end), not a fixed time
    key = (tuple(sorted(mix.PRESETS[state.DEFAULTS["mix"]].items())), state.DEFAULTS["mix_vocab"], False)
    assert key in runs.mix_runs()._runs
    at.switch_page("bpeviz/app/pages/languages.py").run()
    assert_clean(at)
    assert any(m.value for m in at.subheader)  # the page drew its charts from the warmed run


@pytest.mark.slow  # the whole warm-up, as a server runs it (about 15 s of a core)
def test_a_server_s_warm_up_computes_inspect_s_defaults_so_a_visit_computes_neither():
    """Issue 45.9: Inspect's first visit took 8 s (cl100k_base's junk table, its mix, the known mix read back)."""
    from bpeviz.app import runs
    from bpeviz.lessons import inspect as inspect_lesson

    def not_again(*args, **kwargs):
        raise AssertionError("computed in the visit, not warmed")

    assert not runs.on_a_server()  # AppTest: the warm-up leaves Inspect alone
    with mock.patch.object(runs, "on_a_server", lambda: True):  # as on a server
        runs.warm_up_work(runs.mix_runs())
    at = new_app().run()
    with mock.patch.object(inspect_lesson, "infer_mixture", not_again), \
            mock.patch.object(inspect_lesson, "unreachable", not_again):
        at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=120)
    assert_clean(at)
    assert len(at.metric) >= 3 and at.get("vega_lite_chart")  # the junk's numbers and the mix's chart, from the caches


def test_an_upload_box_without_a_file_says_its_cap_and_the_command_line_in_the_main_area():
    """Issue 27.6: a file over the cap shows only a red "!" on its chip; the main area said "Choose a corpus..."."""
    at = new_app(source="upload").run()
    assert_clean(at)
    main = " ".join(plain(i.value) for i in at.main.info)
    assert "5 MB" in main and "bpeviz train" in main and "Choose a corpus in the sidebar" not in main


def test_the_26_languages_get_26_colours():
    """Issue 27.9: the area chart of merges won repeated colours (German and Indonesian the same blue)."""
    import json

    from bpeviz.app import views
    from bpeviz.data import corpora

    assert len(set(views.MANY_COLOURS)) == len(views.MANY_COLOURS) >= len(corpora.UDHR_LANGUAGES)
    at = new_app()
    at.switch_page("bpeviz/app/pages/languages.py").run()
    assert_clean(at)
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    ranges = [s["encoding"]["color"].get("scale", {}).get("range") for s in specs if "encoding" in s]
    assert list(views.MANY_COLOURS) in ranges


def test_the_train_page_says_which_engine_trained():
    from bpeviz import engine
    from bpeviz.app import runs

    new_app(vocab_size=58).run()  # the server's first run starts its warm-up, which loads a ready engine
    for thread in threading.enumerate():
        if thread.name == runs.WARM_UP_THREAD:
            thread.join()
    loaded = engine.status("bpe") == "loaded"  # auto takes the compiled engine once it is loaded, at any size
    at = new_app(vocab_size=57).run()  # a setting no other test uses: trained now
    said = "trained by the compiled merge loop" if loaded else "trained by the Python merge loop"
    assert any(said in c.value for c in at.caption)
    assert runs.engine() == "auto"


def test_files_page_shows_an_imported_rank_files_own_ids():
    import gzip

    from bpeviz.data.shipped import read_shipped

    raw = read_shipped("cl100k_base.tiktoken")
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    at = new_app()
    at.switch_page("bpeviz/app/pages/files.py").run()
    at.file_uploader(key="import_file").set_value(("cl100k_base.tiktoken", data, "application/octet-stream")).run()
    assert_clean(at)
    chips = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')][-1]
    ids = [int(i) for i in re.findall(r'<sub class="bpe-id">(\d+)</sub>', chips)]
    assert ids[-1] == 13 and 46 not in ids  # "." is rank 13 in cl100k_base, as tiktoken and the Encode page say
    tips = re.findall(r'title="([^"]*)"', chips)
    assert len(tips) == len(ids) and all("id 46" not in tip for tip in tips)
    assert "merge #" in tips[0] and "a base symbol" in tips[-1]  # "The" was merged; "." is one of the 256 bytes


@pytest.mark.slow  # cl100k_base's mix inferred: about 20 s on the 2-core VM
def test_the_inspect_page_reads_a_real_tokenizer_in_both_languages():
    at = new_app()
    at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=300)
    assert_clean(at)
    metrics = [m.value for m in at.metric]
    assert metrics[:2] == ["100,000", "0"]  # cl100k_base: its merged tokens, none unreachable
    assert any("found the mix that best explains" in plain(c.value) for c in at.caption)
    tables = [d.value for d in at.dataframe]
    assert any("1 | 234 | 567" in " ".join(map(str, frame.iloc[:, 1])) for frame in tables)  # r2l-digits in the number lab
    paper = tables[-1]  # the real tokenizers' mixes beside the paper's figures (issue 46)
    assert list(paper.iloc[:, 0]) == ["cl100k_base (GPT-4)", "o200k_base (GPT-4o)", "Tekken (Mistral NeMo)"]
    assert list(paper.iloc[:, 2]) == ["60% code", "39% other languages", "47% other languages"]
    at.session_state["lang"] = "pt"
    at.run(timeout=300)
    assert_clean(at)
    assert at.title[0].value == "Inspecionar um tokenizador" and [m.value for m in at.metric][0] == "100.000"
    assert any(e.label.startswith("Em que os tokenizadores reais treinaram") for e in at.expander)
    o200k = published.READINGS["o200k_base"].other  # the named data, written with a decimal comma in Portuguese
    assert at.dataframe[-1].value.iloc[1, 1] == f"{o200k:.1f}".replace(".", ",") + "% outras línguas"
    lp = [plain(c.value) for c in at.caption if "resolvedor" in plain(c.value)]
    assert lp and "encontrou a mistura" in lp[0] and "HiGHS" not in lp[0]  # the solver's status in Portuguese too


@pytest.mark.slow
def test_the_inspect_page_reads_deepseek_with_its_own_splits():
    # issue 31: DeepSeek V4's three regex splits are no one bpeviz pattern; the page was refused before
    at = new_app(inspect_tok="deepseek-v4")
    at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=300)
    assert_clean(at)
    assert [m.value for m in at.metric][:2] == ["127,741", "0"]  # its merged tokens, none unreachable (HF agrees)
    assert any("found the mix that best explains" in plain(c.value) for c in at.caption)


@pytest.mark.slow
def test_the_inspect_page_reads_qwen_and_says_which_tokens_no_merge_makes():
    # issue 31: Qwen3.6's rank file holds 121 tokens no two tokens make; the page refused the file before (KeyError)
    at = new_app(inspect_tok="qwen3.6")
    at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=300)
    assert_clean(at)
    assert [m.value for m in at.metric][:2] == ["247,667", "2"]  # tiktoken's own encoder gives back all but two
    assert any("121 tokens are made by no merge" in plain(c.value) for c in at.caption)
    assert any("found the mix that best explains" in plain(c.value) for c in at.caption)


def test_the_inspect_page_asks_for_bytes_when_the_lesson_is_at_level_chars():
    at = new_app(inspect_tok="lesson")
    at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=300)
    assert_clean(at)
    assert any("level to bytes" in i.value for i in at.info)


@pytest.mark.slow  # an oracle over many cases or a big real tokenizer: CI runs it, the quick run does not
def test_the_inspect_page_keeps_what_was_chosen_after_a_visit_elsewhere():
    at = new_app()
    at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=300)
    at.radio(key="_w_inspect_tok").set_value("gpt2").run(timeout=300)
    at.text_input(key="_w_inspect_number").set_value("2024 and 1999").run(timeout=300)
    at.switch_page("bpeviz/app/pages/train.py").run()
    at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=300)
    assert_clean(at)
    assert at.radio(key="_w_inspect_tok").value == "gpt2"
    assert at.text_input(key="_w_inspect_number").value == "2024 and 1999"
    lab = next(d.value for d in at.dataframe if d.value.shape[1] == 2)  # the number lab: tokenizer, pieces
    assert "1 | 999" in " ".join(map(str, lab.iloc[:, 1]))  # r2l-digits on the number kept


@pytest.mark.parametrize("page", PAGES)
def test_classroom_mode_draws_tables_the_projector_can_read(page):
    # issue 27.9: st.dataframe draws on a canvas at ~13 px that classroom mode's type cannot reach; st.table is HTML
    normal, big = new_app(), new_app(classroom=True)
    normal.switch_page(page).run()
    big.switch_page(page).run()
    assert_clean(big)
    assert len(big.dataframe) == 0 and len(big.table) >= len(normal.dataframe)


def test_classroom_tables_escape_what_the_corpus_holds():
    hostile = "![p](http://e.vil/x.png) [k](javascript:alert(1)) " * 30
    at = new_app(classroom=True, source="paste", pasted=hostile, vocab_size=60)
    at.switch_page("bpeviz/app/pages/rules.py").run()
    assert_clean(at)
    cells = [str(v) for table in at.table for v in table.value.to_numpy().ravel()]
    assert any("\\!\\[" in c or "\\]\\(" in c for c in cells)  # the corpus's signs reached the table, escaped
    assert not any(re.search(r"(?<!\\)[\[\]!(]", c) for c in cells)


def test_the_teacher_picks_the_engine_and_the_page_says_which_trained():
    from bpeviz import engine

    at = new_app(engine="python", vocab_size=61).run()
    assert not at.exception and any(r.label == "Engine" for r in at.sidebar.radio)
    assert any("trained by the Python merge loop" in c.value for c in at.caption)
    assert at.query_params["engine"] == "python"  # kept in the address bar, like every setting
    engine.resolve("compiled", group="bpe")  # loaded in this process, as the warm-up does once numba's cache holds it
    at.session_state["engine"] = "compiled"
    at.run()
    assert any("trained by the compiled merge loop" in c.value for c in at.caption)


@pytest.mark.parametrize("kind", ["WordPiece", pytest.param("Unigram", marks=pytest.mark.slow)])  # 3 s; the quick run keeps
def test_a_wordpiece_or_unigram_file_replayed_in_the_sidebar_is_explained_on_every_page(kind):
    """Issue 49.1: such a file (here made by HF's own trainer) has no BPE merges; every page says so, in both languages."""
    tokenizers = pytest.importorskip("tokenizers")
    from bpeviz.data import corpora

    model = tokenizers.models.WordPiece(unk_token="[UNK]") if kind == "WordPiece" else tokenizers.models.Unigram()
    hf = tokenizers.Tokenizer(model)
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = (tokenizers.trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]"]) if kind == "WordPiece"
               else tokenizers.trainers.UnigramTrainer(vocab_size=300))
    hf.train_from_iterator(corpora.documents("udhr-en"), trainer=trainer)
    for lang, says in (("en", "has no BPE merges to replay"), ("pt", "não tem fusões BPE para reproduzir")):
        # Inspect reads the replayed file (not its default real tokenizer, whose mix takes 20 s to infer)
        at = new_app(source="import", lang=lang, inspect_tok="lesson").run()
        at.file_uploader(key="import_replay").set_value(("hf.json", hf.to_str().encode(), "application/json")).run()
        every = [*PAGES, "bpeviz/app/pages/inspect.py", "bpeviz/app/pages/beyond.py"]
        for page in every if lang == "en" else []:  # every page once; the message in both languages
            at.switch_page(page).run()
            assert not at.exception, (kind, lang, page, [e.value for e in at.exception])
        at.switch_page("bpeviz/app/pages/train.py").run()
        assert any(says in e.value for e in at.error), (kind, lang)


def mistral_model() -> bytes:
    from bpeviz.data.shipped import package_file
    from bpeviz.pretrained import mistral

    return package_file("mistral-common", "mistral_common", mistral.MISTRAL_V3_FILE, mistral.MISTRAL_V3_SHA256)


@pytest.mark.slow  # SentencePiece models are checked in the quick run (formats/test_sentencepiece.py)
def test_files_page_reads_a_sentencepiece_model_with_its_own_ids_and_derived_merges():
    import bpeviz

    at = new_app()
    at.switch_page("bpeviz/app/pages/files.py").run()
    at.file_uploader(key="import_file").set_value(("tokenizer.model", mistral_model(), "application/octet-stream")).run()
    assert_clean(at)
    assert any("1,000 merges" in plain(s.value) or "1000 merges" in plain(s.value) for s in at.success)
    assert any("SentencePiece stores pieces with scores" in c.value for c in at.caption)
    chips = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')][-1]
    ids = [int(i) for i in re.findall(r'<sub class="bpe-id">(\d+)</sub>', chips)]
    short = bpeviz.reference("mistral-v3").tokenizer.truncated(1000)
    assert ids == short.encode("The cat climbed onto the roof.")


@pytest.mark.slow  # Mistral's merges are checked in the quick run (pretrained/test_mistral.py)
def test_the_train_page_replays_mistral_s_merges_from_its_model_file():
    import bpeviz

    at = new_app(source="import").run()
    at.file_uploader(key="import_replay").set_value(("tokenizer.model", mistral_model(), "application/octet-stream")).run()
    assert_clean(at)
    history = player_data(at)["history"]
    merges = bpeviz.reference("mistral-v3").tokenizer.merges
    rows = merge_rows(history)
    assert history["n"] > 0 and rows[0][1].startswith("␣ + t → ")
    assert len(rows) <= len(merges)


def test_the_quirks_page_sets_byte_fallback_beside_byte_level():
    at = new_app()
    at.switch_page("bpeviz/app/pages/quirks.py").run()
    assert_clean(at)
    labels = [m.value for m in at.markdown if m.value.startswith("**Mistral v3")]
    assert labels, "the byte-fallback panel shows Mistral v3"
    chips = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')]
    assert any("byte fallback" in c and "&lt;0x" not in c for c in chips)  # its byte pieces are flagged chips
    table = [df for df in at.dataframe if "byte-fallback tokens" in df.value.columns][0].value
    counts = dict(zip(table.iloc[:, 0], table["byte-fallback tokens"]))
    assert counts["Mistral v3 (SentencePiece)"] >= 4 and counts["GPT-2"] == 0


@pytest.mark.slow  # the graft itself is checked in the quick run (lessons/test_graft.py)
def test_the_graft_page_shows_what_new_merges_buy_and_keeps_english():
    at = new_app()
    at.switch_page("bpeviz/app/pages/graft.py").run(timeout=120)
    assert_clean(at)
    before, after, english = (m for m in at.metric)
    assert float(after.value) < 0.6 * float(before.value)  # Hindi in far fewer tokens per word
    assert english.delta in ("+0", "0", "+0.0")  # English keeps every token
    assert any("numbered from 50,257" in c.value for c in at.caption)
    table = at.dataframe[0].value
    assert len(table) == 200 and all(" + " in r for r in table.iloc[:, 2])  # each new token as the base tokens it replaces
    at.session_state["lang"] = "pt"
    at.run(timeout=120)
    assert any("numerados a partir de 50.257" in c.value or "numerados a partir de 50,257" in c.value for c in at.caption)


def test_inspect_offers_to_train_the_default_lesson_on_bytes_and_then_reads_it():
    at = new_app(inspect_tok="lesson")
    at.switch_page("bpeviz/app/pages/inspect.py").run(timeout=300)
    assert any("byte-level" in i.value for i in at.info)  # the toy lesson trains on characters
    at.button(key="inspect_use_bytes").click().run(timeout=300)
    assert at.session_state["level"] == "bytes" and at.session_state["vocab_size"] > 256
    assert_clean(at)
    assert not any("byte-level BPE tokenizers" in i.value for i in at.info) and at.metric  # read: its merged tokens


def test_the_graft_page_grafts_new_pieces_onto_mistral_s_sentencepiece_model():
    """Issue 48: SentencePiece BPE bases. Mistral v3 gets new pieces (ids from 32 768), each shown as the base's pieces
    it stands for; Hindi in fewer tokens per word, English unchanged."""
    at = new_app(graft_base="mistral-v3")
    at.switch_page("bpeviz/app/pages/graft.py").run(timeout=120)
    assert_clean(at)
    before, after, english = (m for m in at.metric)
    assert float(after.value) < 0.6 * float(before.value)
    assert english.delta in ("+0", "0", "+0.0")
    assert any("numbered from 32,768" in c.value for c in at.caption)
    table = at.dataframe[0].value
    assert len(table) == 200 and all(" + " in r for r in table.iloc[:, 2]) and all(table.iloc[:, 3] > 0)
