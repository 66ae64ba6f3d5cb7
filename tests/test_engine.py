"""The engine: reference tables, the naive oracle, round trips, traces, errors."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import merge, naive_train, naive_words

import bpeviz
from bpeviz import corpora
from bpeviz.tokenizer import prepare
from bpeviz.trainer import train_ids

PRETOKENIZERS = list(bpeviz.PRETOKENIZERS) + [r"\w+|\s+"]


def fast_rows(sequences, n, first, tie_break):
    return [(m.left, m.right, m.token, m.count, m.tokens_after) for m in train_ids(sequences, n, first, tie_break=tie_break)]


def oracle_rows(docs, level, pretokenizer, n, tie_break):
    """The naive trainer on words counted the obvious way (not through bpeviz's prepare)."""
    words, weights, first = naive_words(docs, level, pretokenizer)
    return naive_train(words, weights, n, first, tie_break)


def fast_train_rows(docs, level, pretokenizer, n, tie_break):
    p = prepare(docs, level, pretokenizer)
    first = 256 if level == "bytes" else len(p.alphabet)
    return fast_rows(p.sequences, n, first, tie_break)


# -- a case small enough to check by hand -------------------------------------------------


def test_golden_aaabdaaabac():
    # Wikipedia's example, by hand. Pairs: aa:4 ab:2 bd:1 da:1 ba:1 ac:1 -> merge aa as Z.
    # "ZabdZabac": Za:2 ab:2 (Za first) -> merge Za as Y: "YbdYbac", 7 tokens.
    ids = [0, 0, 0, 1, 3, 0, 0, 0, 1, 0, 2]  # a=0 b=1 c=2 d=3
    merges = train_ids([(ids, 1)], 2, 4)
    assert [(m.left, m.right, m.count) for m in merges] == [(0, 0, 4), (4, 0, 2)]
    assert merges[0].tokens_after == 9 and merges[1].tokens_after == 7
    assert merges[1].ties == ((0, 1),)  # "ab" also occurs twice, later


def test_overlapping_runs_match_naive():
    for ids in ([5] * 7, [1, 2] * 5, [1, 1, 2, 1, 1, 1, 2, 2, 2]):
        for rule in bpeviz.TIE_BREAKS:
            assert fast_rows([(ids, 3)], 10, 10, rule) == naive_train([ids], [3], 10, 10, rule)


# -- the reference table ------------------------------------------------------------------


def test_toy_corpus_reproduces_reference_table(toy_reference):
    docs = corpora.documents("toy_pt")
    assert docs == toy_reference["sentences"]
    tok = bpeviz.train(docs, vocab_size=toy_reference["vocab_size"], level="chars", pretokenizer="gpt2")
    assert len(tok.alphabet) == 23 and tok.vocab_size == 64
    got = [(m.rank, m.left, m.right, m.token, m.count) for m in tok.merges]
    want = [(m["rank"], m["left"], m["right"], m["token"], m["count"]) for m in toy_reference["merges"]]
    assert got == want


def test_toy_trace_subiu():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    steps = tok.trace("o gato subiu no")
    assert steps[0].rank is None and len(steps[0].pieces) == 15
    assert steps[-1].pieces == ("o", " gato", " sub", "iu", " no")
    ranks = [s.rank for s in steps[1:]]
    assert ranks == sorted(ranks) and all(s.fired > 0 for s in steps[1:])
    assert steps[1].merge.token == " n"
    assert tok.encode("o gato subiu no") == [tok.vocab_ids()[p] for p in steps[-1].pieces]


# -- the oracle ----------------------------------------------------------------------------


@pytest.mark.parametrize("tie_break", bpeviz.TIE_BREAKS)
@pytest.mark.parametrize("level", bpeviz.LEVELS)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_fast_matches_naive_on_toy_and_udhr(tie_break, level, pretokenizer):
    for key, n in (("toy_pt", 60), ("udhr-pt", 120)):
        docs = corpora.documents(key)
        assert fast_train_rows(docs, level, pretokenizer, n, tie_break) == oracle_rows(docs, level, pretokenizer, n, tie_break)


@pytest.mark.parametrize("tie_break", bpeviz.TIE_BREAKS)
def test_fast_matches_naive_on_english_to_4096(tie_break):
    docs = [corpora.corpus_text("english")]
    assert fast_train_rows(docs, "bytes", "gpt2", 4096 - 256, tie_break) == oracle_rows(docs, "bytes", "gpt2", 4096 - 256, tie_break)


def test_fast_matches_naive_on_raw_english():
    docs = [corpora.corpus_text("english")[:40_000]]
    assert fast_train_rows(docs, "bytes", "none", 300, "first") == oracle_rows(docs, "bytes", "none", 300, "first")


corpus_strategy = st.lists(st.text(alphabet="ab c\né", max_size=25), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=corpus_strategy, tie_break=st.sampled_from(bpeviz.TIE_BREAKS), level=st.sampled_from(bpeviz.LEVELS),
       pretokenizer=st.sampled_from(PRETOKENIZERS))
def test_fast_matches_naive_on_random_corpora(docs, tie_break, level, pretokenizer):
    assert fast_train_rows(docs, level, pretokenizer, 40, tie_break) == oracle_rows(docs, level, pretokenizer, 40, tie_break)


def test_merges_do_not_depend_on_hash_seed():
    code = (
        "import bpeviz; from bpeviz import corpora;"
        "t = bpeviz.train(corpora.corpus_text('udhr-fr'), vocab_size=400, level='bytes', pretokenizer='none');"
        "print([(m.left_id, m.right_id, m.count) for m in t.merges])"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outputs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
    assert len(outputs) == 1 and outputs.pop().count("(") > 100


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


# -- save and load ---------------------------------------------------------------------------


def test_save_load_round_trip(tmp_path):
    for level in bpeviz.LEVELS:
        tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=300 if level == "bytes" else 64, level=level)
        tok.save(tmp_path / "tok.json")
        back = bpeviz.load(tmp_path / "tok.json")
        assert back.merges == tok.merges and back.settings == tok.settings
        assert back.encode("o gato subiu no telhado") == tok.encode("o gato subiu no telhado")


def test_load_rejects_foreign_files(tmp_path):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a bpeviz"):
        bpeviz.load(tmp_path / "x.json")
    with pytest.raises(ValueError, match="No such file"):
        bpeviz.load(tmp_path / "missing.json")


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
       | st.text(max_size=40), name=st.sampled_from(sorted(bpeviz.pretokenize.CHUNKABLE)))
