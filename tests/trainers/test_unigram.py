"""Unigram: Viterbi equals SentencePiece's on a model SentencePiece trained; training close to SentencePiece's."""

from __future__ import annotations

import io
import math
import random
import subprocess
import sys

import pytest

import bpeviz
from bpeviz.core.numeric import digamma
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.models.unigram import UnigramTokenizer

spm = pytest.importorskip("sentencepiece")  # a test dependency (pyproject's "test" extra), never the app's

ENGLISH = [line for line in corpora.corpus_text("english").splitlines() if line.strip()]
PORTUGUESE = [line for line in corpora.corpus_text("portuguese").splitlines() if line.strip()]
SP_OPTIONS = dict(model_type="unigram", normalization_rule_name="identity", remove_extra_whitespaces=False,
                  split_by_unicode_script=False, split_by_number=False, character_coverage=1.0, minloglevel=2,
                  max_sentence_length=100_000)


def sentencepiece_model(lines: list[str], vocab_size: int, **extra):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=vocab_size,
                                   **SP_OPTIONS, **extra)
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def from_sentencepiece(sp) -> UnigramTokenizer:
    """sp's ordinary pieces and scores as a bpeviz Unigram tokenizer (spaces instead of ▁)."""
    pieces = [(sp.id_to_piece(i).replace("\u2581", " "), sp.get_score(i)) for i in range(sp.get_piece_size())
              if not (sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i))]
    settings = Settings(vocab_size=len(pieces), pretokenizer="spaces", dummy_prefix=True, algorithm="unigram")
    return UnigramTokenizer(settings=settings, pieces=pieces)


def our_pieces(tok: UnigramTokenizer, text: str) -> list[str]:
    return [f"<0x{tok.token_of(i)[0]:02X}>" if tok.is_byte_fallback(i) else tok.token_of(i).replace(" ", "\u2581")
            for i in tok.encode_ordinary(text)]


def test_strings(n: int = 1200, seed: int = 7) -> list[str]:
    """Corpus lines, their mutations (cut, joined, doubled spaces, foreign characters) and random words."""
    rng = random.Random(seed)
    lines = ENGLISH + PORTUGUESE
    out = []
    while len(out) < n:
        kind = rng.randrange(5)
        line = rng.choice(lines)
        if kind == 0:
            out.append(line)
        elif kind == 1:
            a = rng.randrange(len(line))
            out.append(line[a:a + rng.randrange(1, 40)])
        elif kind == 2:
            out.append(line.replace(" ", "  ", rng.randrange(1, 3)) + " " + rng.choice(lines)[:30])
        elif kind == 3:
            chars = list(line[:60])
            for _ in range(rng.randrange(1, 4)):
                chars.insert(rng.randrange(len(chars) + 1), rng.choice("ØßЖ中😀ŉ\t"))
            out.append("".join(chars))
        else:
            out.append("".join(rng.choice("abcdefghijklmnopqrstuvwxyzãçé ") for _ in range(rng.randrange(1, 30))))
    return out


test_strings.__test__ = False  # a helper, not a test


@pytest.fixture(scope="module")
def sp_model():
    return sentencepiece_model(ENGLISH + PORTUGUESE, 2000, byte_fallback=True)


def test_viterbi_equals_sentencepiece_on_1200_strings(sp_model):
    tok = from_sentencepiece(sp_model)
    strings = test_strings()
    differ = [s for s in strings if our_pieces(tok, s) != sp_model.encode(s, out_type=str)]
    assert len(strings) >= 1000
    assert differ == []
    assert sum(tok.is_byte_fallback(i) for s in strings for i in tok.encode(s)) > 0  # the fallback was exercised


def test_a_literal_space_mark_is_a_space_as_sentencepiece_reads_it(sp_model):
    """Issue 42.8: SentencePiece reads ▁ (U+2581) in the text as the space it writes ▁; bpeviz's Unigram does too."""
    tok = from_sentencepiece(sp_model)
    rng = random.Random(3)
    strings = []
    for line in test_strings(400, seed=5):
        chars = list(line)
        for _ in range(rng.randrange(1, 4)):
            chars.insert(rng.randrange(len(chars) + 1), rng.choice(["▁", "▁▁", " ▁", "▁ "]))
        strings.append("".join(chars))
    differ = [s for s in strings if our_pieces(tok, s) != sp_model.encode(s, out_type=str)]
    assert differ == []
    trained = bpeviz.train(ENGLISH[:300], vocab_size=300, algorithm="unigram")
    assert trained.encode("o▁gato") == trained.encode("o gato")


