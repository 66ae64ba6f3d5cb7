"""Mistral offline: bpeviz.reference("mistral-v3") and ("tekken") equal mistral-common's own tokenizers (the oracle)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import oracle_strings
import pytest

import bpeviz
from bpeviz import cli
from bpeviz.data import shipped
from bpeviz.pretrained import mistral

pytest.importorskip("sentencepiece")  # mistral-common's SentencePiece tokenizer runs on it (a test dependency)
DATA = Path(importlib.util.find_spec("mistral_common").submodule_search_locations[0]) / "data"  # type: ignore[union-attr,index]


def theirs(name: str):
    if name == "tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        return Tekkenizer.from_file(DATA / "tekken_240718.json")
    from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer

    return SentencePieceTokenizer(DATA / "mistral_instruct_tokenizer_240323.model.v3")


@pytest.mark.parametrize("n", [2_000, pytest.param(20_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", [pytest.param("mistral-v3", marks=pytest.mark.slow), "tekken"])  # v3: 2 000 strings in
# the quick run too, tests/formats/test_sentencepiece.py (SentencePiece itself as the oracle)
def test_ids_and_text_equal_mistral_common_s_own_tokenizers(name, n):
    ours, real = bpeviz.reference(name), theirs(name)
    differ = []
    for text in oracle_strings.varied(n, seed=5):
        ids = real.encode(text, bos=False, eos=False)
        if ours.encode(text) != ids or ours.encode_ordinary(text) != ids or ours.decode(ids) != real.decode(ids):
            differ.append(text)
    assert differ == [], (name, len(differ), differ[:5])
    assert ours.n_vocab == real.n_words


def test_tekken_drops_special_ids_when_decoding_as_mistral_common_does():
    ours, real = bpeviz.reference("tekken"), theirs("tekken")
    ids = [1, *ours.encode("olá "), 3, *ours.encode("mundo"), 2]
    assert ours.decode(ids) == real.decode(ids) == "olá mundo"
    assert ours.decode_single_token_bytes(3) == b"[INST]"
    assert [ours.decode_single_token_bytes(i) for i in range(20)] == [real.id_to_piece(i).encode() for i in range(20)]


def test_the_files_are_pinned_and_read_without_importing_the_package():
    assert shipped.package_file("mistral-common", "mistral_common", mistral.TEKKEN_FILE, mistral.TEKKEN_SHA256)
    with pytest.raises(shipped.MissingPackageError, match="not the pinned"):
        shipped.package_file("mistral-common", "mistral_common", mistral.MISTRAL_V3_FILE, "0" * 64)


def test_byte_fallback_against_byte_level_on_the_same_text():
    """Mistral v3 spells a character it lacks as <0x..> bytes; GPT-2 starts from bytes, every one a symbol."""
    v3, gpt2 = bpeviz.reference("mistral-v3"), bpeviz.reference("gpt2")
    text = "gato 𓀀"  # an Egyptian hieroglyph: in neither vocabulary as one token
    pieces = [v3.tokenizer.spec.pieces[i].text for i in v3.encode(text)]
    assert pieces[-4:] == ["<0xF0>", "<0x93>", "<0x80>", "<0x80>"]
    assert all(v3.tokenizer.is_byte_fallback(i) for i in v3.encode(text)[-4:])
    assert b"".join(gpt2.decode_single_token_bytes(i) for i in gpt2.encode(text)) == text.encode()


@pytest.mark.parametrize("name", ["mistral-v3", "tekken"])
def test_count_tokens_takes_the_mistral_encodings(name, capsys, tmp_path):
    text = "o gato subiu no telhado. " * 40
    (tmp_path / "gato.txt").write_text(text)
    assert cli.main(["count-tokens", "--encoding", name, "--json", str(tmp_path / "gato.txt")]) == 0
    out = capsys.readouterr().out
    assert str(len(bpeviz.reference(name).encode(text))) in out


def test_a_file_read_in_blocks_counts_as_the_whole_under_mistral_v3():
    """count-tokens reads big files in blocks cut before a space; the blocks after the first get no dummy prefix."""
    from bpeviz.pre_tokenizers import splits

    enc = bpeviz.reference("mistral-v3")
    text = " ".join(oracle_strings.varied(300, seed=9))
    chunks = splits.chunks(text)
    for cut in range(1, len(chunks), max(1, len(chunks) // 8)):
        head, tail = "".join(chunks[:cut]), "".join(chunks[cut:])
        assert enc.encode_ordinary(head) + enc.encode_ordinary(tail, continued=True) == enc.encode_ordinary(text)
