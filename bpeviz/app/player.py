"""The step player: a custom component (assets/player.js) that draws every step of a run in the browser.

The run's history goes to the browser once per run and session; stepping, playing, scrubbing and
highlighting happen there. The browser tells the server the step it shows (throttled), so the
address bar and the lesson file follow; the server moves the step only when the lesson does
(a link, a lesson file, "open in the merge table") and says so by counting its jumps: a step the
browser sent, coming back late from a busy server, is no jump and never undoes newer clicks.
Each player sits in a fragment of its own, so the browser's messages rerun only that fragment,
whose data is then a few hundred bytes.
"""

from __future__ import annotations

from functools import cache

import streamlit as st

import bpeviz
from bpeviz.lessons import steps

from . import live, state, style, texts, votes
from .i18n import lang


@cache
def _component():
    return st.components.v2.component("bpeviz.player", html='<div class="bpe-player"></div>', css=style.asset("player.css"),
                                      js=style.asset("player.js"), isolate_styles=False)


def labels(tie_break: str) -> dict[str, str]:
    """The player's strings in the session's language, placeholders left for the browser (texts.player_labels)."""
    return texts.player_labels(lang(), tie_break)


def _on_step(key: str, step_key: str) -> None:
    found = st.session_state.get(key) or {}
    if found.get("step") is not None:
        st.session_state[step_key] = st.session_state[f"_{key}_agreed"] = int(found["step"])


def _on_speed(key: str) -> None:
    speed = (st.session_state.get(key) or {}).get("speed")
    if speed in state.SPEEDS:
        st.session_state.speed = speed


def _noop() -> None:
    """The browser's own bookkeeping (which history it holds, which counts it wants) needs no action."""


def mount(key: str, kind: str, digest: str, n_steps: int, step_key: str, make_history, tie_break: str = "first",
          make_chunk=None) -> None:
    """Draw a player; make_history() builds the history only when this browser does not hold it yet."""
    live.follow_step(step_key)  # a following student's player takes the teacher's step here
    ss = st.session_state
    known = ss.get(key) or {}
    step = min(max(int(ss.get(step_key, 0)), 0), n_steps)
    hold = votes.held(votes.PLAYER_VOTES[kind]) if kind in votes.PLAYER_VOTES else None
    if hold is not None and step > hold:  # the class votes on what comes after the held step: nobody goes past it
        step = ss[step_key] = hold
    agreed, jumps = f"_{key}_agreed", f"_{key}_jumps"
    if ss.get(agreed) != step:  # the step moved here, not in this browser: a link, a lesson file, a new run
        ss[agreed], ss[jumps] = step, ss.get(jumps, 0) + 1
    data = {"kind": kind, "digest": digest, "step": step, "jump": ss[jumps], "speed": ss.get("speed", 1.0),
            "classroom": bool(ss.get("classroom")), "present": bool(ss.get("present")), "labels": labels(tie_break),
            "hold": hold}
    if known.get("have") != digest:
        data["history"] = make_history()
    if make_chunk is not None and known.get("chunk") is not None:
        data["top"] = make_chunk(int(known["chunk"]))
    _component()(key=key, data=data, default={"step": step, "have": None, "speed": data["speed"], "chunk": None},
                 on_step_change=lambda: _on_step(key, step_key), on_have_change=_noop, on_speed_change=lambda: _on_speed(key),
                 on_chunk_change=_noop)
    state.sync_url()  # a fragment rerun skips the end of app.py
    live.publish()  # students follow the step


def chunk_maker(tok: bpeviz.Tokenizer):
    """The pair counts of one chunk of a long run, as the browser asks for them."""
    def make(chunk: int) -> dict:
        start = chunk * steps.TOP_CHUNK
        return {"start": start, "rows": steps.top_chunk(tok, start, start + steps.TOP_CHUNK)}

    return make
