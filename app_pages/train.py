"""Training page: step through the merges; the table grows, the pair counts and the corpus follow."""

from __future__ import annotations

import html
from collections import Counter

import altair as alt
import pandas as pd
import streamlit as st

from app_pages import lesson, views
from app_pages.i18n import t
from bpeviz import render, steps
from bpeviz.tokenizer import Tokenizer, documents_of
from bpeviz.trainer import MAX_TIES_RECORDED

TABLE_WINDOW = 200  # merge-table rows drawn at once
TOP_PAIRS = 12


@st.cache_data(max_entries=256, show_spinner=False)
def pairs_at(digest: str, vocab_size: int, level: str, pretokenizer: str, tie_break: str, step: int,
             _choice: lesson.CorpusChoice) -> list[steps.PairCount]:
    """The top pair counts before merge step+1, cached per step; digest names the corpus."""
    tok = lesson.train_cached(_choice, vocab_size, level, pretokenizer, tie_break)
    recorded = steps.recorded_pair_counts(tok, step)
    if recorded is not None:
        return recorded
    words = Counter(lesson.words_cached(digest, pretokenizer, _choice))  # after the last merge, or a replay
    return steps.pair_counts(tok, words, step)[: lesson.RECORD_TOP]


def merge_cell(m) -> str:
    return f"{render.show(m.left)} + {render.show(m.right)} → {render.show(m.token)}"


def merge_table(tok: Tokenizer, step: int) -> None:
    lg = lesson.lang()
    first = max(1, step - TABLE_WINDOW + 1)
    rows = []
    for m in tok.merges[first - 1 : step]:
        flag = " ⚠" if render.is_partial(m.token) else ""
        ties = t("n_tied", lg, n=f"{len(m.ties)}{'+' if len(m.ties) == MAX_TIES_RECORDED else ''}") if m.ties else ""
        rows.append((m.rank, merge_cell(m) + flag, m.count if m.count else "–", ties))
    if not rows:
        st.caption(t("no_merge_yet", lg))
        return
    table = render.table_html(t("table_cols", lg).split("|"), rows, highlight_row=len(rows) - 1)
    st.markdown(f'<div class="bpe-scroll" id="merge-table">{table}</div>', unsafe_allow_html=True)
    if first > 1:
        st.caption(t("rows_window", lg, first=first, step=step))
    if any(render.is_partial(m.token) for m in tok.merges[first - 1 : step]):
        st.caption(t("partial_flag", lg))


def pair_chart(pairs: list[steps.PairCount], tok: Tokenizer, step: int, *, reveal: bool) -> None:
    big = bool(st.session_state.get("classroom"))
    lg = lesson.lang()
    nxt, tied_label, other = t("legend", lg).split("|")
    if not pairs:
        st.info(t("no_pair_left", lg))
        return
    top = pairs[0]
    tied = [p for p in pairs if p.count == top.count]
    shown = pairs[:TOP_PAIRS] if len(tied) <= TOP_PAIRS else tied[:TOP_PAIRS * 2]
    # the merge that comes next; after the last one, the pair that would come next
    upcoming = (tok.merges[step].left_id, tok.merges[step].right_id) if step < len(tok.merges) else (top.left_id, top.right_id)

    def status(p: steps.PairCount) -> str:
        if not reveal:
            return other
        if (p.left_id, p.right_id) == upcoming:
            return nxt
        return tied_label if p.count == top.count else other

    data = pd.DataFrame({
        "pair": [f"{render.show(p.left)} + {render.show(p.right)}" for p in shown],
        "count": [p.count for p in shown],
        "status": [status(p) for p in shown],
        "order": list(range(len(shown))),
    })
    chart = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("count:Q", title=t("occurrences", lg), axis=alt.Axis(labelFontSize=18 if big else 11, titleFontSize=18 if big else 12)),
            y=alt.Y("pair:N", sort=alt.SortField("order"), title=None, axis=alt.Axis(labelFontSize=22 if big else 14, labelLimit=300, labelOverlap=False)),
            color=alt.Color("status:N", scale=alt.Scale(domain=[nxt, tied_label, other], range=["#d62728", "#ff9f1c", "#7f9cc9"]),
                            legend=alt.Legend(orient="bottom", title=None)),
            tooltip=["pair", "count"],
        )
        .properties(height=alt.Step(34 if big else 26))
    )
    st.altair_chart(chart, width="stretch")
    if reveal and len(tied) > 1:
        rule = tok.settings.tie_break
        pair = f"{html.escape(render.show(top.left))} + {html.escape(render.show(top.right))}"
        n_tied = f"{len(tied)}+" if len(tied) >= lesson.RECORD_TOP else len(tied)  # only the best pairs are kept
        st.markdown(t("ties", lg, n=n_tied, count=top.count, rule=rule, why=t(f"rule_{rule}", lg), pair=pair))
    if tok.merges and not tok.merges[0].count:  # a replay: merges learned elsewhere, counted here
        st.caption(t("replay_counts", lg))


