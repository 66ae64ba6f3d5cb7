"""Beyond greedy page: SuperBPE and BoundlessBPE superwords, parity-aware merges, and the optimality gap.

The library holds the algorithms (bpeviz/superword.py, boundless.py, parity.py, optimal.py); this page
trains them on the sidebar's corpus, the UDHR mix or a few typed words, and draws.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import replace
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

import bpeviz
from bpeviz.app import live, player, runs, sidebar, state, views
from bpeviz.app.i18n import bound, error_text, labels, num, t
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.lessons import metrics, mix, optimal, render, sources, steps
from bpeviz.trainers.superbpe import is_superword

PARTS = ("superword", "parity", "optimal")
MAX_TEXT = 120_000  # characters of the sidebar's corpus the three trainers take here
MAX_BOUNDLESS_TEXT = 30_000  # BoundlessBPE recounts in Python: this much trains in a few seconds
MAX_MERGES_HERE = 3_000
CURVE_POINTS = 12
PARITY_MIXES = ("european", "equal")
PARITY_VOCABS = (1024, 2048, 4096)
OPT_CORPORA = ("paper", "toy", "typed")
PAPER_WORDS = "abc abd abe bc bd be"
MAX_TYPED = 400  # characters of typed words for the exact search
OPT_TIME = 4.0  # seconds the exact search may take for one visitor
SHOWN_ROWS = 12
GAP_SECONDS = 3.0  # the "find words where greedy loses" button tries for at most this long
ALGS = ("bpe", "superbpe", "boundless")
KINDS = ("classic", "parity")


# -- SuperBPE and BoundlessBPE ------------------------------------------------------------------


def word_settings(settings: Settings) -> Settings:
    """The lesson's BPE settings (WordPiece and Unigram lessons fall back to bpeviz's BPE defaults)."""
    if settings.algorithm != "bpe":
        return Settings(vocab_size=settings.vocab_size)
    tokens = min(settings.vocab_size, (256 if settings.level == "bytes" else 0) + MAX_MERGES_HERE)
    return replace(settings, vocab_size=tokens)


@st.cache_resource(max_entries=12, ttl=1800, show_spinner=False)
def superword_run(digest: str, settings: Settings, algorithm: str, transition: int | None, _train: tuple[str, ...]):
    """One of the three trainers on the training part of the corpus (digest and settings name it for the cache)."""
    text = list(_train)
    if algorithm == "boundless":
        text = ["\n".join(text)[:MAX_BOUNDLESS_TEXT]]
    keep: dict[str, Any] = {} if algorithm == "bpe" else {"algorithm": algorithm}
    if algorithm == "superbpe":
        keep["transition"] = transition
    rules: dict[str, Any] = ({} if algorithm == "boundless"
                             else {"tie_break": settings.tie_break, "count_rule": settings.count_rule})
    return bpeviz.train(text, vocab_size=settings.vocab_size, level=settings.level, pretokenizer=settings.pretokenizer,
                        engine="python" if algorithm == "boundless" else runs.engine(), record_top=runs.RECORD_TOP,
                        progress=runs.budget().watch(), **rules, **keep)


@st.fragment(run_every=live.follow_every())  # a following student's player polls
def superbpe_player(tok: bpeviz.Tokenizer, digest: str, train: tuple[str, ...]) -> None:
    """The Train page's player on SuperBPE: the corpus is cut only where stage 2 cuts it, so superwords form on screen."""
    def history() -> dict:
        return steps.train_history(tok, train, Counter(bpeviz.split_text("\n".join(train), tok.settings.pretokenizer)))

    player.mount("player_superbpe", "train", f"superbpe-{digest}-{hash(tok.settings)}", len(tok.merges), "beyond_step",
                 history, tok.settings.tie_break, player.chunk_maker(tok))


@st.cache_data(max_entries=24, ttl=1800, show_spinner=False)
def curve(digest: str, settings: Settings, algorithm: str, transition: int | None, heldout: str,
          _train: tuple[str, ...]) -> list[tuple[int, float]]:
    tok = superword_run(digest, settings, algorithm, transition, _train)
    n = len(tok.merges)
    ks = sorted({round(n * k / CURVE_POINTS) for k in range(CURVE_POINTS + 1)} | ({transition - tok.n_base} if transition
                                                                               and 0 < transition - tok.n_base < n else set()))
    return metrics.heldout_curve(tok, heldout, ks)


