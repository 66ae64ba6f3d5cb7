"""Encoding, the trace, byte fallback, special tokens, round trips on arbitrary Unicode."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz import formats
from bpeviz.core.rules import DIALECTS
from bpeviz.data import corpora
from bpeviz.models import bpe as tokenizer
from bpeviz.models.merging import regroup
from bpeviz.trainers.educational import merge


def test_toy_trace_subiu():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    steps = tok.trace("o gato subiu no")
    assert steps[0].rank is None and len(steps[0].pieces) == 15
    assert steps[-1].pieces == ("o", " gato", " sub", "iu", " no")
    ranks = [s.rank for s in steps[1:]]
    assert ranks == sorted(ranks) and all(s.fired > 0 for s in steps[1:])
    assert steps[1].merge.token == " n"
    assert tok.encode("o gato subiu no") == [tok.vocab_ids()[p] for p in steps[-1].pieces]


# -- encoding -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained():
    docs = corpora.documents("udhr-pt")
    return {(level, pre): bpeviz.train(docs, vocab_size=(256 if level == "bytes" else 60) + 150, level=level, pretokenizer=pre)
            for level in bpeviz.LEVELS for pre in bpeviz.PRETOKENIZERS}


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60), key=st.sampled_from([(lv, p) for lv in bpeviz.LEVELS for p in bpeviz.PRETOKENIZERS]))
def test_round_trip_arbitrary_unicode(trained, text, key):
    tok = trained[key]
    assert tok.decode(tok.encode_ordinary(text)) == text


def test_training_segmentation_equals_encoding(trained):
    # encoding the training text reproduces the corpus length the trainer recorded
    for (level, pre), tok in trained.items():
        docs = corpora.documents("udhr-pt")
        assert sum(len(tok.encode_ordinary(d)) for d in docs) == tok.merges[-1].tokens_after, (level, pre)


def test_long_sequence_encoding_matches_repeated_merging():
    text = corpora.corpus_text("udhr-en")
    tok = bpeviz.train(text, vocab_size=500, level="bytes", pretokenizer="none")
    ids = list(text.encode())
    for m in tok.merges:
        ids = merge(ids, (m.left_id, m.right_id), m.id)
    assert tok.encode(text) == ids


def test_byte_fallback_is_visible():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    ids = tok.encode("pássaro 🐦")
    fallback = [i for i in ids if tok.is_byte_fallback(i)]
    assert len(fallback) == 4  # the bird is 4 UTF-8 bytes; á is in the alphabet (sofá)
    assert tok.decode(ids) == "pássaro 🐦"


def test_special_tokens_refused_unless_allowed():
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    with pytest.raises(ValueError, match="allowed_special"):
        tok.encode("o gato<|endoftext|>")
    ids = tok.encode("o gato<|endoftext|>", allowed_special="all")
    assert ids[-1] == tok.special_tokens["<|endoftext|>"] == 64
    assert tok.decode(tok.encode_ordinary("<|endoftext|>")) == "<|endoftext|>"


def test_invalid_utf8_trains_at_byte_level():
    data = "olá mundo ".encode() * 5 + b"\xff\xfe\x80"
    tok = bpeviz.train(data, vocab_size=270, level="bytes")
    assert tok.decode_bytes(tok.encode_bytes(data)) == data
    with pytest.raises(ValueError, match="not valid UTF-8"):
        bpeviz.train(data, vocab_size=40, level="chars")




# -- cold encoding: tiktoken merges new words when it provably agrees ---------------------------


def replayed(tok, piece: str) -> list[int]:
    """The piece's ids by replaying every merge in order (the trace's rule), the slow obvious way."""
    ids = tok.base_ids(piece)
    for m in tok.merges:
        ids = merge(ids, (m.left_id, m.right_id), m.id)
    return ids


@settings(max_examples=40, deadline=None)
@given(corpus=st.lists(st.text(alphabet="abcab \n.é1", min_size=1, max_size=30), min_size=1, max_size=12),
       words=st.lists(st.text(alphabet="abcab .é1\udcff", min_size=1, max_size=24), min_size=1, max_size=20),
       vocab=st.integers(257, 330), pre=st.sampled_from(["none", "gpt4", "spaces"]), tie=st.sampled_from(["first", "smallest"]),
       dialect=st.sampled_from([None, *DIALECTS]))
def test_tiktoken_merges_exactly_as_replaying_for_any_trained_table(corpus, words, vocab, pre, tie, dialect):
    """Every trained table passes tiktoken_merger's full check (proven=0), whatever the dialect: what
    Tokenizer.proven_by_training takes for granted."""
    options = {"dialect": dialect} if dialect else {"pretokenizer": pre, "tie_break": tie}
    tok = bpeviz.train(corpus, vocab_size=vocab, level="bytes", **options)
    fast = tokenizer.tiktoken_merger(tok)
    assert fast is not None or not tok.merges  # a trained table always passes the check
    for word in words:
        expected = replayed(tok, word)
        assert tok.merge_ids(tok.base_ids(word)) == expected
        if fast is not None:
            assert fast(word.encode("utf-8", "surrogateescape")) == expected


def hand_made(pairs: list[tuple[bytes, bytes]]) -> bpeviz.Tokenizer:
    vocab = {bytes([b]): b for b in range(256)}
    merges = []
    for rank, (left, right) in enumerate(pairs, start=1):
        vocab[left + right] = 255 + rank
        merges.append(bpeviz.Merge(rank, left, right, left + right, 0, 255 + rank, vocab[left], vocab[right]))
    return bpeviz.Tokenizer(settings=bpeviz.Settings(vocab_size=256 + len(pairs), level="bytes", pretokenizer="none"),
                            alphabet=None, merges=merges)


def test_a_table_tiktoken_would_read_differently_stays_in_python():
    # "abc" is made from ab + c, but b + c merges first, so "abc" alone never becomes one token by replay;
    # tiktoken would take the whole piece "abc" as that token
    tok = hand_made([(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")])
    assert tokenizer.tiktoken_merger(tok) is None
    assert tok.merge_ids(list(b"abc")) == [97, 256]
    text = "abc " * (tokenizer.COLD_TEXT // 4 + 1)  # long enough for the cold path
    assert tok.encode_ordinary(text)[:2] == [97, 256] and tok._fast_merge is None


def test_truncations_share_the_proof_and_check_only_the_merges_not_yet_proven(monkeypatch):
    """The Charts page encodes held-out text with the first k merges, again and again: the check runs once per merge."""
    trained = bpeviz.train(corpora.corpus_text("english"), vocab_size=700, level="bytes", pretokenizer="gpt4")
    tok = bpeviz.formats.import_data(bpeviz.formats.export(trained, "json"), "t.json")  # read from a file: not proven
    text = corpora.corpus_text("portuguese")[:tokenizer.COLD_TEXT + 1000]
    calls = []
    real = tokenizer.merge_by_rank
    monkeypatch.setattr(tokenizer, "merge_by_rank", lambda *args: calls.append(1) or real(*args))
    half = tok.truncated(200)
    half.encode_engine = "python"  # the Python encoder's path (the compiled one merges new pieces itself, no proof)
    pieces = bpeviz.split_text(text, "gpt4")
    assert half.encode_ordinary(text) == [i for piece in pieces for i in half.merge_ids(list(piece.encode()))]
    checked = len(calls)
    assert checked >= 200 and half._fast_merge is not None
    calls.clear()
    again = tok.truncated(200)
    again.encode_engine = "python"
    again.encode_ordinary(text)  # a fresh truncation of the same prefix: nothing to check again
    assert calls == []
    whole = tok.truncated(len(tok.merges))
    whole.encode_engine = "python"
    cold = whole.encode_ordinary(text)
    assert len(calls) == len(tok.merges) - 200  # only the merges after the proven 200
    assert cold == tok.encode_ordinary(text)


def test_a_table_trained_here_needs_no_check_before_tiktoken_merges_for_it(monkeypatch):
    """Issue 44: the check replayed all 16 384 merges before a fresh tokenizer's first long text (0.27 s of 0.37);
    a trained table's tokens merge back from their bytes by construction (Tokenizer.proven_by_training)."""
    tok = bpeviz.train(corpora.corpus_text("english"), vocab_size=700, level="bytes", pretokenizer="gpt4")
    calls = []
    real = tokenizer.merge_by_rank
    monkeypatch.setattr(tokenizer, "merge_by_rank", lambda *args: calls.append(1) or real(*args))
    text = corpora.corpus_text("portuguese")[:tokenizer.COLD_TEXT + 1000]
    fresh = tok.truncated(len(tok.merges))
    fresh.encode_engine = "python"
    assert fresh.encode_ordinary(text) and fresh._fast_merge is not None and calls == []
    assert tokenizer.tiktoken_merger(tok) is not None  # and the full check, run anyway, agrees


