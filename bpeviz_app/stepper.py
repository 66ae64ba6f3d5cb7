"""One stepper for every steppable view: First / Previous / Play / Next / Last, a speed and a slider.

Keyboard: N next, P previous, K play or pause, Home first, End last. The step lives in the
session state under the view's key, so the URL and the lesson file follow it.
"""

from __future__ import annotations

import streamlit as st

from . import state
from .i18n import bound, t


def _set_step(key: str, value: int) -> None:
    st.session_state[key] = value


def _move_step(key: str, delta: int, n_steps: int) -> None:
    st.session_state[key] = min(max(int(st.session_state.get(key, 0)) + delta, 0), n_steps)


def _toggle_play(key: str, n_steps: int) -> None:
    playing = not st.session_state.get(key + "_playing", False)
    if playing and int(st.session_state.get(key, 0)) >= n_steps:
        st.session_state[key] = 0  # play from the start when at the end
    st.session_state[key + "_playing"] = playing


def controls(key: str, n_steps: int, *, label: str) -> tuple[int, bool]:
    """Draw the buttons, speed and slider for the step in st.session_state[key]; returns (step, playing)."""
    ss = st.session_state
    ss[key] = min(max(int(ss.get(key, 0)), 0), n_steps)
    playing = bool(ss.get(key + "_playing", False))
    cols = st.columns([1, 1, 1.2, 1, 1, 1.6])
    cols[0].button(f"⏮ {t('first')}", key=f"{key}_first", on_click=_set_step, args=(key, 0), shortcut="Home",
                   help="Home", width="stretch")
    cols[1].button(f"◀ {t('prev')}", key=f"{key}_prev", on_click=_move_step, args=(key, -1, n_steps), shortcut="P",
                   help="P", width="stretch")
    cols[2].button(f"⏸ {t('pause')}" if playing else f"▶ {t('play')}", key=f"{key}_play", type="primary",
                   on_click=_toggle_play, args=(key, n_steps), shortcut="K", help="K", width="stretch")
    cols[3].button(f"{t('next')} ▶", key=f"{key}_next", on_click=_move_step, args=(key, 1, n_steps), shortcut="N",
                   help="N", width="stretch")
    cols[4].button(f"{t('last')} ⏭", key=f"{key}_last", on_click=_set_step, args=(key, n_steps), shortcut="End",
                   help="End", width="stretch")
    cols[5].select_slider(t("speed"), options=list(state.SPEEDS), key="speed", label_visibility="collapsed",
                          format_func=bound(lambda s, lg: t("seconds_per_step", lg, s=s)))
    if n_steps > 0:
        st.slider(label, 0, n_steps, key=key)
    return int(ss[key]), playing


def advance_if_playing(key: str, n_steps: int) -> None:
    """Called on each timed rerun while playing: one step forward, stop at the end."""
    ss = st.session_state
    if ss.get(key + "_playing"):
        if int(ss.get(key, 0)) >= n_steps:
            ss[key + "_playing"] = False
        else:
            ss[key] = int(ss.get(key, 0)) + 1


def run_every(key: str) -> float | None:
    """The timer for a view's fragment: the speed while playing, none otherwise."""
    return float(st.session_state.speed) if st.session_state.get(key + "_playing") else None
