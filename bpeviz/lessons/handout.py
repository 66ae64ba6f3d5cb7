"""A lesson as a printable page: its merge table, its corpus as the merges cut it, and its sentence's trace.

One self-contained HTML file (its own styles, nothing fetched), every text from the corpus escaped. The app's
"Printable handout" and `bpeviz handout LESSON -o handout.html` both write it; the labels come in the
interface language from the app, in English from the command line.

Example: Path("handout.html").write_text(handout.page(tok, docs, step=12, sentence="o gato subiu no"))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape

from bpeviz.models.bpe import Tokenizer

from . import render

MAX_ROWS = 500  # merge-table rows on paper
MAX_CORPUS_CHARS = 4_000  # corpus shown, cut at a document's end
MAX_SENTENCE = 300

LABELS = {  # English; the app passes its own strings (key "handout_<name>")
    "title": "How BPE learns: the lesson",
    "settings": "{corpus} · level {level} · split {split} · tie rule {rule} · {base} base symbols + {merges} merges",
    "table": "The merge table",
    "cols": "#|merge|new token|count",
    "rows_cut": "The first {shown} of {n} merges.",
    "corpus": "The corpus after {n} merges",
    "corpus_cut": "The first {shown} of {total} characters.",
    "trace": "Encoding “{sentence}”",
    "trace_cols": "step|merge|pieces|tokens",
    "start": "start",
    "footer": "Made by bpeviz from a lesson file: the same corpus and settings give the same merges on any machine.",
}

STYLE = """
body { font: 11pt/1.45 system-ui, sans-serif; color: #000; margin: 1.5cm; }
h1 { font-size: 18pt; margin: 0 0 .2em; } h2 { font-size: 13pt; margin: 1.2em 0 .4em; }
.meta, .note, footer { color: #333; font-size: 9.5pt; }
table { border-collapse: collapse; width: 100%; font-size: 10pt; }
th, td { border-bottom: 1px solid #999; padding: .15em .5em; text-align: left; vertical-align: top; }
th { border-bottom: 2px solid #000; } tr { break-inside: avoid; }
.tok, td.mono { font-family: ui-monospace, Menlo, Consolas, monospace; }
.doc { margin: 0 0 .5em; line-height: 2; }
.tok { border: 1px solid #555; border-radius: 3px; padding: 0 .15em; margin-right: .15em; white-space: pre; }
@media print { body { margin: 0; } h2 { break-after: avoid; } }
"""


def _fill(labels: Mapping[str, str], key: str, **values: object) -> str:
    return escape(str(labels.get(key, LABELS[key])).format(**values))


def _chips(pieces: Iterable) -> str:
    return "".join(f'<span class="tok">{escape(render.show(p))}</span>' for p in pieces)


def merge_table(tok: Tokenizer, step: int, labels: Mapping[str, str]) -> str:
    """2. The table: one row per merge up to the lesson's step (all of them at step 0)."""
    n = step or len(tok.merges)
    head = "".join(f"<th>{escape(c)}</th>" for c in str(labels.get("cols", LABELS["cols"])).split("|"))
    rows = "".join(f'<tr><td>{m.rank}</td><td class="mono">{escape(render.show(m.left))} + {escape(render.show(m.right))}</td>'
                   f'<td class="mono">{escape(render.show(m.token))}</td><td>{m.count or "–"}</td></tr>'
                   for m in tok.merges[:min(n, MAX_ROWS)])
    cut = f'<p class="note">{_fill(labels, "rows_cut", shown=MAX_ROWS, n=n)}</p>' if n > MAX_ROWS else ""
    return f"<h2>{_fill(labels, 'table')}</h2><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{cut}"


def corpus(tok: Tokenizer, documents: Sequence[str], step: int, labels: Mapping[str, str]) -> str:
    """3. The corpus as the first `step` merges cut it, a line per document."""
    cut_tok = tok.truncated(step) if step else tok
    shown, out = 0, []
    for doc in documents:
        if shown and shown + len(doc) > MAX_CORPUS_CHARS:
            break
        doc = doc[:MAX_CORPUS_CHARS]
        out.append(f'<div class="doc">{_chips(cut_tok.token_of(i) for i in cut_tok.encode_ordinary(doc))}</div>')
        shown += len(doc)
    total = sum(len(d) for d in documents)
    note = f'<p class="note">{_fill(labels, "corpus_cut", shown=shown, total=total)}</p>' if shown < total else ""
    return f"<h2>{_fill(labels, 'corpus', n=step or len(tok.merges))}</h2>{''.join(out)}{note}"


def trace(tok: Tokenizer, sentence: str, step: int, labels: Mapping[str, str]) -> str:
    """4. The sentence, one row per merge that fires on it."""
    sentence = sentence[:MAX_SENTENCE]
    if not sentence:
        return ""
    steps = (tok.truncated(step) if step else tok).trace(sentence)
    head = "".join(f"<th>{escape(c)}</th>" for c in str(labels.get("trace_cols", LABELS["trace_cols"])).split("|"))
    rows = []
    for k, s in enumerate(steps):
        merge = _fill(labels, "start") if s.merge is None else \
            f"#{s.merge.rank}: {escape(render.show(s.merge.left))} + {escape(render.show(s.merge.right))}"
        rows.append(f"<tr><td>{k}</td><td class=\"mono\">{merge}</td><td>{_chips(s.pieces)}</td><td>{len(s.pieces)}</td></tr>")
    return f"<h2>{_fill(labels, 'trace', sentence=sentence)}</h2><table><thead><tr>{head}</tr></thead>" \
           f"<tbody>{''.join(rows)}</tbody></table>"


def page(tok: Tokenizer, documents: Sequence[str], *, step: int = 0, sentence: str = "", corpus_name: str = "",
         labels: Mapping[str, str] | None = None, language: str = "en") -> str:
    """1-4. The handout: a title and the settings, the merge table, the corpus, the sentence's trace."""
    labels = labels or {}
    step = max(0, min(int(step), len(tok.merges)))
    s = tok.settings
    meta = _fill(labels, "settings", corpus=corpus_name, level=s.level, split=s.pretokenizer, rule=s.tie_break,
                 base=tok.n_base, merges=step or len(tok.merges))
    body = (f"<h1>{_fill(labels, 'title')}</h1><p class=\"meta\">{meta}</p>{merge_table(tok, step, labels)}"
            f"{corpus(tok, documents, step, labels)}{trace(tok, sentence, step, labels)}"
            f"<footer><p>{_fill(labels, 'footer')}</p></footer>")
    return (f'<!doctype html><html lang="{escape(language)}"><head><meta charset="utf-8"><title>{_fill(labels, "title")}'
            f"</title><style>{STYLE}</style></head><body>{body}</body></html>\n")
