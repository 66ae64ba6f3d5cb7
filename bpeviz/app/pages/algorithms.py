"""Compare algorithms page: BPE, WordPiece and Unigram trained on the same corpus, stepped side by side.

Where BPE and WordPiece first choose differently (and why), each run's own steps, one sentence
through all three with Unigram's alternatives, which tokens only one of them learned, and what
each costs per word across the UDHR languages.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd
import streamlit as st

from bpeviz.app import live, player, runs, sidebar, state, views
from bpeviz.app.i18n import error_text, num, source_label, t
from bpeviz.core.records import ALGORITHM_SPECS, ALGORITHMS, Settings
from bpeviz.data import corpora
from bpeviz.lessons import compare, metrics, render, sources, steps
from bpeviz.trainers.settings import resolve_settings

NAMES = {name: ALGORITHM_SPECS[name].label for name in ALGORITHMS}
NBEST = 5
SHOW_ONLY = 24  # tokens listed as learned by one algorithm alone


def algorithm_settings(base: Settings) -> dict[str, Settings]:
    """The sidebar's corpus split and vocabulary size for all three; BPE keeps its rules and is compared at characters."""
    bpe = Settings(vocab_size=base.vocab_size, level="chars", pretokenizer=base.pretokenizer, tie_break=base.tie_break,
                   count_rule=base.count_rule)
    return {"bpe": bpe, **{a: resolve_settings(base.vocab_size, pretokenizer=base.pretokenizer, algorithm=a)
                           for a in ALGORITHMS if ALGORITHM_SPECS[a].family == "pieces"}}


def train_all(lesson: sidebar.Lesson) -> dict[str, object]:
    """Each algorithm's run (cached), or the error that stopped it."""
    found: dict[str, object] = {}
    bar = st.empty()
    for k, (name, settings) in enumerate(algorithm_settings(lesson.settings).items()):
        bar.progress(k / len(ALGORITHMS), text=t("alg_training", name=NAMES[name]))
        try:
            found[name] = runs.run(lesson.source, settings)  # type: ignore[arg-type]  # the page returned early without a corpus
        except ValueError as exc:
            found[name] = exc
    bar.empty()
    return found


def tokens_after(tok) -> int:
    """The training corpus's length in tokens once training is done."""
    if getattr(tok, "rounds", None) is not None:
        return tok.corpus_tokens  # Unigram measures its final vocabulary's segmentation
    return tok.merges[-1].tokens_after if tok.merges else tok.corpus_tokens


def summary(toks: dict) -> None:
    rows = []
    for name, tok in toks.items():
        if isinstance(tok, Exception):
            continue
        n = tokens_after(tok)
        rows.append({t("col_algorithm"): NAMES[name], t("col_vocab"): num(tok.vocab_size), t("col_tokens"): num(n),
                     t("col_bytes_per_token"): num(tok.corpus_bytes / n, ".2f") if n else "–",
                     t("col_how_learned"): t(f"alg_how_{name}")})
    if rows:  # every algorithm may refuse the corpus (each says why above): then there is nothing to sum up
        st.table(pd.DataFrame(rows).set_index(t("col_algorithm")))  # a plain table grows with classroom mode


def divergence(bpe, wordpiece) -> None:
    st.subheader(t("alg_diverge_title"))
    d = compare.bpe_wordpiece_split(bpe, wordpiece)
    if d.step is None:
        st.success(t("alg_same", n=d.agree_before))
    else:
        b, w = d.bpe, d.wordpiece
        score = "?" if math.isnan(b[3]) else f"{b[3]:.3g}"  # type: ignore[index]  # d.bpe is set once the runs differ
        agree = t("alg_agree_before", n=d.agree_before) if d.agree_before else t("alg_agree_none")
        # d.bpe is set once the runs differ
        st.info(t("alg_diverge", step=d.step, bpe=render.code(f"{b[0]} + {b[1]}"), bc=b[2],  # type: ignore[index]
                  # d.wordpiece is set once the runs differ
                  bs=score, wp=render.code(f"{w[0]} + {w[1]}"), wc=w[2], ws=f"{w[3]:.3g}") + " " + agree)  # type: ignore[index]
    st.caption(t("alg_hf_note"))


@st.fragment(run_every=live.follow_every())  # a following student's player polls
def bpe_player(tok, lesson: sidebar.Lesson, settings: Settings) -> None:
    source = lesson.source
    assert source is not None  # the page drew a tokenizer: there is a corpus
    digest = sources.digest(source)
    player.mount("player_alg_bpe", "train", runs.run_digest(source, settings), len(tok.merges), "alg_bpe_step",
                 lambda: runs.train_history(digest, settings, source), tok.settings.tie_break, player.chunk_maker(tok))


@st.fragment(run_every=live.follow_every())  # a following student's player polls
def table_player(kind: str, tok, lesson: sidebar.Lesson, settings: Settings) -> None:
    history = steps.TABLE_HISTORIES[kind](tok)
    # the page returned early without a corpus
    player.mount(f"player_alg_{kind}", kind, runs.run_digest(lesson.source, settings), history["n"],  # type: ignore[arg-type]
                 f"alg_{kind}_step", lambda: history)


