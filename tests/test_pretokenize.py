"""Pre-tokenizers: pieces cover the text with offsets, safe chunks, presets as documented."""

from hypothesis import given, settings
from hypothesis import strategies as st

import bpeviz

PRETOKENIZERS = list(bpeviz.PRETOKENIZERS) + [r"\w+|\s+"]


# -- pre-tokenizers ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=80), name=st.sampled_from(PRETOKENIZERS + ["x", "(?=a)"]))
def test_pieces_cover_the_text_with_offsets(text, name):
    pieces = bpeviz.split_pieces(text, name)
    assert "".join(p.text for p in pieces) == text
    assert all(text[p.start : p.end] == p.text and p.text for p in pieces)
    assert bpeviz.split_text(text, name) == [p.text for p in pieces]


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list(" \t\n\r\x0b\x1c\x85\u00a0\u2028\u3000ab'S9.,é日\u0301(")), max_size=40)
       | st.text(max_size=40), name=st.sampled_from(sorted([name for name, p in bpeviz.PRETOKENIZERS.items() if p.chunkable])))
def test_chunks_never_cut_a_pre_token(text, name):
    pieces = [p for chunk in bpeviz.pretokenize.chunks(text) for p in bpeviz.split_text(chunk, name)]
    assert pieces == bpeviz.split_text(text, name)


def test_presets_split_as_documented():
    assert bpeviz.split_text("o gato.", "gpt2") == ["o", " gato", "."]
    assert bpeviz.split_text("12345 abc", "gpt4") == ["123", "45", " abc"]
    assert bpeviz.split_text("a" * 70, "words") == ["a" * 64, "a" * 6]
    assert bpeviz.split_text("x  =\t1", "words") == ["x", " ", " =", "\t", "1"]


