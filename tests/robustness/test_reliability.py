"""One visitor must not stop the class (issue 28): hostile shapes get a message, never a freeze or a traceback."""

import contextlib
import json
import os
import subprocess
import sys
import time
from collections import Counter

import pytest

import bpeviz
from bpeviz import formats
from bpeviz.core.errors import BpevizError
from bpeviz.counting import blocks as counting
from bpeviz.lessons import checker, mix


def seconds(call, *args) -> float:
    """The best of three timings of call(*args), errors included (a refusal must be quick too)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        with contextlib.suppress(ValueError):
            call(*args)
        best = min(best, time.perf_counter() - start)
    return best


def test_the_checker_reads_a_long_line_in_linear_time():
    """Row 1: a line "a"*N + " b c" took 9-14 s at N = 20 000 (quadratic backtracking). Time grows with N, not N²."""
    short, long = ("a" * n + " b c" for n in (50_000, 400_000))
    ratio = seconds(checker.parse_table, long, "chars") / max(seconds(checker.parse_table, short, "chars"), 1e-6)
    assert ratio < 24, ratio  # 8x the text: linear about 8, quadratic 64
    with pytest.raises(BpevizError, match="Line 1"):
        checker.parse_table("a" * 50_000 + " b c", "chars")


@pytest.mark.parametrize("count", ["²", "٣", "9" * 5_000])
def test_a_count_that_is_no_plain_number_gets_a_message(count):
    """Row 15: counts like ², Arabic digits or 5 000 digits gave raw Python messages."""
    for table in (f"a b {count}", f"left,right,count\na,b,{count}"):
        with pytest.raises(BpevizError) as err:
            checker.parse_table(table, "chars")
        assert "Line" in str(err.value) and "Exceeds" not in str(err.value)


def test_the_checker_reads_the_same_tables_as_before():
    rows = checker.parse_table("␣ + n 7\n␣n o\na +b\nab\n# a comment\n\nx y 3", "chars")
    assert [(r.left, r.right, r.count) for r in rows] == [(" ", "n", 7), (" n", "o", None), ("a", "b", None),
                                                          ("a", "b", None), ("x", "y", 3)]


@pytest.mark.slow  # an oracle over many cases or a big real tokenizer: CI runs it, the quick run does not
@pytest.mark.parametrize("name", ["o200k_base", "qwen3.6", "cl100k_base", "gpt2"])
@pytest.mark.parametrize("run", [" ", "\t", "\u00a0"])
def test_a_reference_survives_a_megabyte_of_one_space(name, run):
    """Row 6: o200k_base and qwen3.6 raised tiktoken's PanicException (a BaseException) on 1 MB of spaces."""
    ref = bpeviz.reference(name)
    text = run * 1_000_000
    ids = ref.encode_ordinary(text)
    assert ref.decode(ids) == text and ref.encode(text) == ids
    sample = "The cat 1234567 sat\n\n   on the mat. " * 200  # where tiktoken's own split works, the replay is the same
    assert ref._replay(sample) == ref.encode_ordinary(sample)


def test_local_workers_are_capped_at_the_cores(tmp_path):
    """Row 10: --scheduler local:1000 started 84 processes and kept going."""
    pytest.importorskip("distributed", reason="the optional cluster extra")
    path = tmp_path / "a.txt"
    path.write_text("o gato subiu no telhado " * 10)
    with pytest.raises(BpevizError, match="cores") as err:
        counting.count_files([path], "gpt2", scheduler=f"local:{counting.MAX_LOCAL_WORKERS + 1}")
    assert err.value.code == "too_many_workers"


@pytest.mark.parametrize("weights", [{"en": float("inf")}, {"en": None}, {"en": [1]}, {"en": 0.5}, {"en": True},
                                     {"en": 10**9}, [("en", 1)]])
def test_mix_weights_are_checked_by_name(weights):
    """Row 16: inf, None, [1] raised OverflowError/TypeError; 0.5 silently dropped the language."""
    with pytest.raises(ValueError, match="weight"):
        mix.train_mix(weights, 300)


@pytest.mark.parametrize(("field", "value"), [("normalizer", "x"), ("pre_tokenizer", [1]), ("added_tokens", 5),
                                              ("pre_tokenizer", {"type": "Sequence", "pretokenizers": 5})])
