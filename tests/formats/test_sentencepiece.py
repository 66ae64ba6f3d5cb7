"""SentencePiece `.model` files: read, encode and decode exactly as the `sentencepiece` package does (the oracle).

Models: four that SentencePiece trains here (BPE and Unigram; the default nmt_nfkc normalizer and the identity one;
byte fallback on and off; user-defined symbols; whitespace kept, or as a suffix), one with pieces marked unused, and
Mistral's v1 and v3 models as `mistral-common` ships them. Strings: UDHR lines in languages the models were not
trained on, their cuts and joins, and hostile parts (NFKC-sensitive characters, controls, NUL, ▁, runs of spaces,
emoji sequences, combining marks, RTL, code points newer than Unicode 15.1, the models' own symbols as text).
"""

from __future__ import annotations

import io
from pathlib import Path

import oracle_strings
import pytest

import bpeviz
from bpeviz import formats
from bpeviz.core.errors import BpevizError
from bpeviz.data.shipped import package_file
from bpeviz.formats import sentencepiece_model
from bpeviz.lessons import sources
from bpeviz.models.sentencepiece import SentencePieceTokenizer

spm = pytest.importorskip("sentencepiece")  # a test dependency (pyproject's "test" extra), never the app's
model_pb2 = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")

TRAIN = oracle_strings.TRAIN
MISTRAL = {"mistral-v1": "tokenizer.model.v1", "mistral-v3": "mistral_instruct_tokenizer_240323.model.v3"}
SP_BASE = dict(character_coverage=0.9995, minloglevel=2, max_sentence_length=100_000)
TRAINED = {
    "bpe-nfkc": dict(model_type="bpe", vocab_size=2000),
    "unigram-nfkc-fallback": dict(model_type="unigram", vocab_size=2000, byte_fallback=True,
                                  user_defined_symbols=["<tag>", "@@"]),
    "bpe-spaces-suffix": dict(model_type="bpe", vocab_size=1500, byte_fallback=True, remove_extra_whitespaces=False,
                              treat_whitespace_as_suffix=True, normalization_rule_name="nfkc_cf", user_defined_symbols=["<tag>"]),
    "unigram-identity": dict(model_type="unigram", vocab_size=1500, normalization_rule_name="identity", add_dummy_prefix=False,
                             character_coverage=0.98),
}


def trained(options: dict) -> bytes:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(TRAIN), model_writer=model, **{**SP_BASE, **options})
    return model.getvalue()


def with_unused(data: bytes, every: int = 40) -> bytes:
    """The model with every `every`-th merged piece marked unused: SentencePiece cuts those back into their parts."""
    proto = model_pb2.ModelProto()
    proto.ParseFromString(data)
    for k, piece in enumerate(proto.pieces):
        if piece.type == 1 and len(piece.piece) > 1 and k % every == 0:
            piece.type = 5
    return proto.SerializeToString()


def mistral(name: str) -> bytes:
    return package_file("mistral-common", "mistral_common", f"data/{MISTRAL[name]}")


FULL_SUITE_ONLY = {"unigram-identity", "bpe-spaces-suffix", "mistral-v1"}  # ~7 s; the quick run keeps a Unigram (with byte
# fallback), a BPE, a BPE with unused pieces and a Mistral model


@pytest.fixture(scope="module", params=[pytest.param(name, marks=pytest.mark.slow) if name in FULL_SUITE_ONLY else name
                                        for name in [*TRAINED, "bpe-unused", *MISTRAL]])
def model(request) -> tuple[str, bytes]:
    name = request.param
    if name in MISTRAL:
        return name, mistral(name)
    return name, with_unused(trained(TRAINED["bpe-nfkc"])) if name == "bpe-unused" else trained(TRAINED[name])


@pytest.mark.parametrize("n", [2_000, pytest.param(20_000, marks=pytest.mark.slow)])
def test_encode_and_decode_equal_sentencepiece(model, n):
    name, data = model
    ours = formats.import_data(data, f"{name}.model")
    theirs = spm.SentencePieceProcessor(model_proto=data)
    differ = []
    for text in oracle_strings.varied(n):
        ids = theirs.encode(text)
        if ours.encode(text) != ids or ours.decode(ids) != theirs.decode(ids):
            differ.append(text)
    assert differ == [], (name, len(differ), differ[:5])