def test_a_table_whose_merge_uses_a_later_token_shares_no_proof():
    # rank 1 makes "abc" from a + "bc", which rank 2 makes: the whole table passes the check, its first merge alone does not
    merges = [bpeviz.Merge(1, b"a", b"bc", b"abc", 0, 256, 97, 257), bpeviz.Merge(2, b"b", b"c", b"bc", 0, 257, 98, 99)]
    tok = bpeviz.Tokenizer(settings=bpeviz.Settings(vocab_size=258, level="bytes", pretokenizer="none"),
                           alphabet=None, merges=merges)
    text = "abc" * (tokenizer.COLD_TEXT // 3 + 1)
    assert tok.encode_ordinary(text)[:2] == [256, 256] and tok._fast_merge is not None
    first = tok.truncated(1)  # "abc" alone never becomes 256 without "bc"; tiktoken would take it whole
    assert first.encode_ordinary(text)[:3] == [97, 98, 99] and first._fast_merge is None


def test_a_cold_text_with_more_new_pieces_than_the_cache_holds_still_encodes_them_all(monkeypatch):
    tok = bpeviz.train(corpora.corpus_text("english"), vocab_size=600, level="bytes", pretokenizer="gpt4")
    text = corpora.corpus_text("udhr-ru")[:tokenizer.COLD_TEXT] + corpora.corpus_text("english")[:tokenizer.COLD_TEXT]
    expected = tok.encode_ordinary(text)
    monkeypatch.setattr(tokenizer.WordCache, "MAX_ENTRIES", 50)
    fresh = tok.truncated(len(tok.merges))
    fresh.encode_engine = "python"  # the Python encoder's caches (the compiled one has its own table)
    assert fresh.encode_ordinary(text) == expected
    assert len(fresh._word_cache) == 50
    monkeypatch.setattr(tokenizer.WordCache, "MAX_ENTRIES", 200_000)
    monkeypatch.setattr(tokenizer.WordCache, "MAX_BYTES", 20_000)  # the batch fill stops at the byte budget too
    fresh = tok.truncated(len(tok.merges))
    fresh.encode_engine = "python"
    assert fresh.encode_ordinary(text) == expected
    assert 0 < fresh._word_cache.size <= 20_000


@pytest.mark.parametrize("pre", ["gpt4", "gpt2"])
def test_a_long_cold_text_encodes_as_the_trace_warm_encoding_and_tiktoken_do(pre):
    tok = bpeviz.train(corpora.corpus_text("english"), vocab_size=1500, level="bytes", pretokenizer=pre)
    odd = " lone \udcff\ud800 surrogates \ud83d\udc4d" + " " + "x" * 300 + "  "  # a chunk too long to keep, a last one of spaces
    text = corpora.corpus_text("portuguese")[:70_000] + corpora.corpus_text("udhr-ru") + odd
    fresh = tok.truncated(len(tok.merges))
    fresh.encode_engine = "python"  # the reference; test_compiled_encode.py holds the compiled encoder to it
    cold = fresh.encode_ordinary(text)
    assert fresh._fast_merge is not None  # the cold path ran, tiktoken merging the new words
    assert fresh.encode_ordinary(text) == cold  # chunk by chunk: new chunks encoded in one pass
    assert len(fresh._tail_cache) > 1000 and "x" * 300 not in fresh._tail_cache
    assert fresh.encode_ordinary(text) == cold  # all chunks cached
    backwards = bpeviz.core.records.as_tiktoken_reads(text[::-1])  # new chunks and known ones
    assert fresh.encode_ordinary(backwards) == [i for p in bpeviz.split_text(backwards, pre) for i in tok.encode_word(p)]
    ids = tok.vocab_ids()
    pieces = bpeviz.split_text(bpeviz.core.records.as_tiktoken_reads(text), pre)  # surrogates read as tiktoken reads them
    traced = {piece: [ids[t] for t in tok.trace(piece)[-1].pieces] for piece in dict.fromkeys(pieces)}
    assert cold == [i for piece in pieces for i in traced[piece]]
    assert tok.truncated(len(tok.merges)).encode_ordinary(text) == formats.tiktoken_encoding(tok).encode_ordinary(text)


@pytest.mark.parametrize(("algorithm", "long"), [("bpe", False), ("wordpiece", False), ("unigram", False), ("bpe", True)])
def test_a_tokenizer_nobody_holds_is_freed_at_once(algorithm, long):
    """No reference cycle: a dropped tokenizer (merges, caches) goes with its last user, not at a full collection.

    long: a long text, which the compiled encoder (when numba is here) takes: its piece table calls the tokenizer back.
    """
    import gc
    import weakref

    from bpeviz import engine

    if long:
        compiled = engine.warm()
        tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=300, level="bytes", pretokenizer="gpt4")
        tok.encode(corpora.corpus_text("portuguese")[:100_000])
        assert (tok._piece_table is not None) == compiled  # the compiled encoder's table, or the Python caches
        assert compiled or tok._word_cache
    else:
        tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=40, algorithm=algorithm)
        tok.encode("o gato subiu no telhado")  # fills its caches
    gone = weakref.ref(tok)
    gc.disable()
    try:
        del tok
        assert gone() is None
    finally:
        gc.enable()


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.lists(st.tuples(st.text(min_size=1, max_size=3), st.lists(st.integers(0, 9), min_size=1, max_size=3)),
                               min_size=1, max_size=4), max_size=6))
