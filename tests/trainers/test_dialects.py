"""Counting rules and trainer dialects, each against the real library it names where one is installable."""

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz.core import rules
from bpeviz.core.rules import rules_for
from bpeviz.data import corpora
from bpeviz.engine.python import train_ids
from bpeviz.trainers import educational
from bpeviz.trainers.bpe import prepare

ENGLISH = corpora.corpus_text("english")


def merges_of(tok):
    return [(m.left, m.right) for m in tok.merges]


def rows(merges):
    return [(m.left_id, m.right_id, m.token_id, m.count, m.tokens_after) for m in merges]


# -- counting rule -------------------------------------------------------------------------------


def test_aaaaa_counts_four_overlapping_and_two_not():
    assert bpeviz.train(["aaaaa"], vocab_size=2, level="chars", pretokenizer="none").merges[0].count == 4
    assert bpeviz.train(["aaaaa"], vocab_size=2, level="chars", pretokenizer="none",
                        count_rule="nonoverlapping").merges[0].count == 2


@pytest.mark.parametrize("text", ["aaaa", "abab", "aaaa aaaaa ab", "1111111 2222 11 1212", "aaabbbaaabbb"])
@pytest.mark.parametrize("count_rule", list(rules.COUNT_RULES))
@pytest.mark.parametrize("tie_break", list(rules.TIE_RULES))
def test_fast_matches_the_educational_trainer_on_corpora_built_to_tell_the_rules_apart(text, count_rule, tie_break):
    words, weights, first, texts = educational.words_of([text], "chars", "none")
    want = rows(educational.learn_merges(words, weights, 20, first, tie_break=tie_break, count_rule=count_rule, texts=texts))
    p = prepare([text], "chars", "none")
    got = train_ids(p.sequences, 20, p.n_base, rules=rules_for(tie_break, count_rule, p.alphabet))
    assert rows(got) == want


CORPUS = st.lists(st.text(alphabet="aab c1\n", max_size=30), min_size=1, max_size=5)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=CORPUS, tie_break=st.sampled_from(list(rules.TIE_RULES)), count_rule=st.sampled_from(list(rules.COUNT_RULES)),
       level=st.sampled_from(bpeviz.LEVELS), unique=st.booleans(), pretokenizer=st.sampled_from(["none", "gpt2", "spaces"]))
def test_fast_matches_the_educational_trainer_for_every_rule(docs, tie_break, count_rule, level, unique, pretokenizer):
    words, weights, first, texts = educational.words_of(docs, level, pretokenizer)
    want = rows(educational.learn_merges(words, weights, 30, first, tie_break=tie_break, count_rule=count_rule, texts=texts,
                                         unique_tokens=unique))
    p = prepare(docs, level, pretokenizer)
    texts = p.alphabet if p.alphabet is not None else [bytes([b]) for b in range(256)]
    got = train_ids(p.sequences, 30, p.n_base, rules=rules_for(tie_break, count_rule, texts, unique))
    assert rows(got) == want


# -- dialects against their libraries --------------------------------------------------------------


def hf_merges(text: str, vocab_size: int, pattern: str) -> list[tuple[bytes, bytes]]:
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    from bpeviz.formats import CHAR_BYTES

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False, min_frequency=0)
    tok.train_from_iterator([text], trainer=trainer)
    import json

    merges = json.loads(tok.to_str())["model"]["merges"]
    as_bytes = [(bytes(CHAR_BYTES[c] for c in a), bytes(CHAR_BYTES[c] for c in b)) for a, b in
                (m.split(" ") if isinstance(m, str) else m for m in merges)]
    return as_bytes


def engine_param(engine: str) -> str:
    """The engine to train with; the compiled one needs numba (CI installs the fast extra)."""
    if engine == "compiled":
        pytest.importorskip("numba", reason="the compiled engine needs numba: pip install -e '.[fast]'")
    return engine


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize(("key", "vocab_size"), [("english", 1024), ("english", 4096), ("udhr-en", 1024),
                                                pytest.param("udhr-all", 4096, marks=pytest.mark.slow)])  # 2 s: full suite
def test_the_hf_dialect_learns_what_hf_tokenizers_learns(key, vocab_size, engine):
    text = "\n\n".join(corpora.corpus_text(f"udhr-{c}") for c in corpora.UDHR_LANGUAGES) if key == "udhr-all" \
        else corpora.corpus_text(key)
    tok = bpeviz.train(text, vocab_size=vocab_size, level="bytes", pretokenizer="gpt4", dialect="hf",
                       engine=engine_param(engine))
    assert tok.settings.pretokenizer == "gpt4-hf" and tok.settings.tie_break == "hf"
    assert merges_of(tok) == hf_merges(text, vocab_size, bpeviz.PRETOKENIZERS["gpt4"].pattern)


