"""Grafting (issue 48): a real tokenizer's merges, then new ones learned on a corpus; every old id kept.

The oracles are the base libraries themselves (tiktoken, mistral-common's Tekken as bpeviz reads its file, HF
tokenizers for DeepSeek V4's tokenizer.json) and, for the exports, tiktoken and HF tokenizers loading the files.
"""

from __future__ import annotations

import random

import oracle_strings
import pytest

import bpeviz
from bpeviz import cli, formats
from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora

HINDI = "\n".join(corpora.documents("udhr-hi") + corpora.documents("udhr-bn"))


def strings(n: int) -> list[str]:
    return oracle_strings.varied(n, seed=7) + [HINDI[k:k + 80] for k in range(0, len(HINDI), 97)]


@pytest.fixture(scope="module")
def gpt2_graft():
    return bpeviz.extend("gpt2", HINDI, 300)


@pytest.mark.slow  # real tokenizers as oracles; the quick tests below graft and export GPT-2 and Mistral
@pytest.mark.parametrize("base, n", [("gpt2", 300), ("gpt2", 20_000), ("cl100k_base", 20_000), ("tekken", 20_000),
                                     ("deepseek-v4", 20_000)])
def test_a_graft_cut_to_its_base_encodes_as_the_base_and_keeps_every_id(base, n):
    real = bpeviz.reference(base)
    tok = bpeviz.extend(base, HINDI, 200)
    assert tok.base_size == real.n_vocab and len(tok.merges) > tok.base_merges
    cut = tok.truncated(tok.base_merges)
    differ = [s for s in strings(n) if cut.encode_ordinary(s) != real.encode_ordinary(s)]
    assert differ == [], (len(differ), differ[:3])
    rng = random.Random(2)
    ids = [i for i in rng.sample(range(real.n_vocab), 3000 if n > 1000 else 500) if i in set(tok.vocab_ids().values())]
    assert len(ids) > (2000 if n > 1000 else 300) and all(tok.token_bytes(i) == real.decode_single_token_bytes(i) for i in ids)


def test_new_tokens_are_numbered_after_every_id_the_base_uses(gpt2_graft):
    tok, real = gpt2_graft, bpeviz.reference("gpt2")
    new = [tok.file_id(m.id) for m in tok.merges[tok.base_merges:]]
    assert new == list(range(real.n_vocab, real.n_vocab + len(new)))
    assert tok.encode("<|endoftext|>", allowed_special="all") == real.encode("<|endoftext|>", allowed_special="all")
    text = "\n".join(corpora.documents("udhr-hi")[-3:])
    assert len(tok.encode(text)) < 0.6 * len(real.encode(text))  # Hindi in far fewer tokens
    english = corpora.documents("udhr-en")[-1]
    assert tok.encode(english) == real.encode(english)  # English keeps every id it had


@pytest.mark.parametrize("n", [1_500, pytest.param(20_000, marks=pytest.mark.slow)])
def test_the_exports_load_in_tiktoken_and_hf_and_equal_the_graft(gpt2_graft, tmp_path, n):
    tokenizers = pytest.importorskip("tokenizers")
    tok = gpt2_graft
    enc = formats.tiktoken_encoding(tok)
    hf = tokenizers.Tokenizer.from_str(formats.export(tok, "hf").decode())
    texts = strings(n)
    assert all(enc.encode_ordinary(s) == tok.encode_ordinary(s) for s in texts)
    assert all(hf.encode(s, add_special_tokens=False).ids == tok.encode_ordinary(s) for s in texts if "\ud800" not in s)
    (tmp_path / "g.tiktoken").write_bytes(formats.export(tok, "tiktoken"))
    (tmp_path / "g.tiktoken.json").write_bytes(formats.tiktoken_sidecar(tok))
    back = formats.import_file(tmp_path / "g.tiktoken")
    assert all(back.encode_ordinary(s) == tok.encode_ordinary(s) for s in texts[:500])
    assert back.encode("<|endoftext|>", allowed_special="all") == [50256]


@pytest.mark.slow  # DeepSeek V4's tokenizer.json read and written
@pytest.mark.parametrize("n", [800, 20_000])
def test_a_deepseek_graft_exports_as_tokenizer_json_with_the_file_s_own_splits(n):
    """Issue 48: DeepSeek V4's grafts did not export (its three regex splits are no one pattern). The tokenizer.json
    keeps the base file's pre-tokenizer, decoder and added tokens; HF loads it and encodes as the graft does."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = bpeviz.extend("deepseek-v4", HINDI, 100)
    hf = tokenizers.Tokenizer.from_str(formats.export(tok, "hf").decode())
    texts = strings(n)
    assert [s for s in texts if "\ud800" not in s and hf.encode(s, add_special_tokens=False).ids != tok.encode_ordinary(s)] == []
    begin = "<\uff5cbegin\u2581of\u2581sentence\uff5c>"  # DeepSeek's first special token keeps its id, 0
    assert hf.encode(begin + "नमस्ते", add_special_tokens=False).ids == tok.encode(begin + "नमस्ते", allowed_special="all")
    assert tok.encode(begin, allowed_special="all") == [0]
    with pytest.raises(BpevizError, match="only as tokenizer.json"):
        formats.export(tok, "tiktoken")


def test_grafting_says_what_it_cannot_do():
    with pytest.raises(BpevizError, match="whole number"):
        bpeviz.extend("gpt2", HINDI, -1)
    with pytest.raises(BpevizError, match="Unknown base"):
        bpeviz.extend("gpt5", HINDI, 10)
    with pytest.raises(BpevizError, match="characters"):
        bpeviz.extend(bpeviz.train("o gato", vocab_size=20), HINDI, 10)


@pytest.mark.slow  # the graft's exports load in tiktoken and HF in the quick run
def test_the_command_line_grafts_and_writes_a_file_that_loads(tmp_path, capsys):
    corpus = tmp_path / "hi.txt"
    corpus.write_text(HINDI, encoding="utf-8")
    out = tmp_path / "graft.json"
    assert cli.main(["extend", "gpt2", str(corpus), "--merges", "100", "-o", str(out)]) == 0
    tok = bpeviz.load(out)
    assert len(tok.merges) == 50_100 and tok.encode("<|endoftext|>", allowed_special="all") == [50256]
    assert "50,257" in capsys.readouterr().err  # where the new ids start
