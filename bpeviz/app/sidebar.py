"""The sidebar: interface language, classroom mode, the corpus source, the settings and the lesson file.

`current()` reads the choices (it draws nothing) and returns the Lesson every page works on:
a corpus source from `bpeviz.lessons.sources` and the Settings, which together are the cache key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import bpeviz
from bpeviz import engine as engines
from bpeviz.core import rules
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.engine import ENGINES
from bpeviz.lessons import render, sources
from bpeviz.pre_tokenizers.patterns import MAX_PATTERN_LENGTH
from bpeviz.trainers.settings import resolve_settings

from . import state, style
from .i18n import LANGUAGES, bound, corpus_label, error_text, labels, pretokenizer_description, t, tie_name, tie_why

MAX_TEXT_CHARS = 5_000_000  # pasted text; bigger corpora: upload a file or use the CLI
MAX_UPLOAD_MB = 5  # a text file to train on
MAX_TOKENIZER_MB = 20  # a tokenizer file to replay (o200k_base's .tiktoken is 3.6 MB)
TOKENIZER_FILE_TYPES = ["json", "tiktoken", "model", "csv", "vocab"]  # bpeviz JSON, tokenizer.json, ranks, SentencePiece
PASTE_VOCAB = 300  # pasted text usually has more than 64 different characters
REPLAY_VOCAB = 256 + 50  # replays start with their first 50 merges


@dataclass(frozen=True)
class Lesson:
    """What the pages work on: the source (None while there is none), the settings, and what to say about them."""

    source: sources.CorpusSource | None
    settings: Settings
    problem: tuple[str, str] | None = None  # (st function name, message)


def _upload(key: str, cap_mb: float) -> tuple[tuple[str, bytes] | None, tuple[str, str] | None]:
    upload = st.session_state.get(key)
    if upload is None:
        return None, None
    if upload.size > cap_mb * 1_000_000:
        return None, ("error", t("too_big", name=render.md(upload.name), size=upload.size / 1e6, cap=cap_mb))
    return (upload.name, upload.getvalue()), None


Problem = tuple[str, str] | None  # (st.info / st.warning / st.error, message) shown instead of a lesson or beside it


def _pasted() -> tuple[sources.CorpusSource | None, Problem]:
    text = str(st.session_state.get("pasted", ""))
    if len(text) > MAX_TEXT_CHARS:
        return None, ("error", t("paste_too_long", n=len(text), cap=MAX_TEXT_CHARS))
    if not text.strip():
        return None, ("info", t("paste_something"))
    return sources.Pasted(text, bool(st.session_state.get("lines_are_docs"))), None


def _uploaded() -> tuple[sources.CorpusSource | None, Problem]:
    found, problem = _upload("upload", MAX_UPLOAD_MB)
    if found is None:
        return None, problem or ("info", t("choose_text_file", cap=MAX_UPLOAD_MB))
    uploaded = sources.Uploaded(*found)
    if not uploaded.data.strip():
        return None, ("info", t("file_empty", name=render.md(uploaded.name)))
    if uploaded.bad_byte is not None:
        return uploaded, ("warning", t("not_utf8", name=render.md(uploaded.name), byte=uploaded.bad_byte))
    return uploaded, None


def _imported() -> tuple[sources.CorpusSource | None, Problem]:
    found, problem = _upload("import_replay", MAX_TOKENIZER_MB)
    if found is None:
        return None, problem or ("info", t("choose_tokenizer_file", cap=MAX_TOKENIZER_MB))
    return sources.ReplayFile(*found), None


# The sidebar's source choice (sources.<Kind>.kind) -> how its lesson source is read from the session.
SOURCE_READERS: dict[str, Callable[[], tuple[sources.CorpusSource | None, Problem]]] = {
    "shipped": lambda: (sources.Shipped(str(st.session_state.get("corpus", corpora.DEFAULT_CORPUS))), None),
    "gpt2": lambda: (sources.ReplayGPT2(), None),
    "paste": _pasted,
    "upload": _uploaded,
    "import": _imported,
}


def _source() -> tuple[sources.CorpusSource | None, Problem]:
    return SOURCE_READERS.get(str(st.session_state.get("source", "shipped")), SOURCE_READERS["shipped"])()


def current() -> Lesson:
    """The lesson the sidebar describes (no widgets drawn)."""
    source, problem = _source()
    return Lesson(source, state.settings(), problem)


# -- callbacks: a setting that changes by itself says so --------------------------------------


def _set(key: str, value: object, reason: str) -> None:
    ss = st.session_state
    if ss.get(key) != value:
        old = ss.get(key)
        ss[key] = value
        state.notify(t("changed", field=t(key), old=old, new=value, why=reason))


def _on_corpus_change() -> None:
    preset = corpora.CORPORA[str(st.session_state.corpus)]
    st.session_state.step = 0
    why = t("why_corpus_preset", corpus=corpus_label(preset.key))
    _set("level", preset.level, why)
    _set("vocab_size", preset.vocab_size, why)


def _on_level_change() -> None:
    if st.session_state.level == "bytes" and int(st.session_state.vocab_size) <= 256:
        _set("vocab_size", 512, t("why_bytes_base"))
    _on_rule_change()


def _on_rule_change() -> None:
    """A rule changed by hand: the settings are no longer a named dialect's."""
    ss = st.session_state
    dialect = rules.DIALECTS.get(str(ss.get("dialect", "")))
    if dialect is None:
        return
    theirs = {"level": dialect.level, "tie_break": dialect.tie_break, "count_rule": dialect.count_rule}
    if any(value is not None and ss.get(key) != value for key, value in theirs.items()):
        _set("dialect", "", t("why_dialect_cleared"))


