"""Hostile input, one visitor against the rest: pattern bombs, hostile files, Markdown injection, bad types.

Every case ends in a plain message (a ValueError in the library, one `bpeviz: error:` line in the
CLI, a message box in the app) with the user's text and settings kept; never a traceback.
"""

import json
import re
import subprocess
import sys

import pytest
from app_helpers import new_app

import bpeviz
from bpeviz import formats
from bpeviz.data import corpora
from bpeviz.lessons import render
from bpeviz.pre_tokenizers import patterns

BOMBS = ["((a{1000}){1000}){10}", "((a{1000}){500}){10}", "(?:b{100000})", "a{1000000}", "x" * 3000]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpeviz.cli", *args], capture_output=True, text=True, timeout=60)




def shown(at) -> list[str]:
    """Every message, caption and Markdown body the page shows (Markdown source)."""
    return [e.value for kind in ("error", "warning", "info", "success", "caption", "markdown") for e in getattr(at, kind)]


# -- 1. pattern bombs ------------------------------------------------------------------------


@pytest.mark.parametrize("pattern", BOMBS)
def test_a_compile_bomb_is_refused_before_it_compiles(pattern):
    with pytest.raises(bpeviz.PatternError, match="repeats too much|limit is"):
        bpeviz.split_text("aaa", pattern)
    with pytest.raises(bpeviz.PatternError):
        bpeviz.train("aaa bbb", vocab_size=10, pretokenizer=pattern)


def test_the_estimate_counts_nested_repeats_and_ignores_escapes_and_classes():
    assert patterns.expansion("(ab){3}c") == 7
    assert patterns.expansion("((a{1000}){500}){10}") == 5_000_000
    assert patterns.expansion(r"\p{L}{1,3}+") == 1
    assert patterns.expansion(r"a\{1000}") < 10 and patterns.expansion("[{1000}]") == 1
    for preset in bpeviz.PRETOKENIZERS.values():  # every preset passes with room to spare
        assert preset.pattern is None or patterns.expansion(preset.pattern) < patterns.CACHED_EXPANSION


def test_only_small_accepted_patterns_are_cached():
    patterns.compile_cached.cache_clear()
    bpeviz.split_text("aaa", "a{3000}|a")  # accepted but too big to keep
    bpeviz.split_text("aaa", "a{10}|a")
    assert patterns.compile_cached.cache_info().currsize == 1


def test_a_bomb_in_the_cli_is_one_line(tmp_path):
    (tmp_path / "t.txt").write_text("aaa bbb")
    out = run_cli("train", str(tmp_path / "t.txt"), "--vocab-size", "300", "--pretokenizer", BOMBS[0])
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "repeats too much" in out.stderr


def test_a_bomb_in_a_link_is_refused_with_the_pattern_kept():
    at = new_app()
    at.query_params["pre"] = "custom"
    at.query_params["re"] = BOMBS[0]
    at.run()
    assert not at.exception
    assert any("repeats too much" in e.value for e in at.error)
    assert at.session_state["custom_pattern"] == BOMBS[0] and at.session_state["pretokenizer"] == "custom"


# -- 2. rank files: linear, bounded, short messages -----------------------------------------------


class CountingRanks(dict):
    lookups = 0

    def get(self, key, default=None):
        CountingRanks.lookups += 1
        return super().get(key, default)


def doubling_ranks(length: int) -> dict[bytes, int]:
    """a, aa, aaaa, ... up to `length` bytes: a rank file where the longest token needs log2(length) merges."""
    ranks = CountingRanks({bytes([b]): b for b in range(256)})
    token, rank = b"a", 256
    while len(token) < length:
        token += token
        ranks[token] = rank
        rank += 1
    return ranks


