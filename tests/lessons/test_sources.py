"""Corpus sources: tagged records, one place that turns them into documents, replay as a library function."""

import pytest

import bpeviz
from bpeviz import formats
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.lessons import sources


def test_a_file_holding_gpt2_is_a_file_not_gpt2s_merges():
    as_file = sources.ReplayFile("gpt2", b"gpt2")
    assert as_file != sources.ReplayGPT2() and sources.digest(as_file) != sources.digest(sources.ReplayGPT2())
    with pytest.raises(ValueError, match="not a tokenizer file bpeviz reads"):
        sources.tokenizer_for(as_file, Settings(vocab_size=300, level="bytes"))
    gpt2 = sources.tokenizer_for(sources.ReplayGPT2(), Settings(vocab_size=260, level="bytes"))
    assert [m.token for m in gpt2.merges] == [b" t", b" a", b"he", b"in"]


def test_documents_follow_each_source():
    assert sources.Shipped("toy_pt").documents() == corpora.documents("toy_pt")
    assert sources.Pasted("a b\n\nc\n", lines_are_docs=True).documents() == ["a b", "c"]
    assert sources.Pasted("a b\n\nc\n", lines_are_docs=False).documents() == ["a b\n\nc\n"]
    broken = sources.Uploaded("x.txt", b"ol\xc3\xa1 \xff!")
    assert broken.bad_byte == 5 and sources.needs_bytes(broken)
    assert bpeviz.core.records.to_bytes(broken.documents()[0]) == b"ol\xc3\xa1 \xff!"  # raw bytes survive
    assert not sources.needs_bytes(sources.Uploaded("y.txt", "olá".encode()))


def test_digests_name_content():
    assert sources.digest(sources.Pasted("abc")) == sources.digest(sources.Pasted("abc"))
    assert sources.digest(sources.Pasted("abc")) != sources.digest(sources.Pasted("abc", lines_are_docs=False))
    assert sources.digest(sources.Uploaded("a.txt", b"x")) == sources.digest(sources.Uploaded("b.txt", b"x"))
    assert sources.digest(sources.Uploaded("a.txt", b"x")) != sources.digest(sources.ReplayFile("a.txt", b"x"))


def test_a_chars_level_bpeviz_file_replays_at_chars_level():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    replayed = sources.tokenizer_for(sources.ReplayFile("toy.json", formats.export(tok, "json")), Settings(vocab_size=40))
    assert replayed.level == "chars" and [m.token for m in replayed.merges] == [m.token for m in tok.merges[:17]]


def test_training_through_a_source_equals_training_directly():
    settings = Settings(vocab_size=64, level="chars", pretokenizer="gpt2")
    via_source = sources.tokenizer_for(sources.Shipped("toy_pt"), settings)
    direct = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    assert via_source.merges == direct.merges
