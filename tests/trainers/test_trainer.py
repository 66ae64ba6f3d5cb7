"""The fast trainer against the slow obvious one (bpeviz.trainers.educational), the reference table, hand-checked cases."""

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz.core.records import MAX_TIES_RECORDED
from bpeviz.core.rules import rules_for
from bpeviz.data import corpora
from bpeviz.engine.python import train_ids
from bpeviz.lessons import steps
from bpeviz.trainers import educational
from bpeviz.trainers.bpe import prepare

PRETOKENIZERS = list(bpeviz.PRETOKENIZERS) + [r"\w+|\s+"]
CORPUS_STRATEGY = st.lists(st.text(alphabet="ab c\né", max_size=25), min_size=1, max_size=6)


def fast_rows(sequences, n, first, tie_break, texts=None):
    merges = train_ids(sequences, n, first, rules=rules_for(tie_break, texts=texts))
    return [(m.left_id, m.right_id, m.token_id, m.count, m.tokens_after) for m in merges]


def rows(merges):
    return [(m.left_id, m.right_id, m.token_id, m.count, m.tokens_after) for m in merges]


def oracle_rows(docs, level, pretokenizer, n, tie_break, count_rule="overlapping", unique_tokens=False):
    """The educational trainer on words it counted its own way (not through bpeviz's prepare)."""
    words, weights, first, texts = educational.words_of(docs, level, pretokenizer)
    return rows(educational.learn_merges(words, weights, n, first, tie_break=tie_break, count_rule=count_rule, texts=texts,
                                         unique_tokens=unique_tokens))



def fast_train_rows(docs, level, pretokenizer, n, tie_break, count_rule="overlapping", unique_tokens=False):
    p = prepare(docs, level, pretokenizer)
    texts = p.alphabet if p.alphabet is not None else [bytes([b]) for b in range(256)]
    merges = train_ids(p.sequences, n, p.n_base, rules=rules_for(tie_break, count_rule, texts, unique_tokens))
    return [(m.left_id, m.right_id, m.token_id, m.count, m.tokens_after) for m in merges]


# -- a case small enough to check by hand -------------------------------------------------


def test_golden_aaabdaaabac():
    # Wikipedia's example, by hand. Pairs: aa:4 ab:2 bd:1 da:1 ba:1 ac:1 -> merge aa as Z.
    # "ZabdZabac": Za:2 ab:2 (Za first) -> merge Za as Y: "YbdYbac", 7 tokens.
    ids = [0, 0, 0, 1, 3, 0, 0, 0, 1, 0, 2]  # a=0 b=1 c=2 d=3
    merges = train_ids([(ids, 1)], 2, 4)
    assert [(m.left_id, m.right_id, m.count) for m in merges] == [(0, 0, 4), (4, 0, 2)]
    assert merges[0].tokens_after == 9 and merges[1].tokens_after == 7
    assert merges[1].tie_ids == ((0, 1),)  # "ab" also occurs twice, later


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=CORPUS_STRATEGY, rule=st.sampled_from(["first", "smallest", "hf"]),
       level=st.sampled_from(["chars", "bytes"]))
def test_the_ties_recorded_are_the_oracles_next_pairs_at_the_same_count(docs, rule, level):
    words, weights, first, texts = educational.words_of(docs, level, "gpt2")
    want = educational.learn_merges(words, weights, 40, first, tie_break=rule, texts=texts)
    p = prepare(docs, level, "gpt2")
    merges = train_ids(p.sequences, 40, p.n_base, rules=rules_for(rule, texts=texts))
    assert MAX_TIES_RECORDED == 4 and [m.tie_ids for m in merges] == [m.tie_ids for m in want]


def test_overlapping_runs_match_naive():
    for ids in ([5] * 7, [1, 2] * 5, [1, 1, 2, 1, 1, 1, 2, 2, 2]):
        for rule in bpeviz.TIE_BREAKS:
            texts = [str(k) for k in range(10)]
            assert fast_rows([(ids, 3)], 10, 10, rule, texts) == rows(educational.learn_merges([ids], [3], 10, 10, tie_break=rule,
                                                                                               texts=texts))


def test_the_educational_trainer_is_bpeviz_train_for_every_dialect(toy_reference):
    docs = corpora.documents("toy_pt")
    tok = educational.train(docs, vocab_size=64)
    assert [(m.rank, m.token, m.count) for m in tok.merges] == [
        (m["rank"], m["token"], m["count"]) for m in toy_reference["merges"]]
    for dialect in bpeviz.core.rules.DIALECTS:
        slow = educational.train(corpora.documents("udhr-pt"), vocab_size=400, dialect=dialect)
        fast = bpeviz.train(corpora.documents("udhr-pt"), vocab_size=400, dialect=dialect)
        assert slow.merges == fast.merges and (slow.corpus_bytes, slow.corpus_tokens) == (fast.corpus_bytes, fast.corpus_tokens)
        assert slow.encode("Todos os seres humanos") == fast.encode("Todos os seres humanos") and slow.engine == "educational"