def test_recovering_a_long_token_is_not_quadratic():
    lookups = {}
    for length in (128, 256, 512, 1024):
        CountingRanks.lookups = 0
        formats.pairs_from_ranks(doubling_ranks(length))
        lookups[length] = CountingRanks.lookups
    assert lookups[1024] < 3 * lookups[512] < 9 * lookups[256]  # a quadratic import would grow 4x per doubling


def test_a_token_too_long_is_refused_and_the_message_is_short():
    import base64

    data = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))
    data += base64.b64encode(b"x" * 30_000) + b" 256\n"
    with pytest.raises(ValueError, match="at most 1,024") as info:
        formats.import_data(data, "long.tiktoken")
    assert len(str(info.value)) < 200


@pytest.mark.slow  # an oracle over many cases or a big real tokenizer: CI runs it, the quick run does not
def test_the_real_rank_files_import_whole_and_encode_as_tiktoken():
    from bpeviz.data.shipped import read_shipped

    tok = formats.import_data(read_shipped("x/o200k_base.tiktoken"), "o200k_base.tiktoken")
    assert len(tok.merges) == 200_000 - 2 - 256  # every rank but the two special tokens and the bytes
    replay = formats.from_pairs([(m.left, m.right) for m in tok.merges], pretokenizer="o200k")
    ref = bpeviz.reference("o200k_base")
    for key in ("english", "udhr-pt", "udhr-ru", "udhr-hi"):
        text = corpora.corpus_text(key)[:4000]
        assert [replay.token_bytes(i) for i in replay.encode_ordinary(text)] == [
            ref.decode_single_token_bytes(i) for i in ref.encode_ordinary(text)], key


# -- 4. hostile files: every loader checks its schema -------------------------------------------

BPEVIZ_FILE = formats.to_dict(bpeviz.train("o gato subiu no telhado", vocab_size=30))


def bpeviz_file(**changes) -> bytes:
    data = json.loads(json.dumps(BPEVIZ_FILE))
    for path, value in changes.items():
        node = data
        *parents, last = path.split("__")
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value
    return json.dumps(data).encode()


def hf_file(merges) -> bytes:
    return json.dumps({"model": {"type": "BPE", "vocab": {}, "merges": merges}}).encode()


HOSTILE_FILES = {
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "hf merges a number": hf_file(5),
    "hf merges numbers": hf_file([1, 2]),
    "hf merge of numbers": hf_file([[1, 2]]),
    "hf merges an object": hf_file({}),
    "hf merge of three parts": hf_file(["abc"]),
    "hf merge of one part": hf_file([["a"]]),
    "bpeviz pretokenizer a number": bpeviz_file(settings__pretokenizer=5),
    "bpeviz pretokenizer a bomb": bpeviz_file(settings__pretokenizer=BOMBS[0]),
    "bpeviz alphabet of numbers": bpeviz_file(alphabet=[1, 2, 3]),
    "bpeviz empty special token": bpeviz_file(special_tokens=[""]),
    "bpeviz merge from the future": bpeviz_file(merges__0__left_id=10_000),
    "bpeviz merge id out of order": bpeviz_file(merges__0__id=5),
    "bpeviz count negative": bpeviz_file(merges__0__count=-1),
    "bpeviz ties not pairs": bpeviz_file(merges__0__ties=[[1]]),
    "bpeviz settings a list": bpeviz_file(settings=[1]),
    "tiktoken duplicate rank": b"YQ== 0\nYg== 0\n",
    "tiktoken negative rank": b"YQ== -3\n",
    "tiktoken duplicate token": b"YQ== 0\nYQ== 1\n",
    "tiktoken not base64": b"!!! 0\n",
    "binary noise": bytes(range(256)) * 40,
    "unigram score beyond a float": b'{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["a", 1'
                                    + b"0" * 400 + b"]]}}",
    "unigram score infinite": b'{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["a", -Infinity]]}}',
}


