"""decode(encode(s)) == s for every algorithm, on any text (byte fallback where the vocabulary lacks a character)."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz.data import corpora

RUNS = {"bpe-chars": {"level": "chars"}, "bpe-bytes": {"level": "bytes"}, "wordpiece": {"algorithm": "wordpiece"},
        "unigram": {"algorithm": "unigram"}}


@cache
def trained(name: str):
    return bpeviz.train(corpora.corpus_text("english")[:20_000], vocab_size=300, **RUNS[name])


@pytest.mark.parametrize("name", RUNS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40))
def test_round_trip_on_any_text(name, text):
    tok = trained(name)
    assert tok.decode(tok.encode_ordinary(text)) == text
