"""Count tables: streamed blocks count as the whole text does, the TSV/Parquet files round-trip,
training from a table gives the text's merges, and a Dask cluster counts what one process does."""

import subprocess
import sys
import types
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bpeviz
from bpeviz.counting import blocks as counting
from bpeviz.counting import cluster as dask_counting
from bpeviz.counting.blocks import CountTable
from bpeviz.data import corpora
from bpeviz.pre_tokenizers import splits as pretokenize
from bpeviz.trainers.training import train_counts

CHUNKABLE = [name for name, p in pretokenize.PRETOKENIZERS.items() if p.chunkable]
# text made of what the cut rule and the split patterns care about: spaces, line ends, letters, digits, signs
PIECES = [" ", "  ", "\n", "\r\n", "\r", "\t", "a", "gato", "é", "ção", "1", "2024", ".", "'s", "😀", "\u00a0", "\x1c", "\\"]


def bpeviz_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpeviz.cli", *args], capture_output=True, text=True)


def whole_counts(data: bytes, pretokenizer: str, lines: bool, dummy_prefix: bool = False) -> list:
    text = data.decode("utf-8", "surrogateescape")
    docs = [line for line in text.splitlines() if line] if lines else ([text] if text else [])
    if dummy_prefix:
        docs = [" " + doc for doc in docs]
    return list(pretokenize.count_pieces(docs, pretokenizer).items())


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=60), block=st.integers(1, 24), lines=st.booleans(),
       pretokenizer=st.sampled_from(CHUNKABLE), dummy=st.booleans(), tail=st.sampled_from([b"", b"\xff", b"\xc3"]))
def test_blocks_count_as_the_whole_text_does_in_the_same_order(tmp_path_factory, parts, block, lines, pretokenizer, dummy,
                                                                tail):
    data = "".join(parts).encode() + tail  # a cut UTF-8 character at the end becomes a raw byte
    path = tmp_path_factory.mktemp("blocks") / "t.txt"
    path.write_bytes(data)
    table = counting.count_files([path], pretokenizer, lines=lines, dummy_prefix=dummy, block_bytes=block, workers=1)
    assert list(table.counts.items()) == whole_counts(data, pretokenizer, lines, dummy)


def test_blocks_really_stream_and_several_files_are_several_documents(tmp_path):
    text = corpora.corpus_text("english")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text, encoding="utf-8")
    b.write_text("o gato", encoding="utf-8")
    blocks = list(counting.read_blocks([a, b], pretokenizer="gpt4", block_bytes=4096))
    assert len(blocks) > 30 and max(len(blk.docs[0]) for blk in blocks) < 4096 + 200
    assert sum(blk.n_bytes for blk in blocks) == a.stat().st_size + b.stat().st_size
    assert [doc for blk in blocks[-2:] for doc in blk.docs] == ["o", " gato"]  # a file starts anew; cut where no piece crosses
    # `none` cannot be cut: one block per file
    assert [len(blk.docs[0]) for blk in counting.read_blocks([a], pretokenizer="none", block_bytes=4096)] == [len(text)]


def test_worker_processes_count_what_one_process_counts(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("\n".join(corpora.corpus_text(name) for name in corpora.CORPORA), encoding="utf-8")
    one = counting.count_files([path], "gpt4", workers=1)
    two = counting.count_files([path], "gpt4", workers=2, block_bytes=64 << 10)
    assert list(two.counts.items()) == list(one.counts.items())


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from("\\\t\n\r\udc80\udcff\udcc3")))
def test_escaped_pieces_are_one_field_and_come_back(piece):
    field = counting.escape_piece(piece)
    assert not set(field) & {"\t", "\n", "\r"} and not any("\udc80" <= ch <= "\udcff" for ch in field)
    assert counting.unescape_piece(field) == piece


TRICKY = {"o": 3, " gato": 2, "a\tb": 1, "\n\n": 4, "back\\slash": 1, "\\x41": 1, "#": 2, "raw\udcff": 1, "😀": 5,
          "\r\n": 1, " x\\": 1}


