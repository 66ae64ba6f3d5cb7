"""A class survives a reload: the browser keeps the teacher's key and a student's id (assets/keeper.js) and gives them back.

Session state dies with the browser tab's connection; the room does not (rooms.py keeps it for 30 silent minutes).
While a session teaches, its browser stores the code and the secret in localStorage; a new session in the same
browser sends them (again every 2 s until the server answers), and the server hands the class back if that room
still has that secret. A student's id is kept the same way: a reload keeps their seat and their vote (one per
person, not per visit).
"""

from __future__ import annotations

import contextlib
import re
from functools import cache

import streamlit as st

from bpeviz.core.errors import BpevizError

from . import live, state, style
from .i18n import t
from .rooms import clean_code

STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{8,32}")  # as live.student_id draws them (secrets.token_urlsafe)


@cache
def _component():
    return st.components.v2.component("bpeviz.keeper", html="<span hidden></span>", js=style.asset("keeper.js"))


def _found() -> None:
    """The browser gave back what it kept: a teacher's class (if that room still has that key), a student's seat."""
    ss = st.session_state
    kept = (ss.get("live_keeper") or {}).get("found")
    if not isinstance(kept, dict) or ss.get("_live_heard"):  # the browser sends it until it hears back: once is enough
        return
    ss["_live_heard"] = True
    if live.teaching() is not None:
        return
    student = kept.get("student")
    if live.student_code():
        if isinstance(student, str) and STUDENT_ID.fullmatch(student) and student != ss.get("live_student"):
            with contextlib.suppress(BpevizError):  # the seat this visit's first run took is given back
                live.rooms().leave(live.student_code(), str(ss.get("live_student", "")))
            ss["live_student"] = student  # the same seat and the same ballot as before the reload
        return
    teacher = kept.get("teacher")
    if isinstance(teacher, dict):
        _reclaim(clean_code(teacher.get("code", "")), str(teacher.get("secret", ""))[:64])  # shown: only code letters


def _reclaim(code: str, secret: str) -> None:
    ss = st.session_state
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
    if live.student_code() and found is None:
        data["student"] = live.student_id()
    if ss.get("_live_heard"):
        data["heard"] = True
    _component()(key="live_keeper", data=data, default={"found": None}, on_found_change=_found)
