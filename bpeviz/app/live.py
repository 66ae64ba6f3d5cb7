"""The live class in the app: the teacher's panel, the students' bar, votes, and the polling that keeps students in step.

The rooms live in `rooms.py` (no Streamlit there). A teacher's session holds the room's secret; a student's
session holds the code and an id of its own, drawn by the server. Students' pages ask the room once a second
(a fragment) and follow the teacher's lesson when its version moves: corpus, settings, step, sentence, page.
"""

from __future__ import annotations

import contextlib
import html
import io
import secrets
import socket

import segno
import streamlit as st

from bpeviz.core.errors import BpevizError
from bpeviz.lessons import render

from . import state
from .i18n import error_text, t
from .rooms import Rooms, clean_code

PERSONAL = {"lang", "classroom", "speed", "live_class"}  # each student keeps their own
SHARED_SOURCES = {"shipped", "paste", "gpt2"}  # an uploaded file or an imported tokenizer stays on the teacher's computer
FOLLOW_SECONDS = 1.0


@st.cache_resource
def rooms() -> Rooms:
    return Rooms()


def teaching() -> tuple[str, str] | None:
    ss = st.session_state
    return (ss["live_code"], ss["live_secret"]) if ss.get("live_code") and ss.get("live_secret") else None


def student_code() -> str:
    return clean_code(st.session_state.get("live_class", ""))


def student_id() -> str:
    return st.session_state.setdefault("live_student", secrets.token_urlsafe(12))


# -- the teacher -----------------------------------------------------------------------------------


def _start() -> None:
    try:
        address = str(getattr(st.context, "ip_address", None) or "")  # None in tests and for some proxies
        st.session_state["live_code"], st.session_state["live_secret"] = rooms().open(address)
        st.session_state["live_class"] = ""
    except BpevizError as exc:
        state.notify(error_text(exc), "error")


def _join() -> None:
    code = clean_code(st.session_state.get("live_join_code", ""))
    if code:
        st.session_state["live_class"], st.session_state["live_following"] = code, True
        st.session_state["live_join_code"] = ""


def _end() -> None:
    found = teaching()
    if found is not None:
        with contextlib.suppress(BpevizError):  # expired already: nothing to end
            rooms().close(*found)
    for key in ("live_code", "live_secret"):
        st.session_state.pop(key, None)
    st.session_state["_live_forget"] = True  # the browser forgets the class's key (reclaim.py)


def join_address(code: str) -> str:
    """Where students go: this server's LAN address when it listens on every address, else the address in use."""
    host = str(st.get_option("server.address") or "")
    port = st.get_option("server.port")
    if host in ("", "0.0.0.0", "::"):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the outgoing interface
                host = probe.getsockname()[0]
            except OSError:
                host = "127.0.0.1"
    return f"http://{host}:{port}/?class={code}"


@st.cache_data(max_entries=64, show_spinner=False)
def qr_png(text: str) -> bytes:
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=6, border=2)
    return out.getvalue()


def teacher_panel() -> None:
    """The sidebar's live-class box: start, or the code, address and QR code, the students, and end."""
    with st.expander(t("live_title"), expanded=teaching() is not None):
        found = teaching()
        if found is None:
            st.caption(t("live_start_caption"))
            st.button(t("live_start"), on_click=_start, key="live_start_button")
            if not student_code():  # a student given the code by voice types it here
                st.text_input(t("live_join_code"), key="live_join_code", max_chars=8, on_change=_join,
                              placeholder="ABCDE", help=t("live_join_help"))
            return
        code = found[0]
        try:
            rooms().follow(code)
        except BpevizError:
            _end()
            st.warning(t("live_expired"))
            return
        st.markdown(f"### {t('live_code', code=code)}")
        address = join_address(code)
        st.code(address, language=None)
        st.image(qr_png(address), width=180)
        if address.startswith("http://127."):
            st.caption(t("live_loopback"))
        if st.button(t("live_join_screen"), key="live_join_screen", icon=":material/fullscreen:"):
            st.dialog(t("live_join_title"), width="large")(join_screen)(code, address)
        head_count(code)
        st.button(t("live_end"), on_click=_end, key="live_end_button")