def test_a_near_tie_goes_where_sentencepiece_sends_it(sp_model):
    """SentencePiece sums a whole text in float32, so the text before a word can turn a tie inside it (issue 26.5)."""
    tok = from_sentencepiece(sp_model)
    rng = random.Random(1)
    words = [w for line in ENGLISH + PORTUGUESE for w in line.split()]
    strings = [" ".join(rng.choice(words) for _ in range(rng.randrange(1, 12))) + rng.choice(".-=*_ !") * rng.randrange(2, 20)
               for _ in range(1500)] + ["same opinion.......", "so..........."]
    differ = [s for s in strings if our_pieces(tok, s) != sp_model.encode(s, out_type=str)]
    assert differ == []
    # the test can fail: each word searched from 0 on its own cuts some of these texts another way
    alone = [s for s in strings if [i for w in tok._words(" " + s) for i in tok.encode_word(w)] != tok.encode(s)]
    assert len(alone) >= 10


def udhr(*languages: str) -> list[str]:
    return [line for code in languages for line in corpora.corpus_text(f"udhr-{code}").splitlines() if line.strip()]


def python_lines() -> list[str]:
    return [line for line in corpora.corpus_text("python").splitlines() if line.strip()]


SCRIPTS = {  # corpus, vocab_size asked: Latin, Cyrillic, CJK, Arabic, Devanagari, mixed scripts, code
    "english 1000": (lambda: ENGLISH, 1000), "english 4000": (lambda: ENGLISH, 4000),
    "russian": (lambda: udhr("ru"), 400), "japanese": (lambda: udhr("ja"), 300), "chinese": (lambda: udhr("zh"), 300),
    "arabic": (lambda: udhr("ar"), 400), "hindi": (lambda: udhr("hi"), 400),
    "mixed scripts": (lambda: udhr("ru", "ja", "ar", "hi", "el", "en", "ko", "th"), 1500),
    "python": (lambda: python_lines(), 3000),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "english 4000" else n  # 2 s; english
                                  for n in SCRIPTS])  # 1000 stays in the quick run
def test_the_trained_vocabulary_is_sentencepieces(name, capsys):
    """Seeds, EM, pruning and the final cut as SentencePiece 0.2.3 runs them (issue 26.5): SentencePiece is the oracle."""
    lines, vocab = SCRIPTS[name][0](), SCRIPTS[name][1]
    tok = bpeviz.train(lines, vocab_size=vocab, algorithm="unigram")
    sp = sentencepiece_model(lines, vocab + 3, hard_vocab_limit=False)  # + <unk>, <s>, </s>; stops where the text does
    theirs = {sp.id_to_piece(i).replace("\u2581", " "): sp.get_score(i) for i in range(3, sp.get_piece_size())}
    ours = dict(tok.scored)
    overlap = len(ours.keys() & theirs.keys()) / len(theirs)
    # pieces of equal score at the cut go either way: SentencePiece's float32 E step separates them by rounding
    cut = min(s for p, s in tok.scored if len(p) > 1)
    untied = [p for p in ours.keys() ^ theirs.keys() if abs(ours.get(p, theirs.get(p)) - cut) > 1e-4]
    words = sum(len(line.split()) for line in lines)
    per_word = sum(len(tok.encode(line)) for line in lines) / words
    sp_per_word = sum(len(sp.encode(line)) for line in lines) / words
    with capsys.disabled():
        print(f"\nUnigram vs sentencepiece, {name} at {vocab}: {len(ours)} pieces vs {len(theirs)}, overlap {overlap:.1%}, "
              f"tokens/word {per_word:.3f} vs {sp_per_word:.3f}")
    assert len(ours) == len(theirs)  # where the text supports fewer pieces than asked, both stop at the same count
    assert overlap >= 0.98 and len(untied) <= 0.01 * len(theirs)
    assert abs(per_word / sp_per_word - 1) <= 0.01


def test_a_text_too_small_for_the_vocabulary_gives_what_sentencepiece_gives():
    lines = ENGLISH  # supports about 3 200 pieces
    tok = bpeviz.train(lines, vocab_size=4000, algorithm="unigram")
    with pytest.raises(RuntimeError, match="Vocabulary size too high"):  # SentencePiece's hard limit refuses
        sentencepiece_model(lines, 4000 + 3)
    assert 3000 < tok.vocab_size < 4000


