"""Votes in a live class: the teacher asks (the next merge, a sentence's tokens), the class answers, the teacher reveals.

Until the reveal, what gives the answer away stays hidden on the projector and on every student's page: the pair
counts and the steps past the question (the players hold there), a sentence's final tokens (`held`).
"""

from __future__ import annotations

import contextlib

import altair as alt
import pandas as pd
import streamlit as st

from bpeviz.core.errors import BpevizError
from bpeviz.lessons import render

from . import live, state, views
from .i18n import error_text, t
from .rooms import Vote

PLAYER_VOTES = {"train": "merge", "trace": "tokens"}  # the vote that holds each kind of player


def held(kind: str) -> int | None:
    """The step an open vote of this kind ("merge", "tokens") holds the page at, for its class's teacher and students.

    None when there is no such vote or it is revealed. A vote on tokens holds the trace at its start.
    """
    found = live.teaching()
    code = found[0] if found else live.student_code()
    if not code:
        return None
    try:
        vote = live.rooms().vote(code)
    except BpevizError:
        return None
    if vote is None or vote.revealed or vote.kind != kind:
        return None
    return vote.step if kind == "merge" else 0


def vote_controls(kind: str, question) -> None:
    """On Train or Encode, for the teacher: ask the class, watch the votes come in, reveal.

    question() gives (step, options, right options) when the button is pressed: the step may have moved since the page ran.
    """
    found = live.teaching()
    if found is None:
        return

    def ask() -> None:
        step, options, right = question()
        try:
            live.rooms().open_vote(*found, kind, step, options, right)
        except BpevizError as exc:
            state.notify(error_text(exc), "error")

    st.button(t(f"live_vote_{kind}"), key=f"live_vote_{kind}", on_click=ask)
    tally_fragment(kind)


@st.fragment(run_every=live.FOLLOW_SECONDS)
def tally_fragment(kind: str) -> None:
    found = live.teaching()
    if found is None:
        return
    try:
        vote = live.rooms().vote(found[0])
    except BpevizError:
        return
    if vote is None or vote.kind != kind:
        return
    tally_chart(vote)
    if vote.revealed:
        st.success(t("live_revealed", right=render.md(", ".join(sorted(vote.right))), share=f"{vote.share_right():.0%}",
                     n=len(vote.ballots)))
    elif st.button(t("live_reveal"), key=f"live_reveal_{kind}"):
        _reveal()
        st.rerun(scope="app")  # the players and the hidden answer come back on the whole page


def _reveal() -> None:
    found = live.teaching()
    if found is not None:
        with contextlib.suppress(BpevizError):  # the class ended meanwhile
            live.rooms().reveal(*found)


def tally_chart(vote: Vote) -> None:
    table = pd.DataFrame({"option": list(vote.options), "votes": list(vote.tally().values()),
                          "right": [vote.revealed and o in vote.right for o in vote.options]})
    chart = alt.Chart(table).mark_bar().encode(
        y=alt.Y("option:N", title=None, sort=None, axis=alt.Axis(labelLimit=320)),
        x=alt.X("votes:Q", title=t("live_votes"), axis=alt.Axis(tickMinStep=1)),
        color=alt.condition("datum.right", alt.value("#2ca02c"), alt.value("#4c78a8")))
    st.caption(t("live_ballots", n=len(vote.ballots)))
    views.chart(chart.properties(height=alt.Step(28)))



# -- the questions ---------------------------------------------------------------------------------

def merge_question(tok, step_key: str = "step"):
    """The vote on the next merge: the recorded best pairs before it, in alphabetical order; every pair tied first is right."""
    def question() -> tuple[int, list[str], list[str]]:
        step = int(st.session_state.get(step_key, 0))
        if step >= len(tok.merges) or not tok.merges[step].top:
            return step, [], []
        top = tok.merges[step].top[:6]
        label = {(a, b): f"{render.show(tok.token_of(a))} + {render.show(tok.token_of(b))}" for a, b, _ in top}
        best = max(n for _, _, n in top)
        return step, sorted(label.values()), [label[(a, b)] for a, b, n in top if n == best]

    return question


def tokens_question(tok, text: str):
    """The vote on a sentence's tokens: its final pieces, beside the pieces after fewer merges."""
    def question() -> tuple[int, list[str], list[str]]:
        steps = tok.trace(text)
        shown = [" · ".join(render.show(p) for p in s.pieces) for s in steps]
        right = shown[-1]
        others = list(dict.fromkeys(shown[len(shown) // 3::max(1, len(shown) // 4)]))
        options = sorted({right, *[o for o in others if o != right][:3]})
        return len(steps), options, [right]

    return question


