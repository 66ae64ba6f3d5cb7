"""The app's lesson file without Streamlit: a notebook opens what the app saved, and back; `bpeviz handout` prints it.

A lesson is {"format": "bpeviz-lesson", "version": 1, "lesson": {...}}: the source (a shipped corpus or pasted
text), the settings and the step, under the app's own keys (app/state.py FIELDS). Only what a notebook can rebuild
is read: a shipped corpus or pasted text; an upload or a replayed file stays in the app, and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora
from bpeviz.formats.file_checks import parse_json
from bpeviz.lessons import sources
from bpeviz.models.bpe import Tokenizer
from bpeviz.pre_tokenizers.splits import PRETOKENIZERS
from bpeviz.trainers.settings import resolve_settings
from bpeviz.trainers.training import train_settings

FORMAT, VERSION = "bpeviz-lesson", 1
MAX_BYTES = 6_000_000  # as the app's own cap (state.MAX_SNAPSHOT_BYTES)
RECORD_TOP = 12


def read(path: Path) -> dict:
    """The lesson's values; a BpevizError saying what is wrong with a file that is not one."""
    data = path.read_bytes()
    if len(data) > MAX_BYTES:
        raise BpevizError("lesson_too_big", f"{path} is over {MAX_BYTES // 1_000_000} MB; a lesson file is smaller.")
    found = parse_json(data, str(path))
    if not isinstance(found, dict) or found.get("format") != FORMAT or not isinstance(found.get("lesson"), dict):
        raise BpevizError("not_a_lesson", f"{path} is not a bpeviz lesson file (no \"format\": \"{FORMAT}\").")
    return found["lesson"]


def source_of(lesson: dict) -> sources.Shipped | sources.Pasted:
    kind = lesson.get("source", "shipped")
    if kind == "shipped":
        key = lesson.get("corpus", corpora.DEFAULT_CORPUS)
        if key not in corpora.CORPORA:
            raise BpevizError("lesson_corpus", f"The lesson trains on {key!r}, which bpeviz does not ship.")
        return sources.Shipped(key)
    if kind == "paste":
        return sources.Pasted(str(lesson.get("pasted", "")), bool(lesson.get("lines_are_docs", True)))
    raise BpevizError("lesson_source", f"The lesson's text is an upload or a replayed file ({kind}); open it in the app.")


def train(lesson: dict) -> tuple[Tokenizer, list[str]]:
    """The lesson's run, as the app trains it (the pair counts recorded for the chart), and its documents."""
    source = source_of(lesson)
    pattern = lesson.get("custom_pattern") if lesson.get("pretokenizer") == "custom" else lesson.get("pretokenizer", "gpt2")
    settings = resolve_settings(int(lesson.get("vocab_size", 64)), level=lesson.get("level", "chars"), pretokenizer=pattern,
                                tie_break=lesson.get("tie_break", "first"), count_rule=lesson.get("count_rule", "overlapping"),
                                dialect=lesson.get("dialect") or None)
    docs = source.documents()
    return train_settings(docs, settings, record_top=RECORD_TOP), docs  # type: ignore[return-value]  # BPE: a Tokenizer


def write(tok: Tokenizer, documents: list[str], step: int, language: str = "en") -> bytes:
    """A lesson file for this run at this step: a shipped corpus by its name, any other text pasted."""
    shipped = next((key for key in corpora.CORPORA if corpora.documents(key) == documents), None)
    s = tok.settings
    lesson: dict[str, object] = {"vocab_size": s.vocab_size, "level": s.level, "tie_break": s.tie_break,
                                 "count_rule": s.count_rule, "dialect": s.dialect, "step": int(step), "lang": language}
    if s.pretokenizer in PRETOKENIZERS:
        lesson["pretokenizer"] = s.pretokenizer
    else:
        lesson.update(pretokenizer="custom", custom_pattern=s.pretokenizer)
    if shipped is not None:
        lesson.update(source="shipped", corpus=shipped)
    else:
        lines = all("\n" not in doc for doc in documents)
        lesson.update(source="paste", pasted="\n".join(documents) if lines else "".join(documents), lines_are_docs=lines)
    return json.dumps({"format": FORMAT, "version": VERSION, "lesson": lesson}, ensure_ascii=False, indent=1).encode()
