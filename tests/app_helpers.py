"""Helpers for driving the app through streamlit.testing.v1.AppTest and reading what the player is sent."""

from __future__ import annotations

import json
import re

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from bpeviz.trainers import educational


def new_app(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in state.items():
        at.session_state[key] = value
    return at


def plain(markdown: str) -> str:
    """Markdown source as it reads on screen: backslash escapes and render.md's invisible word joiners removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def player_data(at: AppTest, key: str = "player_train", component: str = "bpeviz.player") -> dict:
    """The data the page sent to the player component (or another of bpeviz's) with this key (AppTest runs no JavaScript)."""

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None and getattr(proto, "component_name", "") == component and proto.id.endswith(key):
            yield json.loads(proto.json)
        for child in getattr(node, "children", {}).values():
            yield from walk(child)

    found = list(walk(at._tree))
    assert len(found) == 1, f"{len(found)} {component} with key {key}"
    return found[0]


def merge_rows(history: dict) -> list[tuple[int, str, int]]:
    """(rank, "left + right → token", count) for every merge of a train history, as the merge table shows them."""
    tokens = history["tokens"]
    return [(k + 1, f"{tokens[a]} + {tokens[b]} → {tokens[history['base'] + k]}", count)
            for k, (a, b, count, _, _) in enumerate(history["merges"])]


def pairs_before(history: dict, step: int) -> list[tuple[str, int]]:
    """("left + right", count) of the best pairs the chart shows before merge step+1."""
    row = history["top"]["rows"][step - history["top"]["start"]]
    tokens = history["tokens"]
    return [(f"{tokens[row[i]]} + {tokens[row[i + 1]]}", row[i + 2]) for i in range(0, len(row), 3)]


def trace_rows(history: dict) -> list[tuple[str, int]]:
    """(pieces after the step, how many) for each row of an encoding trace, replaying the fired merges as the browser does."""
    text = history["texts"]
    words = [list(w) for w in history["words"]]
    rows = []
    for fired in [None, *history["fired"]]:
        if fired is not None:
            _, a, b, new, _ = fired
            words = [educational.merge(w, (a, b), new) for w in words]
        pieces = [text[str(i)] for w in words for i in w]
        rows.append((" ".join(pieces), len(pieces)))
    return rows