def _on_dialect_change() -> None:
    ss = st.session_state
    dialect = rules.DIALECTS.get(str(ss.get("dialect", "")))
    if dialect is None:
        return
    why = t("why_dialect", dialect=dialect.name)
    # the dialect's rules, as the library resolves them (one place turns a dialect into settings)
    theirs = resolve_settings(1, pretokenizer=None if dialect.pretokenizer else str(ss.pretokenizer),
                                       dialect=dialect.name)
    _set("level", theirs.level, why)
    if theirs.level == "bytes" and int(ss.vocab_size) <= 256:
        _set("vocab_size", 512, t("why_bytes_base"))
    _set("pretokenizer", theirs.pretokenizer, why)
    _set("tie_break", theirs.tie_break, why)
    _set("count_rule", theirs.count_rule, why)


def _on_source_change() -> None:
    ss = st.session_state
    ss.step = 0
    if ss.source in ("gpt2", "import"):
        _set("level", "bytes", t("why_replay"))
        _set("vocab_size", REPLAY_VOCAB, t("why_replay"))
    elif ss.source == "shipped":
        _on_corpus_change()
    elif ss.level == "chars" and int(ss.vocab_size) < PASTE_VOCAB:
        _set("vocab_size", PASTE_VOCAB, t("why_paste_vocab"))


# -- widgets -----------------------------------------------------------------------------------


def corpus_picker() -> Lesson:
    """Widgets that choose the corpus; returns the lesson they describe, with its message shown."""
    source = st.radio(t("source"), state.SOURCES, key="source", on_change=_on_source_change, horizontal=True,
                      format_func=labels("src_{}"))
    if source == "shipped":
        st.selectbox(t("corpus"), list(corpora.CORPORA), key="corpus", on_change=_on_corpus_change,
                     format_func=bound(corpus_label))
    elif source == "gpt2":
        st.caption(t("gpt2_replay_note"))
    elif source == "import":
        st.file_uploader(t("tokenizer_file", cap=MAX_TOKENIZER_MB), type=TOKENIZER_FILE_TYPES,
                         key="import_replay", max_upload_size=MAX_TOKENIZER_MB, help=t("tokenizer_file_help"))
    elif source == "paste":
        st.text_area(t("paste_here"), key="pasted", height=160, placeholder=t("paste_placeholder"), max_chars=MAX_TEXT_CHARS,
                     help=t("paste_help", cap=MAX_TEXT_CHARS))
        st.caption(t("paste_help", cap=MAX_TEXT_CHARS))  # said before the limit is hit: the browser stops at it
        st.checkbox(t("lines_are_docs"), key="lines_are_docs", help=t("lines_are_docs_help"))
    else:
        st.file_uploader(t("text_file", cap=MAX_UPLOAD_MB), type=["txt", "md", "py", "csv"], key="upload",
                         max_upload_size=MAX_UPLOAD_MB, help=t("text_file_help", cap=MAX_UPLOAD_MB))
    lesson = current()
    if lesson.problem:
        kind, message = lesson.problem
        getattr(st, kind)(message)
    return lesson


def use_bytes(reason_key: str) -> None:
    """A button's action: the lesson at level bytes (a bigger vocabulary if it had no room), said in a notice."""
    _set("level", "bytes", t(reason_key))
    _on_level_change()


def _force_bytes(source: sources.CorpusSource | None) -> bool:
    """Level bytes is the only choice for this source: switch to it (and say so)."""
    if source is None or not sources.needs_bytes(source):
        return False
    if st.session_state.level != "bytes":
        _set("level", "bytes", t("why_bytes_only"))
        _on_level_change()
    return True