def test_chunks_never_cut_a_pre_token(text, name):
    pieces = [p for chunk in bpeviz.pretokenize.chunks(text) for p in bpeviz.split_text(chunk, name)]
    assert pieces == bpeviz.split_text(text, name)


def test_presets_split_as_documented():
    assert bpeviz.split_text("o gato.", "gpt2") == ["o", " gato", "."]
    assert bpeviz.split_text("12345 abc", "gpt4") == ["123", "45", " abc"]
    assert bpeviz.split_text("a" * 70, "words") == ["a" * 64, "a" * 6]
    assert bpeviz.split_text("x  =\t1", "words") == ["x", " ", " =", "\t", "1"]


@settings(max_examples=60, deadline=None)
@given(docs=corpus_strategy, tie_break=st.sampled_from(bpeviz.TIE_BREAKS), pretokenizer=st.sampled_from(["gpt2", "none"]))
def test_recorded_top_pairs_equal_a_recount(docs, tie_break, pretokenizer):
    from collections import Counter

    from bpeviz import steps

    try:
        tok = bpeviz.train(docs, vocab_size=10**5, tie_break=tie_break, pretokenizer=pretokenizer, record_top=6)
    except ValueError:
        return  # an empty corpus
    words = Counter(bpeviz.pretokenize.count_pieces(docs, pretokenizer))
    for step in range(len(tok.merges)):
        recorded = [(p.left_id, p.right_id, p.count) for p in steps.recorded_pair_counts(tok, step)]
        recount = [(p.left_id, p.right_id, p.count) for p in steps.pair_counts(tok, words, step)][:6]
        assert recorded == recount, step


def test_recorded_top_on_english_and_saved(tmp_path):
    from bpeviz import steps

    docs = corpora.documents("udhr-en")
    tok = bpeviz.train(docs, vocab_size=600, level="bytes", pretokenizer="none", record_top=12)
    words = bpeviz.pretokenize.count_pieces(docs, "none")
    def key(pairs):
        return [(p.left_id, p.right_id, p.count) for p in pairs]

    for step in (0, 1, 50, 200, 343):
        assert key(steps.recorded_pair_counts(tok, step)) == key(steps.pair_counts(tok, words, step)[:12])
    tok.save(tmp_path / "t.json")
    assert bpeviz.load(tmp_path / "t.json").merges == tok.merges


def test_the_engine_is_pure_and_light():
    code = "import sys, bpeviz, bpeviz.cli, bpeviz.interop, bpeviz.metrics, bpeviz.steps; print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'streamlit'" not in loaded and "'tiktoken'" not in loaded and "'pandas'" not in loaded
    for path in (ROOT / "bpeviz").glob("*.py"):
        assert "import streamlit" not in path.read_text(), path