def split_corpus(lesson: sidebar.Lesson) -> tuple[tuple[str, ...], str] | None:
    if lesson.source is None or sources.is_replay(lesson.source):
        st.info(t("beyond_needs_text"))
        return None
    docs = lesson.source.documents()
    text = "\n".join(docs)
    if len(text) > MAX_TEXT:
        st.caption(t("beyond_cut", n=num(MAX_TEXT, ",")))
        docs = [text[:MAX_TEXT]]
    train, held = metrics.split_heldout(docs, 0.1)
    if not held.strip():
        train, held = docs, "\n".join(docs)
    return tuple(train), held


def superword_part(lesson: sidebar.Lesson) -> None:
    st.caption(t("beyond_super_caption"))
    split = split_corpus(lesson)
    if split is None:
        return
    train, held = split
    settings = word_settings(lesson.settings)
    digest = sources.digest(lesson.source)  # type: ignore[arg-type]  # split_corpus returned None without a corpus
    try:
        with st.spinner(t("beyond_training")):
            plain = superword_run(digest, settings, "bpe", None, train)
            share = int(st.select_slider(t("beyond_transition"), list(range(0, 101, 5)), **state.bind("beyond_t", 70),
                                         format_func=lambda v: f"{v} %"))
            transition = plain.n_base + round((settings.vocab_size - plain.n_base) * share / 100)
            superbpe = superword_run(digest, settings, "superbpe", transition, train)
            boundless = superword_run(digest, settings, "boundless", None, train)
    except ValueError as exc:
        st.error(render.md(error_text(exc)))
        return
    st.caption(t("beyond_transition_is", t=num(transition, ","), vocab=num(settings.vocab_size, ","),
                 words=num(transition - plain.n_base, ",")))
    st.markdown(f"**{t('beyond_bpt')}**")
    row = st.container(horizontal=True)
    bpt = {}
    for name, tok in (("bpe", plain), ("superbpe", superbpe), ("boundless", boundless)):
        bpt[name] = metrics.bytes_per_token(held, len(tok.encode_ordinary(held)))
        row.metric(t(f"beyond_alg_{name}"), num(bpt[name], ",.2f"), width="content", help=t("beyond_bpt_help"))
    if bpt["bpe"] >= bpt["superbpe"]:  # on a small corpus: say why, rather than let the chart look wrong
        st.info(t("beyond_plain_wins", words=num(transition - plain.n_base, ",")))
    curves_chart({name: curve(digest, settings, name, transition if name == "superbpe" else None, held, train)
                  for name in ("bpe", "superbpe", "boundless")}, transition)
    st.caption(t("beyond_curve_caption", chars=num(MAX_BOUNDLESS_TEXT, ",")))
    merge_table(superbpe, transition)
    st.markdown(f"**{t('beyond_player_title')}**")
    superbpe_player(superbpe, digest, train)
    superwords_made(superbpe, boundless)


def superwords_made(superbpe: bpeviz.Tokenizer, boundless: bpeviz.Tokenizer) -> None:
    """The superwords each run learned, as chips: SuperBPE's tokens across a space, BoundlessBPE's supermerges."""
    born = [m for m in superbpe.merges if is_superword(m.token)]
    st.markdown(f"**{t('beyond_born', n=len(born))}**")
    if born:
        views.chips([(m.id, m.token) for m in born[:60]], tok=superbpe, show_ids=True)
    supers = [m for m in boundless.merges if m.stage == 2]
    st.markdown(f"**{t('beyond_supermerges', n=len(supers))}**")
    if supers:
        views.chips([(m.id, m.token) for m in supers[:60]], tok=boundless, show_ids=True)


def curves_chart(curves: dict[str, list[tuple[int, float]]], transition: int) -> None:
    rows = [{"vocab": v, "bpt": b, "algorithm": t(f"beyond_alg_{name}")} for name, points in curves.items() for v, b in points]
    lines = alt.Chart(pd.DataFrame(rows)).mark_line(point=True).encode(
        x=alt.X("vocab:Q", title=t("col_vocab")), y=alt.Y("bpt:Q", title=t("beyond_bpt"), scale=alt.Scale(zero=False)),
        color=alt.Color("algorithm:N", title=None, legend=alt.Legend(orient="top"),
                        scale=alt.Scale(domain=[t(f"beyond_alg_{a}") for a in ALGS], range=["#777777", "#D62728", "#1F77B4"])),
        tooltip=[alt.Tooltip("algorithm:N", title=t("beyond_algorithm")), alt.Tooltip("vocab:Q", title=t("col_vocab")),
                 alt.Tooltip("bpt:Q", format=".2f", title=t("beyond_bpt"))])
    rule = alt.Chart(pd.DataFrame({"x": [transition]})).mark_rule(strokeDash=[4, 4], color="#888").encode(x="x:Q")
    views.chart((lines + rule).properties(height=300))


