"""Encode page: replay the merges on a new sentence, then see what real tokenizers make of it."""

from __future__ import annotations

import html

import streamlit as st

from app_pages import lesson, views
from app_pages.i18n import t
from bpeviz import render
from bpeviz.tokenizer import ENDOFTEXT, Tokenizer

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
    st.session_state.trace_step = 10**6  # clamped to the trace's length


def trace_view(tok: Tokenizer, text: str, playing_at_start: bool) -> None:
    lg = lesson.lang()
    trace = tok.trace(text)
    n = len(trace) - 1
    lesson.advance_if_playing("trace_step", n)
    step, playing = lesson.stepper("trace_step", n, label=t("trace_step", lg))
    if playing != playing_at_start:
        st.rerun()
    rows = []
    for k, row in enumerate(trace[: step + 1]):
        merge = "start" if row.merge is None else f"#{row.rank}: {render.show(row.merge.left)} + {render.show(row.merge.right)}"
        pieces = " ".join(render.show(p) for p in row.pieces)
        rows.append((k, merge, pieces, len(row.pieces)))
    table = render.table_html(t("trace_cols", lg).split("|"), rows, highlight_row=len(rows) - 1)
    st.markdown(f'<div class="bpe-scroll" id="trace-table">{table}</div>', unsafe_allow_html=True)
    fired = [r for r in trace[1 : step + 1] if r.rank is not None]
    if fired:
        c1, c2 = st.columns([3, 1])
        rank = c1.selectbox(t("open_merge", lg), [r.rank for r in fired], index=len(fired) - 1,
                            format_func=lambda r: f"#{r}: {render.show(tok.merges[r - 1].token)}", key=f"trace_open_{step}")
        if c2.button(t("open_button", lg), key="trace_open_btn"):
            st.session_state.step = rank
            st.switch_page("app_pages/train.py")
    current = trace[step]
    st.caption(t("after_step", lg, step=step, n=len(current.pieces)) + ("" if step < n else t("no_more", lg)))
    lesson.sync_url()  # a fragment rerun skips the end of app.py


lg = lesson.lang()
st.title(t("encode_title", lg))
choice, tok = lesson.tokenizer()

cols = st.columns(len(SUGGESTIONS))
for col, (key, sentence) in zip(cols, SUGGESTIONS.items()):
    col.button(t(f"sugg_{key}", lg), on_click=_suggest, args=(sentence,), key=f"suggest_{key}", width="stretch")
text = st.text_area(t("sentence", lg), key="sentence", height=80, on_change=_show_whole_trace)

if not text:
    st.info(t("type_sentence", lg))
elif len(text) > MAX_SENTENCE:
    st.error(f"The sentence has {len(text):,} characters; this page encodes at most {MAX_SENTENCE:,}. "
             "Shorten it (your text is kept in the box).")
elif tok is not None:
    if ENDOFTEXT in text:
        st.info(f"The text contains `{ENDOFTEXT}`. Here it is encoded as plain text; a model's API refuses it "
                "(tiktoken raises unless the special token is allowed), because it would end the document.")
    try:
        ids = tok.encode_ordinary(text)
    except ValueError as exc:
        st.error(str(exc))
        st.stop()
    st.subheader(t("trace", lg))
    if len(text) > MAX_TRACE:
        st.warning(f"The trace is shown for the first {MAX_TRACE:,} characters; the tokens below cover all of it.")
    playing = bool(st.session_state.get("trace_step_playing"))
    st.fragment(trace_view, run_every=float(st.session_state.speed) if playing else None)(tok, text[:MAX_TRACE], playing)

    st.subheader(t("final_tokens", lg))
    views.chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
    decoded = tok.decode(ids)
    same = "✓ decode(encode(text)) == text" if decoded == text else "✗ the decode differs from the text"
    st.markdown(f"{t('n_tokens', lg, n=len(ids), chars=len(text))} · {same}")
    fallback = sorted({ch for ch in text if tok.level == "chars" and ch not in (tok.alphabet or ())})
    if fallback:
        shown = ", ".join(html.escape(repr(ch)) for ch in fallback[:20])
        st.caption(t("fallback", lg, chars=shown))

    st.subheader(t("real_tokenizers", lg))
    views.compare(text, tok)
    spaces = views.leading_space_note(text)
    if spaces:
        st.info(spaces)
