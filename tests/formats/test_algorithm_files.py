"""WordPiece and Unigram in files: bpeviz JSON round trips, HF tokenizer.json both ways with the same ids."""

from __future__ import annotations

import json
import random

import oracle_strings
import pytest

import bpeviz
from bpeviz import formats
from bpeviz.data import corpora

tokenizers = pytest.importorskip("tokenizers")  # a test dependency, never the app's

LINES = [line for line in (corpora.corpus_text("english")[:60_000] + corpora.corpus_text("portuguese")[:20_000]).splitlines()
         if line.strip()]


def strings(n: int = 1300, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    out = [rng.choice(LINES)[rng.randrange(4):][:rng.randrange(1, 90)] for _ in range(n)]
    return out + ["a  b", "  lead", "x\n\ny", "tab\there", "a <|endoftext|> b", "ÿ😀 ok"]


@pytest.fixture(scope="module", params=["wordpiece", "unigram"])
def tok(request):
    return bpeviz.train(LINES, vocab_size=700, algorithm=request.param)


def test_bpeviz_json_round_trip_keeps_everything(tok, tmp_path):
    path = tmp_path / "tok.json"
    tok.save(path)
    back = bpeviz.load(path)
    assert type(back) is type(tok) and back.settings == tok.settings
    assert back.vocab == tok.vocab
    if tok.algorithm == "wordpiece":
        assert back.merges == tok.merges
    else:
        assert back.scored == tok.scored and back.rounds == tok.rounds
    assert all(back.encode(s, allowed_special="all") == tok.encode(s, allowed_special="all") for s in strings(300))


def test_hf_export_loads_in_tokenizers_with_the_same_ids(tok, tmp_path):
    out = tmp_path / "tokenizer.json"
    out.write_bytes(formats.export(tok, "hf"))
    hf = tokenizers.Tokenizer.from_file(str(out))
    unk = hf.token_to_id("[UNK]")
    back = formats.import_file(out)
    same = fallback = ties = 0
    for s in strings() + [" " + s for s in strings(400, seed=6)]:
        ours, theirs = tok.encode(s, allowed_special="all"), hf.encode(s, add_special_tokens=False).ids
        if ours == theirs:
            same += 1
        elif tok.algorithm == "wordpiece":  # where bpeviz fell back to bytes, HF wrote [UNK] for the word
            assert unk in theirs and any(tok.is_byte_fallback(i) for i in ours), s
            fallback += 1
        elif "<|endoftext|>" in s:  # HF's Prepend runs on each part between added tokens; bpeviz's on the text
            eot = tok.special_tokens["<|endoftext|>"]
            assert theirs == [i for k, part in enumerate(s.split("<|endoftext|>")) for i in [eot] * (k > 0) + tok.encode(part)]
        else:  # a near tie, which HF's float64 sums per word send the other way from SentencePiece's float32 ones
            assert near_tie(tok, s), s
            assert back.encode(s) == theirs  # the file read back sums as HF does
            ties += 1
    assert same >= 1500 and ties <= 5
    if tok.algorithm == "unigram":
        assert fallback == 0
        assert hf.decode(tok.encode("o gato ÿ😀")) == "o gato ÿ😀"
        lead = hf.encode("  lead", add_special_tokens=False)  # a ▁ before a text that starts with spaces, as SentencePiece
        assert lead.tokens[:3] == ["\u2581"] * 3 and lead.ids == tok.encode("  lead")


def near_tie(tok, text: str) -> bool:
    """Whether a word of text has two segmentations within 1e-4 of each other (the Viterbi path records its margin)."""
    return any(tok._search(word).margin < 1e-4 for word in tok._words(" " + text))


def test_our_own_export_imports_back_with_the_same_ids(tok):
    back = formats.import_data(formats.export(tok, "hf"), "tokenizer.json")
    assert type(back) is type(tok)
    assert all(back.encode(s, allowed_special="all") == tok.encode(s, allowed_special="all") for s in strings(400))


def test_a_bert_style_file_imports_and_encodes_as_hf_does(tmp_path):
    tok = bpeviz.train(LINES, vocab_size=600, algorithm="wordpiece")
    words = sorted({t.removeprefix(" ") for t in tok.vocab_ids() if t.strip()})
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + words)}
    bert = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]"))
    bert.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    path = tmp_path / "bert.json"
    bert.save(str(path))
    ours = bpeviz.formats.import_file(path)
    assert ours.algorithm == "wordpiece"
    compared = 0
    for s in strings(1000):
        theirs = bert.encode(s, add_special_tokens=False).ids
        if vocab["[UNK]"] not in theirs:
            assert ours.encode(s) == theirs, s
            compared += 1
    assert compared >= 300


def t5_file(tmp_path):
    """A T5-style tokenizer.json (unk_id 2, no byte fallback, Metaspace) made by HF from a Unigram run, and its import."""
    tok = bpeviz.train(LINES, vocab_size=600, algorithm="unigram")
    pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + [(p.replace(" ", "\u2581"), s) for p, s in tok.scored]
    t5 = tokenizers.Tokenizer(tokenizers.models.Unigram(pieces, unk_id=2))
    t5.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    path = tmp_path / "t5.json"
    t5.save(str(path))
    return pieces, t5, bpeviz.formats.import_file(path)


