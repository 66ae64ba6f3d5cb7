"""What the merges buy: curves, doublings, held-out text, premium."""

import pytest

import bpeviz
from bpeviz.data import corpora
from bpeviz.lessons import metrics
from bpeviz.trainers.educational import merge


@pytest.fixture(scope="module")
def english():
    train_docs, heldout = metrics.split_heldout(corpora.documents("english"), 0.1)
    tok = bpeviz.train(train_docs, vocab_size=1100, level="bytes", pretokenizer="gpt2")
    return tok, heldout


@pytest.mark.slow  # an oracle over many cases or a big real tokenizer: CI runs it, the quick run does not
def test_heldout_curve_equals_encoding_with_the_first_k_merges(english):
    tok, heldout = english
    curve = dict(metrics.heldout_curve(tok, heldout))
    assert sorted(curve) == [256, 512, 1024, 1100]
    pieces = [list(p.encode()) for p in bpeviz.split_text(heldout, "gpt2")]
    done = 0
    for size in sorted(curve):
        for m in tok.merges[done : size - 256]:  # the obvious way: apply merges one by one
            pieces = [merge(ids, (m.left_id, m.right_id), m.id) for ids in pieces]
        done = size - 256
        assert curve[size] == pytest.approx(len(heldout.encode()) / sum(map(len, pieces)))


def test_training_curve_comes_from_one_run(english):
    tok, _ = english
    curve = metrics.training_curve(tok)
    assert len(curve) == len(tok.merges) + 1 and curve[0] == (256, 1.0)
    assert all(b2 >= b1 for (_, b1), (_, b2) in zip(curve, curve[1:]))  # each merge can only shorten the corpus
    assert curve[-1][1] == pytest.approx(tok.corpus_bytes / tok.merges[-1].tokens_after)


def test_heldout_is_the_end_and_not_trained_on():
    docs = ["a\nb\nc\nd"]
    train_docs, heldout = metrics.split_heldout(docs, 0.25)
    assert heldout == "d" and train_docs == ["a\nb\nc\n"]
    with pytest.raises(ValueError, match="between 0 and 1"):
        metrics.split_heldout(docs, 1.5)


def test_doublings_say_what_each_bought():
    rows = metrics.doublings([(256, 1.0), (512, 2.19), (1024, 2.97), (1100, 3.0)])
    assert [r.sentence() for r in rows] == ["256 → 512 buys 1.19 bytes/token", "512 → 1,024 buys 0.78 bytes/token"]


def test_premium_is_relative_to_english():
    texts = {"en": "one two three", "pt": "um dois três"}
    rows = metrics.language_table(texts, {"chars": lambda s: list(s)})
    by = {r.language: r for r in rows}
    assert by["en"].premium == 1.0 and by["pt"].premium == pytest.approx(12 / 13)
    assert by["pt"].tokens_per_word == 4.0 and by["pt"].bytes_per_token == pytest.approx(13 / 12)
