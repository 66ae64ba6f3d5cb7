"""Pre-tokenizers: pieces cover the text with offsets, safe chunks, presets as documented."""

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz.pre_tokenizers import splits as pretokenize

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
    pieces = [p for chunk in bpeviz.pre_tokenizers.splits.chunks(text) for p in bpeviz.split_text(chunk, name)]
    assert pieces == bpeviz.split_text(text, name)


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list(" \t\n\r\x1c\x85\u00a0\u3000ab.")), max_size=40) | st.text(max_size=40))
def test_chunk_tails_are_the_chunks_without_their_opening_space(text):
    head, *tails = bpeviz.pre_tokenizers.splits.chunk_tails(text)
    assert [head, *(" " + t for t in tails)] == bpeviz.pre_tokenizers.splits.chunks(text)
    assert all(t and not t[-1].isspace() for t in tails[:-1]) and (not tails or head and not head[-1].isspace())
    if tails[:-1]:  # joined as the encoder joins new chunks to encode them in one pass, they cut back into themselves
        assert bpeviz.pre_tokenizers.splits.chunks(" " + " ".join(tails[:-1])) == [" " + t for t in tails[:-1]]


def test_presets_split_as_documented():
    assert bpeviz.split_text("o gato.", "gpt2") == ["o", " gato", "."]
    assert bpeviz.split_text("12345 abc", "gpt4") == ["123", "45", " abc"]
    assert bpeviz.split_text("a" * 70, "words") == ["a" * 64, "a" * 6]
    assert bpeviz.split_text("x  =\t1", "words") == ["x", " ", " =", "\t", "1"]


# -- the `re` twin of each preset -------------------------------------------------------------

PRESET_PATTERNS = {name: p.pattern for name, p in bpeviz.PRETOKENIZERS.items() if p.pattern}
# letters of the contractions in every case (and what case-folds to them), spaces of every kind, digits and
# marks of other scripts, a letter past U+FFFF and an emoji (those texts keep `regex`)
TRICKY = list("'sSſdDmMtTlLvVrReEkKK \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000a9²٣.,/é\u0301日ǅʰ") + ["\U0001d400", "🙂"]


def test_every_preset_has_a_re_twin_and_other_escapes_have_none():
    assert all(pretokenize.bmp_twin(pattern) is not None for pattern in PRESET_PATTERNS.values())
    assert pretokenize.bmp_twin(r"\w+|\s+") is None and pretokenize.bmp_twin(r"\p{Greek}+") is None


@pytest.mark.slow  # every BMP character, in context
def test_the_twin_splits_every_bmp_character_in_context_as_regex_does():
    text = "".join(f"{c}'{c}s {c}{c}1 '{c}l {c}\r\n{c}  " for c in map(chr, range(0x10000)))
    for name, pattern in PRESET_PATTERNS.items():
        assert pretokenize.bmp_twin(pattern).findall(text) == regex.findall(pattern, text), name


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(TRICKY), max_size=40), name=st.sampled_from(sorted(PRESET_PATTERNS)))
def test_a_preset_splits_as_its_regex_pattern(text, name):
    assert bpeviz.split_text(text, name) == regex.findall(PRESET_PATTERNS[name], text)


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(["1", "22", "333", "٣٣٣٣", "²", " ", "a", ".", "\n", "𝟗"]), max_size=30).map("".join),
       name=st.sampled_from(["r2l-digits", "superword"]))
def test_digits_grouped_from_the_right_split_as_their_pattern(text, name):
    """Both split as a twin that takes runs of digits whole, then cut the runs (the pattern's look-ahead is quadratic)."""
    assert bpeviz.split_text(text, name) == regex.findall(PRESET_PATTERNS[name], text)
    assert [p.text for p in bpeviz.split_pieces(text, name)] == bpeviz.split_text(text, name)


def test_a_million_digits_split_in_one_pass():
    """The patterns' own look-ahead reads the rest of a run at every group: 40 000 digits took 1.8 s, a million ~20 min."""
    text = "x " + "7" * 1_000_001 + " y"
    for name in ("r2l-digits", "superword"):
        pieces = bpeviz.split_text(text, name)
        digits = [p for p in pieces if p.isdigit()]
        assert digits[0] == "77" and set(digits[1:]) == {"777"} and "".join(pieces) == text


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(TRICKY), max_size=40), name=st.sampled_from(sorted(PRESET_PATTERNS)))
def test_a_presets_pieces_have_the_offsets_of_its_matches(text, name):
    assert [(p.text, p.start, p.end) for p in bpeviz.split_pieces(text, name)] == [
        (m.group(), m.start(), m.end()) for m in regex.finditer(PRESET_PATTERNS[name], text)]
