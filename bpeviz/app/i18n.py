"""Interface strings in English and Portuguese; `t(key)` picks one in the session's language.

The strings are data, in assets/strings.json: key -> {"en": ..., "pt": ...}, where a value may be
a [singular, plural] pair chosen by the `n` value. Translators edit that file only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import streamlit as st

from bpeviz.core import rules
from bpeviz.data import corpora
from bpeviz.pre_tokenizers import splits as pretokenize

from . import texts

LANGUAGES = {"en": "English", "pt": "Português"}

Text = texts.Text


STRINGS: dict[str, dict[str, Text]] = texts.strings()  # key -> language -> text or (singular, plural)


def corpus_label(key: object, language: str | None = None) -> str:
    """A shipped corpus's name in the interface language. Example: corpus_label("udhr-fr", "pt") -> "DUDH: Francês" """
    key = str(key)
    if key.startswith("udhr-"):
        return t("corpus_udhr", language, language=t(f"udhr_{key[5:]}", language))
    return t(f"corpus_{key}", language, default=corpora.CORPORA[key].label if key in corpora.CORPORA else key)


def source_label(source: object, language: str | None = None) -> str:
    """What a lesson trains on, in the interface language (file names as they are): the string source_<kind>."""
    if not hasattr(source, "label_values"):
        return str(getattr(source, "label", ""))
    values = source.label_values()
    if "corpus" in values:
        return corpus_label(values["corpus"], language)
    # every source kind has kind and label
    return t(f"source_{source.kind}", language, default=str(source.label), **values)  # type: ignore[attr-defined]


def error_text(error: Exception, language: str | None = None) -> str:
    """A library error in the interface language when its code is known here, else its own (English) message."""
    key = f"err_{getattr(error, 'code', '')}"
    if key not in STRINGS:
        return str(error)
    values = dict(getattr(error, "values", {}))
    if "format" in values:
        values["format"] = t(f"format_label_{values['format']}", language, default=str(values["format"]))
    return t(key, language, **values)


def lang() -> str:
    """The session's interface language."""
    return str(st.session_state.get("lang", "en"))


def bound(format_option: Callable[[Any, str], str]) -> Callable[[Any], str]:
    """A widget format_func from format_option(option, language), with this run's language bound now.

    Streamlit may call a format_func after the run, when the session's language cannot be read.
    """
    language = lang()
    return lambda option: format_option(option, language)


def tie_name(rule: str, language: str | None = None) -> str:
    return t(f"tie_{rule}", language, default=rule)


def tie_why(rule: str, language: str | None = None) -> str:
    return t(f"rule_{rule}", language, default=rules.TIE_RULES[rule].description if rule in rules.TIE_RULES else rule)


def pretokenizer_description(name: str, language: str | None = None) -> str:
    preset = pretokenize.PRETOKENIZERS.get(name)
    return t(f"pre_{name}", language, default=preset.description if preset else name)


def labels(template: str) -> Callable[[object], str]:
    """A widget format_func: option -> t(template with the option). Example: format_func=labels("level_{}")"""
    return bound(lambda option, language: t(template.format(option), language))


_FIRST_FIELD = re.compile(r"\{(\w+)")
_PT_SEPARATORS = str.maketrans(",.", ".,")


class _PtNumber:
    """A number that formats as Portuguese writes it: f"{_PtNumber(4096.5):,.1f}" -> "4.096,5"."""

    def __init__(self, value: float) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec).translate(_PT_SEPARATORS)


def num(value: float, spec: str = ",", lang: str | None = None) -> str:
    """A number as the interface language writes it. Example: num(4096, ",", "pt") -> "4.096"; num(3.5, ".1f", "pt") -> "3,5" """
    text = format(value, spec)
    return text.translate(_PT_SEPARATORS) if (lang or str(st.session_state.get("lang", "en"))) == "pt" else text


def t(key: str, lang: str | None = None, *, default: str | None = None, **values: object) -> str:
    """The interface string `key` in `lang` (the session's language by default), with `values` filled in.

    A registry entry with no string here yet (a new format, say) shows its own `default` text.
    Example: t("n_tied", "pt", n=1) -> "1 empatado"
    """
    lang = lang or str(st.session_state.get("lang", "en"))
    if key not in STRINGS and default is not None:
        return default
    entry = STRINGS[key]
    text = entry.get(lang) or entry["en"]
    if isinstance(text, tuple):  # (singular, plural[, the field that counts]); by default the plural's first number
        counted = text[2] if len(text) > 2 else (found.group(1) if (found := _FIRST_FIELD.search(text[1])) else None)
        text = text[0] if counted is not None and values.get(counted) == 1 else text[1]
    if not values:
        return text
    if lang == "pt":  # 4.096 fusões, 3,05 bytes: Portuguese swaps the English separators
        values = {k: _PtNumber(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for k, v in values.items()}
    return text.format(**values)