@pytest.mark.parametrize("name", HOSTILE_FILES)
def test_a_hostile_tokenizer_file_gets_a_plain_message(name):
    with pytest.raises(ValueError) as info:
        formats.import_data(HOSTILE_FILES[name], "evil.json")
    assert type(info.value) in (ValueError, bpeviz.BpevizError, bpeviz.PatternError)
    assert "Traceback" not in str(info.value) and len(str(info.value)) < 400


@pytest.mark.parametrize("name", ["deep nesting", "hf merges a number", "bpeviz pretokenizer a number", "tiktoken negative rank",
                                  "unigram score beyond a float"])
def test_the_cli_says_one_line_for_a_hostile_file(name, tmp_path):
    path = tmp_path / "evil.json"
    path.write_bytes(HOSTILE_FILES[name])
    for args in (["import", str(path)], ["export", str(path), "--format", "csv"], ["encode", "--tokenizer", str(path), "x"]):
        out = run_cli(*args)
        assert out.returncode == 2 and "Traceback" not in out.stderr, (args, out.stderr)
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("bpeviz: error:")


@pytest.mark.parametrize("name", ["hf merges a number", "bpeviz alphabet of numbers", "deep nesting"])
def test_the_app_shows_a_message_for_a_hostile_file_on_files_and_train(name):
    at = new_app()
    at.switch_page("bpeviz/app/pages/files.py").run()
    at.file_uploader(key="import_file").set_value(("evil.json", HOSTILE_FILES[name], "application/json")).run()
    assert not at.exception and at.error
    at = new_app(source="import").run()
    at.file_uploader(key="import_replay").set_value(("evil.json", HOSTILE_FILES[name], "application/json")).run()
    assert not at.exception and at.error and at.session_state["source"] == "import"


LESSONS = {
    "lesson a number": b'{"format": "bpeviz-lesson", "lesson": 5}',
    "null": b"null",
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "lone surrogate sentence": b'{"format": "bpeviz-lesson", "lesson": {"sentence": "a\\ud800b"}}',
    "speed seven": b'{"format": "bpeviz-lesson", "lesson": {"speed": 7}}',
    "speed nan": b'{"format": "bpeviz-lesson", "lesson": {"speed": "nan"}}',
    "huge vocab": b'{"format": "bpeviz-lesson", "lesson": {"vocab_size": 1000000000}}',
}


@pytest.mark.parametrize("name", LESSONS)
def test_a_hostile_lesson_file_is_refused_or_its_bad_values_named(name):
    at = new_app().run()
    at.file_uploader(key="snapshot_upload").set_value(("lesson.json", LESSONS[name], "application/json")).run()
    assert not at.exception
    messages = [m.value for m in [*at.error, *at.warning]]
    assert messages, name
    assert at.session_state["sentence"] == "o gato subiu no" and at.session_state["speed"] == 1.0
    assert at.session_state["vocab_size"] == 64
    if name in ("speed seven", "huge vocab"):
        field = "speed" if "speed" in name else "vocab_size"
        assert any(f"{field}=" in re.sub(r"\\(.)", r"\1", m) for m in messages)


# -- 3. Markdown injection -------------------------------------------------------------------

LINK = "![p](http://127.0.0.1:9/x)"


def live_markdown(text: str) -> list[str]:
    """Markdown constructs that would fetch or link: an image or a link not escaped and not in a code span."""
    outside_code = re.sub(r"(`+).*?\1", "", text)
    return re.findall(r"(?<!\\)!?(?<!\\)\[[^\]]*(?<!\\)\]\((?!\s)", outside_code)


def test_the_helpers_make_markdown_inert():
    assert live_markdown(LINK) and not live_markdown(render.md(LINK)) and not live_markdown(render.code(LINK))
    assert not live_markdown(render.md("[a](javascript:x) <img> :red[x] $x$"))
    assert render.code("a`b") == "`` a`b ``" and render.code("`x`").startswith("`` ")