def test_the_reader_equals_protobuf_on_every_model(model):
    name, data = model
    spec = sentencepiece_model.read_model(data, name)
    proto = model_pb2.ModelProto()
    proto.ParseFromString(data)
    assert [(p.text, p.score, p.kind) for p in spec.pieces] == [(p.piece, p.score, p.type) for p in proto.pieces]
    n = proto.normalizer_spec
    assert (spec.normalizer.name, spec.normalizer.charsmap, spec.normalizer.add_dummy_prefix,
            spec.normalizer.remove_extra_whitespaces, spec.normalizer.escape_whitespaces) == \
        (n.name, n.precompiled_charsmap, n.add_dummy_prefix, n.remove_extra_whitespaces, n.escape_whitespaces)
    t = proto.trainer_spec
    assert (spec.model_type, spec.byte_fallback, spec.treat_whitespace_as_suffix, spec.unk_surface) == \
        (t.model_type, t.byte_fallback, t.treat_whitespace_as_suffix, t.unk_surface)


def test_an_unused_piece_is_cut_back_into_its_parts():
    data = with_unused(trained(TRAINED["bpe-nfkc"]), every=3)
    tok, sp = formats.import_data(data, "x.model"), spm.SentencePieceProcessor(model_proto=data)
    unused = {i for i in range(sp.get_piece_size()) if sp.is_unused(i)}
    texts = oracle_strings.varied(300)
    assert unused and all(tok.encode(t) == sp.encode(t) for t in texts)
    assert not unused & {i for t in texts for i in tok.encode(t)}


@pytest.mark.slow  # trains and replays SentencePiece models
def test_a_bpe_model_s_merges_replay_and_cut_as_sentencepiece_encodes():
    tok = formats.import_data(mistral("mistral-v1"), "tokenizer.model.v1")
    assert isinstance(tok, SentencePieceTokenizer) and tok.algorithm == "bpe"
    assert [(m.left, m.right) for m in tok.merges[:3]] == [(" ", "t"), ("i", "n"), ("e", "r")]
    assert len(tok.merges) + tok.not_merges == sum(1 for p in tok.spec.pieces if p.kind == 1 and len(p.text) > 1)
    made: set = set()
    for m in tok.merges:  # every merge's parts are single characters or tokens an earlier merge made
        assert all(len(part) == 1 or part in made for part in (m.left, m.right)), m
        made.add(m.token)
    short = tok.truncated(100)
    assert len(short.merges) == 100
    pieces = short.pieces("o gato subiu no telhado")
    assert all(len(p) == 1 or p in {m.token for m in tok.merges[:100]} for p in pieces)
    assert formats.import_data(mistral("mistral-v1"), "v1.model", n_merges=100).pieces("the cat") == short.pieces("the cat")
    source = sources.ReplayFile("tokenizer.model.v1", mistral("mistral-v1"))  # the Train page's replay
    replayed = sources.replay(source, bpeviz.Settings(vocab_size=500, pretokenizer="sentencepiece"))
    assert replayed.n_base + len(replayed.merges) == 500 and len(replayed.merges) > 400
    assert [(m.left, m.right) for m in replayed.merges] == [(m.left, m.right) for m in tok.merges[:len(replayed.merges)]]
    assert sum(m.count for m in replayed.merges) > 0  # measured on the replay corpus


@pytest.mark.parametrize("data, says", [
    (b"", "no pieces"),
    (b"\x0a\x05\x0a\x03abc\x15", "past the end"),
    (b"\x0a\x02\x0a\x00", "empty"),
    (b"\x0a\x03\x0a\x01a" * 2, "twice"),
    (b"\x0a\x05\x0a\x01a\x18\x09", "type 9"),
    (b"\x0a\x03\x0a\x01a\x12\x02\x18\x04", "char model"),
    (b"\x0b\x00", "wire type 3"),
    (bytes(range(256)) * 4, "not a SentencePiece model"),
])
def test_a_broken_model_file_gets_one_line_saying_what_it_lacks(data, says, tmp_path: Path):
    path = tmp_path / "broken.model"
    path.write_bytes(data)
    with pytest.raises(BpevizError) as raised:
        formats.import_file(path)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_a_file_of_no_known_kind_gets_a_bpeviz_error_naming_the_kinds():
    with pytest.raises(BpevizError, match="SentencePiece .model") as raised:
        formats.import_data(b"\x00\x01garbage", "mystery.bin")
    assert raised.value.code == "import_unknown"