def test_the_educational_trainer_records_the_top_pairs_as_the_engines_do():
    docs = corpora.documents("udhr-en")
    words, weights, first, texts = educational.words_of(docs, "bytes", "gpt2")
    slow = educational.learn_merges(words, weights, 200, first, texts=texts, record_top=8)
    p = prepare(docs, "bytes", "gpt2")
    assert train_ids(p.sequences, 200, p.n_base, rules=rules_for("first"), record_top=8) == slow


# -- the reference table ------------------------------------------------------------------


def test_toy_corpus_reproduces_reference_table(toy_reference):
    docs = corpora.documents("toy_pt")
    assert docs == toy_reference["sentences"]
    tok = bpeviz.train(docs, vocab_size=toy_reference["vocab_size"], level="chars", pretokenizer="gpt2")
    assert len(tok.alphabet) == 23 and tok.vocab_size == 64
    got = [(m.rank, m.left, m.right, m.token, m.count) for m in tok.merges]
    want = [(m["rank"], m["left"], m["right"], m["token"], m["count"]) for m in toy_reference["merges"]]
    assert got == want


# -- the oracle ----------------------------------------------------------------------------


@pytest.mark.slow  # an oracle over many cases or a big real tokenizer: CI runs it, the quick run does not
@pytest.mark.parametrize("tie_break", bpeviz.TIE_BREAKS)
@pytest.mark.parametrize("level", bpeviz.LEVELS)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_fast_matches_the_educational_trainer_on_toy_and_udhr(tie_break, level, pretokenizer):
    for key, n in (("toy_pt", 60), ("udhr-pt", 120)):
        docs = corpora.documents(key)
        assert fast_train_rows(docs, level, pretokenizer, n, tie_break) == oracle_rows(docs, level, pretokenizer, n, tie_break)


@pytest.mark.slow  # two thirds of the suite's time outside the browser: CI runs it, the quick run does not
@pytest.mark.parametrize("tie_break", bpeviz.TIE_BREAKS)
def test_fast_matches_the_educational_trainer_on_english_to_4096(tie_break):
    docs = [corpora.corpus_text("english")]
    n = 4096 - 256
    assert fast_train_rows(docs, "bytes", "gpt2", n, tie_break) == oracle_rows(docs, "bytes", "gpt2", n, tie_break)


@pytest.mark.slow  # random corpora against the same oracle stay in the quick run
def test_fast_matches_the_educational_trainer_on_raw_english():
    docs = [corpora.corpus_text("english")[:40_000]]
    assert fast_train_rows(docs, "bytes", "none", 300, "first") == oracle_rows(docs, "bytes", "none", 300, "first")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=CORPUS_STRATEGY, tie_break=st.sampled_from(bpeviz.TIE_BREAKS), level=st.sampled_from(bpeviz.LEVELS),
       pretokenizer=st.sampled_from(PRETOKENIZERS))
def test_fast_matches_the_educational_trainer_on_random_corpora(docs, tie_break, level, pretokenizer):
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


@settings(max_examples=60, deadline=None)
@given(docs=CORPUS_STRATEGY, tie_break=st.sampled_from(bpeviz.TIE_BREAKS), pretokenizer=st.sampled_from(["gpt2", "none"]))
def test_recorded_top_pairs_equal_a_recount(docs, tie_break, pretokenizer):
    from collections import Counter

    try:
        tok = bpeviz.train(docs, vocab_size=10**5, tie_break=tie_break, pretokenizer=pretokenizer, record_top=6)
    except ValueError:
        return  # an empty corpus
    words = Counter(bpeviz.pre_tokenizers.splits.count_pieces(docs, pretokenizer))
    for step in range(len(tok.merges)):
        recorded = [(p.left_id, p.right_id, p.count) for p in steps.recorded_pair_counts(tok, step)]
        recount = [(p.left_id, p.right_id, p.count) for p in steps.pair_counts(tok, words, step)][:6]
        assert recorded == recount, step


def test_recorded_top_on_english_and_saved(tmp_path):
    docs = corpora.documents("udhr-en")
    tok = bpeviz.train(docs, vocab_size=600, level="bytes", pretokenizer="none", record_top=12)
    words = bpeviz.pre_tokenizers.splits.count_pieces(docs, "none")
    def key(pairs):
        return [(p.left_id, p.right_id, p.count) for p in pairs]

    for step in (0, 1, 50, 200, 343):
        assert key(steps.recorded_pair_counts(tok, step)) == key(steps.pair_counts(tok, words, step)[:12])
    tok.save(tmp_path / "t.json")
    assert bpeviz.load(tmp_path / "t.json").merges == tok.merges


