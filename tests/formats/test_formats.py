"""Every file format: exports checked by the libraries people use (tiktoken, HF tokenizers), bpeviz JSON, imports replayed."""

import csv
import io
import json

import pytest
import tiktoken
import tiktoken.load
import tokenizers

import bpeviz
from bpeviz import formats
from bpeviz.data import corpora

TEXTS = ["english", "portuguese", "python", "udhr-ru", "udhr-zh", "udhr-hi", "udhr-ar", "udhr-th", "udhr-ko"]


@pytest.fixture(scope="module", params=["gpt2", "gpt4", "o200k", "words", "none"])
def tok(request):
    text = corpora.corpus_text("english")[:60_000] + corpora.corpus_text("udhr-ru") + corpora.corpus_text("udhr-zh")
    return bpeviz.train(text, vocab_size=900, level="bytes", pretokenizer=request.param)


def test_tiktoken_export_gives_same_ids(tok, tmp_path):
    path = tmp_path / "tok.tiktoken"
    path.write_bytes(formats.export(tok, "tiktoken"))
    side = json.loads(formats.tiktoken_sidecar(tok))
    ranks = tiktoken.load.load_tiktoken_bpe(str(path))
    enc = tiktoken.Encoding(name="x", pat_str=side["pat_str"], mergeable_ranks=ranks, special_tokens=side["special_tokens"])
    for key in TEXTS:
        text = corpora.corpus_text(key)[:8000]
        assert enc.encode_ordinary(text) == tok.encode_ordinary(text), key
    assert enc.encode("a<|endoftext|>", allowed_special="all") == tok.encode("a<|endoftext|>", allowed_special="all")


def test_hf_export_gives_same_ids(tok, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(formats.export(tok, "hf"))
    hf = tokenizers.Tokenizer.from_file(str(path))
    for key in TEXTS:
        text = corpora.corpus_text(key)[:8000]
        ids = hf.encode(text).ids
        assert ids == tok.encode_ordinary(text), key
        assert hf.decode(ids) == text


def test_csv_and_vocab_listing(tok):
    rows = list(csv.DictReader(io.StringIO(formats.export(tok, "csv").decode())))
    assert len(rows) == len(tok.merges) and rows[0]["rank"] == "1" and int(rows[0]["count"]) == tok.merges[0].count
    lines = formats.export(tok, "vocab").decode().splitlines()
    assert lines[0].startswith("# bpeviz vocab listing: level bytes")  # the header that lets bpeviz read it back
    assert len(lines) == 1 + 256 + len(tok.merges) and lines[-1].endswith(f"] {tok.merges[-1].id}")


def test_json_export_loads_back(tok, tmp_path):
    (tmp_path / "t.json").write_bytes(formats.export(tok, "json"))
    assert bpeviz.load(tmp_path / "t.json").merges == tok.merges


def test_chars_level_and_custom_pattern_are_refused_clearly():
    chars = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    for fmt in ("tiktoken", "hf"):
        with pytest.raises(ValueError, match="level 'chars'"):
            formats.export(chars, fmt)
    custom = bpeviz.train("abc abc", vocab_size=258, level="bytes", pretokenizer=r"\w+")
    with pytest.raises(ValueError, match="custom pattern"):
        formats.export(custom, "tiktoken")
    assert formats.export(chars, "csv").startswith(b"rank,left")


def test_import_hf_export_round_trip(tok, tmp_path):
    back = formats.import_data(formats.export(tok, "hf"), "tokenizer.json")
    assert [(m.left, m.right) for m in back.merges] == [(m.left, m.right) for m in tok.merges]


def test_gpt2_first_merges_replayed():
    pairs = formats.gpt2_pairs(5)
    assert pairs == [(b" ", b"t"), (b" ", b"a"), (b"h", b"e"), (b"i", b"n"), (b"r", b"e")]
    gpt2 = formats.from_pairs(formats.gpt2_pairs(), pretokenizer="gpt2")
    ref = bpeviz.reference("gpt2")
    for key in ("english", "udhr-pt", "udhr-ru"):
        text = corpora.corpus_text(key)[:5000]
        ours = [gpt2.token_bytes(i) for i in gpt2.encode_ordinary(text)]
        theirs = [ref.decode_single_token_bytes(i) for i in ref.encode_ordinary(text)]
        assert ours == theirs, key


def test_import_tiktoken_ranks_prefix():
    from bpeviz.data.shipped import read_shipped

    data = read_shipped("https://x/cl100k_base.tiktoken")
    tok = formats.import_data(data, "cl100k_base.tiktoken", n_merges=300)
    assert len(tok.merges) == 300 and tok.merges[0].token == b"  "
    ref = bpeviz.reference("cl100k_base")
    assert all(ref.encode_single_token(m.token) == 256 + k for k, m in enumerate(tok.merges[:50]))


@pytest.mark.parametrize("data", [b"", b"not base64 !!\n", b'{"model": {"type": "WordPiece"}}', b"{broken"])
def test_import_foreign_files_fail_clearly(data):
    with pytest.raises(ValueError):
        formats.import_data(data, "x")
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
    with pytest.raises(ValueError, match="(?i)no such file"):
        bpeviz.load(tmp_path / "missing.json")




# -- every file bpeviz writes, bpeviz reads back at its own level -------------------------------


@pytest.mark.parametrize("level", bpeviz.LEVELS)
@pytest.mark.parametrize("fmt", list(formats.FORMATS))
def test_every_format_reads_back_at_its_own_level(fmt, level):
    text = "o gato subiu no telhado\\ ␣ á 日本 \x01 emoji 🙂 " * 3
    tok = bpeviz.train(text, vocab_size=(256 if level == "bytes" else len(set(text))) + 40, level=level, pretokenizer="gpt2")
    if level == "chars" and fmt in ("tiktoken", "hf"):
        with pytest.raises(ValueError, match="level 'chars'"):
            formats.export(tok, fmt)
        return
    back = formats.import_data(formats.export(tok, fmt), f"tok.{fmt}")
    assert back.level == level
    assert [(m.left, m.right, m.token) for m in back.merges] == [(m.left, m.right, m.token) for m in tok.merges]
    sample = "o gato subiu no muro 日本 🙂"
    assert [back.token_of(i) for i in back.encode_ordinary(sample)] == [tok.token_of(i) for i in tok.encode_ordinary(sample)]
    if fmt in ("json", "vocab"):  # these keep the whole alphabet, so the ids are the same too
        assert back.encode_ordinary(sample) == tok.encode_ordinary(sample)
