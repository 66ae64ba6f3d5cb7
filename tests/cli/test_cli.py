"""The bpeviz command: output formats, exports, and one clear line with exit 2 on bad input."""

import json
import re
import subprocess
import sys

import pytest

import bpeviz
from bpeviz import cli
from bpeviz.data import corpora


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpeviz.cli", *args], capture_output=True, text=True, input=stdin)


@pytest.fixture(scope="module")
def toy_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "toy.txt"
    path.write_text("\n".join(corpora.documents("toy_pt")) + "\n", encoding="utf-8")
    return path


def test_train_prints_aligned_readable_lines_and_minbpe_literals(tmp_path):
    path = tmp_path / "alice.txt"
    path.write_text(corpora.corpus_text("english"), encoding="utf-8")
    out = run("train", str(path), "--vocab-size", "260", "--pretokenizer", "none")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 4
    assert re.fullmatch(r"merge   1: e \+ ␣ +-> e␣ +\(occurred 4,433 times\)", lines[0]), lines[0]
    assert len({line.index("->") for line in lines}) == 1 and len({line.index("(") for line in lines}) == 1  # aligned
    literal = run("train", str(path), "--vocab-size", "260", "--pretokenizer", "none", "--bytes").stdout.splitlines()
    assert re.fullmatch(r"merge   1: b'e' \+ b' ' +-> b'e ' +\(occurred 4,433 times\)", literal[0]), literal[0]
    assert "b'\\xe2' + b'\\x80'" in literal[2] and len({line.index("->") for line in literal}) == 1


