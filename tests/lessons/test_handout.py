"""The printable handout (lessons/handout.py): what it holds, escaped, and `bpeviz handout` on a lesson file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import unescape

import bpeviz
from bpeviz.data import corpora
from bpeviz.lessons import handout, render

HOSTILE = "<script>alert(1)</script> o gato"


def rows(page: str, table: int) -> list[list[str]]:
    """The cells of the page's table-th table, as text."""
    body = re.findall(r"<tbody>(.*?)</tbody>", page, re.S)[table]
    return [[re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_handout_holds_the_table_to_the_step_the_corpus_as_cut_and_the_trace():
    docs = corpora.documents(corpora.DEFAULT_CORPUS)
    tok = bpeviz.train(docs, vocab_size=64)
    page = handout.page(tok, docs, step=12, sentence="o gato subiu no", corpus_name="toy")
    table = rows(page, 0)
    assert len(table) == 12 and [unescape(c) for c in table[0]] == ["1", "␣ + n", "␣n", "7"]
    trace = rows(page, 1)
    cut = tok.truncated(12).trace("o gato subiu no")
    assert len(trace) == len(cut) and trace[-1][-1] == str(len(cut[-1].pieces))
    assert unescape(trace[-1][2]) == "".join(render.show(p) for p in cut[-1].pieces)
    assert page.count('<div class="doc">') == len(docs) and "http" not in page  # nothing fetched


def test_hostile_text_is_inert_and_long_runs_are_cut_and_said():
    docs = [HOSTILE * 400] * 3
    tok = bpeviz.train(docs, vocab_size=1024, level="bytes")
    page = handout.page(tok, docs, sentence=HOSTILE, corpus_name="<b>x</b>")
    assert "<script>" not in page and "<b>x" not in page and "&lt;script&gt;" in page
    assert len(rows(page, 0)) == min(len(tok.merges), handout.MAX_ROWS)
    assert "characters." in page and page.count('<div class="doc">') == 1  # the corpus cut at a document's end


def test_bpeviz_handout_prints_a_lesson_file_and_keeps_an_existing_file(tmp_path):
    lesson = tmp_path / "lesson.json"
    lesson.write_text(json.dumps({"format": "bpeviz-lesson", "version": 1, "lesson": {
        "source": "shipped", "corpus": "toy_pt", "vocab_size": 64, "step": 5, "sentence": "o cão"}}), encoding="utf-8")
    out = tmp_path / "handout.html"
    done = subprocess.run([sys.executable, "-m", "bpeviz", "handout", str(lesson), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert len(rows(page, 0)) == 5 and "Encoding “o cão”" in page
    again = subprocess.run([sys.executable, "-m", "bpeviz", "handout", str(lesson), "-o", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "--force" in again.stderr and out.read_text(encoding="utf-8") == page
    missing = subprocess.run([sys.executable, "-m", "bpeviz", "handout", str(tmp_path / "nope.json")],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and missing.stderr.startswith("bpeviz: error: no such file")
