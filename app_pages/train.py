"""Training page: step through the merges; the table grows, the pair counts and the corpus follow."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from bpeviz import render, sources, steps
from bpeviz.records import MAX_TIES_RECORDED
from bpeviz.tokenizer import Tokenizer
from bpeviz_app import runs, sidebar, state, stepper, views
from bpeviz_app.i18n import source_label, t, tie_name, tie_why

TABLE_WINDOW = 200  # merge-table rows drawn at once
TOP_PAIRS = 12


def pair_text(p: steps.PairCount) -> str:
    return f"{render.show(p.left)} + {render.show(p.right)}"


def merge_table(tok: Tokenizer, step: int) -> None:
    first = max(1, step - TABLE_WINDOW + 1)
    rows = []
    for m in tok.merges[first - 1 : step]:
        flag = " ⚠" if render.is_partial(m.token) else ""
        ties = t("n_tied", n=len(m.ties), more="+" if len(m.ties) == MAX_TIES_RECORDED else "") if m.ties else ""
        rows.append((m.rank, render.merge_text(m) + flag, f"{m.count:,}" if m.count else "–", ties))
    if not rows:
        st.caption(t("no_merge_yet"))
        return
    table = render.table_html(t("table_cols").split("|"), rows, highlight_row=len(rows) - 1)
    st.markdown(f'<div class="bpe-scroll" id="merge-table">{table}</div>', unsafe_allow_html=True)
    if first > 1:
        st.caption(t("rows_window", first=first, step=step))
    if any(render.is_partial(m.token) for m in tok.merges[first - 1 : step]):
        st.caption(t("partial_flag"))


def pair_chart(pairs: list[steps.PairCount], tok: Tokenizer, step: int) -> None:
    big = bool(st.session_state.get("classroom"))
    nxt, tied_label, other = t("legend").split("|")
    if not pairs:
        st.info(t("no_pair_left"))
        return
    top = pairs[0]
    tied = [p for p in pairs if p.count == top.count]
    shown = pairs[:TOP_PAIRS] if len(tied) <= TOP_PAIRS else tied[: TOP_PAIRS * 2]
    # the merge that comes next; after the last one, the pair that would come next
    upcoming = (tok.merges[step].left_id, tok.merges[step].right_id) if step < len(tok.merges) else (top.left_id, top.right_id)

    def status(p: steps.PairCount) -> str:
        if (p.left_id, p.right_id) == upcoming:
            return nxt
        return tied_label if p.count == top.count else other

    data = pd.DataFrame({"pair": [pair_text(p) for p in shown], "count": [p.count for p in shown],
                         "status": [status(p) for p in shown], "order": list(range(len(shown)))})
    chart = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("count:Q", title=t("occurrences"),
                    axis=alt.Axis(format="d", tickMinStep=1, labelFontSize=18 if big else 11, titleFontSize=18 if big else 12)),
            y=alt.Y("pair:N", sort=alt.SortField("order"), title=None,
                    axis=alt.Axis(labelFontSize=22 if big else 14, labelLimit=300, labelOverlap=False)),
            color=alt.Color("status:N", scale=alt.Scale(domain=[nxt, tied_label, other], range=["#d62728", "#ff9f1c", "#7f9cc9"]),
                            legend=alt.Legend(orient="bottom", title=None, labelFontSize=18 if big else 12)),
            tooltip=[alt.Tooltip("pair", title=t("pair")), alt.Tooltip("count", title=t("occurrences"))],
        )
        .properties(height=alt.Step(34 if big else 26))
    )
    st.altair_chart(chart, width="stretch")
    if len(tied) > 1:
        tie_sentence(tied, tok)
    if tok.merges and not tok.merges[0].count:  # a replay: merges learned elsewhere, counted here
        st.caption(t("replay_counts"))


def tie_sentence(tied: list[steps.PairCount], tok: Tokenizer) -> None:
    rule = tok.settings.tie_break
    n_tied = f"{len(tied)}+" if len(tied) >= runs.RECORD_TOP else str(len(tied))  # only the best pairs are kept
    st.markdown(t("ties", n=n_tied, count=tied[0].count, rule=render.code(tie_name(rule)), why=tie_why(rule),
                  pair=render.code(pair_text(tied[0]))))


def quiz(pairs: list[steps.PairCount], step: int, tok: Tokenizer) -> bool:
    """Guess-the-next-merge: options without counts until revealed. Returns whether it is revealed."""
    if not pairs:
        return True
    options = sorted({pair_text(p) for p in pairs[:6]})
    revealed = st.session_state.get("quiz_revealed") == step
    st.radio(t("your_guess"), options, key=f"quiz_guess_{step}", index=None, horizontal=True)
    if st.button(t("reveal"), key=f"quiz_reveal_{step}", type="primary"):
        st.session_state["quiz_revealed"] = step
        revealed = True
    if not revealed:
        st.info(t("quiz_hidden"))
        return False
    answer = pairs[0]
    guess = st.session_state.get(f"quiz_guess_{step}")
    tied = {pair_text(p) for p in pairs if p.count == answer.count}
    if guess == pair_text(answer):
        verdict = t("quiz_right")
    elif guess in tied:
        rule = tok.settings.tie_break
        verdict = t("quiz_tied", rule=render.code(tie_name(rule)), why=tie_why(rule))
    else:
        verdict = t("quiz_wrong", guess=render.code(guess)) if guess else ""
    st.success(t("quiz_answer", pair=render.code(pair_text(answer)), count=answer.count) + " " + verdict)
    return True


def corpus_view(tok: Tokenizer, source: sources.CorpusSource, step: int, highlight: int | None) -> None:
    at_step = tok.truncated(step)
    documents = source.documents()
    window = steps.corpus_window(documents)
    for doc in window:
        views.chips([(i, at_step.token_of(i)) for i in at_step.encode_ordinary(doc)], tok=at_step, highlight=highlight)
    shown, total = sum(map(len, window)), sum(map(len, documents))
    if shown < total:
        st.caption(t("showing_chars", shown=shown, total=total))


def metrics_row(tok: Tokenizer, step: int) -> None:
    n = len(tok.merges)
    tokens_now = tok.corpus_tokens if step == 0 else tok.merges[step - 1].tokens_after
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(t("step"), f"{step:,} / {n:,}")
    if tokens_now:
        c2.metric(t("tokens_now"), f"{tokens_now:,}", delta=(tokens_now - tok.corpus_tokens) or None, delta_color="inverse")
        c3.metric(t("bpt_now"), f"{tok.bytes_per_token_after(step):.2f}")
    c4.metric(t("vocab_now"), f"{tok.n_base + step:,}")


def view(tok: Tokenizer, lesson: sidebar.Lesson, playing_at_start: bool) -> None:
    n = len(tok.merges)
    stepper.advance_if_playing("step", n)
    step, playing = stepper.controls("step", n, label=t("step"))
    if playing != playing_at_start:
        st.rerun()  # the timer is set for the whole page
    metrics_row(tok, step)
    left, right = st.columns([1, 1])
    with left:
        st.subheader(t("merge_table"))
        quiz_on = st.toggle(t("quiz"), key="quiz_mode")
        merge_table(tok, step)
    with right:
        st.subheader(t("pair_counts"))
        if step >= n:
            st.caption(t("all_done"))
        source = lesson.source
        pairs = runs.pairs_at(sources.digest(source), lesson.settings, step, source)  # type: ignore[arg-type]
        if not quiz_on or step >= n or quiz(pairs, step, tok):  # counts would give the answer away
            pair_chart(pairs, tok, step)
    st.subheader(t("corpus_now"))
    highlight = None
    if step:
        rank = st.selectbox(t("highlight"), list(range(step, 0, -1)), index=0, key=f"hl_{step}",
                            format_func=lambda r: f"#{r}: {render.merge_text(tok.merges[r - 1])}")
        highlight = tok.merges[rank - 1].id
    corpus_view(tok, lesson.source, step, highlight)  # type: ignore[arg-type]
    state.sync_url()  # a fragment rerun skips the end of app.py


st.title(t("train_title"))
lesson = sidebar.current()
tok = runs.for_page(lesson)
if tok is not None and lesson.source is not None:
    s = tok.settings
    st.caption(t("train_caption", corpus=render.md(source_label(lesson.source)), level=t(f"level_{s.level}"),
                 split=render.code(s.pretokenizer), rule=tie_name(s.tie_break),
                 base=tok.n_base, merges=len(tok.merges)))
    st.fragment(view, run_every=stepper.run_every("step"))(tok, lesson, bool(st.session_state.get("step_playing")))