def test_train_chars_lines_json_and_save(toy_file, tmp_path):
    out = run("train", str(toy_file), "--vocab-size", "64", "--level", "chars", "--lines", "-o", str(tmp_path / "tok.json"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith("merge   1: ␣ + n")
    assert out.stdout.splitlines()[-1].startswith("merge  41: ␣su + b")
    rows = [json.loads(line) for line in run("train", str(toy_file), "--vocab-size", "64", "--level", "chars", "--lines",
                                              "--json").stdout.splitlines()]
    assert rows[0] == {"rank": 1, "left": " ", "right": "n", "token": " n", "id": 23, "count": 7}
    trace = run("encode", "--tokenizer", str(tmp_path / "tok.json"), "--trace", "o gato subiu no")
    assert trace.returncode == 0
    assert trace.stdout.splitlines()[0].endswith("(15 pieces)")
    assert "o ␣gato ␣sub iu ␣no  (5 pieces)" in trace.stdout.splitlines()[-1]


def test_encode_with_a_real_encoding():
    out = run("encode", "--encoding", "cl100k_base", "hello world")
    assert out.returncode == 0 and out.stdout.splitlines() == ["hello ␣world", "15339 1917"]


def test_export_and_import_round_trip(toy_file, tmp_path):
    assert run("train", str(toy_file), "--vocab-size", "300", "--lines", "-o", str(tmp_path / "b.json")).returncode == 0
    for fmt in ("tiktoken", "hf", "csv", "vocab"):
        out = run("export", str(tmp_path / "b.json"), "--format", fmt, "-o", str(tmp_path / f"out.{fmt}"))
        assert out.returncode == 0, out.stderr
    assert (tmp_path / "out.tiktoken.json").exists()
    imported = run("import", str(tmp_path / "out.hf"), "--show", "3")
    assert imported.returncode == 0 and len(imported.stdout.splitlines()) == 3
    assert imported.stdout.splitlines()[0].startswith("merge   1: ␣ + n")
    assert imported.stdout.splitlines()[0].endswith("(count unknown)")  # a tokenizer.json holds no counts


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "missing.txt", "--vocab-size", "300"], "no such file"),
        (["train", "{toy}", "--vocab-size", "10", "--level", "chars"], "choose at least"),
        (["train", "{empty}", "--vocab-size", "300"], "empty"),
        (["train", "{toy}", "--vocab-size", "300", "--pretokenizer", "(unclosed"], "does not compile"),
        (["train", "{binary}", "--vocab-size", "40", "--level", "chars"], "not valid UTF-8"),
        (["encode", "hello"], "--tokenizer"),
        (["encode", "--tokenizer", "{toy}", "x"], "not a JSON file"),
        (["export", "{toy}", "--format", "csv"], "not a JSON file"),
        (["import", "{toy}"], "not a tokenizer file"),
    ],
)
def test_bad_input_one_clear_line_exit_2(args, message, toy_file, tmp_path):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "binary.bin").write_bytes(b"\xff\xfe\x00abc")
    args = [a.format(toy=toy_file, empty=tmp_path / "empty.txt", binary=tmp_path / "binary.bin") for a in args]
    out = run(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpeviz: error:") and message in lines[0], out.stderr


def test_main_is_importable_and_returns_codes(toy_file, capsys):
    assert cli.main(["encode", "--encoding", "gpt2", "hi"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "5303"


def test_check_says_right_wrong_or_bad_input_by_exit_code(toy_file, tmp_path):
    tables = corpora.CORPORA_DIR / "tables"
    right = run("check", str(tables / "toy_correct.txt"), "--corpus", str(toy_file), "--lines", "--level", "chars")
    assert right.returncode == 0 and right.stdout.count("— right") == 41
    ties = run("check", str(tables / "toy_ties.txt"), "--corpus", str(toy_file), "--lines")
    assert ties.returncode == 0 and "a tie at" in ties.stdout
    wrong = run("check", str(tables / "toy_wrong.txt"), "--corpus", str(toy_file), "--lines")
    assert wrong.returncode == 1 and "merge 5 (line 6): d + o — wrong" in wrong.stdout  # the app's box says merge 5 too
    assert "merge 5 (line 6) is wrong" in wrong.stderr
    (tmp_path / "t.csv").write_text("left,right,count\n␣,n,7\n n,o,7\n")
    assert run("check", str(tmp_path / "t.csv"), "--corpus", str(toy_file), "--lines", "--level", "chars").returncode == 0
    (tmp_path / "bad.txt").write_text("this is not a table\n")
    bad = run("check", str(tmp_path / "bad.txt"), "--corpus", str(toy_file), "--lines")
    assert bad.returncode == 2 and bad.stderr.startswith("bpeviz: error: Line 1") and bad.stderr.count("\n") == 1


def test_train_takes_a_counting_rule_and_a_dialect(toy_file):
    out = run("train", str(toy_file), "--lines", "--vocab-size", "30", "--dialect", "sentencepiece-bpe", "--json")
    assert out.returncode == 0 and json.loads(out.stdout.splitlines()[0])["token"] == " o"  # every word keeps its space
    runs = run("train", str(toy_file), "--vocab-size", "30", "--level", "chars", "--count-rule", "nonoverlapping")
    assert runs.returncode == 0 and runs.stdout.startswith("merge   1:")


def test_wordpiece_from_the_command_line_shows_scores_and_what_bpe_would_take(toy_file, tmp_path):
    saved = str(tmp_path / "wp.json")
    out = run("train", str(toy_file), "--lines", "--algorithm", "wordpiece", "--vocab-size", "40", "-o", saved)
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("merge   1: ##f + ##á") and "score 0.333" in first and "BPE would take ␣ + ##n, 7 times" in first
    as_json = run("train", str(toy_file), "--lines", "--algorithm", "wordpiece", "--vocab-size", "30", "--json")
    row = json.loads(as_json.stdout.splitlines()[0])
    assert (row["token"], row["count"]) == ("##fá", 2) and abs(row["score"] - 1 / 3) < 1e-12
    encoded = run("encode", "--tokenizer", str(tmp_path / "wp.json"), "o gato")
    assert encoded.returncode == 0 and encoded.stdout.splitlines()[0] == "o ␣ ##gat ##o"  # 40 tokens: "##gato" not yet
    traced = run("encode", "--tokenizer", str(tmp_path / "wp.json"), "--trace", "o gato")
    assert traced.returncode == 2 and "replays BPE merges; this is a wordpiece tokenizer" in traced.stderr


@pytest.mark.slow  # the CLI's Unigram training stays in the quick run
def test_unigram_from_the_command_line_logs_its_rounds_and_exports_for_hf(tmp_path):
    path = tmp_path / "alice.txt"
    path.write_text(corpora.corpus_text("english")[:60_000], encoding="utf-8")
    out = run("train", str(path), "--lines", "--algorithm", "unigram", "--vocab-size", "300", "-o", str(tmp_path / "ug.json"))
    assert out.returncode == 0, out.stderr
    rounds = [line for line in out.stderr.splitlines() if line.startswith("round")]
    assert len(rounds) >= 2 and re.match(r"round  1: [\d,]+ -> [\d,]+ pieces, log-likelihood -[\d,]+", rounds[0])
    pieces = out.stdout.splitlines()
    assert len(pieces) == 300 and pieces[0].startswith("piece    0: ")
    exported = run("export", str(tmp_path / "ug.json"), "--format", "hf", "-o", str(tmp_path / "tokenizer.json"))
    assert exported.returncode == 0, exported.stderr
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    import bpeviz

    tok = bpeviz.load(tmp_path / "ug.json")
    assert hf.encode("Alice was beginning to get very tired", add_special_tokens=False).ids == tok.encode(
        "Alice was beginning to get very tired")
    refused = run("export", str(tmp_path / "ug.json"), "--format", "tiktoken")
    assert refused.returncode == 2 and "holds BPE merges; this is a unigram tokenizer" in refused.stderr


def test_other_algorithms_refuse_bpe_settings_in_one_line(toy_file):
    out = run("train", str(toy_file), "--algorithm", "unigram", "--level", "bytes", "--vocab-size", "40")
    assert out.returncode == 2
    assert out.stderr.strip() == "bpeviz: error: unigram works on characters here (with byte fallback); use level 'chars'."
    out = run("train", str(toy_file), "--algorithm", "wordpiece", "--tie-break", "smallest", "--vocab-size", "40")
    assert out.returncode == 2 and "tie_break are rules of BPE training; wordpiece has its own" in out.stderr
    out = run("train", str(toy_file), "--algorithm", "wordpiece", "--vocab-size", "5")
    assert out.returncode == 2 and "smaller than the" in out.stderr and "starting pieces" in out.stderr


# -- outputs: whole, never over an input, replaced only when asked (issues 43.4, 49.7) ---------------


def test_an_output_is_never_an_input_and_replaces_a_file_only_with_force(toy_file, tmp_path):
    target = tmp_path / "toy.txt"
    assert run("corpus", "toy_pt", "-o", str(target)).returncode == 0
    assert target.read_text(encoding="utf-8") == corpora.corpus_text("toy_pt")
    again = run("corpus", "english", "-o", str(target))
    assert again.returncode == 2 and "exists; add --force" in again.stderr
    assert target.read_text(encoding="utf-8").startswith("o gato")
    for args in (["train", str(target), "--vocab-size", "64", "-o"], ["count", str(target), "-o"]):
        refused = run(*args, str(target), "--force")
        assert refused.returncode == 2 and "also an input" in refused.stderr, refused.stderr
        assert target.read_text(encoding="utf-8") == corpora.corpus_text("toy_pt")  # the corpus is untouched
    assert run("corpus", "english", "-o", str(target), "--force").returncode == 0
    assert target.read_text(encoding="utf-8") == corpora.corpus_text("english")
    assert [p.name for p in tmp_path.iterdir()] == ["toy.txt"]  # no temporary file left


def test_an_interrupted_write_leaves_the_old_file_as_it_was(tmp_path):
    from bpeviz.cli.files import write_atomic

    target = tmp_path / "counts.tsv"
    target.write_text("the user's previous table\n")

    def interrupted(part):
        part.write_text("# bpeviz counts {...}\nhalf a tab")
        raise KeyboardInterrupt  # Ctrl-C while writing

    with pytest.raises(KeyboardInterrupt):
        write_atomic(str(target), interrupted)
    assert target.read_text() == "the user's previous table\n" and [p.name for p in tmp_path.iterdir()] == ["counts.tsv"]


def test_a_count_table_cut_short_is_refused(toy_file, tmp_path):
    table = tmp_path / "counts.tsv"
    assert run("count", str(toy_file), "-o", str(table)).returncode == 0
    lines = table.read_text(encoding="utf-8").splitlines(keepends=True)
    table.write_text("".join(lines[:-3]), encoding="utf-8")  # as a copy or a write that stopped early leaves it
    out = run("train", "--counts", str(table), "--vocab-size", "300")
    assert out.returncode == 2 and "incomplete" in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_the_corpus_command_lists_and_writes_the_shipped_corpora():
    listed = run("corpus")
    assert listed.returncode == 0 and "udhr-pt" in listed.stdout and "toy-table-wrong" in listed.stdout
    assert run("corpus", "toy-table-wrong").stdout.splitlines()[0].strip()
    assert run("corpus", "nope").returncode == 2


def _children(pid: int) -> list[int]:
    """The processes whose parent is pid (from /proc)."""
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGKILL"])
def test_an_interrupted_count_leaves_no_worker_behind(tmp_path, signal_name):
    import os
    import signal
    import time

    big = tmp_path / "big.txt"
    big.write_text((corpora.corpus_text("portuguese") + "\n") * 80, encoding="utf-8")  # ~30 MB: counted in processes
    command = subprocess.Popen([sys.executable, "-m", "bpeviz.cli", "count", str(big), "--workers", "4", "-o",
                                str(tmp_path / "c.tsv")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=_ctrl_c_as_at_a_terminal)
    deadline = time.monotonic() + 60
    while not (workers := _children(command.pid)) and command.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert workers, "the count started no worker"
    command.send_signal(getattr(signal, signal_name))
    command.wait(timeout=60)
    deadline = time.monotonic() + 30
    while any(os.path.exists(f"/proc/{pid}") and "(Z)" not in _state(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}") and "(Z)" not in _state(pid)]
    assert not (tmp_path / "c.tsv").exists()  # nothing half-written in its place


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a signal sent from an at-fork handler")
def test_a_ctrl_c_while_the_workers_start_stops_the_count():
    """A Ctrl-C that lands while the pool forks its workers: Python drops a KeyboardInterrupt raised inside an at-fork
    handler, and the count ran to its end (the test above found its output 1 run in 12). Sent from such a handler
    here, it must stop the count."""
    script = """
import os, signal, sys
from bpeviz.counting import blocks
os.register_at_fork(after_in_parent=lambda: (os.kill(os.getpid(), signal.SIGINT), [n * n for n in range(100_000)]))
docs = [blocks.Block(["o gato sentou no telhado. " * 2_000], 52_000) for _ in range(8)]
try:
    blocks.count_blocks(docs, "gpt2", workers=2)
except KeyboardInterrupt:
    print("interrupted")
else:
    print("finished")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         preexec_fn=_ctrl_c_as_at_a_terminal)
    assert out.stdout.strip() == "interrupted", (out.stdout, out.stderr[-2000:])


def _ctrl_c_as_at_a_terminal() -> None:
    """In the child, before Python starts: SIGINT's default action, so Python installs its KeyboardInterrupt handler
    even where the tests were started in the background (a shell's `cmd &` ignores SIGINT, and children inherit that)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _state(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0].join("()")
    except OSError:
        return "(gone)"


@pytest.mark.parametrize("lines", [True, pytest.param(False, marks=pytest.mark.slow)])  # the quick run keeps --lines
def test_train_unigram_on_a_file_is_the_library_s_unigram(tmp_path, lines):
    """Issue 42.1: the count-table path kept 80-86 % of the library's pieces (it dropped the documents' ends)."""
    import json

    text = corpora.corpus_text("english")[:60_000] + "\n\n"
    path = tmp_path / "alice.txt"
    path.write_text(text, encoding="utf-8")
    out = run("train", str(path), *(["--lines"] if lines else []), "--algorithm", "unigram", "--vocab-size", "600", "--json")
    assert out.returncode == 0, out.stderr
    pieces = [json.loads(line)["piece"] for line in out.stdout.splitlines() if line.startswith("{")]
    library = bpeviz.train(text.splitlines() if lines else text, vocab_size=600, algorithm="unigram")
    assert pieces == [p for p, _ in library.scored]


@pytest.mark.slow  # two processes that each import HiGHS and read word lists: 12 s; the library's own tests are quick
def test_infer_mix_and_audit_from_the_command_line(tmp_path):
    import json

    tok = bpeviz.train(corpora.corpus_text("english")[:20_000] + corpora.corpus_text("portuguese")[:60_000],
                       vocab_size=256 + 300, level="bytes", pretokenizer="gpt4")
    path = tmp_path / "tok.json"
    tok.save(path)
    out = run("infer-mix", str(path), "--languages", "en", "pt", "--merges", "300", "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["mix"]
    assert set(found) == {"en", "pt", "code"} and abs(sum(found.values()) - 1) < 1e-6 and found["pt"] > found["en"]
    audit = run("audit", str(path), "--json")
    assert audit.returncode == 0, audit.stderr
    assert {"unreachable", "cut", "duplicates", "never_emitted", "residue"} <= set(json.loads(audit.stdout))


@pytest.mark.slow  # GPT-2's first 2 000 merges read over 20 languages and code
def test_the_inspect_page_s_readings_are_what_infer_mix_prints():
    """The Inspect page's table of real tokenizers (lessons/published.py) is named data measured with this command;
    run again for GPT-2, it gives the same row."""
    from bpeviz.lessons import published

    out = run("infer-mix", "gpt2", "--merges", str(published.MERGES), "--json")
    assert out.returncode == 0, out.stderr
    row = published.READINGS["gpt2"]
    assert published.shares(json.loads(out.stdout)["mix"]) == pytest.approx((row.english, row.other, row.code), abs=0.15)


def _two_gigabytes() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))  # a whole read of /dev/zero fails fast, not the machine


@pytest.mark.parametrize(("args", "says"), [
    (("check", "TABLE", "--corpus", "/dev/zero"), "/dev/zero is over 500 MB"),
    (("check", "/dev/zero", "--corpus", "TOY"), "/dev/zero is over 50 MB"),
    (("import", "/dev/zero"), "/dev/zero is over 200 MB"),
    (("train", "--counts", "/dev/zero", "--vocab-size", "300"), "a line longer than 64 MB"),
])
def test_an_endless_file_is_refused_by_its_cap_not_read_whole(args, says, toy_file):
    """Issue 49.8: /dev/zero as a corpus, table, tokenizer or count table was read whole: 8 GB, then a traceback."""
    table = corpora.CORPORA_DIR / "tables" / "toy_wrong.txt"
    argv = [str(table) if a == "TABLE" else str(toy_file) if a == "TOY" else a for a in args]
    done = subprocess.run([sys.executable, "-m", "bpeviz.cli", *argv], capture_output=True, text=True, timeout=120,
                          preexec_fn=_two_gigabytes)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr[-500:]


def test_one_endless_word_without_a_split_is_bounded_like_the_default_split(tmp_path):
    """Issue 49.9: --pretokenizer none on one 100 MB word took 5.7 GB, then numpy's memory error."""
    word = tmp_path / "word.txt"
    word.write_text("a" * 9_000_000, encoding="ascii")  # past the 8 000 000 characters held between cuts
    done = subprocess.run([sys.executable, "-m", "bpeviz.cli", "train", str(word), "--pretokenizer", "none",
                           "--vocab-size", "300"], capture_output=True, text=True, timeout=300, preexec_fn=_two_gigabytes)
    assert done.returncode == 2 and "no place where a pre-token ends" in done.stderr and "Traceback" not in done.stderr
    assert "8,000,000" in done.stderr
