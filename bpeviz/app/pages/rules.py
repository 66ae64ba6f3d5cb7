"""Rules page: two rule sets trained side by side (where they part ways, and why), and a checker for hand-worked tables."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pandas as pd
import streamlit as st

import bpeviz
from bpeviz.app import runs, sidebar, state, views
from bpeviz.app.i18n import bound, error_text, t, tie_name
from bpeviz.core import rules
from bpeviz.core.records import Settings
from bpeviz.lessons import checker, compare, render, sources
from bpeviz.trainers.settings import resolve_settings

SIDEBAR = "sidebar"
EXAMPLES = ("correct", "ties", "wrong")  # corpora/tables/toy_<name>.txt, worked on the toy corpus
CONTEXT = 4  # merges shown before and after the first difference
MAX_COMPARED = 5_000  # merges each side makes at most (two trainings per change)


def side_settings(side: str, base: Settings, merges: int, source: sources.CorpusSource) -> Settings:
    """The settings one side picked (a dialect or the sidebar's, its own tie and counting rule), making `merges` merges.

    Each side's vocabulary is its own base symbols plus the page's merges, so that a byte-level dialect
    beside the toy corpus's 23 characters still makes 41 merges (the sidebar's 64 is less than 256 bytes).
    """
    ss = st.session_state
    dialect = ss.get(f"cmp_{side}_dialect", SIDEBAR)
    if dialect == SIDEBAR:
        settings = resolve_settings(base.vocab_size, level=base.level, pretokenizer=base.pretokenizer,
                                             tie_break=ss.get(f"cmp_{side}_tie"), count_rule=ss.get(f"cmp_{side}_count"))
    else:
        settings = resolve_settings(base.vocab_size, level=None,
                                             pretokenizer=base.pretokenizer if dialect == "hf" else None,
                                             tie_break=ss.get(f"cmp_{side}_tie"), count_rule=ss.get(f"cmp_{side}_count"),
                                             dialect=dialect)
    return replace(settings, vocab_size=base_symbols(settings, source) + merges)


def base_symbols(settings: Settings, source: sources.CorpusSource) -> int:
    """How many symbols a run starts from: 256 bytes, or the corpus's characters as this split sees them."""
    if settings.level == "bytes":
        return 256
    return len({ch for word in runs.words(sources.digest(source), settings, source) for ch in word})


def _on_dialect(side: str) -> None:
    """A dialect brings its own tie and counting rule into the side's boxes."""
    name = st.session_state[f"cmp_{side}_dialect"]
    if name != SIDEBAR:
        theirs = resolve_settings(1, dialect=name)
        st.session_state[f"cmp_{side}_tie"] = theirs.tie_break
        st.session_state[f"cmp_{side}_count"] = theirs.count_rule


def side_picker(side: str, column, defaults: tuple[str, str]) -> None:
    ss = st.session_state
    ss.setdefault(f"cmp_{side}_dialect", SIDEBAR)
    ss.setdefault(f"cmp_{side}_tie", defaults[0])
    ss.setdefault(f"cmp_{side}_count", defaults[1])
    with column:
        st.markdown(f"**{t('run_' + side)}**")
        st.selectbox(t("rule_set"), [SIDEBAR, *rules.DIALECTS], key=f"cmp_{side}_dialect", on_change=_on_dialect, args=(side,),
                     format_func=bound(lambda k, lg: t("sidebar_rules", lg) if k == SIDEBAR else str(k)))
        st.selectbox(t("tie_break"), list(rules.TIE_RULES), key=f"cmp_{side}_tie", format_func=bound(tie_name))
        st.selectbox(t("count_rule"), list(rules.COUNT_RULES), key=f"cmp_{side}_count", format_func=bound(
            lambda k, lg: t(f"count_{k}", lg)))


def divergence_sentence(d: compare.Divergence, a: Settings, b: Settings) -> str:
    if d.step is None:
        return t("cmp_same", n=d.agree_before)
    # the pairs exist once a step differs
    pa, pb = (render.code(f"{x} + {y}") for x, y in (d.pair_a, d.pair_b))  # type: ignore[misc]
    # the pair whose count the two runs see most differently: what the difference in splitting did
    (ca, da), (cb, db) = (d.counts_a[0], d.counts_b[0]), (d.counts_a[1], d.counts_b[1])
    pair, in_a, in_b = (pa, ca, da) if abs(ca - da) >= abs(cb - db) else (pb, cb, db)
    why = t(f"cmp_why_{d.kind}", pa=pa, pb=pb, ca=ca, cb=cb, da=da, db=db, pair=pair, in_a=in_a, in_b=in_b,
            rule_a=render.code(tie_name(a.tie_break)), rule_b=render.code(tie_name(b.tie_break)),
            count_a=t(f"count_{a.count_rule}"), count_b=t(f"count_{b.count_rule}"), split_a=render.code(a.pretokenizer),
            split_b=render.code(b.pretokenizer), level_a=t(f"level_{a.level}"), level_b=t(f"level_{b.level}"))
    return t("cmp_diverge" if d.agree_before else "cmp_diverge_first", step=d.step, pa=pa, pb=pb, why=why,
             before=d.agree_before, same=d.same_rank_after, later=d.later, shared=d.shared_after)