def join_screen(code: str, address: str) -> None:
    """The code and the QR code as large as the projector allows, readable from the back of the room."""
    st.html(f'<div class="bpe-join-code" data-testid="bpe-join-code">{html.escape(code)}</div>')
    st.container(horizontal_alignment="center").image(qr_png(address), width=360)
    st.html(f'<div class="bpe-join-address">{html.escape(address)}</div>')


def teacher_banner() -> None:
    """At the top of the teacher's page, where the projector shows it: the code, the address, how many have joined."""
    found = teaching()
    if found is not None:
        banner(found[0], join_address(found[0]))


@st.fragment(run_every=FOLLOW_SECONDS * 2)
def banner(code: str, address: str) -> None:
    with contextlib.suppress(BpevizError):  # an ended class: the panel says so on the next run
        found = teaching()
        if found is not None:
            rooms().teacher_here(*found)  # students see the teacher is here
        n = rooms().follow(code)[2]
        st.markdown(f"**{t('live_joined', code=code, n=n)}** · {render.code(address)}")


@st.fragment(run_every=FOLLOW_SECONDS * 2)
def head_count(code: str) -> None:
    with contextlib.suppress(BpevizError):  # an ended class: the panel says so on the next run
        st.caption(t("live_students", n=rooms().follow(code)[2]))
        found = teaching()
        names = rooms().nicknames(*found) if found else []
        if names:  # typed by students: shown as text, never as Markdown
            st.caption(", ".join(render.md(name) for name in names[:60]) + (" …" if len(names) > 60 else ""))


def publish(page: str | None = None) -> None:
    """The teacher's lesson, as students follow it (called at the end of every run, and by the players: page None,
    the page of the last run)."""
    found = teaching()
    if found is None:
        return
    if page is None:
        page = st.session_state.get("_live_page_now", "")
    st.session_state["_live_page_now"] = page
    lesson = {k: v for k, v in state.values().items() if k not in PERSONAL}
    lesson["_page"] = page
    if lesson.get("source") not in SHARED_SOURCES:
        lesson["_unshared"] = True
    try:
        rooms().publish(*found, lesson)
    except BpevizError as exc:
        if exc.code == "class_lesson_big":
            st.warning(error_text(exc))


# -- a student ---------------------------------------------------------------------------------------


def _back_to_class() -> None:
    if st.session_state.get("live_following"):
        st.session_state["live_seen"] = st.session_state["live_applied"] = None  # the next poll applies it all at once


def student_bar() -> None:
    """At the top of a student's page: the class, following or exploring, the vote."""
    code = student_code()
    if not code or teaching() is not None:
        return
    try:
        rooms().join(code, student_id(), st.session_state.get("live_nickname", ""))
    except BpevizError as exc:
        class_gone(code, exc)
        return
    st.session_state["live_joined_code"] = code
    st.session_state["live_vote_drawn"] = vote_signature(code)  # what this whole-page run shows of the vote
    with st.container(border=True):
        st.session_state.setdefault("live_following", True)
        following = st.toggle(t("live_follow"), key="live_following", on_change=_back_to_class, help=t("live_follow_help"))
        st.text_input(t("live_nickname"), key="live_nickname", max_chars=24)
        follow_fragment(code, following)


def class_gone(code: str, exc: BpevizError) -> None:
    """A class this student was in has ended: say so kindly, keep the page, offer to leave; any other error as it is."""
    if exc.code != "class_unknown" or st.session_state.get("live_joined_code") != code:
        st.error(render.md(error_text(exc)))
        return
    st.info(t("live_ended", code=code))
    st.button(t("live_leave"), key="live_leave", on_click=_leave)


def _leave() -> None:
    st.session_state["live_class"] = st.session_state["live_joined_code"] = ""


def catch_up(page_files: dict) -> None:
    """At the top of a student's run, before any widget: take the teacher's lesson if it moved (and their page)."""
    ss = st.session_state
    ss["_live_players"] = set()  # the step keys of the players this run draws (player.mount adds them)
    code = student_code()
    if not code or teaching() is not None or not ss.get("live_following", True):
        return
    try:
        version, lesson, _ = rooms().follow(code)
    except BpevizError:
        return  # the bar says why
    if not lesson or ss.get("live_seen") == version:
        return
    ss["live_seen"], ss["live_applied"] = version, lesson
    state.apply({k: v for k, v in lesson.items() if not k.startswith("_") and k not in PERSONAL}, url=False)
    page = lesson.get("_page")
    if page is not None and page != ss.get("live_page") and page in page_files:
        ss["live_page"] = page
        st.switch_page(page_files[page])