@pytest.mark.parametrize("name", ["counts.tsv", "counts.parquet"])
def test_tables_round_trip_with_order_and_settings(tmp_path, name):
    table = CountTable(Counter(TRICKY), "gpt4", dummy_prefix=True)
    counting.write_counts(table, tmp_path / name)
    back = counting.read_counts(tmp_path / name)
    assert list(back.counts.items()) == list(TRICKY.items())
    assert (back.pretokenizer, back.dummy_prefix) == ("gpt4", True)


def test_the_tsv_is_readable_text(tmp_path):
    counting.write_counts(CountTable(Counter(TRICKY), "gpt2"), tmp_path / "c.tsv")
    lines = (tmp_path / "c.tsv").read_text(encoding="utf-8").split("\n")
    assert lines[0] == f'# bpeviz counts {{"pretokenizer": "gpt2", "dummy_prefix": false, "rows": {len(TRICKY)}}}'
    assert lines[1:5] == ["o\t3", " gato\t2", "a\\tb\t1", "\\n\\n\t4"]
    assert "raw\\xff\t1" in lines and "\\\\x41\t1" in lines


@pytest.mark.parametrize(("body", "message"), [
    ("o\t3\nno tab here\n", "line 3: expected `piece<TAB>count`"),
    ("o\t0\n", "line 2: expected"),
    ("o\t3\no\t4\n", "line 3: the piece 'o' is listed twice"),
    ("a\\q\t1\n", "line 2: a backslash that starts no escape"),
])
def test_a_bad_table_names_its_line(tmp_path, body, message):
    path = tmp_path / "bad.tsv"
    path.write_text('# bpeviz counts {"pretokenizer": "gpt2"}\n' + body, encoding="utf-8")
    with pytest.raises(bpeviz.BpevizError, match=message.replace("(", r"\(")):
        counting.read_counts(path)


def test_a_table_must_say_or_be_told_its_pretokenizer_and_match_the_settings(tmp_path):
    path = tmp_path / "plain.tsv"
    path.write_text("o\t3\n gato\t2\n", encoding="utf-8")
    with pytest.raises(bpeviz.BpevizError, match="give --pretokenizer"):
        counting.read_counts(path)
    assert counting.read_counts(path, "gpt2").pretokenizer == "gpt2"
    counting.write_counts(counting.read_counts(path, "gpt2"), tmp_path / "g.tsv")
    with pytest.raises(bpeviz.BpevizError, match="counted with pretokenizer 'gpt2', not 'gpt4'"):
        counting.read_counts(tmp_path / "g.tsv", "gpt4")
    with pytest.raises(bpeviz.BpevizError, match="dummy prefix"):  # SentencePiece's rules need ' ' before each document
        train_counts(counting.read_counts(path, "spaces"), vocab_size=300, dialect="sentencepiece-bpe")


@pytest.mark.parametrize(("extra", "fmt"), [((), "tsv"), pytest.param(("--lines",), "parquet", marks=pytest.mark.slow),
                                           pytest.param(("--dialect", "sentencepiece-bpe"), "tsv", marks=pytest.mark.slow)])
def test_train_on_counts_gives_the_merges_of_train_on_the_files(tmp_path, extra, fmt):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(corpora.corpus_text("english")[:40_000], encoding="utf-8")
    b.write_text(corpora.corpus_text("portuguese")[:40_000], encoding="utf-8")
    settings = ["--pretokenizer", "gpt4", *extra] if "--dialect" not in extra else list(extra)
    table = tmp_path / f"counts.{fmt}"
    out = bpeviz_cli("count", str(a), str(b), *settings, "-o", str(table))
    assert out.returncode == 0 and "distinct" in out.stderr, out.stderr
    level = [] if "--dialect" in extra else ["--level", "bytes"]
    from_files = bpeviz_cli("train", str(a), str(b), "--vocab-size", "400", *level, *settings, "--json", "-o",
                            str(tmp_path / "f.json"))
    rules = [x for x in settings if x != "--lines"]
    from_counts = bpeviz_cli("train", "--counts", str(table), "--vocab-size", "400", *level, *rules, "--json", "-o",
                             str(tmp_path / "c.json"))
    assert from_files.returncode == 0 and from_counts.returncode == 0, from_files.stderr + from_counts.stderr
    assert from_counts.stdout == from_files.stdout and len(from_files.stdout.splitlines()) > 100
    files_tok, counts_tok = bpeviz.load(tmp_path / "f.json"), bpeviz.load(tmp_path / "c.json")
    assert [m.token for m in counts_tok.merges] == [m.token for m in files_tok.merges]
    assert counts_tok.corpus_bytes == files_tok.corpus_bytes
    if "--lines" not in extra:  # every byte of both files was counted (plus SentencePiece's space before each document)
        assert files_tok.corpus_bytes == a.stat().st_size + b.stat().st_size + (2 if "--dialect" in extra else 0)


