"""The interface strings as data (assets/strings.json), read without Streamlit: the app and the notebook widgets share it.

key -> {"en": ..., "pt": ...}; a value may be a [singular, plural] pair. `text(key, language)` picks one;
`player_labels` gives the step player's strings, placeholders left for the browser to fill.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

from bpeviz.core import rules

LOCALES = {"en": "en-US", "pt": "pt-BR"}
Text = str | tuple[str, ...]  # a string, or (singular, plural) or (singular, plural, the field that counts)

PLAYER_KEYS = ("first", "prev", "play", "pause", "next", "last", "speed", "step", "tokens_now", "bpt_now", "vocab_now",
               "merge_table", "pair_counts", "corpus_now", "quiz", "your_guess", "reveal", "quiz_hidden", "quiz_right",
               "legend", "no_merge_yet", "all_done", "no_pair_left", "table_cols", "rows_window", "partial_flag",
               "showing_chars", "replay_counts", "click_row", "highlighting", "highlighting_also", "highlighting_inside",
               "highlighting_none", "loading", "trace_cols", "start", "after_step", "no_more", "seconds_per_step",
               "wp_cols", "ug_cols", "no_round_yet", "loglik_now", "wp_same", "wp_detail", "ug_start", "ug_detail",
               "ug_final", "vote_held", "vote_held_trace")


@cache
def strings() -> dict[str, dict[str, Text]]:
    """key -> language -> text or (singular, plural), as the file holds them."""
    data = json.loads((files("bpeviz.app") / "assets" / "strings.json").read_text(encoding="utf-8"))
    return {key: {lang: tuple(text) if isinstance(text, list) else text for lang, text in entry.items()}
            for key, entry in data.items()}


def template(key: str, language: str, *, plural: bool = True) -> str:
    """A string unformatted, in language (English if it has none there); the plural of a pair unless told."""
    entry = strings()[key]
    found = entry.get(language) or entry["en"]
    return found[1 if plural else 0] if isinstance(found, tuple) else found


def text(key: str, language: str, default: str | None = None) -> str:
    """A string with no values to fill, or default when the table has no such key."""
    return template(key, language) if key in strings() or default is None else default


def player_labels(language: str, tie_break: str) -> dict[str, str]:
    """The step player's strings in language, the tie rule's name and reason filled in."""
    found = {key: template(key, language) for key in PLAYER_KEYS}
    rule = text(f"tie_{tie_break}", language, default=tie_break)
    why = text(f"rule_{tie_break}", language,
               default=rules.TIE_RULES[tie_break].description if tie_break in rules.TIE_RULES else tie_break)
    found.update({
        "ties": template("p_ties", language).replace("{rule}", rule).replace("{why}", why),
        "quiz_answer": template("p_quiz_answer", language),
        "quiz_wrong": template("p_quiz_wrong", language),
        "quiz_tied": template("p_quiz_tied", language).replace("{rule}", rule).replace("{why}", why),
        "n_tied": template("p_n_tied", language),
        "n_tied_one": template("p_n_tied", language, plural=False),
        "locale": LOCALES.get(language, "en-US"),  # how the browser writes numbers: 4.096 and 3,05 in Portuguese
    })
    return found