@pytest.mark.parametrize("algorithm", ["wordpiece", "unigram", "bpe"])
def test_a_hostile_tokenizer_json_gets_one_line_that_names_the_field(field, value, algorithm):
    """Row 4: these gave AttributeError / TypeError, a traceback in the CLI and a crashed page in the app."""
    text = "o gato subiu no telhado e o cão dormiu no chão " * 10
    tok = bpeviz.train(text, vocab_size=60 if algorithm != "bpe" else 270, level="bytes" if algorithm == "bpe" else "chars",
                       algorithm=algorithm)
    data = json.loads(formats.export(tok, "hf"))
    data[field] = value
    with pytest.raises(ValueError) as err:
        formats.import_data(json.dumps(data).encode(), "tokenizer.json")
    assert type(err.value) in (ValueError, BpevizError)
    assert any(word in str(err.value) for word in ("normaliz", "pre_tokenizer", "pre-tokenizer", "pretokenizers",
                                                   "added_tokens"))


def test_the_algorithms_page_survives_a_corpus_every_algorithm_refuses():
    """Row 5: ?vocab=1 made all three refuse, and the summary's empty table raised KeyError: the page crashed."""
    from app_helpers import new_app

    at = new_app()
    at.query_params["vocab"] = "1"
    at.switch_page("bpeviz/app/pages/algorithms.py").run()
    assert not at.exception
    assert at.error or at.warning  # each algorithm says why it could not train


def test_a_tsv_count_table_with_crlf_lines_reads_as_with_lf(tmp_path):
    """Row 17: a table saved on Windows (CRLF) was refused."""
    table = counting.CountTable(Counter({"o": 3, " gato": 2, "a\rb": 1}), "gpt2")
    counting.write_counts(table, tmp_path / "lf.tsv")
    crlf = (tmp_path / "lf.tsv").read_bytes().replace(b"\n", b"\r\n")
    (tmp_path / "crlf.tsv").write_bytes(crlf)
    assert counting.read_counts(tmp_path / "crlf.tsv").counts == table.counts


@pytest.mark.parametrize("header", ['{"pretokenizer": "gpt2", "dummy_prefix": "no"}',
                                    '{"pretokenizer": "gpt2", "dummy_prefix": 1}'])
def test_a_dummy_prefix_that_is_not_true_or_false_is_refused(tmp_path, header):
    """Row 17: "no" was read as true."""
    path = tmp_path / "c.tsv"
    path.write_text(counting.HEADER + header + "\no\t3\n", encoding="utf-8")
    with pytest.raises(BpevizError, match="dummy_prefix"):
        counting.read_counts(path)