def quiz(pairs: list[steps.PairCount], step: int) -> bool:
    """Guess-the-next-merge: options without counts until revealed. Returns whether it is revealed."""
    lg = lesson.lang()
    if not pairs:
        return True
    options = sorted({f"{render.show(p.left)} + {render.show(p.right)}" for p in pairs[:6]})
    revealed = st.session_state.get("quiz_revealed") == step
    st.radio(t("your_guess", lg), options, key=f"quiz_guess_{step}", index=None, horizontal=True)
    if st.button(t("reveal", lg), key=f"quiz_reveal_{step}", type="primary"):
        st.session_state["quiz_revealed"] = step
        revealed = True
    if revealed:
        answer = f"{render.show(pairs[0].left)} + {render.show(pairs[0].right)}"
        guess = st.session_state.get(f"quiz_guess_{step}")
        verdict = t("quiz_right", lg) if guess == answer else t("quiz_wrong", lg, guess=guess) if guess else ""
        st.success(t("quiz_answer", lg, pair=answer, count=pairs[0].count) + " " + verdict)
    else:
        st.info(t("quiz_hidden", lg))
    return revealed


def corpus_view(tok: Tokenizer, choice: lesson.CorpusChoice, step: int, highlight: int | None) -> None:
    at_step = tok.truncated(step)
    corpus = choice.documents()
    docs = steps.corpus_window(corpus if not isinstance(corpus, bytes) else corpus.decode("utf-8", "surrogateescape"))
    for doc in docs:
        views.chips([(i, at_step.token_of(i)) for i in at_step.encode_ordinary(doc)], tok=at_step, highlight=highlight)
    shown = sum(len(d) for d in docs)
    total = sum(len(d) for d in documents_of(corpus if not isinstance(corpus, bytes) else corpus.decode("utf-8", "surrogateescape")))
    if shown < total:
        st.caption(t("showing_chars", lesson.lang(), shown=shown, total=total))


def view(tok: Tokenizer, choice: lesson.CorpusChoice, playing_at_start: bool) -> None:
    lg = lesson.lang()
    ss = st.session_state
    n = len(tok.merges)
    lesson.advance_if_playing("step", n)
    step, playing = lesson.stepper("step", n, label=t("step", lg))
    if playing != playing_at_start:
        st.rerun()  # the timer is set for the whole page
    tokens_now = tok.corpus_tokens if step == 0 else tok.merges[step - 1].tokens_after
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(t("step", lg), f"{step} / {n}")
    if tokens_now:
        c2.metric(t("tokens_now", lg), f"{tokens_now:,}", delta=(tokens_now - tok.corpus_tokens) or None, delta_color="inverse")
        c3.metric(t("bpt_now", lg), f"{tok.bytes_per_token_after(step):.2f}")
    c4.metric(t("vocab_now", lg), f"{tok.n_base + step:,}")

    left, right = st.columns([1, 1])
    with left:
        st.subheader(t("merge_table", lg))
        quiz_on = st.toggle(t("quiz", lg), key="quiz_mode")
        merge_table(tok, step)
    with right:
        st.subheader(t("pair_counts", lg))
        if step >= n:
            st.caption(t("all_done", lg))
        pairs = pairs_at(lesson.corpus_digest(choice), int(ss.vocab_size), str(ss.level), lesson.current_pretokenizer(),
                         str(ss.tie_break), step, choice)
        reveal = quiz(pairs, step) if quiz_on and step < n else True
        if reveal:  # counts would give the answer away
            pair_chart(pairs, tok, step, reveal=reveal)

    st.subheader(t("corpus_now", lg))
    highlight = None
    if step:
        rank = st.selectbox(t("highlight", lg), list(range(step, 0, -1)), index=0, key=f"hl_{step}",
                            format_func=lambda r: f"#{r}: {merge_cell(tok.merges[r - 1])}")
        highlight = tok.merges[rank - 1].id
    corpus_view(tok, choice, step, highlight)
    lesson.sync_url()  # a fragment rerun skips the end of app.py


lg = lesson.lang()
st.title(t("train_title", lg))
choice, tok = lesson.tokenizer()
if tok is not None and choice is not None:
    st.caption(f"{choice.label} · {tok.level} · split {lesson.current_pretokenizer()!r} · tie rule "
               f"{tok.settings.tie_break!r} · {tok.n_base} base symbols + {len(tok.merges):,} merges")
    playing = bool(st.session_state.get("step_playing"))
    st.fragment(view, run_every=float(st.session_state.speed) if playing else None)(tok, choice, playing)
