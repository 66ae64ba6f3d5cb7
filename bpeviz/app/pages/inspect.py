"""Inspect a tokenizer page: its training mix read from the order of its merges, its unreachable tokens, how it cuts numbers.

The library does the work (bpeviz/inspect.py); this page picks the tokenizer and the categories and draws.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import bpeviz
from bpeviz.app import inspecting, runs, sidebar, state, views
from bpeviz.app.i18n import bound, error_text, num, t
from bpeviz.lessons import published, render, sources
from bpeviz.pretrained.encodings import ENCODINGS

CHOICES = state.INSPECTED  # the lesson's own tokenizer, then the real ones (kept in the address as itok=)
LESSON, REAL = CHOICES[0], CHOICES[1:]
EXTRA, CATEGORIES, DEFAULT_CATEGORIES = inspecting.EXTRA, inspecting.CATEGORIES, list(inspecting.DEFAULT_CATEGORIES)
MERGE_CHOICES = (500, 1000, 2000, 4000)
KNOWN_MIXES = inspecting.KNOWN_MIXES
NUMBERS = 10_000  # the number lab draws 0 .. 9 999


def category_label(code: str, language: str | None = None) -> str:
    return t(f"inspect_cat_{code}", language) if code in EXTRA else t(f"udhr_{code}", language)


def chosen_tokenizer() -> tuple[str, object] | None:
    name = st.radio(t("inspect_which"), CHOICES, horizontal=True,
                    **state.bind("inspect_tok", inspecting.DEFAULT_TOKENIZER, CHOICES),
                    format_func=bound(lambda k, lg: t("inspect_lesson", lg) if k == LESSON else ENCODINGS[k].label))
    if name != LESSON:
        return name, views.reference(name)
    lesson = sidebar.current()
    tok = runs.for_page(lesson)
    if tok is None or lesson.source is None:
        return None
    if not isinstance(tok, bpeviz.Tokenizer) or tok.level != "bytes":
        st.info(t("inspect_needs_bytes"))
        if isinstance(tok, bpeviz.Tokenizer):  # the default lesson trains on characters: one click retrains it on bytes
            st.button(t("inspect_use_bytes"), key="inspect_use_bytes", on_click=sidebar.use_bytes, args=("why_inspect_bytes",))
        return None
    return f"lesson-{sources.digest(lesson.source)}-{hash(lesson.settings)}", tok


def weights_chart(weights: dict[str, float]) -> None:
    table = pd.DataFrame({"category": [category_label(c) for c in weights], "share": list(weights.values())})
    chart = alt.Chart(table).mark_bar().encode(
        y=alt.Y("category:N", sort="-x", title=None, axis=alt.Axis(labelLimit=240)),
        x=alt.X("share:Q", axis=alt.Axis(format="%"), title=t("inspect_share"), scale=alt.Scale(domain=[0, 1])),
        tooltip=[alt.Tooltip("category:N", title=t("inspect_category")),
                 alt.Tooltip("share:Q", format=".1%", title=t("inspect_share"))])
    views.chart(chart.properties(height=alt.Step(24)))


def mixture_section(key: str, tok: object) -> None:
    st.subheader(t("inspect_mix_title"))
    st.caption(t("inspect_mix_caption"))
    picked = st.multiselect(t("inspect_categories"), list(CATEGORIES), format_func=bound(category_label),
                            **state.bind("inspect_cats", DEFAULT_CATEGORIES, list(CATEGORIES)))
    n = st.select_slider(t("inspect_merges"), MERGE_CHOICES, **state.bind("inspect_n", inspecting.DEFAULT_MERGES, MERGE_CHOICES),
                         format_func=bound(lambda v, lg: num(v, ",", lg)))
    if len(picked) < 2:
        st.info(t("inspect_pick_two"))
        return
    with st.spinner(t("inspect_working")):
        try:
            weights, outcome, used = inspecting.mixture(key, tuple(picked), int(n), tok, runs.budget().watch())
        except ValueError as exc:
            st.error(render.md(error_text(exc)))
            return
    weights_chart(weights)
    st.caption(t("inspect_lp", status=t(f"inspect_lp_{outcome}"), used=used, n=int(n)))
    with st.expander(t("inspect_known_title")):
        which = st.radio(t("inspect_known_mix"), list(KNOWN_MIXES), horizontal=True,
                         **state.bind("inspect_known", inspecting.DEFAULT_KNOWN, list(KNOWN_MIXES)))
        table = inspecting.known_answer(which, runs.mix_run, runs.budget().watch())
        views.table(pd.DataFrame({t("col_language"): [t(f"udhr_{g}") for g in table.lang],
                                   t("inspect_truth"): [num(v, ".1%") for v in table.truth],
                                   t("inspect_inferred"): [num(v, ".1%") for v in table.inferred]}))
        st.caption(t("inspect_known_caption"))


def junk_section(key: str, tok: object) -> None:
    st.subheader(t("inspect_junk_title"))
    st.caption(t("inspect_junk_caption"))
    with st.spinner(t("inspect_working")):
        unreachable, n_merged, unused, whole_only = inspecting.junk(key, tok)
    if whole_only:
        st.caption(t("inspect_not_merges", n=whole_only))
    row = st.container(horizontal=True)  # wraps on a narrow screen or in classroom mode: no label is cut
    row.metric(t("inspect_merged"), num(n_merged, ","), width="content")
    row.metric(t("inspect_unreachable"), num(len(unreachable), ","), width="content")
    row.metric(t("inspect_unused"), f"{len(unused) / max(n_merged, 1):.0%}", width="content")
    if unreachable:
        # a tiktoken Encoding or a bpeviz tokenizer
        spell = getattr(tok, "decode_single_token_bytes", None) or tok.token_of  # type: ignore[attr-defined]
        views.chips([(i, spell(i)) for i in unreachable[:60]], show_ids=True)
    step = max(1, n_merged // 40)
    lowest = min(unused, default=0)
    rows = pd.DataFrame({"rank": [lowest + (i - lowest) // step * step for i in unused]}).value_counts().reset_index()
    if len(rows):
        chart = alt.Chart(rows).mark_bar().encode(
            x=alt.X("rank:Q", title=t("inspect_rank"), scale=alt.Scale(domain=[lowest, lowest + n_merged])),
            y=alt.Y("count:Q", title=t("inspect_unused_count")))
        views.chart(chart.properties(height=220))


def number_section() -> None:
    st.subheader(t("inspect_numbers_title"))
    st.caption(t("inspect_numbers_caption"))
    text = st.text_input(t("inspect_number"), max_chars=60, **state.bind("inspect_number", "1234567 and 31415926"))
    rows = []
    for name in REAL:
        enc = views.reference(name)
        pieces = [render.show(enc.decode_single_token_bytes(i)) for i in enc.encode_ordinary(text)]
        rows.append({t("col_tokenizer"): ENCODINGS[name].label, t("inspect_pieces"): " | ".join(pieces)})
    for split in ("gpt4", "r2l-digits"):
        rows.append({t("col_tokenizer"): t(f"inspect_split_{split}"),
                     t("inspect_pieces"): " | ".join(bpeviz.split_text(text, split))})
    views.table(pd.DataFrame(rows))
    name = st.selectbox(t("inspect_heat_which"), REAL, format_func=lambda k: ENCODINGS[k].label,
                        **state.bind("inspect_heat", "gpt2", REAL))
    views.chart(number_heatmap(name).properties(height=alt.Step(5)))


def published_section() -> None:
    """The real tokenizers' mixes as read here (named data: lessons/published.py), beside the paper's figures."""
    with st.expander(t("inspect_paper_title")):
        kinds = {"english": t("inspect_paper_english"), "other": t("inspect_paper_other"), "code": t("inspect_paper_code")}
        rows = [{"tokenizer": ENCODINGS[name].label, "kind": label, "share": getattr(reading, kind) / 100, "order": k}
                for name, reading in published.READINGS.items() for k, (kind, label) in enumerate(kinds.items())]
        chart = alt.Chart(pd.DataFrame(rows)).mark_bar().encode(
            y=alt.Y("tokenizer:N", sort=None, title=None, axis=alt.Axis(labelLimit=240)),
            x=alt.X("share:Q", stack="zero", axis=alt.Axis(format="%"), title=t("inspect_share"), scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("kind:N", sort=list(kinds.values()), title=None, legend=alt.Legend(orient="top")),
            order=alt.Order("order:Q"), tooltip=[alt.Tooltip("tokenizer:N", title=t("col_tokenizer")),
                                                 alt.Tooltip("kind:N", title=t("inspect_category")),
                                                 alt.Tooltip("share:Q", format=".1%", title=t("inspect_share"))])
        views.chart(chart.properties(height=alt.Step(28)))
        paper = [{t("col_tokenizer"): ENCODINGS[name].label,
                  t("inspect_paper_here"): f"{num(getattr(r, r.paper_kind) / 100, '.1%')} {kinds[r.paper_kind]}",
                  t("inspect_paper_says"): f"{num(r.paper_share / 100, '.0%')} {kinds[r.paper_kind]}"}
                 for name, r in published.READINGS.items() if r.paper_share is not None]
        views.table(pd.DataFrame(paper))
        st.caption(t("inspect_paper_caption", merges=published.MERGES))


@st.cache_data(max_entries=4, show_spinner=False)
def number_table(name: str) -> pd.DataFrame:
    enc = views.reference(name)
    return pd.DataFrame({"hundreds": [n // 100 for n in range(NUMBERS)], "units": [n % 100 for n in range(NUMBERS)],
                         "tokens": [len(enc.encode_ordinary(str(n))) for n in range(NUMBERS)]})


def number_heatmap(name: str) -> alt.Chart:
    return alt.Chart(number_table(name)).mark_rect().encode(
        x=alt.X("units:O", title=t("inspect_units"), axis=alt.Axis(values=list(range(0, 100, 10)))),
        y=alt.Y("hundreds:O", title=t("inspect_hundreds"), axis=alt.Axis(values=list(range(0, 100, 10)))),
        color=alt.Color("tokens:O", title=t("inspect_tokens"), scale=alt.Scale(scheme="blues")),
        tooltip=[alt.Tooltip("hundreds:O", title=t("inspect_hundreds")), alt.Tooltip("units:O", title=t("inspect_units")),
                 alt.Tooltip("tokens:Q", title=t("inspect_tokens"))])


st.title(t("inspect_title"))
st.caption(t("inspect_caption"))
picked_tok = chosen_tokenizer()
mix_slot = st.container()  # first on the page, drawn last: the quick sections show while the mix is inferred
if picked_tok is not None:
    junk_section(*picked_tok)
number_section()
published_section()
if picked_tok is not None:
    with mix_slot:
        mixture_section(*picked_tok)