def test_hfs_regex_engine_keeps_digit_runs_whole():
    assert bpeviz.split_text("12345 678", "gpt4") == ["123", "45", " ", "678"]
    assert bpeviz.split_text("12345 678", "gpt4-hf") == ["12345", " ", "678"]
    from tokenizers import Regex, pre_tokenizers

    split = pre_tokenizers.Split(Regex(bpeviz.PRETOKENIZERS["gpt4"].pattern), behavior="isolated")
    assert [piece for piece, _ in split.pre_tokenize_str("12345 678")] == ["12345", " ", "678"]


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=pytest.mark.slow)])  # =python: tests/engine
def test_the_tiktoken_educational_dialect_learns_what_its_trainer_learns(capsys, engine):
    from tiktoken import _educational

    text = ENGLISH[:15_000]
    ranks = _educational.bpe_train(text, 256 + 160, bpeviz.PRETOKENIZERS["gpt2-original"].pattern, visualise=None)
    theirs = [token for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]) if rank >= 256]
    tok = bpeviz.train(text, vocab_size=256 + 160, dialect="tiktoken-educational", engine=engine_param(engine))
    assert [m.token for m in tok.merges] == theirs


def sentencepiece_pieces(lines: list[str], vocab_size: int) -> list[str]:
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, vocab_size=vocab_size, model_type="bpe", character_coverage=1.0,
        split_by_unicode_script=False, split_by_number=False, split_by_whitespace=True, normalization_rule_name="identity",
        add_dummy_prefix=True, remove_extra_whitespaces=False, max_sentencepiece_length=512, bos_id=-1, eos_id=-1, unk_id=0,
        minloglevel=2, num_threads=1)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())]


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_the_sentencepiece_dialect_learns_what_sentencepiece_learns(engine):
    lines = [line for line in ENGLISH.splitlines() if line.strip()]
    tok = bpeviz.train(lines, vocab_size=len(set("".join(lines)) | {" "}) + 700, dialect="sentencepiece-bpe",
                       engine=engine_param(engine))
    assert tok.engine == engine
    pieces = sentencepiece_pieces(lines, 1 + tok.n_base + 700)[1:]  # <unk>, then the merges, then the characters
    ours = [m.token.replace(" ", "▁") for m in tok.merges]
    assert ours == pieces[: len(ours)]


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_the_sentencepiece_dialect_keeps_out_of_its_merges_what_sentencepiece_keeps_out(engine):
    # issue 26.6: SentencePiece never puts U+001F in a piece; U+0001 and a tab it merges like letters
    lines = [f"{line}\x1f: q{k % 7} \x01y\t\"" for k, line in enumerate(ENGLISH.splitlines()[:400]) if line.strip()]
    tok = bpeviz.train(lines, vocab_size=len(set("".join(lines)) | {" "}) + 300, dialect="sentencepiece-bpe",
                       engine=engine_param(engine))
    pieces = sentencepiece_pieces(lines, 1 + tok.n_base - 1 + 300)[1:]  # its alphabet lacks U+001F
    ours = [m.token.replace(" ", "▁") for m in tok.merges]
    assert ours == pieces[: len(ours)] and len(ours) == 300
    assert any("\x01" in p for p in ours) and any("\t" in p for p in ours)
    assert not any("\x1f" in p for p in pieces)
    # SentencePiece leaves a sentence holding U+2585 (its ▅ mark) out of training altogether; bpeviz keeps the
    # sentence with ▅ standing alone, so no merge holds it (README, dialects)
    marked = bpeviz.train(["ab▅c ab▅c ab▅c"], vocab_size=20, dialect="sentencepiece-bpe")
    assert {m.token for m in marked.merges} == {"ab", " ab"}


def test_a_dialect_gives_way_to_what_is_asked():
    tok = bpeviz.train("o gato o gato", vocab_size=300, dialect="hf", tie_break="first")
    assert tok.settings.tie_break == "first" and tok.settings.level == "bytes" and tok.settings.dialect == "hf"
    with pytest.raises(ValueError, match="Unknown dialect"):
        bpeviz.train("x", vocab_size=5, dialect="spacy")
    sp = bpeviz.train(["o gato subiu"], vocab_size=30, dialect="sentencepiece-bpe")
    assert sp.decode(sp.encode("o gato subiu")) == "o gato subiu" and sp.token_of(sp.encode("o")[0]) == " o"