def side_by_side(a: bpeviz.Tokenizer, b: bpeviz.Tokenizer, step: int | None) -> None:
    centre = step or 1
    ranks = range(max(1, centre - CONTEXT), min(max(len(a.merges), len(b.merges)), centre + CONTEXT) + 1)
    def cell(tok: bpeviz.Tokenizer, r: int) -> str:
        return render.merge_text(tok.merges[r - 1]) + f"  ({tok.merges[r - 1].count})" if r <= len(tok.merges) else ""

    table = pd.DataFrame({t("col_rank"): list(ranks), t("run_a"): [cell(a, r) for r in ranks],
                          t("run_b"): [cell(b, r) for r in ranks]})
    views.table(table, highlight=lambda row: row.iloc[0] == step)


def sidebar_merges(lesson: sidebar.Lesson) -> int:
    """The merges the sidebar's vocabulary makes on its corpus (the page compares as many, to start with)."""
    if lesson.source is None:
        return 40
    try:
        return max(1, min(MAX_COMPARED, lesson.settings.vocab_size - base_symbols(lesson.settings, lesson.source)))
    except ValueError:
        return 40


def compare_section(lesson: sidebar.Lesson) -> None:
    st.subheader(t("compare_title"))
    st.caption(t("compare_caption"))
    if lesson.source is None or sources.is_replay(lesson.source):
        st.info(t("compare_needs_corpus"))
        return
    left, right = st.columns(2)
    side_picker("a", left, ("first", "overlapping"))
    side_picker("b", right, ("smallest", "overlapping"))
    try:
        merges = int(st.number_input(t("cmp_merges"), 1, MAX_COMPARED, help=t("cmp_merges_help"),
                                     **state.bind("cmp_merges", sidebar_merges(lesson))))
        settings_a = side_settings("a", lesson.settings, merges, lesson.source)
        settings_b = side_settings("b", lesson.settings, merges, lesson.source)
        a, b = runs.run(lesson.source, settings_a), runs.run(lesson.source, settings_b)
    except ValueError as exc:
        st.error(render.md(error_text(exc)))
        return
    digest = sources.digest(lesson.source)
    words_a = Counter(runs.words(digest, settings_a, lesson.source))
    words_b = Counter(runs.words(digest, settings_b, lesson.source))
    d = compare.first_divergence(a, b, words_a, words_b)
    (st.success if d.step is None else st.info)(divergence_sentence(d, settings_a, settings_b))
    side_by_side(a, b, d.step)


def _load_example(name: str) -> None:
    from bpeviz.data import corpora

    text = (corpora.CORPORA_DIR / "tables" / f"toy_{name}.txt").read_text(encoding="utf-8")
    st.session_state.check_table = "\n".join(line for line in text.splitlines() if not line.startswith("#"))  # notes in English


VERDICT_MARKS = {"right": "✓", "tie": "✓", "wrong": "✗", "impossible": "⛔"}


def verdict_rows(verdicts: list[checker.Verdict]) -> pd.DataFrame:
    show = render.show
    return pd.DataFrame({
        t("col_line"): [v.row.line for v in verdicts],
        t("col_merge"): [f"{show(v.row.left)} + {show(v.row.right)}" for v in verdicts],
        t("col_verdict"): [f"{VERDICT_MARKS[v.status]} {t('verdict_' + v.status)}" for v in verdicts],
        t("col_count"): [v.count for v in verdicts],
        t("col_rule_takes"): [f"{show(v.best[0])} + {show(v.best[1])} ({v.best[2]})" if v.best else "" for v in verdicts],
        t("col_note"): [t("count_written", written=v.row.count, real=v.count) if v.count_written_wrong else "" for v in verdicts],
    })


def checker_section(lesson: sidebar.Lesson) -> None:
    st.subheader(t("checker_title"))
    st.caption(t("checker_caption"))
    row = st.container(horizontal=True)
    for name in EXAMPLES:
        row.button(t(f"example_{name}"), key=f"example_{name}", on_click=_load_example, args=(name,))
    text = st.text_area(t("check_table_label"), height=180, max_chars=200_000, **state.bind("check_table", ""),
                        placeholder="␣ + n 7\n␣n + o 7\nt + o 6")
    if not text.strip():
        return
    if lesson.source is None or sources.is_replay(lesson.source):
        st.info(t("compare_needs_corpus"))
        return
    try:
        rows = checker.parse_table(text, lesson.settings.level)
        verdicts = checker.check_table(rows, lesson.source.documents(), lesson.settings, progress=runs.budget().watch())
    except ValueError as exc:
        st.error(render.md(error_text(exc)))
        return
    bad = next(((k, v) for k, v in enumerate(verdicts, start=1) if not v.ok), None)
    if bad is None:
        st.success(t("check_all_right", n=len(verdicts)))
    else:  # the merge's number, as `bpeviz check` says it: a box and a file may number their lines differently
        st.error(t("check_first_bad", merge=bad[0], line=bad[1].row.line, status=t("verdict_" + bad[1].status)))
    views.table(verdict_rows(verdicts))
    last = verdicts[-1]
    if last.status == "impossible" and last.best:
        options = [f"{render.show(last.best[0])} + {render.show(last.best[1])}", *(f"{render.show(x)} + {render.show(y)}"
                                                                                 for x, y in last.tied)]
        st.info(t("check_alternatives", pairs=", ".join(render.code(o) for o in options), count=last.best[2]))


st.title(t("rules_title"))
lesson = sidebar.current()
compare_section(lesson)
checker_section(lesson)
