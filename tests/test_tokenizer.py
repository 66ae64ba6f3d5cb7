"""Encoding, the trace, byte fallback, special tokens, round trips on arbitrary Unicode."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import merge

import bpeviz
from bpeviz import corpora


def test_toy_trace_subiu():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    steps = tok.trace("o gato subiu no")
    assert steps[0].rank is None and len(steps[0].pieces) == 15
    assert steps[-1].pieces == ("o", " gato", " sub", "iu", " no")
    ranks = [s.rank for s in steps[1:]]
    assert ranks == sorted(ranks) and all(s.fired > 0 for s in steps[1:])
    assert steps[1].merge.token == " n"
    assert tok.encode("o gato subiu no") == [tok.vocab_ids()[p] for p in steps[-1].pieces]


# -- encoding -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained():
    docs = corpora.documents("udhr-pt")
    return {(level, pre): bpeviz.train(docs, vocab_size=(256 if level == "bytes" else 60) + 150, level=level, pretokenizer=pre)
            for level in bpeviz.LEVELS for pre in bpeviz.PRETOKENIZERS}


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60), key=st.sampled_from([(lv, p) for lv in bpeviz.LEVELS for p in bpeviz.PRETOKENIZERS]))
def test_round_trip_arbitrary_unicode(trained, text, key):
    tok = trained[key]
    assert tok.decode(tok.encode_ordinary(text)) == text


def test_training_segmentation_equals_encoding(trained):
    # encoding the training text reproduces the corpus length the trainer recorded
    for (level, pre), tok in trained.items():
        docs = corpora.documents("udhr-pt")
        assert sum(len(tok.encode_ordinary(d)) for d in docs) == tok.merges[-1].tokens_after, (level, pre)


def test_long_sequence_encoding_matches_repeated_merging():
    text = corpora.corpus_text("udhr-en")
    tok = bpeviz.train(text, vocab_size=500, level="bytes", pretokenizer="none")
    ids = list(text.encode())
    for m in tok.merges:
        ids = merge(ids, (m.left_id, m.right_id), m.id)
    assert tok.encode(text) == ids


def test_byte_fallback_is_visible():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    ids = tok.encode("pássaro 🐦")
    fallback = [i for i in ids if tok.is_byte_fallback(i)]
    assert len(fallback) == 4  # the bird is 4 UTF-8 bytes; á is in the alphabet (sofá)
    assert tok.decode(ids) == "pássaro 🐦"


def test_special_tokens_refused_unless_allowed():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    with pytest.raises(ValueError, match="allowed_special"):
        tok.encode("o gato<|endoftext|>")
    ids = tok.encode("o gato<|endoftext|>", allowed_special="all")
    assert ids[-1] == tok.special_tokens["<|endoftext|>"] == 64
    assert tok.decode(tok.encode_ordinary("<|endoftext|>")) == "<|endoftext|>"


def test_invalid_utf8_trains_at_byte_level():
    data = "olá mundo ".encode() * 5 + b"\xff\xfe\x80"
    tok = bpeviz.train(data, vocab_size=270, level="bytes")
    assert tok.decode_bytes(tok.encode_ordinary(data.decode("utf-8", "surrogateescape"))) == data
    with pytest.raises(ValueError, match="not valid UTF-8"):
        bpeviz.train(data, vocab_size=40, level="chars")


