"""Trained runs, cached: one training per corpus and settings, shared read-only, bounded in memory.

Stepping, charts and views index a cached run; nothing here is per visitor. The store is keyed
by the source's content digest and the Settings, so an entry is found only by someone who
supplies the same corpus and settings, and entries never change once stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

import bpeviz
from bpeviz import engine as engines
from bpeviz import formats
from bpeviz.core.records import Settings
from bpeviz.lessons import mix, render, sources, steps
from bpeviz.models.base import TokenizerBase
from bpeviz.pretrained.encodings import ENCODINGS, reference
from bpeviz.trainers.bpe import corpus_words

from . import box, inspecting
from .budget import Budget, give_back, map_big_blocks
from .carry import pack, unpack
from .downloads import keep_made_downloads
from .i18n import error_text, t
from .sidebar import Lesson
from .state import DEFAULTS
from .tasks import check_unigram_words
from .views import progress_bar

BOX_MIN_BYTES = 100_000  # a visitor's text or file from this size trains in a worker process (see in_box)
RECORD_TOP = 12  # best pairs the trainer keeps per step, so the pair chart never recounts
MAX_CACHE_BYTES = 600_000_000  # all cached runs together, across every visitor
MAX_UNIGRAM_CHARS = 250_000  # characters of distinct words a Unigram run in the app may take (see check_unigram_size)
MAX_ENTRY_BYTES = 250_000_000  # one run larger than this is used and not kept
WARM_UP_THREAD = "bpeviz-warm-up"  # the name of the thread that loads and trains in the background


def approx_bytes(tok: bpeviz.Tokenizer) -> int:
    """A generous estimate of a tokenizer's memory: its merges with their recorded pairs, plus room for its caches."""
    per_merge = sum(400 + 150 * len(m.top) for m in tok.merges[:1000])
    average = per_merge / min(len(tok.merges), 1000) if tok.merges else 0
    return int(average * len(tok.merges)) + 8_000_000