def test_regroup_joins_the_ids_of_pieces_into_the_parts_they_cover(parts):
    pieces = [piece for part in parts for piece in part]
    part_lengths = [sum(len(t) for t, _ in part) for part in parts]
    got = regroup([tuple(ids) for _, ids in pieces], [len(t) for t, _ in pieces], part_lengths)
    assert got == [tuple(i for _, ids in part for i in ids) for part in parts]


def test_regroup_refuses_parts_that_end_inside_a_piece():
    with pytest.raises(ValueError, match="do not end where pieces end"):
        regroup([(1,), (2,)], [2, 2], [1, 3])


def test_the_heap_merge_of_long_words_is_the_round_by_round_rule(monkeypatch):
    """merge_long (a heap of packed keys, typed links: 20 MB of spaces in 1.3 GB) against merge_by_rank's scan, which
    short words use, on random words and rank tables whose merges build on earlier ones."""
    import random

    from bpeviz.models import merging

    rng = random.Random(44)
    for _ in range(300):
        ids = [rng.randrange(4) for _ in range(rng.randint(merging.LONG_WORD + 1, 500))]
        ranks: dict = {}
        pool = list(range(4))
        for rank in range(1, rng.randint(2, 40)):
            pair = (rng.choice(pool), rng.choice(pool))
            if pair not in ranks:
                ranks[pair] = (rank, 100 + rank)
                pool.append(100 + rank)
        rank_of = {pair: r for pair, (r, _) in ranks.items()}
        new_ids = [0] * 41
        for r, new in ranks.values():
            new_ids[r] = new
        heap = merging.merge_long(list(ids), ranks)
        with monkeypatch.context() as m:
            m.setattr(merging, "LONG_WORD", 10**9)  # the scan, round by round
            assert merging.merge_by_rank(list(ids), rank_of, new_ids, ranks) == heap
