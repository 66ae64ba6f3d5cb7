"""The compiled encoder (numba) against the Python one, id for id; `regex` is the oracle of its splits."""

import json
import threading

import numpy as np
import pytest
import regex
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz import engine as engines
from bpeviz import formats
from bpeviz.data import corpora
from bpeviz.engine import background, encoder, loading
from bpeviz.models import bpe as tokenizer

compiled_encode = pytest.importorskip("bpeviz.compiled.encode", reason="the compiled encoder needs numba")

# Every class the pattern tells apart: the contraction letters in both cases (and U+017F, which (?i) reads as s),
# letters, a combining mark, digits of two scripts, each kind of whitespace, punctuation, past the BMP, a raw byte
ODD = list("'sSſlLvVeErRdDmMtT aé日ß\u0301٣9\t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000.,!?-_\"(") + [
    "\U0001d518", "\U0001f44d", "\udcff", "1234", "12345", "123456"]
SPLITS = sorted(compiled_encode.KINDS)


def odd_text(size: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(ODD), max_size=size).map("".join) | st.text(max_size=size)


def compiled_split(text: str, split: str) -> list[str]:
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    ends = compiled_encode.split_ends(cps, compiled_encode.classes(), compiled_encode.KINDS[split]).tolist()
    return [text[a:b] for a, b in zip([0, *ends[:-1]], ends)]


@pytest.mark.slow  # 3 000 examples; the splits' exactness also runs quick in the encoder's parity tests
@settings(max_examples=3000, deadline=None)
@given(text=odd_text(40), split=st.sampled_from(SPLITS))
def test_each_split_is_its_pattern_as_regex_reads_it(text, split):
    assert compiled_split(text, split) == regex.findall(bpeviz.PRETOKENIZERS[split].pattern, text)


@pytest.mark.parametrize("name", ["english", "portuguese", "python", *(f"udhr-{c}" for c in corpora.UDHR_LANGUAGES)])
def test_each_split_is_its_pattern_on_every_shipped_text(name):
    text = corpora.corpus_text(name) + " 1234567 it's IT'S we'LL"
    for split in SPLITS:
        expected = regex.findall(bpeviz.PRETOKENIZERS[split].pattern, text)
        assert compiled_split(text, split) == expected == bpeviz.split_text(text, split), split


@pytest.fixture(scope="module")
def english_tok():
    assert engines.warm()  # loads the compiled encoder too: without it encoding stays in Python
    return bpeviz.train(corpora.corpus_text("english"), vocab_size=1500, level="bytes", pretokenizer="gpt4")


def both(tok: bpeviz.Tokenizer) -> tuple[bpeviz.Tokenizer, bpeviz.Tokenizer]:
    """Two fresh copies of tok: one that may encode compiled, one held to Python."""
    python = tok.truncated(len(tok.merges))
    python.encode_engine = "python"
    return tok.truncated(len(tok.merges)), python


LONG = (corpora.corpus_text("portuguese")[:70_000] + corpora.corpus_text("udhr-ru") + corpora.corpus_text("python")[:20_000]
        + " lone \udcff\ud800 surrogates \ud83d\udc4d 'S ſ 12345 \r\n\t  x")


def test_a_long_text_encodes_as_in_python_and_as_tiktoken_does(english_tok):
    compiled, python = both(english_tok)
    expected = python.encode_ordinary(LONG)
    assert compiled.encode_ordinary(LONG) == expected
    assert compiled._piece_table is not None and len(compiled._piece_table) > 1000  # it ran, and kept its pieces
    assert python._piece_table is None
    assert compiled.encode_ordinary(LONG) == expected  # all pieces met before
    assert compiled.encode_ordinary(LONG[::-1]) == python.encode_ordinary(LONG[::-1])  # some new, some known
    assert expected == formats.tiktoken_encoding(english_tok).encode_ordinary(LONG)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(odd_text(50), min_size=1, max_size=4))
