"""Who pays? page: train on a language mix from the UDHR, see which language each merge served, and who pays more.

The cause of the premium the Charts page shows is the training corpus: this page trains one
tokenizer per mix (byte level, GPT-4's split) and measures every language on held-out articles,
beside the real tokenizers.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from bpeviz.app import runs, state, views
from bpeviz.app.i18n import bound, error_text, num, t
from bpeviz.data import corpora
from bpeviz.lessons import mix, render
from bpeviz.pretrained.encodings import ENCODINGS

VOCABS = (1024, 2048, 4096, 8192)
MIXES = (*mix.PRESETS, "custom")
FIRST_SHOWN = 5  # first merges listed per language


@st.cache_data(max_entries=16, show_spinner=False)
def premium_rows(weights: tuple[tuple[str, int], ...], vocab_size: int, trained_label: str) -> pd.DataFrame:
    run = runs.mix_run(weights, vocab_size)
    encoders = {trained_label: run.tok.encode_ordinary}
    encoders.update({encoding.label: views.reference(name).encode_ordinary for name, encoding in ENCODINGS.items()})
    return pd.DataFrame(mix.premiums(encoders))


def chosen_weights() -> dict[str, int] | None:
    c1, c2 = st.columns([2, 1])
    name = c1.radio(t("mix_label"), MIXES, horizontal=True, format_func=bound(lambda k, lg: t(f"mix_{k}", lg)),
                    **state.bind("mix", "equal", MIXES))
    c2.selectbox(t("mix_vocab"), VOCABS, format_func=bound(lambda v, lg: num(v, ",", lg)),
                 **state.bind("mix_vocab", 4096, VOCABS))
    if name != "custom":
        return mix.PRESETS[name]
    picked = st.multiselect(t("mix_languages"), list(corpora.UDHR_LANGUAGES),
                            format_func=bound(lambda code, lg: t(f"udhr_{code}", lg)),
                            **state.bind("mix_custom", [], list(corpora.UDHR_LANGUAGES)))
    heavy = st.selectbox(t("mix_heavy"), ["", *picked], **state.bind("mix_heavy", "", ["", *picked]),
                         format_func=bound(lambda code, lg: t("mix_heavy_none", lg) if not code else t(f"udhr_{code}", lg)))
    if not picked:
        st.info(t("mix_pick"))
        return None
    return {code: 4 if code == heavy else 1 for code in picked}


def premium_chart(table: pd.DataFrame, measure: str) -> None:
    table = table.copy()
    table.insert(0, "name", [t(f"udhr_{code}") + (" *" if code in corpora.NO_SPACES else "") for code in table.language])
    order = list(table[table.tokenizer == t("mix_trained")].sort_values(measure, ascending=False).name)
    chart = views.language_dots(table, "name", measure, t("col_premium" if measure == "premium" else "col_tokens_per_word"),
                                order, tooltip=[alt.Tooltip("name:N", title=t("col_language")),
                                                alt.Tooltip("tokenizer:N", title=t("col_tokenizer")),
                                                alt.Tooltip("premium:Q", format=".2f", title=t("col_premium")),
                                                alt.Tooltip("tokens_per_word:Q", format=".2f", title=t("col_tokens_per_word"))])
    rule = alt.Chart(pd.DataFrame({"x": [1.0]})).mark_rule(strokeDash=[4, 4], color="#888").encode(x="x:Q")
    views.chart(chart + rule if measure == "premium" else chart)


def wins_chart(run: mix.MixRun) -> None:
    wins = run.wins()
    step = max(1, len(run.tok.merges) // 200)  # at most ~200 points per language
    rows = [{"rank": k + 1, "language": t(f"udhr_{lang}"), "won": counts[k]}
            for lang, counts in wins.items() for k in range(0, len(counts), step)]
    if not rows:
        return
    chart = alt.Chart(pd.DataFrame(rows)).mark_area().encode(
        x=alt.X("rank:Q", title=t("mix_rank")), y=alt.Y("won:Q", stack=True, title=t("mix_won")),
        color=alt.Color("language:N", scale=alt.Scale(range=list(views.MANY_COLOURS)),
                        legend=alt.Legend(orient="right", title=None, columns=1)),
        tooltip=[alt.Tooltip("language:N", title=t("col_language")), alt.Tooltip("rank:Q", title=t("mix_rank")),
                 alt.Tooltip("won:Q", title=t("mix_won"))])
    views.chart(chart.properties(height=360))


def first_merges(run: mix.MixRun) -> None:
    rows = []
    wins = run.wins()
    for lang in (code for code in corpora.UDHR_LANGUAGES if code in run.attribution):
        won = run.first_won(lang, FIRST_SHOWN)
        rows.append({t("col_language"): t(f"udhr_{lang}"), t("mix_won_total"): wins[lang][-1] if run.tok.merges else 0,
                     t("mix_first"): "  ".join(render.show(run.tok.merges[k].token) for k in won)})
    views.table(pd.DataFrame(rows))


st.title(t("mix_title"))
st.caption(t("mix_caption"))
weights = chosen_weights()
if weights is not None:
    vocab = int(st.session_state.get("mix_vocab", 4096))
    key = tuple(sorted(weights.items()))
    bar, progress = views.progress_bar()

    try:
        run = runs.mix_run(key, vocab, progress)
    except ValueError as exc:
        bar.empty()
        st.error(render.md(error_text(exc)))
        st.stop()
    bar.empty()
    if len(run.tok.merges) < vocab - run.tok.n_base:
        st.info(t("mix_stopped", n=len(run.tok.merges), vocab=vocab))
    st.subheader(t("mix_premium_title"))
    measure = st.radio(t("measure"), ("premium", "tokens_per_word"), horizontal=True,
                       **state.bind("mix_measure", "premium", ("premium", "tokens_per_word")),
                       format_func=bound(lambda m, lg: t("col_premium" if m == "premium" else "col_tokens_per_word", lg)))
    premium_chart(premium_rows(key, vocab, t("mix_trained")), measure)
    st.caption(t("mix_premium_caption", languages=", ".join(t(f"udhr_{code}") for code in weights)))
    st.subheader(t("mix_wins_title"))
    wins_chart(run)
    st.caption(t("mix_wins_caption"))
    first_merges(run)