@pytest.mark.parametrize(("pieces", "counts"), [
    ([b"o", b"a"], ["3", "2"]), ([b"o", b"a"], [[3], [2]]), ([b"o", b"a"], [3.0, 2.0]), ([b"o", b"a"], [3.0, float("nan")]),
    ([b"o", None], [3, 2]), ([b"o", b"a"], [3, None]),
])
def test_a_parquet_count_table_with_wrong_types_is_refused_by_row(tmp_path, pieces, counts):
    """Row 13: strings and lists gave a TypeError, floats trained zero merges with no error, NaN dropped a piece."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "c.parquet"
    pq.write_table(pa.table({"piece": pieces, "count": counts}).replace_schema_metadata(
        {"bpeviz": json.dumps({"pretokenizer": "gpt2"})}), str(path))
    with pytest.raises(BpevizError, match="row") as err:
        counting.read_counts(path)
    assert err.value.code == "counts_bad_line"


@pytest.mark.slow  # a 100 000-character sentence through the app
def test_a_long_sentence_draws_a_bounded_number_of_chips():
    """Row 12: 100 000 characters made 120 MB of chip HTML per rerun; now the first MAX_CHIPS tokens, and a caption."""
    from app_helpers import new_app

    from bpeviz.app import views

    at = new_app()
    at.switch_page("bpeviz/app/pages/encode.py").run()
    at.text_area(key="sentence").set_value("o gato subiu no telhado " * 3_000).run()
    assert not at.exception
    html = sum(len(m.value) for m in at.markdown if "chip" in m.value)
    assert 0 < html < 3 * views.MAX_CHIPS * 2_000  # each drawn row holds at most MAX_CHIPS chips
    assert any(f"first {views.MAX_CHIPS:,} of" in c.value for c in at.caption)


def test_the_algorithms_sentence_has_the_encode_pages_cap():
    from app_helpers import new_app

    from bpeviz.app import state

    at = new_app()
    at.switch_page("bpeviz/app/pages/algorithms.py").run()
    at.text_area(key="sentence").set_value("x" * (state.MAX_SENTENCE + 1)).run()
    assert not at.exception and any(f"{state.MAX_SENTENCE:,}" in e.value for e in at.error)


def test_one_endless_word_stops_at_the_stated_cap_with_one_line(tmp_path):
    """Rows 11 and 14: 20 MB with no spaces peaked at 3.46 GB; /dev/zero grew until MemoryError. Now a message at the cap."""
    import subprocess
    import sys

    path = tmp_path / "word.txt"
    path.write_bytes(b"x" * (counting.MAX_UNCUT_CHARS + 1_000_000))
    with pytest.raises(BpevizError, match="no place where a pre-token ends") as err:
        counting.count_files([path], "gpt4", workers=1)
    assert err.value.code == "no_place_to_cut"
    run = subprocess.run([sys.executable, "-m", "bpeviz.cli", "train", str(path), "--vocab-size", "300"],
                         capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.startswith("bpeviz: error:") and "Traceback" not in run.stderr


def test_lines_without_spaces_still_stream(tmp_path):
    """Chinese text has newlines but no spaces: it is cut after newlines between non-spaces, so it streams in blocks."""
    text = "\n".join(["人人生而自由在尊严和权利上一律平等"] * 20_000) + "\n"
    path = tmp_path / "zh.txt"
    path.write_text(text, encoding="utf-8")
    blocks = list(counting.read_blocks([path], pretokenizer="gpt4", block_bytes=64 << 10))
    assert len(blocks) > 5 and max(len(b.docs[0]) for b in blocks) < 64 << 10
    assert counting.count_files([path], "gpt4", workers=1, block_bytes=64 << 10).counts == \
        bpeviz.pre_tokenizers.splits.count_pieces([text], "gpt4")


@pytest.mark.parametrize("algorithm", [pytest.param("wordpiece", marks=pytest.mark.slow), "unigram"])  # WordPiece: 3 s
def test_text_without_spaces_trains_as_fast_as_the_same_text_with_spaces(algorithm):
    """Row 2: one long word cost every WordPiece merge the whole text (16 kB took 45-55 s; here 24 kB: 33 s against
    0.2 s spaced). Unigram kept this ratio before too; its cost per character (row 3) is still open."""
    import random

    rng = random.Random(0)
    text = "".join(rng.choice("abcdefghij") for _ in range(24_000))
    spaced = " ".join(text[i:i + 256] for i in range(0, len(text), 256))
    alone = seconds(lambda: bpeviz.train(spaced, vocab_size=400, algorithm=algorithm))
    assert seconds(lambda: bpeviz.train(text, vocab_size=400, algorithm=algorithm)) < 4 * alone + 0.5


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece", "unigram"])
def test_word_caches_are_bounded_in_bytes(monkeypatch, algorithm):
    """Row 7: caches capped by count kept +269 MB (WordPiece) and +234 MB (Unigram) of long words in shared tokenizers."""
    import random

    from bpeviz.models import bpe as tokenizer

    monkeypatch.setattr(tokenizer.WordCache, "MAX_BYTES", 200_000)
    tok = bpeviz.train("o gato subiu no telhado e o cão dormiu no chão " * 30, vocab_size=60 if algorithm != "bpe" else 300,
                       level="bytes" if algorithm == "bpe" else "chars", algorithm=algorithm)
    rng = random.Random(1)
    words = ["".join(rng.choice("gatosubiheldrcãn") for _ in range(200)) for _ in range(600)]  # 120 kB, all distinct
    first = [tok.encode(" " + w) for w in words]
    caches = [c for c in vars(tok).values() if isinstance(c, tokenizer.WordCache)]
    assert caches and all(c.size <= 200_000 for c in caches)
    assert [tok.encode(" " + w) for w in words] == first  # misses encode as hits did


def test_an_imported_file_is_read_once_not_on_every_rerun(monkeypatch):
    """Row 18: a million-entry WordPiece file took 3 s and ~700 MB on every rerun of the Files page."""
    from app_helpers import new_app

    from bpeviz.data import corpora

    reads = []
    real = formats.import_data
    monkeypatch.setattr(formats, "import_data", lambda *a, **k: reads.append(a[1]) or real(*a, **k))
    tok = bpeviz.train(corpora.corpus_text("english")[:20_000], vocab_size=300, algorithm="wordpiece")
    at = new_app()
    at.switch_page("bpeviz/app/pages/files.py").run()
    at.file_uploader(key="import_file").set_value(("once.json", formats.export(tok, "hf"), "application/json")).run()
    for text in ("the cat", "the rabbit", "o gato"):
        at.text_input(key="_w_import_text").set_value(text).run()
        assert not at.exception
    assert reads.count("once.json") == 1


def test_wordpiece_encoding_is_not_cubic_in_a_long_vocabulary_entry():
    """Row 9: a 1 M-character vocab entry, then a long word: 1 k chars 0.11 s, 2 k 0.90 s, 4 k 5.3 s."""
    from bpeviz.core.records import Settings
    from bpeviz.models.wordpiece import WordPieceTokenizer

    alphabet = ["a", "b", "##a", "##b", "x" * 200_000]
    tok = WordPieceTokenizer(settings=Settings(vocab_size=len(alphabet), algorithm="wordpiece", pretokenizer="none"),
                             alphabet=alphabet, merges=[])
    short, long = ("ab" * n for n in (1_000, 8_000))
    ratio = seconds(tok._match, long) / max(seconds(tok._match, short), 1e-6)  # the match itself, not the cache
    assert ratio < 32, ratio  # 8x the word: linear about 8, cubic 512
    assert tok.encode_word("abba") == (0, 3, 3, 2)


@pytest.mark.slow  # the box's Unigram cap stays in the quick run (app/test_box.py)
def test_a_unigram_run_the_server_cannot_afford_is_refused_with_a_message():
    """Row 3: 1 MB with no spaces took about 2 KB per character (1.9-2.1 GB, 186 s) in Unigram's lattices."""
    import random

    from app_helpers import new_app

    from bpeviz.app import runs

    rng = random.Random(3)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(runs.MAX_UNIGRAM_CHARS + 20_000))
    at = new_app(source="paste", pasted=text, lines_are_docs=False)
    at.switch_page("bpeviz/app/pages/algorithms.py").run(timeout=300)
    assert not at.exception
    said = " ".join(e.value for e in at.error) + " ".join(c.value for c in at.caption)
    assert f"{runs.MAX_UNIGRAM_CHARS:,}" in said and "command line" in said