def test_count_and_train_refuse_bad_input_in_one_line(tmp_path):
    out = bpeviz_cli("train", "--vocab-size", "300")
    assert out.returncode == 2 and "give the text files to train on, or --counts" in out.stderr
    out = bpeviz_cli("count", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "c.tsv"))
    assert out.returncode == 2 and out.stderr.strip() == f"bpeviz: error: no such file: {tmp_path / 'missing.txt'}"
    (tmp_path / "t.txt").write_text("o gato", encoding="utf-8")
    out = bpeviz_cli("count", str(tmp_path / "t.txt"), "--scheduler", "http://nowhere", "-o", str(tmp_path / "c.tsv"))
    assert out.returncode == 2 and "local:N or tcp://HOST:PORT" in out.stderr


@pytest.fixture(scope="module", autouse=True)
def clean_main():
    """Dask starts workers with `spawn`, which re-runs the parent's __main__ file; after an AppTest in the same
    session that is app.py (Streamlit runs a page as __main__). A real `bpeviz count` has the CLI as __main__."""
    real = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    yield
    sys.modules["__main__"] = real


@pytest.fixture(scope="module")
def cluster(clean_main):
    distributed = pytest.importorskip("distributed", reason="the optional cluster extra: pip install -e '.[cluster]'")

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as local:
        yield local


def test_a_dask_cluster_counts_and_trains_as_one_process(tmp_path, cluster):
    path = tmp_path / "mix.txt"
    path.write_text("\n".join(corpora.corpus_text(name) for name in ("english", "portuguese", "udhr-ru", "python")),
                    encoding="utf-8")
    alone = counting.count_files([path], "gpt4", workers=1)
    on_cluster = counting.count_files([path], "gpt4", scheduler=cluster.scheduler_address, block_bytes=64 << 10)
    assert list(on_cluster.counts.items()) == list(alone.counts.items())
    assert [m.token for m in train_counts(on_cluster, vocab_size=1500, level="bytes").merges] == \
        [m.token for m in train_counts(alone, vocab_size=1500, level="bytes").merges]
    # the command line, on the same running cluster, writes the same table
    out = bpeviz_cli("count", str(path), "--pretokenizer", "gpt4", "--scheduler", cluster.scheduler_address,
                     "-o", str(tmp_path / "c.tsv"))
    assert out.returncode == 0, out.stderr
    assert list(counting.read_counts(tmp_path / "c.tsv").counts.items()) == list(alone.counts.items())