def test_any_text_encodes_as_in_python(english_tok, texts):
    compiled, python = both(english_tok)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tokenizer, "COLD_TEXT", 1)  # every text takes the long-text path
        for text in texts:  # one table across texts: pieces met before and new ones
            assert compiled.encode_ordinary(text) == python.encode_ordinary(text)
            assert compiled.encode_bytes(text.encode("utf-8", "surrogateescape")) == python.encode_bytes(
                text.encode("utf-8", "surrogateescape"))
    assert compiled._piece_table is not None or not "".join(texts)


def test_a_chars_level_tokenizer_with_byte_fallback_and_a_hand_made_table_encode_as_in_python():
    assert engines.warm()
    tok = bpeviz.train(corpora.corpus_text("portuguese")[:100_000], vocab_size=600, level="chars", pretokenizer="gpt4")
    compiled, python = both(tok)
    assert compiled.encode_ordinary(LONG) == python.encode_ordinary(LONG)  # Cyrillic falls back to bytes
    assert compiled._piece_table is not None
    # "abc" is made from ab + c, but b + c merges first, so tiktoken may not merge: new pieces go through merge_ids
    vocab = {bytes([b]): b for b in range(256)}
    merges = []
    for rank, (left, right) in enumerate([(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")], start=1):
        vocab[left + right] = 255 + rank
        merges.append(bpeviz.Merge(rank, left, right, left + right, 0, 255 + rank, vocab[left], vocab[right]))
    hand = bpeviz.Tokenizer(settings=bpeviz.Settings(vocab_size=259, level="bytes", pretokenizer="gpt4"), alphabet=None,
                            merges=merges, encoder=engines.ENCODER)
    compiled, python = both(hand)
    text = "abc " * (tokenizer.COLD_TEXT // 4 + 1)
    ids = compiled.encode_ordinary(text)
    assert ids == python.encode_ordinary(text) and ids[:2] == [97, 256]
    assert compiled._fast_merge is None and compiled._piece_table is not None


def test_a_full_table_starts_again_and_a_text_bigger_than_it_is_still_encoded(english_tok, monkeypatch):
    monkeypatch.setattr(compiled_encode.PieceTable, "MAX_PIECES", 500)
    compiled, python = both(english_tok)
    assert compiled.encode_ordinary(LONG) == python.encode_ordinary(LONG)  # more new pieces than the table holds
    assert len(compiled._piece_table) == 0
    first, second = corpora.corpus_text("udhr-en")[:5_000] * 15, corpora.corpus_text("udhr-de")[:5_000] * 15
    with monkeypatch.context() as mp:
        mp.setattr(tokenizer, "COLD_TEXT", 50_000)
        assert compiled.encode_ordinary(first) == python.encode_ordinary(first)
        assert len(compiled._piece_table) == len(set(bpeviz.split_text(first, "gpt4"))) <= 500
        assert compiled.encode_ordinary(second) == python.encode_ordinary(second)
        new = set(bpeviz.split_text(second, "gpt4")) - set(bpeviz.split_text(first, "gpt4"))
        assert len(compiled._piece_table) == len(new)  # full: started again with the new pieces
        assert compiled.encode_ordinary(first + second) == python.encode_ordinary(first + second)


@pytest.mark.parametrize("split", SPLITS)
def test_a_tokenizer_of_each_written_out_split_encodes_as_in_python(english_tok, split):
    tok = bpeviz.train(corpora.corpus_text("english")[:50_000], vocab_size=400, level="bytes", pretokenizer=split)
    compiled, python = both(tok)
    text = LONG + " 1234567 12345678 it's IT'S we'LL"
    assert compiled.encode_ordinary(text) == python.encode_ordinary(text)
    assert compiled._piece_table is not None


def test_only_the_written_out_splits_and_a_loaded_engine_take_the_compiled_path(english_tok, monkeypatch):
    for split in ("o200k", "words"):
        other = bpeviz.train(corpora.corpus_text("english")[:50_000], vocab_size=400, level="bytes", pretokenizer=split)
        other.encode_ordinary(LONG)
        assert other._piece_table is None
    compiled, python = both(english_tok)
    monkeypatch.setattr(loading, "_loaded", set())  # nothing loaded yet in this process, and nothing in the cache:
    monkeypatch.setattr(background, "ready", lambda group: False)
    started = []
    monkeypatch.setattr(background, "start", started.append)
    monkeypatch.setattr(encoder, "LOAD_MIN_CHARS", 50_000)  # LONG is long enough to want the encoder
    assert compiled.encode_ordinary(LONG) == python.encode_ordinary(LONG)  # no compile on the way: Python encodes
    assert compiled._piece_table is None and started == ["encode"]  # and the compile starts in the background


def test_visitors_encoding_one_tokenizer_at_once_get_their_own_ids(english_tok):
    compiled, python = both(english_tok)
    texts = [LONG[k * 9_000:] + LONG[:k * 9_000] for k in range(6)]
    expected = [python.encode_ordinary(t) for t in texts]
    got: dict[int, list[int]] = {}
    threads = [threading.Thread(target=lambda k=k: got.__setitem__(k, compiled.encode_ordinary(texts[k]))) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [got[k] for k in range(6)] == expected


def test_count_tokens_on_a_big_file_loads_the_encoder_and_counts_as_python(english_tok, tmp_path, monkeypatch, capsys):
    from bpeviz import cli

    path, saved = tmp_path / "big.txt", tmp_path / "tok.json"
    text = (corpora.corpus_text("portuguese")[:70_000] + corpora.corpus_text("udhr-ru")) * 3
    path.write_bytes(text.encode())
    english_tok.save(saved)
    monkeypatch.setattr(loading, "_loaded", set())  # as in a fresh command: the encoder is loaded from the cache
    monkeypatch.setattr(encoder, "LOAD_MIN_CHARS", 100_000)  # the file's blocks are long enough to pay for it
    used = []
    real = compiled_encode.PieceTable.encode
    monkeypatch.setattr(compiled_encode.PieceTable, "encode", lambda table, t: used.append(len(t)) or real(table, t))
    assert cli.main(["count-tokens", str(path), "--tokenizer", str(saved), "--json"]) == 0
    _, python = both(english_tok)
    assert {row["tokens"] for row in json.loads(capsys.readouterr().out)} == {len(python.encode_ordinary(text))}  # file, total
    assert used and engines.status("encode") == "loaded"


def test_a_million_digits_split_in_one_pass():
    """r2l-digits reads each run of digits once (the pattern's look-ahead reads the rest of the run at every group)."""
    text = "x " + "7" * 1_000_001 + " y 1234"
    for split in SPLITS:
        assert compiled_split(text, split) == bpeviz.split_text(text, split), split


# -- new pieces merged inside the kernel (compiled/pieces.py), against merging.merge_by_rank -----------------------

compiled_pieces = pytest.importorskip("bpeviz.compiled.pieces")


@st.composite
def rank_tables(draw):
    """Random merges over ids 0-5 (each a pair of earlier ids, a pair at most once, in any order of ranks)."""
    pairs = draw(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), unique=True, max_size=30))
    ids, rank_of = list(range(6)), {}
    for a, b in pairs:
        if a < len(ids) and b < len(ids):
            rank_of[(a, b)] = len(rank_of) + 1
            ids.append(len(ids))
    return rank_of, [0, *range(6, len(ids))]


@settings(max_examples=500, deadline=None)
@given(table=rank_tables(), ids=st.lists(st.integers(0, 5), max_size=80))
@example(table=({(0, 0): 1}, [0, 6]), ids=[0, 0, 0])  # overlapping: the left pair first
@example(table=({(1, 2): 1, (0, 1): 2, (6, 1): 3}, [0, 6, 7, 8]), ids=[0, 1, 2, 0, 1, 2, 1])  # every occurrence
@example(table=({(0, 1): 1, (6, 6): 2, (7, 6): 3}, [0, 6, 7, 8]), ids=[0, 1] * 6)  # new tokens pair up in later rounds
def test_the_kernel_merges_a_piece_as_merge_by_rank_does(table, ids):
    from bpeviz.models.merging import merge_by_rank

    rank_of, new_ids = table
    ranks = {pair: (rank, new_ids[rank]) for pair, rank in rank_of.items()}
    expected = merge_by_rank(list(ids), rank_of, new_ids, ranks)
    arrays = compiled_pieces.rank_arrays(rank_of, new_ids) if rank_of else None
    if arrays is None:
        assert expected == ids
        return
    buf, rk = np.array(ids + [0], np.int64), np.empty(len(ids) + 1, np.int64)
    n = compiled_pieces.merge_piece(buf, len(ids), *arrays, rk)
    assert buf[:n].tolist() == expected


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_the_kernel_writes_utf8_as_python_does(text):
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    buf = np.empty(compiled_pieces.MAX_BYTES, np.int64)
    n = compiled_pieces.utf8(cps, 0, len(cps), buf)
    if any(0xD800 <= ord(c) < 0xE000 for c in text):
        assert n == -1  # Python's error handler decides what a surrogate is: such a piece goes back to Python
    else:
        assert bytes(buf[:n].tolist()) == text.encode()


def test_new_pieces_of_a_long_text_are_merged_in_the_kernel_not_in_python(english_tok, monkeypatch):
    """Only pieces the kernel leaves (longer than MAX_BYTES, or with a surrogate) reach the tokenizer's own merge."""
    compiled, python = both(english_tok)
    handed: list[str] = []
    real = tokenizer.Tokenizer._encode_new
    monkeypatch.setattr(tokenizer.Tokenizer, "_encode_new", lambda tok, pieces: handed.extend(pieces) or real(tok, pieces))
    text = corpora.corpus_text("portuguese")[:80_000] + corpora.corpus_text("udhr-ru")
    assert compiled.encode_ordinary(text) == python.encode_ordinary(text)
    assert handed == [] and compiled._fast_merge is None  # no piece went to Python; no tiktoken merger was made
    long_word = "pneumo" * 200  # 1 200 bytes, one pre-token
    mixed = f"{text[:30_000]} {long_word} x\udcffy {text[30_000:]} {long_word}!".encode("utf-8", "surrogateescape")
    assert compiled.encode_bytes(mixed) == python.encode_bytes(mixed)  # a raw byte 0xff, as a surrogate stand-in
    assert sorted(handed) == sorted([" " + long_word, "\udcffy"])  # each once; the rest merged in the kernel
    assert compiled.encode_bytes(mixed) == python.encode_bytes(mixed) and len(handed) == 2  # kept in the table


@st.composite
def byte_merges(draw):
    """Random merges of the bytes of a-f: each a pair of ids made before it, at most once, in any order a trainer would
    not take (so a token's bytes may come out of two merges, and tiktoken's rule may differ from merge_ids')."""
    ids = list(b"abcdef")
    vocab, merges = {i: bytes([i]) for i in ids}, []
    for _ in range(draw(st.integers(0, 25))):
        a, b = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        if any((m.left_id, m.right_id) == (a, b) for m in merges):
            continue
        new = 256 + len(merges)
        vocab[new] = vocab[a] + vocab[b]
        merges.append(bpeviz.Merge(len(merges) + 1, vocab[a], vocab[b], vocab[new], 0, new, a, b))
        ids.append(new)
    return merges


@settings(max_examples=150, deadline=None)
@given(merges=byte_merges(), texts=st.lists(st.text(alphabet="abcdef é", max_size=60), min_size=1, max_size=3))
def test_any_hand_made_byte_table_encodes_as_in_python(merges, texts):
    """Tables no trainer makes: the kernel follows merge_ids' rule, as the Python encoder does."""
    assert engines.warm()
    hand = bpeviz.Tokenizer(settings=bpeviz.Settings(vocab_size=256 + len(merges), level="bytes", pretokenizer="gpt4"),
                            alphabet=None, merges=merges, encoder=engines.ENCODER)
    compiled, python = both(hand)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tokenizer, "COLD_TEXT", 1)
        for text in texts:
            assert compiled.encode_ordinary(text) == python.encode_ordinary(text)
    assert compiled._piece_table is not None or not "".join(texts)
