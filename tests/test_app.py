"""Every page through streamlit.testing.v1.AppTest: runs clean, and an interaction changes what it shows."""

import re
from unittest import mock

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from bpeviz import training as training_module

PAGES = ["app_pages/train.py", "app_pages/encode.py", "app_pages/charts.py", "app_pages/quirks.py", "app_pages/files.py"]
XSS = "<img src=x onerror=alert(1)>"


def new_app(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in state.items():
        at.session_state[key] = value
    return at


def plain(markdown: str) -> str:
    """Markdown source as it reads on screen: backslash escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


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


def test_train_page_next_adds_first_merge_row():
    at = new_app().run()
    assert_clean(at)
    assert not html_blocks(at, "merge-table")
    at.button(key="step_next").click().run()
    (table,) = html_blocks(at, "merge-table")
    assert "<td>␣ + n → ␣n</td><td>7</td>" in table
    assert at.metric[0].value == "1 / 41"


def test_stepping_never_retrains():
    calls = []
    real = training_module.train_ids

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    with mock.patch.object(training_module, "train_ids", counting):
        at = new_app(vocab_size=63).run()  # a setting no other test uses, so the run is not cached yet
        assert len(calls) == 1
        for value in (5, 17, 40, 3):
            at.slider(key="step").set_value(value).run()
        at.button(key="step_next").click().run()
        at.button(key="step_last").click().run()
        assert_clean(at)
        assert at.metric[0].value == "40 / 40"
        assert len(calls) == 1
        at.number_input(key="vocab_size").set_value(50).run()  # a setting change does retrain
        assert len(calls) == 2


def test_encode_page_trace_and_tokenizers():
    at = new_app()
    at.switch_page("app_pages/encode.py").run()
    (trace,) = html_blocks(at, "trace-table")
    assert "<td>o ␣ g a t o ␣ s u b i u ␣ n o</td><td>15</td>" in trace
    assert trace.rstrip().endswith("<td>o ␣gato ␣sub iu ␣no</td><td>5</td></tr></tbody></table></div>")
    at.button(key="suggest_unseen").click().run()
    assert at.text_area(key="sentence").value == "pássaro"
    (trace,) = html_blocks(at, "trace-table")
    assert "p á s s a r o" in trace
    labels = [plain(m.value) for m in at.markdown if "tokens" in m.value and "**" in m.value]
    assert any("GPT-2" in v for v in labels) and any("o200k_base" in v for v in labels)


def test_encode_page_messages_for_bad_sentences():
    at = new_app(sentence="")
    at.switch_page("app_pages/encode.py").run()
    assert any("Type a sentence" in i.value for i in at.info)
    at.text_area(key="sentence").set_value("x" * 100_001).run()
    assert any("at most 100,000" in e.value for e in at.error)
    assert at.text_area(key="sentence").value == "x" * 100_001  # the text is kept
    at.text_area(key="sentence").set_value("fim<|endoftext|>novo").run()
    assert not at.exception and any("<|endoftext|>" in i.value for i in at.info)


def test_charts_page_changes_with_corpus():
    at = new_app()
    at.switch_page("app_pages/charts.py").run()
    assert_clean(at)
    first = at.dataframe[0].value.copy()
    at.selectbox(key="chart_corpus").set_value("udhr-pt").run()
    assert_clean(at)
    assert not at.dataframe[0].value.equals(first)


def test_quirks_page_edit_changes_counts():
    at = new_app()
    at.switch_page("app_pages/quirks.py").run()
    numbers = at.dataframe[0].value
    assert numbers.loc[numbers.number == "12345", "cl100k_base (GPT-4)"].item() == "123|45"
    at.text_input(key="q_numbers").set_value("999999").run()
    numbers = at.dataframe[0].value
    assert list(numbers.number) == ["999999"]


def test_files_page_exports_and_refuses_clearly():
    at = new_app()
    at.switch_page("app_pages/files.py").run()
    assert_clean(at)
    assert any("at level chars" in plain(c.value) for c in at.caption)  # tiktoken/hf not possible at chars level
    at.session_state["level"] = "bytes"
    at.session_state["vocab_size"] = 300
    at.run()
    assert not any("at level chars" in plain(c.value) for c in at.caption)


@pytest.mark.parametrize("where", ["pasted", "sentence"])
def test_user_text_is_escaped(where):
    pasted = {"source": "paste", "pasted": f"o gato {XSS} no telhado", "vocab_size": 60}
    state = pasted if where == "pasted" else {"sentence": XSS}
    at = new_app(**state)
    if where == "sentence":
        at.switch_page("app_pages/encode.py")
    at.run()
    if where == "pasted":
        at.button(key="step_last").click().run()
    assert_clean(at)
    html_out = " ".join(m.value for m in at.markdown)
    assert "<img" not in html_out  # our own HTML never has an img tag: any here came from the user
    assert "&lt;" in html_out  # the text is there, escaped


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
    assert at.metric[0].value == "12 / 41"
    assert at.session_state["sentence"] == "o cão dormiu"


def test_bad_url_values_are_ignored_with_a_warning():
    at = new_app()
    at.query_params["level"] = "words"
    at.query_params["step"] = "-4"
    at.run()
    assert not at.exception
    assert at.warning and at.session_state["level"] == "chars"


def test_language_switch_relabels():
    at = new_app().run()
    at.radio(key="lang").set_value("pt").run()
    assert at.title[0].value.startswith("Treino")
    assert at.button(key="step_next").label.startswith("Próximo")
    at.switch_page("app_pages/encode.py").run()
    assert at.button(key="suggest_unseen").label == "palavra nunca vista"
    assert at.title[0].value == "Codificar uma frase"


def test_trace_row_opens_its_merge_in_the_table():
    at = new_app()
    at.switch_page("app_pages/encode.py").run()
    at.selectbox(key=f"trace_open_{10}").set_value(13).run()
    at.button(key="trace_open_btn").click().run()
    assert_clean(at)
    assert at.metric[0].value == "13 / 41"
    (table,) = html_blocks(at, "merge-table")
    assert '<tr class="bpe-row-hl"><td>13</td><td>i + u → iu</td>' in table


def test_chosen_merge_is_highlighted_in_the_corpus():
    at = new_app(step=10).run()

    def highlighted_chips():
        chips = " ".join(m.value for m in at.markdown if m.value.startswith('<div class="bpe-chips">'))
        return [part.split(">", 1)[1].split("<", 1)[0] for part in chips.split('bpe-chip bpe-hl"')[1:]]

    assert highlighted_chips() == ["␣gato"] * 4  # merge 10 made ␣gato; the toy corpus has four cats
    at.selectbox(key="hl_10").set_value(6).run()  # merge 6: ã + o -> ão
    assert highlighted_chips() == ["ão"] * 6


def test_gpt2_replay_steps_through_gpt2s_own_merges():
    at = new_app(source="gpt2", vocab_size=256 + 50, level="bytes").run()
    assert_clean(at)
    at.button(key="step_next").click().run()
    at.button(key="step_next").click().run()
    (table,) = html_blocks(at, "merge-table")
    assert "<td>␣ + t → ␣t</td><td>–</td>" in table and "<td>␣ + a → ␣a</td>" in table


def test_invalid_utf8_upload_trains_at_byte_level():
    at = new_app(source="upload").run()
    assert any("Choose a text file" in i.value for i in at.info)
    data = "olá mundo, olá gato ".encode() * 20 + b"\xff\xfe broken \xc3"
    at.file_uploader(key="upload").set_value(("broken.txt", data, "text/plain")).run()
    assert_clean(at)
    assert any("not valid UTF-8" in w.value for w in at.warning)
    assert at.session_state["level"] == "bytes"
    at.button(key="step_last").click().run()
    assert_clean(at)
    (table,) = html_blocks(at, "merge-table")
    assert "<td>1</td>" in table


def test_upload_over_the_cap_is_refused_with_a_message(monkeypatch):
    at = new_app(source="upload").run()
    at.file_uploader(key="upload").set_value(("big.txt", b"a" * 5_000_001, "text/plain")).run()
    assert any("the limit here is 5 MB" in e.value for e in at.error)


def test_an_uploaded_tokenizer_file_is_replayed_on_the_train_page():
    import bpeviz
    from bpeviz import corpora, formats, render

    tok = bpeviz.train(corpora.corpus_text("udhr-pt"), vocab_size=300, level="bytes")
    at = new_app(source="import").run()
    assert any("Choose a tokenizer.json" in i.value for i in at.info)
    at.file_uploader(key="import_replay").set_value(("pt.tiktoken", formats.export(tok, "tiktoken"), "text/plain")).run()
    assert_clean(at)
    at.session_state["vocab_size"] = 300
    at.run()
    at.button(key="step_last").click().run()
    assert at.metric[0].value == "44 / 44"
    (table,) = html_blocks(at, "merge-table")
    first = tok.merges[0]
    assert f"<td>1</td><td>{render.show(first.left)} + {render.show(first.right)} → " in table


def test_files_page_imports_and_encodes_with_a_prefix():
    import bpeviz
    from bpeviz import corpora, formats

    tok = bpeviz.train(corpora.corpus_text("english")[:20_000], vocab_size=400, level="bytes")
    at = new_app()
    at.switch_page("app_pages/files.py").run()
    at.file_uploader(key="import_file").set_value(("tokenizer.json", formats.export(tok, "hf"), "application/json")).run()
    assert_clean(at)
    assert any("144 merges replayed" in s.value for s in at.success)
    full = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')][-1]
    at.slider(key="import_k").set_value(0).run()
    bare = [m.value for m in at.main.markdown if m.value.startswith('<div class="bpe-chips">')][-1]
    assert full.count("bpe-chip\"") < bare.count("bpe-chip\"") == len("The cat climbed onto the roof.")
    at.file_uploader(key="import_file").set_value(("x.json", b'{"model": {"type": "WordPiece"}}', "application/json")).run()
    assert any("not a Hugging Face BPE" in e.value for e in at.error)


def test_lesson_snapshot_round_trip():
    import json

    lesson = {"format": "bpeviz-lesson", "version": 1, "lesson": {"step": 9, "sentence": "o cão subiu", "tie_break": "smallest"}}
    fresh = new_app().run()
    fresh.file_uploader(key="snapshot_upload").set_value(("lesson.json", json.dumps(lesson).encode(), "application/json")).run()
    assert fresh.session_state["sentence"] == "o cão subiu" and fresh.session_state["tie_break"] == "smallest"
    assert fresh.metric[0].value == "9 / 41"
    fresh.file_uploader(key="snapshot_upload").set_value(("bad.json", b"[1, 2]", "application/json")).run()
    assert any("Could not load that lesson" in e.value for e in fresh.error)


def test_quirk_nfc_nfd_panel_counts_differ():
    at = new_app()
    at.switch_page("app_pages/quirks.py").run()
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
    at.switch_page("app_pages/encode.py").run()
    assert_clean(at)


def chart_rows(at):
    """The pair chart's data (Arrow IPC inside the Vega-Lite element) as a DataFrame."""
    import pyarrow.ipc

    (chart,) = at.get("vega_lite_chart")
    return pyarrow.ipc.open_stream(chart.proto.datasets[0].data.data).read_all().to_pandas()


def test_replay_marks_the_real_next_merge_and_says_counts_are_local():
    at = new_app(source="gpt2", vocab_size=256 + 20, level="bytes", step=3).run()
    assert any("merges were learned elsewhere" in c.value for c in at.caption)
    rows = chart_rows(at)
    assert list(rows.loc[rows.status == "next merge", "pair"]) == ["i + n"]  # GPT-2's fourth merge ...
    assert rows.iloc[0].pair == "\\xe2 + \\x80"  # ... while Alice's curly quotes are more frequent here


def test_trained_chart_marks_the_most_frequent_pair_and_its_ties():
    at = new_app(step=2).run()
    rows = chart_rows(at)
    assert rows.iloc[0].pair == "t + o" and rows.iloc[0].status == "next merge" and rows.iloc[0]["count"] == 6
    assert list(rows.loc[rows.status == "tied", "pair"]) == ["␣ + s", "␣ + c", "ã + o"]