def test_a_pattern_from_a_link_cannot_inject_an_image():
    at = new_app()
    at.query_params["pre"] = "custom"
    at.query_params["re"] = LINK + r"|\w+|\s"
    at.run()
    at.session_state["step"] = 1
    at.run()
    assert not at.exception
    for body in shown(at):
        if "bpe-chips" not in body and "<style>" not in body:
            assert not live_markdown(body), body


def test_file_names_and_quirk_texts_cannot_inject():
    at = new_app(source="upload").run()
    at.file_uploader(key="upload").set_value((LINK + ".txt", b"o gato \xff subiu", "text/plain")).run()
    assert not at.exception
    for body in shown(at):
        assert not live_markdown(body), body
    at = new_app(q_spell=LINK, q_cut=LINK, q_indent="    " + LINK)
    at.switch_page("bpeviz/app/pages/quirks.py").run()
    assert not at.exception
    for body in shown(at):
        if "bpe-chips" not in body and "<style>" not in body:
            assert not live_markdown(body), body


def test_the_players_strings_hold_no_markup_escapes():
    from app_helpers import player_data

    labels = player_data(new_app(step=3).run())["labels"]
    assert "{pair}" in labels["ties"] and "{pair}" in labels["quiz_answer"]  # filled with textContent in the browser
    assert not any("&lt;" in v or "&gt;" in v or "**" in v or "`" in v for v in labels.values())


# -- 7. out-of-range values say so -----------------------------------------------------------------


@pytest.mark.parametrize(("params", "field"), [({"vocab": "0"}, "vocab"), ({"vocab": "1000000000"}, "vocab"),
                                               ({"step": "-4"}, "step"), ({"level": "words"}, "level")])
def test_a_bad_value_in_the_address_is_named_with_its_range(params, field):
    at = new_app()
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    assert any(f"{field}=" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.session_state["vocab_size"] == 64 and at.session_state["level"] == "chars"


def test_a_replay_link_keeps_the_vocab_it_asked_for():
    at = new_app()
    at.query_params["src"] = "gpt2"
    at.query_params["vocab"] = "256"
    at.run()
    assert not at.exception and at.session_state["vocab_size"] == 256 and at.session_state["level"] == "bytes"


def test_a_link_to_a_corpus_brings_its_settings():
    at = new_app()
    at.query_params["corpus"] = "portuguese"
    at.run()
    assert not at.exception and not at.error
    assert at.session_state["vocab_size"] == 512 and at.session_state["level"] == "bytes"


# -- 10. library types ------------------------------------------------------------------------------


def test_wrong_types_get_value_errors_that_say_what_to_pass():
    import numpy as np

    tok = bpeviz.train("o gato subiu", vocab_size=20)
    with pytest.raises(ValueError, match="corpus is a string"):
        bpeviz.train(None, vocab_size=20)
    with pytest.raises(ValueError, match="not bytes: decode it first"):
        tok.encode(b"o gato")
    with pytest.raises(ValueError, match="must be a str, not NoneType"):
        tok.encode(None)
    with pytest.raises(ValueError, match="whole number"):
        tok.decode(["a"])
    with pytest.raises(ValueError, match="list of token ids"):
        tok.decode("abc")
    assert bpeviz.train("o gato subiu", vocab_size=np.int64(20)).settings.vocab_size == 20
    assert tok.decode(np.array(tok.encode("o gato"))) == "o gato"


# -- 11. the run cache is bounded in bytes ---------------------------------------------------------


def test_cached_runs_are_bounded_by_bytes_not_count():
    from bpeviz.app import runs

    store = runs.Kept(max_bytes=40_000_000)
    toks = [bpeviz.train(f"texto {k} " * 50, vocab_size=40) for k in range(8)]
    for k, tok in enumerate(toks):
        store.put(("key", k), tok)
    assert store.bytes <= 40_000_000 and store.get(("key", 7)) is toks[7] and store.get(("key", 0)) is None
    assert store.trained == 8
