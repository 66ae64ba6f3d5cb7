"""Training page: step through the merges; the table grows, the pair counts and the corpus follow.

The drawing of every step happens in the browser (bpeviz_app/player.py): this page trains once,
sends the run, and hears which step is shown.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from bpeviz.app import live, player, runs, sidebar, votes
from bpeviz.app.i18n import lang, source_label, t, tie_name
from bpeviz.app.texts import template
from bpeviz.lessons import handout, render, sources
from bpeviz.models.bpe import Tokenizer


@st.fragment(run_every=live.follow_every())  # a following student's player polls
def train_player(tok: Tokenizer, lesson: sidebar.Lesson) -> None:
    source, settings = lesson.source, lesson.settings
    assert source is not None  # the page drew a tokenizer: there is a corpus
    digest = sources.digest(source)
    player.mount("player_train", "train", runs.run_digest(source, settings), len(tok.merges), "step",
                 lambda: runs.train_history(digest, settings, source), tok.settings.tie_break, player.chunk_maker(tok))


def handout_button(tok: Tokenizer, lesson: sidebar.Lesson) -> None:
    """The lesson on paper: merge table to this step, corpus, the Encode page's sentence (lessons/handout.py)."""
    source, language = lesson.source, lang()
    assert source is not None  # a tokenizer was drawn: there is a corpus
    session = get_script_run_ctx().session_state  # type: ignore[union-attr]  # read at click time, off the script thread

    def page() -> bytes:  # built when clicked, at the step the player shows then (as the lesson file is)
        labels = {key: template(f"handout_{key}", language) for key in handout.LABELS}
        step, sentence = (session[key] if key in session else "" for key in ("step", "sentence"))  # noqa: SIM401
        return handout.page(tok, source.documents(), step=int(step or 0), sentence=str(sentence),
                            corpus_name=source_label(source, language), labels=labels, language=language).encode("utf-8")

    st.download_button(t("handout_download"), page, file_name="bpeviz-handout.html", mime="text/html", on_click="ignore",
                       key="handout_download", icon=":material/print:", help=t("handout_help"))


present = bool(st.session_state.get("present"))  # the player alone on the projector: no title, caption or handout
if present:
    sidebar.exit_presentation_button()
else:
    st.title(t("train_title"))
lesson = sidebar.current()
tok = runs.for_page(lesson)
if tok is not None and lesson.source is not None:
    s = tok.settings
    if not present:
        st.caption(t("train_caption", corpus=render.md(source_label(lesson.source)), level=t(f"level_{s.level}"),
                     split=render.code(s.pretokenizer), rule=tie_name(s.tie_break), base=tok.n_base,
                     merges=len(tok.merges), engine=t(f"engine_{tok.engine or 'python'}")))
    votes.vote_controls("merge", votes.merge_question(tok))  # above the player, where the teacher is looking
    train_player(tok, lesson)
    if not present:
        handout_button(tok, lesson)