def merge_table(tok: bpeviz.Tokenizer, transition: int) -> None:
    """The merges either side of the transition, a marker row between the stages."""
    first2 = next((k for k, m in enumerate(tok.merges) if m.stage == 2), None)
    st.markdown(f"**{t('beyond_table_title')}**")
    if first2 is None:
        st.caption(t("beyond_no_stage2"))
        return
    lo, hi = max(0, first2 - SHOWN_ROWS // 2), min(len(tok.merges), first2 + SHOWN_ROWS)
    rows: list[list[object]] = []
    marker = None
    for m in tok.merges[lo:hi]:
        if m.rank - 1 == first2:
            marker = len(rows)
            rows.append(["", "", f"— {t('beyond_marker', t=num(transition, ','))} —", ""])
        rows.append([m.rank, t(f"beyond_stage_{m.stage}"), render.merge_text(m), num(m.count, ",")])
    st.markdown(render.table_html([t("col_rank"), t("beyond_stage"), t("col_merge"), t("col_count")], rows,
                                  highlight_row=marker), unsafe_allow_html=True)


# -- parity-aware BPE ---------------------------------------------------------------------------


@st.cache_data(max_entries=12, ttl=3600, show_spinner=False)
def fairness(weights: tuple[tuple[str, int], ...], vocab: int, parity: bool) -> list[dict]:
    return mix.fairness(runs.mix_run(weights, vocab, parity=parity).tok, [lang for lang, _ in weights])


def parity_part() -> None:
    st.caption(t("beyond_parity_caption"))
    c1, c2 = st.columns([2, 1])
    name = c1.radio(t("mix_label"), PARITY_MIXES, horizontal=True, format_func=labels("mix_{}"),
                    **state.bind("parity_mix", "european", PARITY_MIXES))
    vocab = int(c2.selectbox(t("mix_vocab"), PARITY_VOCABS, format_func=bound(lambda v, lg: num(v, ",", lg)),
                             **state.bind("parity_vocab", 2048, PARITY_VOCABS)))
    weights = tuple(sorted(mix.PRESETS[name].items()))
    bar, progress = views.progress_bar()

    try:
        classic = runs.mix_run(weights, vocab, progress)
        fair = runs.mix_run(weights, vocab, progress, parity=True)
    except ValueError as exc:
        bar.empty()
        st.error(render.md(error_text(exc)))
        return
    bar.empty()
    rows = [{**r, "kind": t(f"beyond_kind_{kind}")} for kind, parity in (("classic", False), ("parity", True))
            for r in fairness(weights, vocab, parity)]
    last = {kind: [r for r in rows if r["kind"] == t(f"beyond_kind_{kind}")][-1] for kind in ("classic", "parity")}
    row = st.container(horizontal=True)
    row.metric(t("beyond_gini_classic"), num(last['classic']['gini'], ".3f"), width="content")
    row.metric(t("beyond_gini_parity"), num(last['parity']['gini'], ".3f"), width="content")
    price = last["parity"]["total_tokens"] / max(last["classic"]["total_tokens"], 1) - 1
    row.metric(t("beyond_price"), num(price, "+.1%"), width="content", help=t("beyond_price_help"))
    table = pd.DataFrame(rows)
    for measure, title in (("gini", t("beyond_gini")), ("total_tokens", t("beyond_total"))):
        views.chart(alt.Chart(table).mark_line(point=True).encode(
            x=alt.X("vocab_size:Q", title=t("col_vocab")), y=alt.Y(f"{measure}:Q", title=title),
            color=alt.Color("kind:N", title=None, legend=alt.Legend(orient="top"),
                            scale=alt.Scale(domain=[t(f"beyond_kind_{k}") for k in KINDS], range=["#777777", "#E67E00"])),
            tooltip=[alt.Tooltip("kind:N", title=None), alt.Tooltip("vocab_size:Q", title=t("col_vocab")),
                     alt.Tooltip(f"{measure}:Q", title=title, format=".3f" if measure == "gini" else ",")],
        ).properties(height=240))
    chosen_table(weights, classic, fair)


def chosen_table(weights: tuple[tuple[str, int], ...], classic: mix.MixRun, fair: mix.MixRun) -> None:
    """How many merges each language was chosen for (parity-aware) or won (classic), and the first merges' languages."""
    chosen = Counter(fair.parity_language)
    won = classic.wins()  # one pass over the merges for every language
    st.markdown(f"**{t('beyond_chosen_title')}**")
    views.table(pd.DataFrame({t("col_language"): [t(f"udhr_{lang}") for lang, _ in weights],
                               t("beyond_chosen"): [chosen[lang] for lang, _ in weights],
                               t("beyond_won_classic"): [won[lang][-1] for lang, _ in weights]}))
    firsts = [[m.rank, render.merge_text(m), t(f"udhr_{fair.parity_language[m.rank - 1]}")] for m in fair.tok.merges[:SHOWN_ROWS]]
    st.markdown(render.table_html([t("col_rank"), t("col_merge"), t("beyond_chosen_for")], firsts), unsafe_allow_html=True)


# -- the optimality gap -------------------------------------------------------------------------


def typed_words(text: str) -> dict[str, int]:
    return dict(Counter(text.split()))


def toy_words() -> dict[str, int]:
    return dict(Counter(bpeviz.split_text("\n".join(corpora.documents("toy_pt")), "gpt2")))


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def solve(words: tuple[tuple[str, int], ...], n: int) -> tuple[list, int, list, int, bool]:
    table = dict(words)
    greedy, greedy_saved = optimal.greedy(table, n)
    best, best_saved, proven = optimal.best_merges(table, n, time_limit=OPT_TIME)
    return greedy, greedy_saved, best, best_saved, proven


def find_gap() -> None:
    """A button's callback: try small random corpora until greedy loses, and put the first one in the box."""
    ss = st.session_state
    rng = random.Random(int(ss.get("opt_seed", 0)))
    ss["opt_seed"] = int(ss.get("opt_seed", 0)) + 1
    deadline = time.monotonic() + GAP_SECONDS
    for _ in range(400):
        if time.monotonic() > deadline:
            break
        words = [("".join(rng.choice("abcd") for _ in range(rng.randint(2, 4)))) for _ in range(rng.randint(3, 6))]
        table = typed_words(" ".join(words))
        if optimal.greedy(table, 3)[1] < optimal.best_merges(table, 3, time_limit=0.5)[1]:
            ss["opt_corpus"], ss["opt_text"], ss["opt_merges"] = "typed", " ".join(words), 3
            return
    state.notify(t("beyond_gap_none"))


def optimal_part() -> None:
    st.caption(t("beyond_opt_caption"))
    which = st.radio(t("beyond_opt_corpus"), OPT_CORPORA, horizontal=True, format_func=labels("beyond_opt_{}"),
                     **state.bind("opt_corpus", "paper", OPT_CORPORA))
    if which == "typed":
        text = st.text_area(t("beyond_opt_words"), max_chars=MAX_TYPED, height=80,
                            **state.bind("opt_text", PAPER_WORDS))
        words = typed_words(text)
    else:
        words = typed_words(PAPER_WORDS) if which == "paper" else toy_words()
    c1, c2 = st.columns([3, 1])
    n = int(c1.slider(t("beyond_opt_n"), 1, 10, **state.bind("opt_merges", 3)))
    c2.button(t("beyond_gap_button"), on_click=find_gap, help=t("beyond_gap_help"))
    if not words:
        st.info(t("beyond_opt_empty"))
        return
    with st.spinner(t("beyond_searching")):
        try:
            greedy, greedy_saved, best, best_saved, proven = solve(tuple(words.items()), n)
        except ValueError as exc:
            st.error(render.md(str(exc)))
            return
    row = st.container(horizontal=True)
    row.metric(t("beyond_greedy_saves"), num(greedy_saved, ","), width="content")
    row.metric(t("beyond_best_saves"), num(best_saved, ","), width="content")
    row.metric(t("beyond_ratio"), f"{greedy_saved / best_saved:.0%}" if best_saved else "—", width="content")
    st.caption(t("beyond_proven" if proven else "beyond_not_proven", s=num(OPT_TIME, ",.0f")))
    left, right = st.columns(2)
    for column, title, merges in ((left, t("beyond_greedy_title"), greedy), (right, t("beyond_best_title"), best)):
        column.markdown(f"**{title}**")
        rows = [[k + 1, f"{render.show(a)} + {render.show(b)}", saved]
                for k, ((a, b), saved) in enumerate(zip(merges, optimal.savings(words, merges)))]
        column.markdown(render.table_html([t("col_rank"), t("col_merge"), t("beyond_saved")], rows), unsafe_allow_html=True)
    if greedy_saved < best_saved:
        st.success(t("beyond_greedy_lost", diff=best_saved - greedy_saved))


st.title(t("beyond_title"))
part = st.segmented_control(t("beyond_part"), PARTS, format_func=labels("beyond_part_{}"),
                            **state.bind("beyond_part", "superword", PARTS)) or "superword"
if part == "superword":
    superword_part(sidebar.current())
elif part == "parity":
    parity_part()
else:
    optimal_part()