def minbpe_merges(text: str, n: int, pattern: str) -> list[tuple[bytes, bytes]]:
    """minbpe's RegexTokenizer.train as its README describes it, written here as the oracle: split by its pattern,
    count adjacent pairs per chunk into one dict (insertion order), take max by count (the first on ties), merge."""
    import regex

    chunks = [list(c.encode("utf-8")) for c in regex.findall(pattern, text)]
    vocab = {i: bytes([i]) for i in range(256)}
    out = []
    for k in range(n):
        stats: dict = {}
        for ids in chunks:
            for pair in zip(ids, ids[1:]):
                stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        pair = max(stats, key=stats.get)
        new = 256 + k
        vocab[new] = vocab[pair[0]] + vocab[pair[1]]
        out.append((vocab[pair[0]], vocab[pair[1]]))
        merged = []
        for ids in chunks:
            j, row = 0, []
            while j < len(ids):
                if j + 1 < len(ids) and (ids[j], ids[j + 1]) == pair:
                    row.append(new)
                    j += 2
                else:
                    row.append(ids[j])
                    j += 1
            merged.append(row)
        chunks = merged
    return out


# minbpe/regex.py's GPT4_SPLIT_PATTERN, as published (the oracle's own copy, not bpeviz's constant)
MINBPE_GPT4 = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""


@pytest.mark.parametrize("text", ["ab ab\n\n  ", "x  \n\n\t \n y  ", corpora.corpus_text("python")[:6000],
                                  corpora.corpus_text("english")[:8000] + "\n\n   "])
def test_the_minbpe_dialect_learns_what_minbpe_learns(text):
    """Issue 42.12: minbpe splits with its own GPT-4 pattern (no \\s++$, ending in \\s+), not cl100k's."""
    n = 60
    ours = bpeviz.train(text, vocab_size=256 + n, dialect="minbpe")
    expected = minbpe_merges(text, n, MINBPE_GPT4)
    assert [(m.left, m.right) for m in ours.merges] == expected[:len(ours.merges)]
    assert len(ours.merges) == len(expected)


@pytest.mark.parametrize("text", ["ab\U0001df43 " * 20 + "xy " * 30, ("o \u2e60ga\U00011b60to, " * 40) + "x1\U0001df43y " * 15])
def test_the_hf_dialect_reads_code_points_newer_than_hfs_tables_as_hf_does(text):
    """Issue 42.4: HF's trainer splits a letter newer than its Unicode 15.1 off its word; bpeviz kept it (merge 6)."""
    tok = bpeviz.train(text, vocab_size=290, level="bytes", pretokenizer="gpt4", dialect="hf")
    assert tok.settings.hf_unicode
    assert merges_of(tok) == hf_merges(text, 290, bpeviz.PRETOKENIZERS["gpt4"].pattern)


@pytest.mark.parametrize("lines", [["a\x00b a\x00b q\x00\x00z xa\x00by"] * 5, ["a▁b a▁b q▁▁z ab▁ ab cab"] * 5,
                                   [f"{line}▁x\x00{k % 5}" for k, line in enumerate(ENGLISH.splitlines()[:300]) if line]])
def test_the_sentencepiece_dialect_keeps_nul_out_and_reads_a_literal_space_mark_as_a_space(lines):
    """Issue 42.8: SentencePiece keeps NUL out of its pieces (a NUL ends a word) and reads ▁ as a word boundary."""
    chars = set("".join(lines).replace("▁", " ").replace("\x00", "")) | {" "}
    vocab = None
    for size in range(len(chars) + 400, len(chars), -1):  # SentencePiece refuses more pieces than the text supports
        try:
            vocab = sentencepiece_pieces(lines, 1 + size)
            break
        except RuntimeError:
            continue
    assert vocab is not None
    merges = [p for p in vocab[1:] if len(p) > 1]
    tok = bpeviz.train(lines, vocab_size=10_000, dialect="sentencepiece-bpe")
    ours = [m.token.replace(" ", "▁") for m in tok.merges]
    # where no pair is left bpeviz stops; SentencePiece goes on with pieces that no longer occur (docs/library.md)
    n = min(len(ours), len(merges))
    assert n >= 3 and ours[:n] == merges[:n]
    assert not any("\x00" in t for t in ours)
    assert tok.encode("a▁b") == tok.encode("a b")