@pytest.mark.slow  # three real tokenizers on a megabyte in a fresh process
def test_a_megabyte_of_spaces_prints_nothing_on_stderr():
    """Issue 43 row 7: the count was right, but tiktoken's Rust panic (and its backtrace) was printed on stderr."""
    code = ("import bpeviz\nfor name in ['o200k_base', 'qwen3.6', 'tekken']:\n"
            "    print(len(bpeviz.reference(name).encode_ordinary(' ' * 1_000_000 + 'x')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "RUST_BACKTRACE": "1"})
    assert out.returncode == 0 and "panicked" not in out.stderr and "backtrace" not in out.stderr, out.stderr[-500:]
    assert all(int(n) > 0 for n in out.stdout.split())


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_a_long_whitespace_run_goes_to_the_replay_and_counts_as_tiktoken_does(name):
    """Texts with a whitespace run of LONG_WHITESPACE or more skip tiktoken (which may overflow its stack on them);
    at 70 000 spaces tiktoken still works, and is the oracle."""
    from bpeviz.pretrained.open_models import LONG_WHITESPACE

    ref = bpeviz.reference(name)
    text = "Olá, mundo!\n" + " " * (LONG_WHITESPACE + 4_464) + "fim.\t\t" + "\u3000" * 70_000 + "x"
    assert ref.encode_ordinary(text) == ref._encoding.encode_ordinary(text)
    assert ref.encode(text) == ref._encoding.encode(text)
