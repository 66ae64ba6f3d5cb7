"""A teacher's class survives a reload: the browser keeps the class's key (assets/keeper.js) and gives it back.

Session state dies with the browser tab's connection; the room does not (rooms.py keeps it for an idle hour).
While a session teaches, its browser stores the code and the secret in localStorage; a new session in the
same browser sends them once, and the server hands the class back if that room still has that secret.
"""

from __future__ import annotations

from functools import cache

import streamlit as st

from bpeviz.core.errors import BpevizError

from . import live, state, style
from .i18n import t


@cache
def _component():
    return st.components.v2.component("bpeviz.keeper", html="<span hidden></span>", js=style.asset("keeper.js"))


def _found() -> None:
    """The browser gave back a kept key: teach that class again if it is still open with that secret."""
    ss = st.session_state
    kept = (ss.get("live_keeper") or {}).get("found") or {}
    if live.teaching() is not None or live.student_code() or not isinstance(kept, dict):
        return
    code, secret = str(kept.get("code", ""))[:16], str(kept.get("secret", ""))[:64]
    try:
        live.rooms().teacher_here(code, secret)
    except BpevizError:
        ss["_live_forget"] = True  # ended or expired: the browser forgets it
        return
    ss["live_code"], ss["live_secret"], ss["live_class"] = code, secret, ""
    state.notify(t("live_reclaimed", code=code))


def keeper() -> None:
    """Mount the keeper: store the key while teaching, forget it once the class ended, else offer what is kept."""
    ss = st.session_state
    found = live.teaching()
    data: dict = {}
    if found is not None:
        data["store"] = {"code": found[0], "secret": found[1]}
    elif ss.pop("_live_forget", False):
        data["forget"] = True
    _component()(key="live_keeper", data=data, default={"found": None}, on_found_change=_found)