@st.fragment(run_every=FOLLOW_SECONDS)
def follow_fragment(code: str, following: bool) -> None:
    """Once a second: a run of the whole page when the teacher's lesson moved; the vote."""
    try:
        version, lesson, n = rooms().follow(code, student_id())  # the poll keeps this student's seat
    except BpevizError as exc:
        class_gone(code, exc)
        return
    st.markdown(f"**{t('live_joined', code=code, n=n)}**")  # here: it moves as students join
    teacher_status(code)
    if lesson.get("_unshared"):
        st.caption(t("live_unshared"))
    if following and lesson and st.session_state.get("live_seen") != version and not step_only(lesson):
        st.rerun(scope="app")  # catch_up applies it before the sidebar is drawn
    if st.session_state.get("live_vote_drawn") != vote_signature(code):  # opened, revealed, closed: the page must move
        st.rerun(scope="app")  # asked again at the next poll if Streamlit drops it (a run of another fragment)
    ballot()


def follow_every() -> float | None:
    """How often a player's fragment looks for the teacher's next step: once a second for a following student."""
    following = student_code() and teaching() is None and st.session_state.get("live_following", True)
    return FOLLOW_SECONDS if following else None


def step_only(lesson: dict) -> bool:
    """Whether all that moved since the lesson last applied here is the step of a player on this page."""
    applied = st.session_state.get("live_applied") or {}
    changed = {k for k in set(lesson) | set(applied) if lesson.get(k) != applied.get(k)}
    return bool(applied) and changed <= st.session_state.get("_live_players", set())


def follow_step(step_key: str) -> None:
    """In a student's player (a fragment run each second): take the teacher's step when only the step moved, so 40
    students redraw a player each, not the whole page (bench/live_load.py)."""
    st.session_state.setdefault("_live_players", set()).add(step_key)
    if follow_every() is None:
        return
    try:
        version, lesson, _ = rooms().follow(student_code())
    except BpevizError:
        return
    if lesson and st.session_state.get("live_seen") != version and step_only(lesson) and step_key in lesson:
        st.session_state["live_seen"], st.session_state["live_applied"] = version, lesson
        state.apply({step_key: lesson[step_key]}, url=False)


def teacher_status(code: str) -> None:
    """Tell a student when the teacher's page is away (reloading, closed, asleep), and when it is back."""
    with contextlib.suppress(BpevizError):
        away = rooms().teacher_away(code)
        if away:
            st.warning(t("live_teacher_away"))
        elif st.session_state.get("live_teacher_was_away"):
            st.toast(t("live_teacher_back"))
        st.session_state["live_teacher_was_away"] = away


def vote_signature(code: str) -> tuple | None:
    """What a student's page shows of the vote: a change (opened, revealed, closed) redraws the page."""
    with contextlib.suppress(BpevizError):
        vote = rooms().vote(code)
        return None if vote is None else (vote.kind, vote.step, vote.revealed, vote.round)
    return None


def ballot() -> None:
    code = student_code()
    vote = rooms().vote(code)
    if vote is None:
        return
    st.markdown(f"**{t(f'live_question_{vote.kind}')}**")
    if vote.round > 1 and not vote.revealed:
        st.caption(t("live_question_again"))
    mine = vote.ballots.get(student_id())
    if vote.revealed:
        right = mine in vote.right
        (st.success if right else st.info)(t("live_you_right" if right else "live_you_other",
                                             right=render.md(", ".join(sorted(vote.right)))))
        return
    choice = st.radio(t("live_pick"), list(vote.options), format_func=render.md,  # tokens of the teacher's corpus
                      index=vote.options.index(mine) if mine in vote.options else None,
                      key=f"live_choice_{vote.kind}_{vote.step}" + (f"_r{vote.round}" if vote.round > 1 else ""))
    if choice is not None and choice != mine:
        rooms().cast(code, student_id(), choice)
        mine = choice
    if mine is not None:
        st.caption(t("live_counted"))