class Kept:
    """Results keyed by what made them, least recently used dropped first once over `max_bytes`; shared read-only.

    Our own store rather than st.cache_data/cache_resource: a run shows a progress bar updated from inside it,
    which a cached call cannot, and the bound is in bytes (`size_of`), not in entries.
    """

    def __init__(self, max_bytes: int = MAX_CACHE_BYTES, size_of: Callable[..., int] = approx_bytes) -> None:
        self.max_bytes, self.size_of = max_bytes, size_of
        self._runs: OrderedDict[tuple, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.trained = 0  # how many results were computed (the tests count these)

    @property
    def bytes(self) -> int:
        return sum(size for _, size in self._runs.values())

    def get(self, key: tuple):  # -> the kept result or None
        with self._lock:
            found = self._runs.get(key)
            if found is None:
                return None
            self._runs.move_to_end(key)
            return found[0]

    def put(self, key: tuple, result: object) -> None:
        size = self.size_of(result)
        with self._lock:
            self.trained += 1
            if size > MAX_ENTRY_BYTES:
                return
            self._runs[key] = (result, size)
            while self.bytes > self.max_bytes and len(self._runs) > 1:
                self._runs.popitem(last=False)


@st.cache_resource
def trained_runs() -> Kept:
    return Kept()


def run(source: sources.CorpusSource, settings: Settings, progress: Callable[[int, int], None] | None = None,
        on_wait: Callable[[int], None] | None = None) -> bpeviz.Tokenizer:
    """Train (or replay) once per source and settings; stepping only indexes the result.

    A visitor's own text or file of BOX_MIN_BYTES or more trains in a worker process (box.py): its peak memory is
    the worker's, and on_wait(n) hears its place in the queue while every worker is busy. Such a run is kept in the
    visitor's session, not in the shared store: it is theirs, and it goes when they go.
    """
    if in_box(source):
        return boxed_run(source, settings, progress, on_wait)[0]
    chosen = engine()
    key = (sources.digest(source), settings, chosen)
    store = trained_runs()
    tok = store.get(key)
    if tok is None:
        if settings.algorithm == "unigram":
            check_unigram_size(source, settings)
        tok = sources.tokenizer_for(source, settings, progress=budget().watch(progress), record_top=RECORD_TOP,
                                    engine=chosen)
        store.put(key, tok)
    return tok


SESSION_RUNS = 3  # runs trained in a worker that one session keeps (a lesson, and the Rules page's two to compare)


def boxed_run(source: sources.CorpusSource, settings: Settings, progress: Callable[[int, int], None] | None = None,
              on_wait: Callable[[int], None] | None = None) -> tuple[bpeviz.Tokenizer, dict]:
    """A visitor's run trained in a worker process, with its player's history, kept in their session."""
    kept = session_runs()
    key = (sources.digest(source), settings, engine())
    found = kept.get(key)
    if found is None:
        found = kept[key] = train_in_box(source, settings, key[2], progress, on_wait)
        while len(kept) > SESSION_RUNS:
            kept.popitem(last=False)
    kept.move_to_end(key)
    return found


def session_runs() -> OrderedDict:
    """The runs this session trained in a worker, least recently used first (nothing is kept outside a session)."""
    if get_script_run_ctx() is None:
        return OrderedDict()
    return st.session_state.setdefault("_boxed_runs", OrderedDict())


def in_box(source: sources.CorpusSource) -> bool:
    """Whether a run trains in a worker process: a visitor's own text or file from BOX_MIN_BYTES. The shipped corpora
    and GPT-2's merges are known, small and shared: they train here, without a worker's start (~0.3 s)."""
    return not isinstance(source, (sources.Shipped, sources.ReplayGPT2)) and len(source.content()) >= BOX_MIN_BYTES


def train_in_box(source: sources.CorpusSource, settings: Settings, chosen: str,
                 progress: Callable[[int, int], None] | None,
                 on_wait: Callable[[int], None] | None) -> tuple[bpeviz.Tokenizer, dict]:
    """sources.tokenizer_for in a worker process (tasks.train): the same tokenizer, records included, and the player's
    history (steps.train_history, which reads every distinct word of the corpus)."""
    def on_message(message: dict) -> None:
        if progress is not None and "done" in message:
            progress(int(message["done"]), int(message["total"]))

    blob = pack((source, settings))
    header = {"record_top": RECORD_TOP, "engine": chosen, "unigram_cap": MAX_UNIGRAM_CHARS}
    made = box.run("train", header, [blob], budget=budget(), on_message=on_message, on_wait=on_wait)
    return unpack(made)  # (tokenizer, history), made by tasks.train from what this process sent


def budget() -> Budget:
    """This visitor's budget for one run: RUN_SECONDS, and stopped once their session has closed."""
    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return Budget()
    session = ctx.session_id
    return Budget(still_here=lambda: runtime.get_instance().is_active_session(session))


def engine() -> str:
    """The engine the visitor chose (Train's settings; "auto" by default: the compiled one when it is loaded or in
    numba's cache, else Python). "compiled" before it is ready falls back to "auto": nothing compiles in a visit."""
    chosen = str(st.session_state.get("engine", "auto"))
    if chosen == "compiled" and engines.status("bpe") not in ("loaded", "ready"):
        return "auto"
    return chosen if chosen in engines.ENGINES else "auto"


def for_page(lesson: Lesson) -> bpeviz.Tokenizer | None:
    """The lesson's tokenizer with a progress bar while it trains; None with a message when there is none."""
    if lesson.source is None:  # say why in the main area too: the sidebar's upload box shows only a red "!"
        kind, message = lesson.problem or ("info", t("choose_corpus"))
        getattr(st, kind)(message)
        return None
    bar, progress = progress_bar()

    def on_wait(ahead: int) -> None:
        bar.progress(0.0, text=t("count_waiting", n=ahead))

    try:
        tok = run(lesson.source, lesson.settings, progress, on_wait)
    except ValueError as exc:
        bar.empty()
        st.error(t("train_failed", why=render.md(error_text(exc))))
        return None
    bar.empty()
    wanted = lesson.settings.vocab_size - tok.n_base
    if len(tok.merges) < wanted and not sources.is_replay(lesson.source):
        st.info(t("stopped_early", n=len(tok.merges), vocab=tok.vocab_size))
    return tok


def check_unigram_size(source: sources.CorpusSource, settings: Settings) -> None:
    """Refuse a Unigram run the shared server cannot afford (tasks.check_unigram_words: MAX_UNIGRAM_CHARS of distinct
    words)."""
    check_unigram_words(words(sources.digest(source), settings, source), MAX_UNIGRAM_CHARS)


@st.cache_data(max_entries=32, show_spinner=False)
def words(digest: str, settings: Settings, _source: sources.CorpusSource) -> dict[str, int]:
    """Distinct pre-tokens of the source with counts as training sees them (the digest names the source for the cache)."""
    return dict(corpus_words(_source.documents(), settings))


def run_digest(source: sources.CorpusSource, settings: Settings) -> str:
    """A short name for one run: its source's content and its settings."""
    return hashlib.sha256(f"{sources.digest(source)}|{settings!r}".encode()).hexdigest()[:20]


def train_history(digest: str, settings: Settings, source: sources.CorpusSource) -> dict:
    """The run as the player needs it (see steps.train_history); digest names the source for the cache. A run trained
    in a worker brought its history with it (kept in the session); the others' are computed once, for everyone."""
    if in_box(source):
        history = dict(boxed_run(source, settings)[1])
        history["replay"] = sources.is_replay(source)
        return history
    return shared_history(digest, settings, source)


@st.cache_data(max_entries=16, show_spinner=False)
def shared_history(digest: str, settings: Settings, _source: sources.CorpusSource) -> dict:
    tok = run(_source, settings)
    history = steps.train_history(tok, _source.documents(), Counter(words(digest, tok.settings, _source)))
    history["replay"] = sources.is_replay(_source)
    return history


@st.cache_data(max_entries=64, show_spinner=False)
def trace_history(digest: str, settings: Settings, text: str, _source: sources.CorpusSource) -> dict:
    """An encoding trace as the player needs it (see steps.trace_history)."""
    return steps.trace_history(run(_source, settings), text)


MIX_CACHE_BYTES = 200_000_000  # the language-mix runs together (a default mix at 4 096 is about 10 MB)


@st.cache_resource
def mix_runs() -> Kept:
    """Language-mix runs keyed by (weights, vocab size, parity), bounded by the bytes of their tokenizers."""
    return Kept(MIX_CACHE_BYTES, size_of=lambda run: approx_bytes(run.tok))


def mix_run(weights: tuple[tuple[str, int], ...], vocab_size: int, progress: Callable[[int, int], None] | None = None,
            parity: bool = False, store: Kept | None = None):
    """A tokenizer trained on a UDHR language mix (bpeviz.mix), one per mix, size and kind, shared read-only by everyone."""
    store, key = store or mix_runs(), (weights, vocab_size, parity)
    found = store.get(key)
    if found is None:
        found = mix.train_mix(dict(weights), vocab_size, progress=budget().watch(progress), parity=parity)
        store.put(key, found)
    return found


@st.cache_resource(show_spinner=False)
def warm_up() -> threading.Thread:
    """Once per server, in the background: the chart library, the real tokenizers, the Who pays? page's default mix,
    the compiled engine, the Inspect page's default sections.

    A teacher's first visit to Who pays? took 5-7 s (five tokenizers read, 26 languages trained); after
    this, the page finds them ready. Until the compiled engine is loaded (from numba's cache; a
    background process fills it once) runs use the Python one. Errors are left for the page to show.
    """
    thread = threading.Thread(target=warm_up_work, args=(mix_runs(),), name=WARM_UP_THREAD, daemon=True)
    thread.start()
    if on_a_server():
        map_big_blocks()  # big blocks mapped on their own before any visitor uploads (budget.map_big_blocks)
        keep_made_downloads(runtime.get_instance().media_file_mgr)  # a handout made on click outlives others' runs
        threading.Thread(target=give_back_now_and_then, name="bpeviz-give-back", daemon=True).start()
    return thread


GIVE_BACK_SECONDS = 30.0  # how often the server hands freed memory back to the system


def give_back_now_and_then() -> None:
    """Every GIVE_BACK_SECONDS, freed memory back to the system (budget.give_back): a server's resident memory then
    returns to its warm baseline once visitors leave, instead of keeping the pages their requests freed."""
    import time

    from .leftovers import Leftovers

    leftovers = Leftovers()
    while True:
        time.sleep(GIVE_BACK_SECONDS)
        leftovers.sweep()  # uploads and sessions of visitors who left (leftovers.py: Streamlit keeps them)
        give_back()


def warm_up_work(store: Kept) -> None:
    """What warm_up's thread does. Inspect's defaults (about 8 s of a core) only on a server: AppTest, which has none,
    runs the pages of the quick tests, and their processes need not pay for a page most of them never open."""
    import altair  # noqa: F401  # every page but the first draws charts: imported here, not in a visitor's run

    for name in ENCODINGS:
        with contextlib.suppress(Exception):  # a missing package is the page's to report, not the warm-up's
            reference(name)
    mix_run(tuple(sorted(mix.PRESETS[str(DEFAULTS["mix"])].items())), int(DEFAULTS["mix_vocab"]), store=store)
    with contextlib.suppress(Exception):  # without numba the Python engine serves
        engines.start_background()  # compile what numba's cache lacks, in another process, once
        engines.load_ready()
    if on_a_server():
        with contextlib.suppress(Exception):
            inspecting.warm(mix_run)


def on_a_server() -> bool:
    """Whether a Streamlit server runs this process (AppTest puts a mock of its Runtime in place of one)."""
    return runtime.exists() and type(runtime.get_instance()) is runtime.Runtime


@st.cache_resource(max_entries=2, ttl=900, show_spinner=False)
def imported(digest: str, name: str, n_merges: int, _data: bytes) -> TokenizerBase:
    """A tokenizer file read once per content and prefix, not on every rerun (a million-entry vocabulary takes seconds).

    Shared read-only like the trained runs; a file that does not read raises each time (errors are not kept).
    """
    return formats.import_data(_data, name, n_merges=n_merges)
