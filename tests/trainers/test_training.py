"""Text-level training: what bad input gets, and where training stops."""

from collections import Counter

import pytest

import bpeviz

# -- errors say what to do ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"corpus": "", "vocab_size": 300}, "empty"),
        ({"corpus": ["", ""], "vocab_size": 300}, "empty"),
        ({"corpus": "abc", "vocab_size": 2}, "at least 3"),
        ({"corpus": "abc", "vocab_size": 10**9}, "too large"),
        ({"corpus": "abc", "vocab_size": 10, "level": "words"}, "level"),
        ({"corpus": "abc", "vocab_size": 10, "tie_break": "random"}, "tie-break"),
        ({"corpus": "abc", "vocab_size": 10, "pretokenizer": "(unclosed"}, "does not compile"),
        ({"corpus": "a" * 40 + "!", "vocab_size": 10, "pretokenizer": "(a|a)+$"}, "longer than"),
        ({"corpus": "a" * 50_000 + "!", "vocab_size": 10, "pretokenizer": "(a+)+$"}, "longer than"),
    ],
)
def test_bad_input_raises_clear_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bpeviz.train(**kwargs)


def test_stops_early_when_no_pair_left():
    tok = bpeviz.train("ab ab", vocab_size=10_000, level="chars", pretokenizer="gpt2")
    assert [m.token for m in tok.merges] == ["ab", " ab"]


def test_equal_base_vocab_means_no_merges():
    tok = bpeviz.train("abc", vocab_size=3)
    assert tok.merges == [] and tok.encode("abc") == [0, 1, 2]




def test_a_misspelt_keyword_is_refused_by_train_and_train_counts():
    # the two share their keywords in one TypedDict (issue 25.4); a name outside it is Python's own TypeError
    from bpeviz.counting import blocks as counting
    from bpeviz.trainers.training import train_counts

    with pytest.raises(TypeError, match="'tiebreak'"):
        bpeviz.train("o gato", vocab_size=12, tiebreak="first")
    table = counting.CountTable(Counter({" gato": 2, "o": 2}), "gpt2", False)
    with pytest.raises(TypeError, match="'engines'"):
        train_counts(table, vocab_size=12, engines="python")
    assert train_counts(table, vocab_size=12, tie_break="smallest").settings.tie_break == "smallest"