def test_pruning_rounds_shrink_the_vocabulary_and_record_what_went():
    tok = bpeviz.train(ENGLISH, vocab_size=800, algorithm="unigram")
    assert len(tok.rounds) >= 2
    for before, after in zip(tok.rounds, tok.rounds[1:]):
        assert after.vocab_before <= before.vocab_after
    for r in tok.rounds:
        assert r.vocab_after < r.vocab_before
        assert r.pruned
        assert not {p for p in r.pruned if len(p) > 1} & set(tok.vocab_ids())  # only characters come back, at the end
        assert math.isfinite(r.log_likelihood) and r.log_likelihood < 0
    assert all(len(ch) == 1 for ch in set("".join(ENGLISH)) if ch in tok.vocab_ids())
    assert set("".join(ENGLISH)) <= set(tok.vocab_ids())  # every character is kept


def test_nbest_are_the_likeliest_segmentations_in_order():
    tok = bpeviz.train(ENGLISH, vocab_size=600, algorithm="unigram")
    best = tok.nbest("the rabbit", 4)
    assert len(best) == 4
    probs = [p for _, p in best]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1 + 1e-9
    assert ["".join(pieces) for pieces, _ in best] == [" the rabbit"] * 4  # the dummy prefix's space leads
    assert len({pieces for pieces, _ in best}) == 4
    assert best[0][0] == tuple(tok.token_of(i) for i in tok.encode("the rabbit"))  # the likeliest is Viterbi's
    # the probability of a one-word text's best segmentation is its path score over the total
    pieces, p = tok.nbest("rabbit", 1)[0]
    path = sum(tok.score(tok.vocab_ids()[piece]) for piece in pieces)
    assert p == pytest.approx(math.exp(path - tok.log_likelihood("rabbit")), rel=1e-4)


def test_digamma_matches_its_recurrence_and_known_values():
    assert digamma(1.0) == pytest.approx(-0.5772156649, abs=1e-9)
    for x in (0.3, 2.5, 11.0):
        assert digamma(x + 1) == pytest.approx(digamma(x) + 1 / x, abs=1e-9)


def test_the_toy_corpus_trains_and_stops_where_sentencepiece_stops():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64, algorithm="unigram")
    sp = sentencepiece_model(corpora.documents("toy_pt"), 64 + 3, hard_vocab_limit=False)
    assert tok.vocab_size < 64  # eight sentences support fewer pieces; SentencePiece stops short too
    assert set(tok.vocab_ids()) == {sp.id_to_piece(i).replace("\u2581", " ") for i in range(3, sp.get_piece_size())}


MEMORY_RUN = """
import sys
import bpeviz
from bpeviz.data import corpora
import random
text = "".join("".join(corpora.corpus_text(key).split()) for key in sorted(corpora.CORPORA))  # 573 257 characters
rng = random.Random(1)  # then letters at random, to 1 MB: substrings that are new, as in a text nobody has seen
text = (text + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzáéíóúãõç") for _ in range(1_000_000)))[:1_000_000]
if sys.argv[2] == "twice":  # every substring seen twice: nothing for the sketch to leave out
    text = text[:500_000] * 2
bpeviz.train(text, algorithm="unigram", vocab_size=8000, engine=sys.argv[1])
# this process's own peak (VmHWM): getrusage's ru_maxrss keeps the peak of the process that started it, across exec
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(peak * 1024, len(text))
"""


@pytest.mark.slow  # 1 MB through Unigram in a fresh process: 15 s compiled, 65-90 s in Python on the 2-core VM
@pytest.mark.parametrize("shape", ["natural", "twice"])
@pytest.mark.parametrize("engine_name", ["compiled", "python"])
def test_a_megabyte_with_no_spaces_trains_in_under_a_gigabyte(engine_name, shape):
    """Issue 43 row 5: 1 MB with no spaces took 2.1 GB (its seeds: every substring of every distinct word, in one
    table). Now one length at a time (Python) or only those a sketch may have seen twice (compiled)."""
    if engine_name == "compiled":
        pytest.importorskip("numba", reason="the optional fast extra")
    out = subprocess.run([sys.executable, "-c", MEMORY_RUN, engine_name, shape], capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    peak, size = map(int, out.stdout.split())
    assert size == 1_000_000 and peak < 1_000_000_000, peak / 1e6
