"""Votes in a live class: the teacher asks (the next merge, a sentence's tokens), the class answers, the teacher reveals.

Until the reveal, what gives the answer away stays hidden on the projector and on every student's page: the pair
counts and the steps past the question (the players hold there), a sentence's final tokens (`held`).
"""

from __future__ import annotations

import contextlib

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
    if not vote.revealed:  # the tally stays hidden while the class votes: nobody follows the crowd (peer instruction)
        st.caption(t("live_ballots" if vote.round == 1 else "live_ballots_again", n=len(vote.ballots)))
        row = st.container(horizontal=True)
        if vote.round == 1 and row.button(t("live_revote"), key=f"live_revote_{kind}", help=t("live_revote_help")):
            _act("revote")
        if row.button(t("live_reveal"), key=f"live_reveal_{kind}"):
            _act("reveal")
        return
    tally_chart(vote)
    answer = render.md(", ".join(sorted(vote.right)))
    if vote.first is not None:
        st.success(t("live_revealed_twice", right=answer, first=f"{vote.first_share_right():.0%}", n1=len(vote.first),
                     second=f"{vote.share_right():.0%}", n=len(vote.ballots)))
    else:
        st.success(t("live_revealed", right=answer, share=f"{vote.share_right():.0%}", n=len(vote.ballots)))


def _act(what: str) -> None:
    """Reveal, or ask again; then the whole page runs: the players and the hidden answer follow the vote."""
    found = live.teaching()
    if found is not None:
        with contextlib.suppress(BpevizError):  # the class ended meanwhile
            getattr(live.rooms(), what)(*found)
    st.rerun(scope="app")


def tally_chart(vote: Vote) -> None:
    """The votes per option once revealed, right ones marked; with a second round, both rounds side by side."""
    rounds = [(t("live_round", n=1), vote.first_tally()), (t("live_round", n=2), vote.tally())] if vote.first is not None \
        else [("", vote.tally())]
    import pandas as pd  # here, as altair below

    table = pd.DataFrame([{"option": ("✓ " if o in vote.right else "") + o, "votes": n, "round": name}
                          for name, tally in rounds for o, n in tally.items()])
    import altair as alt  # here: a page without a vote never loads it

    chart = alt.Chart(table).mark_bar().encode(
        y=alt.Y("option:N", title=None, sort=None, axis=alt.Axis(labelLimit=320)),
        x=alt.X("votes:Q", title=t("live_votes"), axis=alt.Axis(tickMinStep=1)),
        yOffset=alt.YOffset("round:N"),
        color=alt.Color("round:N", title=None, legend=alt.Legend(orient="top") if vote.first is not None else None,
                        scale=alt.Scale(range=["#9db8de", "#1f4e9c"] if vote.first is not None else ["#1f4e9c"])))
    views.chart(chart.properties(height=alt.Step(20 if vote.first is not None else 28)))



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