@pytest.mark.cluster  # starts a Dask LocalCluster of its own
def test_local_scheduler_starts_its_own_loopback_cluster(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(corpora.corpus_text("portuguese"), encoding="utf-8")
    got = counting.count_files([path], "gpt2", scheduler="local:2", block_bytes=32 << 10)
    assert list(got.counts.items()) == list(pretokenize.count_pieces([path.read_text(encoding="utf-8")], "gpt2").items())


@pytest.mark.parametrize(("pre", "lines", "prefix"), [("gpt4", False, False), ("gpt2", False, True), ("o200k", False, False),
                                                      ("gpt2", True, False), ("words", True, True)])
def test_byte_ranges_tile_a_file_and_count_as_one_process(tmp_path, pre, lines, prefix):
    """Issue 29: Dask workers read their own byte ranges; the ranges, cut where each edge's first safe cut is, add up
    to the one-process table, order included, wherever the edges fall (inside a character, a space run, bad bytes)."""
    text = "\n".join(corpora.corpus_text(name)[:6000] for name in ("english", "udhr-ru", "udhr-zh", "python"))
    odd = "a\u00a0 b\u3000 c  \n\n  d\r\ne \t\n"
    data = (text + odd).encode() + b"\xff\xfe broken \xe2\x82 bytes " + (odd + text[:3000]).encode()
    path = tmp_path / "mixed.txt"
    path.write_bytes(data)
    expected = counting.count_files([path], pre, lines=lines, dummy_prefix=prefix, workers=1).counts
    preset = pretokenize.PRETOKENIZERS[pre]
    for span in (61, 1000, 4099):
        total = Counter()
        for start in range(0, len(data), span):
            total.update(dask_counting.count_range(str(path), start, min(start + span, len(data)), len(data), pre, lines,
                                                   prefix, preset.newline_cut))
        assert list(total.items()) == list(expected.items()), span


def _slow_count(docs, pretokenizer="gpt2"):  # a worker's block that takes long; it leaves a mark if it ever ends
    import time
    from pathlib import Path

    time.sleep(10)
    Path(docs[0]).write_text("ended")
    return Counter()


@pytest.mark.skipif(sys.platform == "win32", reason="forks")
def test_an_interrupted_count_ends_its_workers_mid_block(tmp_path, monkeypatch):
    """Ctrl-C while blocks are in flight stops the count then, not after the blocks (the CI machine waited > 60 s)."""
    monkeypatch.setattr(counting, "counter", lambda pretokenizer, size: _slow_count)  # a forked worker inherits it
    marks = [tmp_path / f"block{k}" for k in range(3)]

    def blocks():
        yield from (counting.Block([str(mark)], 1) for mark in marks)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        counting.count_blocks(blocks(), "gpt2", workers=2)
    assert not [mark.name for mark in marks if mark.exists()]  # no block ran to its end after the interrupt


# -- the compiled counter (compiled/count.py) against splits.count_pieces, order included --------------------------

compiled_count = pytest.importorskip("bpeviz.compiled.count", reason="the compiled counter needs numba")
COMPILED_SPLITS = ["gpt4", "gpt4-hf", "r2l-digits", "gpt2", "gpt2-original"]


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(st.lists(st.sampled_from(PIECES + ["'S", "ſ", "12345", "\udcff"]), max_size=30).map("".join)
                     | st.text(max_size=40), max_size=6),
       split=st.sampled_from(COMPILED_SPLITS), batch=st.sampled_from([1, 7, 1 << 22]))
def test_the_compiled_counter_counts_as_python_in_the_same_order(docs, split, batch):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(compiled_count, "BATCH_CHARS", batch)  # documents across batches: first occurrences kept in order
        got = compiled_count.count_pieces(docs, split)
    assert list(got.items()) == list(pretokenize.count_pieces(docs, split).items())


@pytest.mark.parametrize("split", COMPILED_SPLITS)
def test_the_compiled_counter_counts_every_shipped_text_as_python(split):
    docs = [line for name in corpora.CORPORA for line in corpora.corpus_text(name).splitlines()] + ["x " + "7" * 100_001]
    assert list(compiled_count.count_pieces(docs, split).items()) == list(pretokenize.count_pieces(docs, split).items())


def test_a_big_count_uses_the_compiled_counter_where_it_serves_the_split(tmp_path, monkeypatch):
    assert bpeviz.engine.warm()
    used = []
    real = compiled_count.count_pieces
    monkeypatch.setattr(compiled_count, "count_pieces", lambda docs, split: used.append(split) or real(docs, split))
    path = tmp_path / "big.txt"
    path.write_text("\n".join(corpora.corpus_text(name) for name in corpora.CORPORA), encoding="utf-8")
    table = counting.count_files([path], "gpt4", workers=1)
    assert used and set(used) == {"gpt4"}
    with path.open(encoding="utf-8") as f:
        assert list(table.counts.items()) == list(pretokenize.count_pieces([f.read()], "gpt4").items())
    used.clear()
    counting.count_files([path], "o200k", workers=1)  # a split the kernel does not write out: Python counts
    assert used == []
