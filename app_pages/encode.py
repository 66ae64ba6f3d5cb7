"""Encode page: replay the merges on a new sentence, then see what real tokenizers make of it."""

from __future__ import annotations

import hashlib

import streamlit as st

from bpeviz import render, sources
from bpeviz.records import ENDOFTEXT
from bpeviz.tokenizer import Tokenizer
from bpeviz_app import player, runs, sidebar, state, views
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


@st.fragment
def trace_player(tok: Tokenizer, lesson: sidebar.Lesson, text: str) -> None:
    source, settings = lesson.source, lesson.settings
    digest = hashlib.sha256(f"{runs.run_digest(source, settings)}|{text}".encode()).hexdigest()[:20]  # type: ignore[arg-type]
    history = runs.trace_history(sources.digest(source), settings, text, source)  # type: ignore[arg-type]
    player.mount("player_trace", "trace", digest, len(history["fired"]), "trace_step", lambda: history)


def open_in_table(tok: Tokenizer, lesson: sidebar.Lesson, text: str) -> None:
    """Pick a merge of the trace and jump to its row on the Train page."""
    fired = [f[0] for f in runs.trace_history(sources.digest(lesson.source), lesson.settings, text, lesson.source)["fired"]]
    if not fired:
        return
    row = st.container(horizontal=True, vertical_alignment="bottom")
    rank = row.selectbox(t("open_merge"), fired, index=len(fired) - 1, key="trace_open", width=360,
                         format_func=lambda r: f"#{r}: {render.show(tok.merges[r - 1].token)}")
    if row.button(t("open_button"), key="trace_open_btn"):
        st.session_state.step = rank
        st.switch_page("app_pages/train.py")


def final_tokens(tok: Tokenizer, text: str, ids: list[int]) -> None:
    st.subheader(t("final_tokens"))
    views.chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
    same = t("round_trip_ok") if tok.decode(ids) == text else t("round_trip_differs")
    st.markdown(f"{t('n_tokens', n=len(ids), chars=len(text))} · {same}")
    fallback = sorted({ch for ch in text if tok.level == "chars" and ch not in (tok.alphabet or ())})
    if fallback:
        st.caption(t("fallback", chars=", ".join(render.code(repr(ch)) for ch in fallback[:20])))


def suggestions() -> None:
    row = st.container(horizontal=True)  # wraps on a narrow screen instead of cutting the labels
    for key, sentence in SUGGESTIONS.items():
        row.button(t(f"sugg_{key}"), on_click=_suggest, args=(sentence,), key=f"suggest_{key}")


st.title(t("encode_title"))
lesson = sidebar.current()
tok = runs.for_page(lesson)
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
    trace_player(tok, lesson, text[:MAX_TRACE])
    open_in_table(tok, lesson, text[:MAX_TRACE])
    final_tokens(tok, text, ids)
    st.subheader(t("real_tokenizers"))
    views.compare(text, tok)
    spaces = views.leading_space_note(text)
    if spaces:
        st.info(spaces)