def players(toks: dict, lesson: sidebar.Lesson) -> None:
    st.subheader(t("alg_steps_title"))
    settings = algorithm_settings(lesson.settings)
    for name, tab in zip(ALGORITHMS, st.tabs([NAMES[a] for a in ALGORITHMS])):
        with tab:
            tok = toks[name]
            if isinstance(tok, Exception):
                st.error(render.md(error_text(tok)))
                continue
            rounds = len(getattr(tok, "rounds", ()))
            engine = t(f"unigram_engine_{tok.engine}") if name == "unigram" and tok.engine else ""
            st.caption(t(f"alg_tab_{name}" + ("_none" if name == "unigram" and not rounds else ""), vocab=tok.vocab_size,
                         rounds=rounds) + (" " + engine if engine else ""))
            if name == "bpe":
                bpe_player(tok, lesson, settings[name])
            else:
                table_player(name, tok, lesson, settings[name])
            if name == "unigram" and tok.vocab_size < lesson.settings.vocab_size:
                st.info(t("alg_unigram_short", n=tok.vocab_size, vocab=lesson.settings.vocab_size))


def sentence(toks: dict) -> None:
    st.subheader(t("alg_sentence_title"))
    text = st.text_area(t("sentence"), key="sentence", height=68)
    if not text:
        return
    if len(text) > state.MAX_SENTENCE:  # three encodings, each drawn: the Encode page's cap
        st.error(t("sentence_too_long", n=len(text), cap=state.MAX_SENTENCE))
        return
    for name, tok in toks.items():
        if isinstance(tok, Exception):
            continue
        ids = tok.encode_ordinary(text)
        st.markdown(f"**{NAMES[name]}** · {t('n_tokens_short', n=len(ids))}")
        views.chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
    unigram = toks.get("unigram")
    if unigram is None or isinstance(unigram, Exception):
        return
    best = unigram.nbest(text[:200], NBEST)
    st.markdown(f"**{t('alg_nbest_title', n=len(best))}**")
    views.table(pd.DataFrame({t("col_segmentation"): [" · ".join(render.show(p) for p in pieces) for pieces, _ in best],
                               t("col_probability"): [num(p, ".1%" if p >= 0.001 else ".1e") for _, p in best]}))
    st.caption(t("alg_nbest_caption", ll=num(unigram.log_likelihood(text[:200]), ".2f")))


def overlap(toks: dict) -> None:
    st.subheader(t("alg_overlap_title"))
    ready = {NAMES[n]: compare.surface_vocab(tok) for n, tok in toks.items() if not isinstance(tok, Exception)}
    if len(ready) < 2:
        return
    o = compare.vocab_overlap(ready)
    counts = [f"**{t('alg_shared_all')}:** {num(o.shared_by_all)}"]
    counts += [f"**{a} ∩ {b}:** {num(n)}" for (a, b), n in o.pairs.items()]
    st.markdown(" · ".join(counts))
    shown = min(max(len(v) for v in o.only.values()), SHOW_ONLY)
    column = lambda tokens: [render.show(x) for x in tokens[:shown]] + [""] * (shown - len(tokens[:shown]))  # noqa: E731
    views.table(pd.DataFrame({t("alg_only_in", name=name): column(tokens) for name, tokens in o.only.items()}))
    alone = ", ".join(f"{name} {num(len(tokens))}" for name, tokens in o.only.items())  # two or three: one may refuse
    st.caption(t("alg_overlap_caption", alone=alone))


@st.cache_data(max_entries=16, show_spinner=False)
def language_rows(digests: tuple[str, ...], _toks: dict) -> pd.DataFrame:
    texts = {code: corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES}
    rows = metrics.language_table(texts, {NAMES[n]: tok.encode_ordinary for n, tok in _toks.items()})
    return pd.DataFrame({"code": [r.language for r in rows], "tokenizer": [r.tokenizer for r in rows],
                         "tokens_per_word": [round(r.tokens_per_word, 3) for r in rows]})


def languages(toks: dict, lesson: sidebar.Lesson) -> None:
    st.subheader(t("alg_languages_title"))
    ready = {n: tok for n, tok in toks.items() if not isinstance(tok, Exception)}
    if not ready:
        return
    settings = algorithm_settings(lesson.settings)
    # the page returned early without a corpus
    digests = tuple(runs.run_digest(lesson.source, settings[n]) for n in ready)  # type: ignore[arg-type]
    table = language_rows(digests, ready).copy()
    table.insert(0, "language", [t(f"udhr_{code}") + (" *" if code in corpora.NO_SPACES else "") for code in table.code])
    english = table[table.code == "en"].set_index("tokenizer").tokens_per_word
    order = list(table[table.tokenizer == NAMES["bpe"]].sort_values("tokens_per_word", ascending=False).language)
    chart = views.language_dots(table, "language", "tokens_per_word", t("col_tokens_per_word"), order, tooltip=[
        alt.Tooltip("language:N", title=t("col_language")), alt.Tooltip("tokenizer:N", title=t("col_algorithm")),
        alt.Tooltip("tokens_per_word:Q", title=t("col_tokens_per_word"))])
    views.chart(chart)
    st.caption(t("alg_languages_caption", corpus=render.md(source_label(lesson.source)),
                 en=", ".join(f"{name} {num(value, '.2f')}" for name, value in english.items())))


st.title(t("alg_title"))
st.caption(t("alg_caption"))
lesson = sidebar.current()
if lesson.source is None or sources.is_replay(lesson.source):
    st.info(t("alg_needs_corpus"))
else:
    if lesson.settings.level == "bytes":
        st.caption(t("alg_at_chars"))
    toks = train_all(lesson)
    summary(toks)
    if not isinstance(toks["bpe"], Exception) and not isinstance(toks["wordpiece"], Exception):
        divergence(toks["bpe"], toks["wordpiece"])
    players(toks, lesson)
    sentence(toks)
    overlap(toks)
    languages(toks, lesson)
