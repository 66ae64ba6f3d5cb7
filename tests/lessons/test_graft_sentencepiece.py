"""Issue 48: grafting onto SentencePiece BPE models (Mistral v1 and v3, models SentencePiece trains here), with the
`sentencepiece` package as the oracle: the graft cut to the base encodes as the base model, and the written .model,
loaded by sentencepiece, encodes as the graft, on strings the models were not trained on."""

from __future__ import annotations

import io
import subprocess
import sys

import oracle_strings
import pytest

import bpeviz
from bpeviz import formats
from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora
from bpeviz.data.shipped import package_file
from bpeviz.lessons.graft import replaced_by
from bpeviz.lessons.graft_sentencepiece import SentencePieceGraft

spm = pytest.importorskip("sentencepiece")  # a test dependency, never the app's

MISTRAL = {"mistral-v1": "tokenizer.model.v1", "mistral-v3": "mistral_instruct_tokenizer_240323.model.v3"}
TRAINED = {  # SentencePiece's own trainer: no byte fallback (unknown -> <unk>); whitespace as a suffix, nfkc_cf
    "bpe-nfkc": dict(model_type="bpe", vocab_size=1500),
    "bpe-suffix": dict(model_type="bpe", vocab_size=1200, byte_fallback=True, remove_extra_whitespaces=False,
                       treat_whitespace_as_suffix=True, normalization_rule_name="nfkc_cf", user_defined_symbols=["<tag>"]),
}
NEW_TEXT = "\n".join(corpora.documents("udhr-hi") + corpora.documents("udhr-ru") + corpora.documents("udhr-vi"))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpeviz.cli", *args], capture_output=True, text=True, timeout=300)


def base_model(name: str) -> bytes:
    if name in MISTRAL:
        return package_file("mistral-common", "mistral_common", f"data/{MISTRAL[name]}")
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(oracle_strings.TRAIN), model_writer=model, minloglevel=2,
                                   character_coverage=0.9995, max_sentence_length=100_000, **TRAINED[name])
    return model.getvalue()


@pytest.fixture(scope="module", params=["mistral-v3", *(pytest.param(name, marks=pytest.mark.slow)
                                                         for name in ["mistral-v1", *TRAINED])])
def grafted(request) -> tuple[bytes, SentencePieceGraft]:
    data = base_model(request.param)
    return data, bpeviz.extend(formats.import_data(data, f"{request.param}.model"), NEW_TEXT, 300)


@pytest.mark.parametrize("n", [1_500, pytest.param(20_000, marks=pytest.mark.slow)])
def test_the_graft_and_its_cut_encode_as_sentencepiece(grafted, n):
    data, graft = grafted
    strings = oracle_strings.varied(n) + NEW_TEXT.splitlines()
    base = spm.SentencePieceProcessor(model_proto=data)
    theirs = spm.SentencePieceProcessor(model_proto=formats.write_model(graft))
    cut = graft.truncated(graft.base_merges)
    assert [s for s in strings if cut.encode_ordinary(s) != base.encode(s)][:3] == []
    assert [s for s in strings if graft.encode_ordinary(s) != theirs.encode(s)][:3] == []
    assert [s for s in strings[:500] if graft.decode(graft.encode_ordinary(s)) != theirs.decode(theirs.encode(s))] == []


@pytest.mark.slow  # every id of a real model compared; the graft's encodings stay in the quick run
def test_every_old_id_is_kept_and_the_new_pieces_follow_in_order(grafted):
    data, graft = grafted
    base = formats.import_data(data, "base.model")
    assert graft.base_size == base.vocab_size and 0 < len(graft.new_pieces) <= 300  # fewer: characters it lacks
    assert all(graft.token_of(i) == base.token_of(i) for i in range(base.vocab_size))
    assert [m.token for m in graft.merges[:graft.base_merges]] == [m.token for m in base.merges]
    new = graft.merges[graft.base_merges:]
    assert new and all(m.id >= graft.base_size and m.count > 0 for m in new)
    half = graft.base_merges + len(new) // 2  # the first half of the new pieces, as a model of its own
    pieces = graft.spec.pieces[base.vocab_size:base.vocab_size + len(new) // 2]
    first = SentencePieceGraft(base, [(p.text, p.score, 1) for p in pieces])
    theirs = spm.SentencePieceProcessor(model_proto=formats.write_model(first))
    assert all(graft.truncated(half).encode_ordinary(s) == theirs.encode(s) for s in NEW_TEXT.splitlines())


def test_new_pieces_shorten_the_new_languages_and_leave_english_alone():
    base = bpeviz.reference("mistral-v3")
    graft = bpeviz.extend("mistral-v3", NEW_TEXT, 400)
    assert bpeviz.extend(base, NEW_TEXT, 400).new_pieces == graft.new_pieces  # by name or as the encoding: the same
    hindi, english = "\n".join(corpora.documents("udhr-hi")), "\n".join(corpora.documents("udhr-en"))
    assert len(graft.encode_ordinary(hindi)) < 0.6 * len(base.encode_ordinary(hindi))
    assert graft.encode_ordinary(english) == base.encode_ordinary(english)
    for k, piece in enumerate(graft.new_pieces):  # each new piece as the base's pieces (or bytes) it stands for
        ids = replaced_by(graft, k)
        assert len(ids) > 1 and b"".join(map(base.decode_single_token_bytes, ids)) == piece.replace("\u2581", " ").encode()


def test_a_unigram_model_cannot_be_grafted():
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(oracle_strings.TRAIN[:2000]), model_writer=model, minloglevel=2,
                                   model_type="unigram", vocab_size=500)
    with pytest.raises(BpevizError) as caught:
        bpeviz.extend(formats.import_data(model.getvalue(), "t5.model"), NEW_TEXT, 10)
    assert caught.value.code == "extend_unigram"


@pytest.mark.slow  # the library's graft is checked in the quick run
def test_the_command_line_writes_a_model_sentencepiece_loads(tmp_path):
    corpus = tmp_path / "hi.txt"
    corpus.write_text(NEW_TEXT, encoding="utf-8")
    out = run_cli("extend", "mistral-v3", str(corpus), "--merges", "100", "-o", str(tmp_path / "g.model"))
    assert out.returncode == 0, out.stderr
    assert "100 new merges after the base's 28,446" in out.stderr and "new ids from 32,768" in out.stderr
    theirs = spm.SentencePieceProcessor(model_file=str(tmp_path / "g.model"))
    assert theirs.get_piece_size() == 32_768 + 100
    graft = bpeviz.extend("mistral-v3", NEW_TEXT, 100)
    assert all(theirs.encode(s) == graft.encode_ordinary(s) for s in NEW_TEXT.splitlines())
    refused = run_cli("extend", "mistral-v3", str(corpus), "--merges", "5", "--format", "hf")
    assert refused.returncode == 2 and "--format model" in refused.stderr
