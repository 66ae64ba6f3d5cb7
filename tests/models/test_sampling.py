"""BPE-dropout as HF tokenizers does it, seeded; Unigram sampling by the model's own probabilities."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz import formats
from bpeviz.data import corpora
from bpeviz.models import sampling

ENGLISH = corpora.corpus_text("english")[:60_000]


@pytest.fixture(scope="module")
def tok():
    return bpeviz.train(ENGLISH, vocab_size=600, level="bytes")


def close(ours: dict, theirs: dict, n_ours: int, n_theirs: int, sigmas: float = 4.0) -> list[str]:
    """Segmentations whose shares differ by more than `sigmas` standard errors (two-sample, per category with p >= 1 %)."""
    bad = []
    for key in set(ours) | set(theirs):
        a, b = ours.get(key, 0) / n_ours, theirs.get(key, 0) / n_theirs
        p = (ours.get(key, 0) + theirs.get(key, 0)) / (n_ours + n_theirs)
        if p < 0.01:
            continue
        z = abs(a - b) / math.sqrt(p * (1 - p) * (1 / n_ours + 1 / n_theirs))
        if z > sigmas:
            bad.append(f"{key}: {a:.3f} vs {b:.3f} (z {z:.1f})")
    return bad


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=60), st.integers(0, 10**6))
def test_no_dropout_is_the_ordinary_encoding(text, seed):
    tok = _tok()
    assert sampling.dropout_encode(tok, text, 0.0, seed) == tok.encode_ordinary(text)


_CACHE: list = []


def _tok():
    if not _CACHE:
        _CACHE.append(bpeviz.train(ENGLISH, vocab_size=600, level="bytes"))
    return _CACHE[0]


def test_the_same_seed_gives_the_same_samples(tok):
    text = ENGLISH[1000:3000]
    a, b = sampling.dropout_encode(tok, text, 0.3, seed=7), sampling.dropout_encode(tok, text, 0.3, seed=7)
    assert a == b and a != sampling.dropout_encode(tok, text, 0.3, seed=8)
    assert len(a) > len(tok.encode_ordinary(text))  # skipped merges leave more tokens
    assert tok.decode(a) == text
    steps: list[sampling.DropoutStep] = []
    sampling.dropout_encode(tok, text, 0.3, seed=7, steps=steps)
    assert any(s.skipped for s in steps) and any(not s.skipped for s in steps)


@pytest.mark.parametrize("p", [0.1, 0.3, 0.6])
def test_the_distribution_agrees_with_hf_tokenizers(tok, p):
    """Shares of each segmentation of a word over 4 000 samples each, within 4 standard errors (a false alarm on the
    ~10 categories compared has odds of about 1 in 1 500; HF's own random stream cannot be seeded)."""
    tokenizers = pytest.importorskip("tokenizers")
    data = json.loads(formats.export(tok, "hf"))
    data["model"]["dropout"] = p
    hf = tokenizers.Tokenizer.from_str(json.dumps(data))
    n = 4000
    for word in (" international", " rabbit"):
        ours = sampling.dropout_counts(tok, word, p, n, seed=11)
        theirs: dict = {}
        for _ in range(n):
            key = tuple(tok.token_of(i) for i in hf.encode(word, add_special_tokens=False).ids)
            theirs[key] = theirs.get(key, 0) + 1
        assert close(ours, theirs, n, n) == [], word


def test_a_probability_outside_0_1_is_refused(tok):
    with pytest.raises(ValueError, match="between 0 and 1"):
        sampling.dropout_encode(tok, "x", 1.5)


def test_unigram_samples_follow_the_models_probabilities():
    ug = bpeviz.train(ENGLISH, vocab_size=500, algorithm="unigram")
    n = 4000
    for word in ("the rabbit", "international"):
        counts = ug.sample_counts(word, 1.0, n, seed=5)
        exact = {tuple(pieces): p for pieces, p in ug.nbest(word, 20)}
        expected = {k: round(p * n) for k, p in exact.items()}
        assert close(counts, expected, n, n) == [], word
        assert all(key in exact or counts[key] < n * 0.01 for key in counts)
    assert ug.sample("the rabbit", 1.0, seed=3) == ug.sample("the rabbit", 1.0, seed=3)
    sharp = ug.sample_counts("international", 20.0, 500, seed=1)
    assert sharp.most_common(1)[0][1] == 500  # a large alpha always gives Viterbi's answer
    assert ug.decode(ug.sample("the rabbit 😀", 0.5, seed=2)) == "the rabbit 😀"
