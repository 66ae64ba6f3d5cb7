"""Charts page: bytes per token against vocab size, and the token cost of each language."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import bpeviz
from bpeviz.app import runs, sidebar, state, views
from bpeviz.app.i18n import bound, corpus_label, error_text, labels, num, source_label, t
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.lessons import metrics, mix, render, sources
from bpeviz.pretrained.encodings import ENCODINGS

LESSON = "lesson"
CHART_VOCABS = [512, 1024, 2048, 4096, 8192]
LESSON_SENTENCES = {  # the four sentences of the lesson: (language, length) -> sentence
    ("en", "short"): "The cat sat on the roof.",
    ("pt", "short"): "O gato sentou no telhado.",
    ("en", "long"): "Unfortunately, the internationalization of the documentation was postponed indefinitely.",
    ("pt", "long"): "Infelizmente, a internacionalização da documentação foi adiada indefinidamente.",
}


@st.cache_data(max_entries=16, show_spinner=False)
def curves(digest: str, vocab_size: int, pretokenizer: str, fraction: float, _docs: list[str]) -> dict:
    """Training and held-out curves plus the real encodings on the held-out text (one training run)."""
    train_docs, heldout = metrics.split_heldout(_docs, fraction)
    source = sources.Pasted("\n".join(train_docs), lines_are_docs=len(train_docs) > 1)
    tok = runs.run(source, Settings(vocab_size=vocab_size, level="bytes", pretokenizer=pretokenizer))
    train_curve = metrics.training_curve(tok)
    step = max(1, len(train_curve) // 400)
    reference_points = []
    for name, encoding in ENCODINGS.items():
        n_tokens = len(views.reference(name).encode_ordinary(heldout))
        reference_points.append((encoding.short_label, encoding.vocab_size, metrics.bytes_per_token(heldout, n_tokens)))
    return {
        "train": train_curve[::step] + [train_curve[-1]],
        "heldout": metrics.heldout_curve(tok, heldout),
        "references": reference_points,
        "heldout_chars": len(heldout),
        "merges": len(tok.merges),
    }


def chart_corpus(key: str) -> list[str] | None:
    """The documents the vocab chart trains on; None (with a message) when the lesson's corpus cannot be charted."""
    if key != LESSON:
        return corpora.documents(key)
    source = sidebar.current().source
    if source is None or sources.is_replay(source) or sources.needs_bytes(source):
        st.info(t("chart_lesson_unusable"))
        return None
    return source.documents()


def vocab_chart() -> None:
    st.subheader(t("chart_vocab"))
    options = ["english", LESSON, *[k for k in corpora.CORPORA if k not in ("english", corpora.DEFAULT_CORPUS)]]
    key = st.selectbox(t("corpus"), options, **state.bind("chart_corpus", "english", options),
                       format_func=bound(lambda k, lg: t("lesson_corpus", lg) if k == LESSON else corpus_label(k, lg)))
    c2, c3, c4 = st.columns(3)
    vocab_size = c2.select_slider(t("trained_vocab"), CHART_VOCABS, **state.bind("chart_vocab", 4096, CHART_VOCABS))
    splits = list(bpeviz.PRETOKENIZERS)
    pretokenizer = c3.selectbox(t("split"), splits, **state.bind("chart_pre", splits[1], splits))
    percent = c4.slider(t("held_out_percent"), 5, 50, help=t("held_out_help"),
                        **state.bind("chart_heldout", 10, range(5, 51)))
    docs = chart_corpus(key)
    if docs is None:
        return
    if sum(len(d) for d in docs) < 200:
        st.info(t("corpus_too_small"))
        return
    digest = sources.digest(sources.Pasted("\x00".join(docs)))
    with st.spinner(t("training_to", vocab=vocab_size, chars=sum(len(d) for d in docs))):
        try:
            data = curves(digest, vocab_size, pretokenizer, percent / 100, docs)
        except ValueError as exc:
            st.error(render.md(error_text(exc)))
            return
    draw_vocab_chart(data)
    st.caption(t("vocab_chart_caption", merges=data["merges"], percent=percent, chars=data["heldout_chars"]))
    doubling_table(data["heldout"])


