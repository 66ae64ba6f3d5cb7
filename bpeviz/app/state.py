"""The lesson's state: the user's choices only, their schema, the address bar and the snapshot file.

Every choice is a Field with its default, its URL name and its allowed values. A value from a
URL or a snapshot is checked against its field; a value that does not fit is reported by name
and range and never replaced silently. Derived things (tokenizers, counts) are never stored.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

import bpeviz
from bpeviz import formats
from bpeviz.core import rules
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.engine import ENGINES
from bpeviz.lessons import mix, render
from bpeviz.pre_tokenizers import splits as pretokenize
from bpeviz.trainers.settings import resolve_settings

from .i18n import LANGUAGES, t

MAX_VOCAB_IN_APP = 50_256  # GPT-2's 50 000 merges replayed; bounds one visitor's training on the shared server
MAX_URL_TEXT = 1_500  # pasted text longer than this goes into the JSON snapshot, not the URL
MAX_SNAPSHOT_BYTES = 6_000_000  # a lesson file holds at most the pasted-text cap and a little more
MAX_STEP = 10**6
MAX_SENTENCE = 100_000  # characters of a sentence encoded at all (Encode, Compare algorithms)
SOURCES = ("shipped", "paste", "upload", "gpt2", "import")
REPLAY_SOURCES = ("gpt2", "import")
SPEEDS = (0.25, 0.5, 1.0, 2.0, 3.0)  # seconds per step when playing
CUSTOM = "custom"
SNAPSHOT_FORMAT = "bpeviz-lesson"
MAX_LIST_ITEMS = 64  # values of a list field
INSPECTED = ("lesson", "gpt2", "cl100k_base", "o200k_base", "qwen3.6", "deepseek-v4")  # the Inspect page's choices

_toy = corpora.CORPORA[corpora.DEFAULT_CORPUS]


@dataclass(frozen=True)
class Field:
    """One choice of the lesson: state key, default, URL name, and what values it may take."""

    key: str
    default: object
    url: str | None = None  # None: kept in the snapshot only
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    items: tuple | None = None  # a list field: what each of its values may be (written "a,b,c" in the URL)

    def coerce(self, value: object, name: str | None = None) -> object:
        """value checked and converted to this field's type; ValueError with a message naming the field (as `name`)."""
        name = render.md(name or self.key)
        try:
            converted = self._convert(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(t("bad_value", field=name, value=_short(value))) from None
        if self.items is not None:
            if not set(converted) <= set(self.items):  # type: ignore[call-overload]  # a list field
                raise ValueError(t("bad_choice", field=name, value=_short(value), choices=", ".join(map(str, self.items))))
        elif self.choices is not None and converted not in self.choices:
            raise ValueError(t("bad_choice", field=name, value=_short(value), choices=", ".join(map(str, self.choices))))
        too_low = self.low is not None and converted < self.low  # type: ignore[operator]  # a number field
        if too_low or (self.high is not None and converted > self.high):  # type: ignore[operator]  # a number field
            raise ValueError(t("out_of_range", field=name, value=_short(value), low=f"{self.low:,g}", high=f"{self.high:,g}"))
        return converted

    def _convert(self, value: object) -> object:
        if isinstance(self.default, list):  # "en,pt" from an address, a list from a lesson file
            found = value.split(",") if isinstance(value, str) else value
            if not isinstance(found, list) or not all(isinstance(v, str) for v in found):
                raise ValueError(value)
            return list(dict.fromkeys(v for v in found if v))[:MAX_LIST_ITEMS]
        if isinstance(self.default, bool):
            text = str(value).lower()
            if isinstance(value, bool) or text in ("1", "true", "yes", "0", "false", "no"):
                return value if isinstance(value, bool) else text in ("1", "true", "yes")
            raise ValueError(value)
        if isinstance(self.default, int):
            if isinstance(value, (bool, float)):
                raise ValueError(value)
            return int(str(value).strip())
        if isinstance(self.default, float):
            number = float(str(value))
            if number != number:  # NaN
                raise ValueError(value)
            return number
        if not isinstance(value, str):
            raise ValueError(value)
        value.encode("utf-8")  # a lone surrogate cannot be shown, sent or encoded
        return value


FIELDS: dict[str, Field] = {f.key: f for f in (
    Field("source", "shipped", "src", choices=SOURCES),
    Field("corpus", corpora.DEFAULT_CORPUS, "corpus", choices=tuple(corpora.CORPORA)),
    Field("pasted", "", "text"),
    Field("lines_are_docs", True, "lines"),
    Field("vocab_size", _toy.vocab_size, "vocab", low=1, high=MAX_VOCAB_IN_APP),
    Field("level", _toy.level, "level", choices=bpeviz.LEVELS),
    Field("pretokenizer", "gpt2", "pre", choices=(*bpeviz.PRETOKENIZERS, CUSTOM)),
    Field("custom_pattern", r"\w+|\s+|[^\w\s]+", "re"),
    Field("tie_break", "first", "tie", choices=bpeviz.TIE_BREAKS),
    Field("count_rule", "overlapping", "count", choices=tuple(rules.COUNT_RULES)),
    Field("dialect", "", "dialect", choices=("", *rules.DIALECTS)),
    Field("engine", "auto", "engine", choices=ENGINES),  # which loop trains (the merges are the same)
    Field("step", 0, "step", low=0, high=MAX_STEP),
    Field("alg_bpe_step", 0, "bstep", low=0, high=MAX_STEP),  # the Compare algorithms page's three players
    Field("alg_wordpiece_step", 0, "wstep", low=0, high=MAX_STEP),
    Field("alg_unigram_step", 0, "ustep", low=0, high=MAX_STEP),
    Field("dropout_p", 0.1, "drop", low=0.0, high=0.9),  # the Encode page's BPE-dropout
    Field("dropout_seed", 0, "seed", low=0, high=10**6),
    Field("mix", "equal", "mix", choices=(*mix.PRESETS, "custom")),  # the Who pays? page
    Field("mix_custom", [], "langs", items=tuple(corpora.UDHR_LANGUAGES)),  # its custom mix
    Field("mix_heavy", "", "heavy", choices=("", *corpora.UDHR_LANGUAGES)),  # the language weighted 4x in it
    Field("mix_vocab", 4096, "mixv", choices=(1024, 2048, 4096, 8192)),
    Field("beyond_part", "superword", "part", choices=("superword", "parity", "optimal")),  # the Beyond greedy page
    Field("beyond_t", 70, "t", choices=tuple(range(0, 101, 5))),  # SuperBPE's transition, % of the merges
    Field("beyond_step", 0, "sstep", low=0, high=MAX_STEP),  # its player
    Field("parity_mix", "european", "pmix", choices=("european", "equal")),
    Field("parity_vocab", 2048, "pvocab", choices=(1024, 2048, 4096)),
    Field("opt_corpus", "paper", "opt", choices=("paper", "toy", "typed")),
    Field("opt_text", "abc abd abe bc bd be", "words"),
    Field("opt_merges", 3, "n", low=1, high=10),
    Field("sentence", "o gato subiu no", "s"),
    Field("chart_corpus", "english", "chart", choices=("english", "lesson", *corpora.CORPORA)),  # the Charts page
    Field("inspect_tok", "cl100k_base", "itok", choices=INSPECTED),  # the Inspect page's tokenizer
    *(Field(f"cmp_{side}_{part}", default, f"{side}{part}", choices=choices)  # the Rules page's Run A and Run B
      for side, tie in (("a", "first"), ("b", "smallest"))
      for part, default, choices in (("dialect", "sidebar", ("sidebar", *rules.DIALECTS)), ("tie", tie, bpeviz.TIE_BREAKS),
                                     ("count", "overlapping", tuple(rules.COUNT_RULES)))),
    Field("trace_step", MAX_STEP, low=0, high=MAX_STEP),  # a new sentence shows its whole trace; First steps back
    Field("speed", 1.0, choices=SPEEDS),
    Field("classroom", False, "big"),
    Field("present", False, "present"),  # the Train page alone on the screen: no sidebar, no title (app/pages/train.py)
    Field("lang", "en", "lang", choices=tuple(LANGUAGES)),
    Field("live_class", "", "class"),  # a student's live class code (bpeviz_app/live.py)
)}
DEFAULTS: dict[str, Any] = {key: f.default for key, f in FIELDS.items()}
SHADOW = "_w_"  # prefix of the key a bound widget gets (see bind); a bound choice is never a widget's, so it stays


def _short(value: object) -> str:
    """A value for a message: cut to 40 characters, lone surrogates escaped, made inert for Markdown."""
    text = str(value).encode("utf-8", "backslashreplace").decode("utf-8")
    return render.md(text if len(text) <= 40 else text[:37] + "…")


# -- reading and writing the state ---------------------------------------------------------


def notify(message: str, kind: str = "info") -> None:
    """Say something once, at the top of the next page drawn: "info" for a setting that changed, "warning" for a value ignored."""
    st.session_state.setdefault("_notices", []).append((kind, message))


def pop_notices() -> list[tuple[str, str]]:
    return st.session_state.pop("_notices", [])


def apply(values: dict, *, url: bool) -> list[str]:
    """Put a lesson (URL parameters or snapshot values) into the state; returns a message per value not used.

    A corpus brings its own starting settings first; values given explicitly then override them.
    """
    by_name = {(f.url if url else f.key): f for f in FIELDS.values() if (f.url if url else f.key)}
    messages = []
    if not isinstance(values, dict):
        return [t("lesson_not_object")]
    lang_name = FIELDS["lang"].url if url else "lang"
    with contextlib.suppress(ValueError):  # the language first: the messages about the other values are in it
        if lang_name in values:
            st.session_state["lang"] = FIELDS["lang"].coerce(values[lang_name])
    accepted = {}
    for name, value in values.items():
        field = by_name.get(name)
        if field is None:
            messages.append(t("unknown_field", field=_short(name)))  # a key of a hostile file: shown inert
            continue
        try:
            accepted[field.key] = field.coerce(value, name)
        except ValueError as exc:
            messages.append(str(exc))
    if "corpus" in accepted and accepted.get("source", "shipped") == "shipped":
        preset = corpora.CORPORA[str(accepted["corpus"])]
        st.session_state.vocab_size, st.session_state.level = preset.vocab_size, preset.level
    if accepted.get("source") in REPLAY_SOURCES:
        st.session_state.level = "bytes"  # replayed merges are byte-level; the vocab asked for stays as asked
    for key, value in accepted.items():
        st.session_state[key] = value
    return messages


def init() -> None:
    """Defaults and the lesson in the URL on a session's first run; after it, every choice as keep() left it."""
    ss = st.session_state
    if "_lesson_ready" not in ss:
        for key, value in DEFAULTS.items():
            ss.setdefault(key, value)
        for message in apply(dict(st.query_params), url=True):
            notify(message, "warning")
        ss["_lesson_ready"] = True
    else:
        # Streamlit drops a widget's value when a run starts on a page without that widget; keep() saved it
        kept = ss.get("_kept", {})
        for key in DEFAULTS:  # the lesson's fields; some are still keys of page widgets (the sentence)
            if key in ss:
                ss[key] = ss[key]  # re-assigned, the value is the session's, not the widget's
            elif key in kept:
                ss[key] = kept[key]


def bind(key: str, default: object = None, options: Sequence | None = None) -> dict:
    """Keywords for a page widget that shows the choice `key` and writes it back when the user changes it.

    The widget gets a key of its own (SHADOW + key), set from the choice before it is drawn. Keyed by the
    choice itself, a radio or select came back from another page with the browser's old value. A value
    that is no longer among `options` falls back to `default`. Example: st.radio("Mix", MIXES, **bind("mix"))
    """
    ss = st.session_state
    shadow = SHADOW + key
    value = ss.get(key, DEFAULTS.get(key, default))
    if options is not None and (value not in options if not isinstance(value, list) else not set(value) <= set(options)):
        value = default
    ss[key] = value
    if shadow not in ss or ss[shadow] != value:
        ss[shadow] = value

    def changed() -> None:
        ss[key] = ss[shadow]

    return {"key": shadow, "on_change": changed}


def keep() -> None:
    """At the end of every run: remember each choice, so that a page left and come back to shows it as it was."""
    ss = st.session_state
    ss["_kept"] = {key: ss[key] for key in DEFAULTS if key in ss}


def values() -> dict:
    """The lesson as plain values (what a snapshot holds)."""
    return {key: st.session_state.get(key, default) for key, default in DEFAULTS.items()}


def sync_url() -> None:
    """Write the lesson into the address bar (long pasted text only goes to the snapshot)."""
    lesson = values()
    params = {}
    for field in FIELDS.values():
        value = lesson[field.key]
        if field.url is None or value == field.default:
            continue
        too_long = field.key == "pasted" and len(str(value)) > MAX_URL_TEXT
        if too_long or (field.key == "custom_pattern" and lesson["pretokenizer"] != CUSTOM):
            continue
        params[field.url] = str(int(value)) if isinstance(value, bool) else ",".join(value) if isinstance(value, list) \
            else str(value)
    if dict(st.query_params) != params:
        st.query_params.from_dict(params)


def pretokenizer() -> str:
    """The chosen split: a preset name or the custom regex."""
    name = str(st.session_state.get("pretokenizer", "gpt2"))
    return str(st.session_state.get("custom_pattern", "")) if name == CUSTOM else name


def settings() -> Settings:
    """The training settings the sidebar shows; hashable, so it is the cache key with the source's digest."""
    ss = st.session_state
    dialect = str(ss.get("dialect", ""))
    return resolve_settings(int(ss.get("vocab_size", 1)), level=str(ss.get("level", "chars")),
                                     pretokenizer=pretokenizer(), tie_break=str(ss.get("tie_break", "first")),
                                     count_rule=str(ss.get("count_rule", "overlapping")),
                                     dialect=dialect if dialect in rules.DIALECTS else None)


# -- the snapshot file ---------------------------------------------------------------------


def snapshot_bytes(lesson: dict) -> bytes:
    return json.dumps({"format": SNAPSHOT_FORMAT, "version": 1, "lesson": lesson}, ensure_ascii=False, indent=1).encode()


def read_snapshot(data: bytes) -> dict:
    """The lesson values of a snapshot file; ValueError with a plain message for anything else."""
    if len(data) > MAX_SNAPSHOT_BYTES:
        raise ValueError(t("snapshot_too_big", mb=MAX_SNAPSHOT_BYTES // 1_000_000))
    obj = formats.parse_json(data, "the lesson file")
    if not isinstance(obj, dict) or obj.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(t("not_a_lesson"))
    lesson = obj.get("lesson", {})
    if not isinstance(lesson, dict):
        raise ValueError(t("lesson_not_object"))
    return lesson


def custom_pattern_problem() -> str | None:
    """Why the custom pattern cannot be used, or None."""
    if st.session_state.get("pretokenizer") != CUSTOM:
        return None
    try:
        pretokenize.resolve(pretokenizer())
    except ValueError as exc:
        return str(exc)
    return None
