"""Training page: step through the merges; the table grows, the pair counts and the corpus follow.

The drawing of every step happens in the browser (bpeviz_app/player.py): this page trains once,
sends the run, and hears which step is shown.
"""

from __future__ import annotations

import streamlit as st

from bpeviz.app import live, player, runs, sidebar, votes
from bpeviz.app.i18n import source_label, t, tie_name
from bpeviz.lessons import render, sources
from bpeviz.models.bpe import Tokenizer


@st.fragment(run_every=live.follow_every())  # a following student's player polls
def train_player(tok: Tokenizer, lesson: sidebar.Lesson) -> None:
    source, settings = lesson.source, lesson.settings
    assert source is not None  # the page drew a tokenizer: there is a corpus
    digest = sources.digest(source)
    player.mount("player_train", "train", runs.run_digest(source, settings), len(tok.merges), "step",
                 lambda: runs.train_history(digest, settings, source), tok.settings.tie_break, player.chunk_maker(tok))


st.title(t("train_title"))
lesson = sidebar.current()
tok = runs.for_page(lesson)
if tok is not None and lesson.source is not None:
    s = tok.settings
    st.caption(t("train_caption", corpus=render.md(source_label(lesson.source)), level=t(f"level_{s.level}"),
                 split=render.code(s.pretokenizer), rule=tie_name(s.tie_break), base=tok.n_base, merges=len(tok.merges),
                 engine=t(f"engine_{tok.engine or 'python'}")))
    votes.vote_controls("merge", votes.merge_question(tok))  # above the player, where the teacher is looking
    train_player(tok, lesson)