def draw_vocab_chart(data: dict) -> None:
    training, heldout = t("series_training"), t("series_heldout")
    rows = [{"vocab": v, "bpt": b, "series": training} for v, b in data["train"]]
    rows += [{"vocab": v, "bpt": b, "series": heldout} for v, b in data["heldout"]]
    lines = pd.DataFrame(rows)
    refs = pd.DataFrame([{"vocab": v, "bpt": b, "series": name} for name, v, b in sorted(data["references"], key=lambda r: r[1])])
    x = alt.X("vocab:Q", scale=alt.Scale(type="log", base=2), title=t("axis_vocab_log"))
    y = alt.Y("bpt:Q", title=t("axis_bpt"))
    tooltip = [alt.Tooltip("series", title=t("col_series")), alt.Tooltip("vocab", title=t("col_vocab")),
               alt.Tooltip("bpt:Q", format=".2f", title=t("col_bytes_per_token"))]
    line_chart = alt.Chart(lines).mark_line(strokeWidth=3).encode(
        x=x, y=y, color=alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom")), tooltip=tooltip)
    held_points = alt.Chart(lines[lines.series == heldout]).mark_point(size=70, filled=True).encode(x=x, y=y, color="series:N")
    # named bpe_ink: drawn in the page's ink, dark or light (base.css)
    ref_points = alt.Chart(refs, name="bpe_ink_points").mark_point(size=160, shape="diamond", filled=True, color="#333").encode(
        x=x, y=y, tooltip=tooltip)
    # neighbours on a log axis (sorted by size): alternate the labels above and below their diamonds so they never overlap
    labels = [alt.Chart(part, name=f"bpe_ink_labels_{k}")
              .mark_text(align="center", dy=dy, fontSize=14, fontWeight="bold", color="#111").encode(x=x, y=y, text="series")
              for k, (part, dy) in enumerate(((refs.iloc[::2], -16), (refs.iloc[1::2], 18)))]
    views.chart(alt.layer(line_chart, held_points, ref_points, *labels).properties(height=420))


def doubling_table(points: list[tuple[int, float]]) -> None:
    rows = metrics.doublings(points)
    if not rows:
        return
    st.markdown(f"**{t('doublings_title')}**")
    views.table(pd.DataFrame({
        t("col_vocab"): [f"{num(d.from_size)} → {num(d.to_size)}" for d in rows],
        t("col_bytes_per_token"): [f"{num(d.from_bpt, '.2f')} → {num(d.to_bpt, '.2f')}" for d in rows],
        t("col_bought"): [t("doubling_bought", gain=d.gain) for d in rows],
    }))


MIX_VOCAB = 4096  # the language chart's own bpeviz series: the UDHR's 26 languages, equal weights


@st.cache_data(max_entries=16, show_spinner=False)
def language_rows(digest: str, settings: Settings, trained_label: str, mix_label: str,
                  _tok: bpeviz.Tokenizer | None) -> pd.DataFrame:
    """Tokens, words, bytes and premium per language and tokenizer (cached per trained tokenizer)."""
    texts = {code: corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES}
    mixed = runs.mix_run(tuple(sorted(mix.PRESETS["equal"].items())), MIX_VOCAB)
    encoders = {}
    if _tok is not None:
        encoders[trained_label] = _tok.encode_ordinary
    encoders[mix_label] = mixed.tok.encode_ordinary
    for name, encoding in ENCODINGS.items():
        encoders[encoding.label] = views.reference(name).encode_ordinary
    rows = metrics.language_table(texts, encoders)
    return pd.DataFrame({
        "code": [r.language for r in rows],
        "tokenizer": [r.tokenizer for r in rows],
        "tokens": [r.tokens for r in rows],
        "words": [r.words for r in rows],
        "bytes": [r.n_bytes for r in rows],
        "tokens_per_word": [round(r.tokens_per_word, 3) for r in rows],
        "bytes_per_token": [round(r.bytes_per_token, 3) for r in rows],
        "premium": [round(r.premium, 3) for r in rows],
    })


MEASURES = ("premium", "tokens_per_word", "bytes_per_token", "tokens")
COLUMN_KEYS = {"language": "col_language", "tokenizer": "col_tokenizer", "tokens": "col_tokens", "words": "col_words",
               "bytes": "col_bytes", "tokens_per_word": "col_tokens_per_word", "bytes_per_token": "col_bytes_per_token",
               "premium": "col_premium"}


def language_controls() -> tuple[list[str], str, str]:
    """The languages shown, the measure and the order the language chart uses."""
    everyone = list(corpora.UDHR_LANGUAGES)
    languages = st.multiselect(t("languages"), everyone, format_func=labels("udhr_{}"),
                               **state.bind("lang_pick", everyone, everyone))
    c2, c3 = st.columns(2)
    measure = c2.selectbox(t("measure"), MEASURES, format_func=bound(lambda m, lg: t(COLUMN_KEYS[m], lg)),
                           **state.bind("lang_measure", MEASURES[0], MEASURES))
    sorts = ("o200k_base", "gpt2", "language")
    sort_by = c3.selectbox(t("sort_by"), sorts, **state.bind("lang_sort", sorts[0], sorts),
                           format_func=bound(lambda k, lg: t("col_language", lg) if k == "language"
                                             else t("premium_of", lg, name=ENCODINGS[k].short_label)))
    return languages, measure, sort_by


def language_chart(tok: bpeviz.Tokenizer | None) -> None:
    st.subheader(t("chart_languages"))
    lesson = sidebar.current()
    toy = isinstance(lesson.source, sources.Shipped) and lesson.source.key == corpora.DEFAULT_CORPUS
    tok = None if toy else tok  # 64 tokens are bad everywhere alike: the toy would hide the cause of the premium
    digest = sources.digest(lesson.source) if lesson.source is not None and tok is not None else "none"
    trained_label = t("trained_on", corpus=source_label(lesson.source), vocab=lesson.settings.vocab_size) if tok else ""
    mix_label = t("mix_series", vocab=MIX_VOCAB)
    table = language_rows(digest, lesson.settings, trained_label, mix_label, tok).copy()
    table.insert(0, "language", [t(f"udhr_{code}") + (" *" if code in corpora.NO_SPACES else "") for code in table.code])
    languages, measure, sort_by = language_controls()
    shown = table[table.code.isin(languages)]
    if shown.empty:
        st.info(t("pick_a_language"))
        return
    if sort_by == "language":
        order = sorted(shown.language.unique())
    else:
        order = list(shown[shown.tokenizer == ENCODINGS[sort_by].label].sort_values("premium", ascending=False).language)
    tooltip = [alt.Tooltip(c, title=t(COLUMN_KEYS[c])) for c in ("language", "tokenizer", "tokens", "words", "tokens_per_word",
                                                                   "bytes_per_token", "premium")]
    chart = views.language_dots(shown, "language", measure, t(COLUMN_KEYS[measure]), order, tooltip)
    rule = alt.Chart(pd.DataFrame({"x": [1.0]})).mark_rule(strokeDash=[4, 4], color="#888").encode(x="x:Q")
    views.chart(chart + rule if measure == "premium" else chart)
    st.caption(t("languages_caption"))
    series = [mix_label, *([trained_label] if tok is not None else []), *(e.label for e in ENCODINGS.values())]
    st.caption(t("languages_series_caption", series=render.md(", ".join(series))))
    table_shown = shown.drop(columns=["code"]).rename(columns={c: t(k) for c, k in COLUMN_KEYS.items()})
    projector = [t(COLUMN_KEYS[c]) for c in ("language", "tokenizer", "tokens_per_word", "premium")]
    views.table(table_shown, classroom_columns=projector)  # eight columns do not fit 1024 px at projector size: the CSV has all
    st.download_button(t("download_csv"), table_shown.to_csv(index=False).encode(), file_name="bpeviz-languages.csv",
                       mime="text/csv")


def portuguese_panel(tok: bpeviz.Tokenizer | None) -> None:
    st.subheader(t("chart_portuguese"))
    gpt2 = views.reference("gpt2")
    rows = []
    for (language, _length), sentence in LESSON_SENTENCES.items():
        words = metrics.count_words(sentence)
        n_gpt2 = len(gpt2.encode_ordinary(sentence))
        # a count and its share per word in one cell: seven columns were 844 px wide in a 562 px projector page
        row = {t("col_sentence"): f"{sentence} ({t(f'language_{language}')})", t("col_words"): words,
               t("col_gpt2_tokens_per_word"): f"{n_gpt2} ({num(n_gpt2 / words, '.2f')})"}
        if tok is not None:
            n = len(tok.encode_ordinary(sentence))
            row[t("col_trained_tokens_per_word")] = f"{n} ({num(n / words, '.2f')})"
        rows.append(row)
    frame = pd.DataFrame(rows).set_index(t("col_sentence"))
    frame.columns = [views.heading(c) for c in frame.columns]  # broken between words only (and GPT-2 whole)
    st.table(frame)  # a plain table wraps its long sentences to the page
    st.caption(t("portuguese_caption"))


st.title(t("charts_title"))
trained = runs.for_page(sidebar.current())
vocab_chart()
language_chart(trained)
portuguese_panel(trained)