def settings_picker(source: sources.CorpusSource | None) -> None:
    """Widgets for vocab size, level, pre-tokenizer (with a live preview) and tie rule."""
    forced = _force_bytes(source)
    st.selectbox(t("dialect"), ["", *rules.DIALECTS], key="dialect", on_change=_on_dialect_change, help=t("dialect_help"),
                 format_func=bound(lambda k, lg: t("dialect_none", lg) if not k else str(k)))
    st.number_input(t("vocab_size"), min_value=1, max_value=state.MAX_VOCAB_IN_APP, step=1, key="vocab_size",
                    help=t("vocab_help", cap=state.MAX_VOCAB_IN_APP))
    st.radio(t("level"), bpeviz.LEVELS, key="level", horizontal=True, disabled=forced, on_change=_on_level_change,
             format_func=labels("level_{}"))
    choice = st.selectbox(t("pretokenizer"), list(state.FIELDS["pretokenizer"].choices or ()), key="pretokenizer",
                          disabled=isinstance(source, sources.ReplayGPT2), format_func=bound(pretokenizer_label))
    if choice != state.CUSTOM:
        st.caption(pretokenizer_description(str(choice)))
    if st.session_state.pretokenizer == state.CUSTOM:
        st.text_input(t("custom_pattern"), key="custom_pattern", help=t("custom_pattern_help"),
                      max_chars=MAX_PATTERN_LENGTH)
    st.radio(t("tie_break"), bpeviz.TIE_BREAKS, key="tie_break", horizontal=True, format_func=bound(tie_name),
             help=" · ".join(f"{tie_name(k)}: {tie_why(k)}" for k in bpeviz.TIE_BREAKS), on_change=_on_rule_change)
    st.radio(t("count_rule"), list(rules.COUNT_RULES), key="count_rule", horizontal=True, format_func=labels("count_{}"),
             help=t("count_rule_help"), on_change=_on_rule_change)
    engine_picker()
    with st.expander(t("preview"), expanded=False):
        split_preview(source)


def engine_picker() -> None:
    """The loop that trains: auto, Python or compiled, with one sentence on what each is and where the compiled one is."""
    st.radio(t("engine_choice"), ENGINES, key="engine", horizontal=True, format_func=labels("engine_choice_{}"),
             help=t("engine_choice_help"))
    where = engines.status("bpe")
    if where in ("compiling", "unavailable", "failed"):
        st.caption(t(f"engine_status_{where}"))


def pretokenizer_label(name: object, language: str) -> str:
    return t("custom_regex", language) if name == state.CUSTOM else str(name)


def split_preview(source: sources.CorpusSource | None) -> None:
    """A sample of the corpus as chips, one per pre-token."""
    sample = "o gato subiu no telhado, 12345 vezes!"
    if source is not None:
        sample = " ".join(source.documents()[:3])[:160]
    try:
        pieces = bpeviz.split_pieces(sample, state.pretokenizer())
    except ValueError as exc:
        st.error(render.md(error_text(exc)))
        return
    st.markdown(render.chips_html(render.Chip(render.visible(p.text), k) for k, p in enumerate(pieces)), unsafe_allow_html=True)
    st.caption(t("n_pieces", n=len(pieces)))
    if st.session_state.pretokenizer == state.CUSTOM and len(pieces) <= 1:
        st.info(t("matches_nothing"))


def _on_snapshot_upload() -> None:
    upload = st.session_state.get("snapshot_upload")
    if upload is None:
        return
    try:
        ignored = state.apply(state.read_snapshot(upload.getvalue()), url=False)
    except ValueError as exc:
        st.session_state["_snapshot_message"] = ("error", t("lesson_not_loaded", why=str(exc)))
        return
    message = t("lesson_loaded") + (" " + " ".join(ignored) if ignored else "")
    st.session_state["_snapshot_message"] = ("warning" if ignored else "success", message)


def snapshot_widgets() -> None:
    """Download the lesson as it is on screen at the moment of the click; load one back."""
    with st.expander(t("snapshot")):
        st.caption(t("share_hint"))
        session = get_script_run_ctx().session_state  # type: ignore[union-attr]  # read at click time, off the script thread

        def lesson_now() -> bytes:
            # SafeSessionState has no .get (its __getattr__ reads keys)
            return state.snapshot_bytes({key: session[key] if key in session else value  # noqa: SIM401
                                         for key, value in state.DEFAULTS.items()})

        st.download_button(t("download_snapshot"), lesson_now, file_name="bpeviz-lesson.json", mime="application/json",
                           on_click="ignore", key="snapshot_download")
        st.file_uploader(t("load_snapshot"), type=["json"], key="snapshot_upload", on_change=_on_snapshot_upload,
                         max_upload_size=state.MAX_SNAPSHOT_BYTES // 1_000_000)
        message = st.session_state.pop("_snapshot_message", None)
        if message:
            getattr(st, message[0])(message[1])


def _present(on: bool) -> None:
    """Presentation: the Train page's player alone on the projector (the sidebar and the page's title hidden)."""
    st.session_state["present"] = on
    if on:
        st.session_state["classroom"] = True


def exit_presentation_button() -> None:
    """On the presented page: its stylesheet (no sidebar, no header), and the way back."""
    st.html(style.css("present.css"))
    st.button(t("present_exit"), key="present_exit", on_click=_present, args=(False,), icon=":material/close:")


def show() -> Lesson:
    """Everything in the sidebar; returns the lesson it describes."""
    with st.sidebar:
        st.radio(t("interface"), list(LANGUAGES), key="lang", horizontal=True, format_func=LANGUAGES.get)
        st.toggle(t("classroom"), key="classroom")
        if st.button(t("present_enter"), key="present_enter", on_click=_present, args=(True,), icon=":material/slideshow:",
                     help=t("present_help")):
            st.switch_page(Path(__file__).resolve().parent / "pages" / "train.py")
        st.subheader(t("corpus"))
        lesson = corpus_picker()
        st.subheader(t("settings"))
        settings_picker(lesson.source)
        snapshot_widgets()
    return current()
