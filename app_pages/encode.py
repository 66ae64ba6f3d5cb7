"""Encode page: replay the merges on a new sentence, then see what real tokenizers make of it."""

from __future__ import annotations

import streamlit as st

from bpeviz import render
from bpeviz.records import ENDOFTEXT, Merge
from bpeviz.tokenizer import Tokenizer
from bpeviz_app import runs, sidebar, state, stepper, views
from bpeviz_app.i18n import error_text, t

MAX_SENTENCE = 100_000  # characters encoded at all
MAX_TRACE = 2_000  # characters traced merge by merge
SUGGESTIONS = {  # key -> sentence; the button labels are interface strings "sugg_<key>"
    "subiu": "o gato subiu no",
    "unseen": "pássaro",
    "english": "The cat climbed onto the roof.",
    "emoji": "Ação e emoção no coração! 😀🇧🇷",
    "number": "Em 2024 eram 1234567 gatos, ou 3.14159 por telhado.",
    "python": "        return self.cache[key]",
}


def _suggest(sentence: str) -> None:
    st.session_state.sentence = sentence
    _show_whole_trace()


def _show_whole_trace() -> None:
    st.session_state.trace_step = state.MAX_STEP  # clamped to the trace's length


def pair_text(merge: Merge) -> str:
    return f"{render.show(merge.left)} + {render.show(merge.right)}"


def trace_view(tok: Tokenizer, text: str, playing_at_start: bool) -> None:
    trace = tok.trace(text)
    n = len(trace) - 1
    stepper.advance_if_playing("trace_step", n)
    step, playing = stepper.controls("trace_step", n, label=t("trace_step"))
    if playing != playing_at_start:
        st.rerun()
    rows = []
    for k, row in enumerate(trace[: step + 1]):
        merge = t("start") if row.merge is None else f"#{row.rank}: {pair_text(row.merge)}"
        rows.append((k, merge, " ".join(render.show(p) for p in row.pieces), len(row.pieces)))
    table = render.table_html(t("trace_cols").split("|"), rows, highlight_row=len(rows) - 1)
    st.markdown(f'<div class="bpe-scroll" id="trace-table">{table}</div>', unsafe_allow_html=True)
    fired = [r for r in trace[1 : step + 1] if r.rank is not None]
    if fired:
        c1, c2 = st.columns([3, 1])
        rank = c1.selectbox(t("open_merge"), [r.rank for r in fired], index=len(fired) - 1,
                            format_func=lambda r: f"#{r}: {render.show(tok.merges[r - 1].token)}", key=f"trace_open_{step}")
        if c2.button(t("open_button"), key="trace_open_btn"):
            st.session_state.step = rank
            st.switch_page("app_pages/train.py")
    st.caption(t("after_step", step=step, n=len(trace[step].pieces)) + ("" if step < n else t("no_more")))
    state.sync_url()  # a fragment rerun skips the end of app.py


def final_tokens(tok: Tokenizer, text: str, ids: list[int]) -> None:
    st.subheader(t("final_tokens"))
    views.chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
    same = t("round_trip_ok") if tok.decode(ids) == text else t("round_trip_differs")
    st.markdown(f"{t('n_tokens', n=len(ids), chars=len(text))} · {same}")
    fallback = sorted({ch for ch in text if tok.level == "chars" and ch not in (tok.alphabet or ())})
    if fallback:
        st.caption(t("fallback", chars=", ".join(render.code(repr(ch)) for ch in fallback[:20])))


def suggestions() -> None:
    cols = st.columns(len(SUGGESTIONS))
    for col, (key, sentence) in zip(cols, SUGGESTIONS.items()):
        col.button(t(f"sugg_{key}"), on_click=_suggest, args=(sentence,), key=f"suggest_{key}", width="stretch")


st.title(t("encode_title"))
tok = runs.for_page(sidebar.current())
suggestions()
text = st.text_area(t("sentence"), key="sentence", height=80, on_change=_show_whole_trace)

if not text:
    st.info(t("type_sentence"))
elif len(text) > MAX_SENTENCE:
    st.error(t("sentence_too_long", n=len(text), cap=MAX_SENTENCE))
elif tok is not None:
    if ENDOFTEXT in text:
        st.info(t("endoftext_note", token=render.code(ENDOFTEXT)))
    try:
        ids = tok.encode_ordinary(text)
    except ValueError as exc:
        st.error(render.md(error_text(exc)))
        st.stop()
    st.subheader(t("trace"))
    if len(text) > MAX_TRACE:
        st.warning(t("trace_cut", cap=MAX_TRACE))
    st.fragment(trace_view, run_every=stepper.run_every("trace_step"))(tok, text[:MAX_TRACE],
                                                                         bool(st.session_state.get("trace_step_playing")))
    final_tokens(tok, text, ids)
    st.subheader(t("real_tokenizers"))
    views.compare(text, tok)
    spaces = views.leading_space_note(text)
    if spaces:
        st.info(spaces)