def test_a_t5_style_file_imports_and_encodes_as_hf_does(tmp_path):
    pieces, t5, ours = t5_file(tmp_path)
    assert ours.algorithm == "unigram" and ours.settings.dummy_prefix
    compared = 0
    for s in strings(1000) + [" " + s for s in strings(300, seed=8)] + [" ", "  a", "a  b  "]:
        theirs = t5.encode(s, add_special_tokens=False).ids
        if 2 not in theirs:
            assert ours.encode(s) == theirs, s
            compared += 1
    assert compared >= 500


def test_damaged_files_say_what_is_wrong(tok):
    data = formats.to_dict(tok)
    if tok.algorithm == "wordpiece":
        data["merges"][3]["id"] = 5
        with pytest.raises(ValueError, match="merge 4 must make id"):
            formats.from_dict(data)
    else:
        data["pieces"].append(list(data["pieces"][0]))
        with pytest.raises(ValueError, match="repeat a piece"):
            formats.from_dict(data)
    with pytest.raises(bpeviz.BpevizError, match="holds BPE merges"):
        formats.export(tok, "csv")
    with pytest.raises(bpeviz.BpevizError, match="holds BPE merges"):
        formats.export(tok, "tiktoken")


def test_an_unknown_algorithm_in_a_file_is_refused(tok):
    data = json.loads(formats.write_json(tok))
    data["settings"]["algorithm"] = "bytepair"
    with pytest.raises(ValueError, match="algorithm"):
        formats.from_dict(data)


def test_an_imported_bert_file_gives_unk_where_hf_does(tmp_path):
    """Issue 42.6: a word with a character the vocabulary lacks, or longer than max_input_chars_per_word, is [UNK]."""
    tok = bpeviz.train(LINES, vocab_size=600, algorithm="wordpiece")
    words = sorted({t.removeprefix(" ") for t in tok.vocab_ids() if t.strip()})
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + words)}
    bert = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=12))
    bert.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    path = tmp_path / "bert.json"
    bert.save(str(path))
    ours = bpeviz.formats.import_file(path)
    texts = strings(1000) + oracle_strings.varied(1000) + ["a" * 101, "o " + "e" * 13 + " x", "o gato 😀 subiu", "ÿ"]
    unknown = 0
    for s in texts:
        theirs = bert.encode(s, add_special_tokens=False).ids
        assert ours.encode(s) == theirs, s
        unknown += vocab["[UNK]"] in theirs
    assert unknown >= 200
    back = formats.from_dict(formats.to_dict(ours))  # bpeviz JSON keeps the rule
    assert all(back.encode(s) == ours.encode(s) for s in texts[:300])


def test_an_imported_t5_file_gives_its_unk_id_where_hf_does(tmp_path):
    """Issue 42.5: a Unigram file with unk_id and no byte fallback gives unk_id (a run of unknowns once), never an id
    outside the file's vocabulary."""
    pieces, t5, ours = t5_file(tmp_path)
    texts = strings(1000) + oracle_strings.varied(1000) + ["o gato 😀😀 subiu", "ÿÿÿ", "中文 x"]
    unknown = 0
    for s in texts:
        theirs = t5.encode(s, add_special_tokens=False).ids
        assert ours.encode(s) == theirs, s
        assert all(0 <= i < len(pieces) for i in ours.encode(s))
        unknown += 2 in theirs
    assert unknown >= 200
    back = formats.from_dict(formats.to_dict(ours))
    assert all(back.encode(s) == ours.encode(s) for s in texts[:300])


def test_a_unigram_export_parts_from_bpeviz_only_at_near_ties_and_reads_back_as_hf():
    """Issue 42.7: on repetitive strings (ꙮ×7, runs of x, U+3000) 3-12 % come out as the same pieces in another order:
    bpeviz sums in float32 as SentencePiece does, HF in float64, and equal-score cuts go by rounding. Every such string is
    a near tie; the file read back sums as HF does and equals it on all of them (docs/exactness.md states the rate)."""
    import random

    tok = bpeviz.train(LINES[:2000] + ["ꙮ" * 7, "x" * 40, "\u3000" * 5] * 3, vocab_size=800, algorithm="unigram")
    data = formats.export(tok, "hf")
    hf, back = tokenizers.Tokenizer.from_str(data.decode()), formats.import_data(data, "tokenizer.json")
    rng = random.Random(1)
    texts = ["".join(rng.choice(["ꙮ" * rng.randint(1, 9), "x" * rng.randint(1, 30), "\u3000" * rng.randint(1, 6), " ",
                                 "ab", "the"]) for _ in range(rng.randint(1, 5))) for _ in range(3000)]
    theirs = {s: hf.encode(s, add_special_tokens=False).ids for s in texts}
    assert all(back.encode(s) == theirs[s] for s in texts)
    differ = [s for s in texts if tok.encode(s) != theirs[s]]
    assert all(near_tie(tok, s) for s in differ)
    assert 0 < len(differ) <= 0.12 * len(texts)
