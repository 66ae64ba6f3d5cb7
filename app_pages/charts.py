"""Charts page: bytes per token against vocab size, and the token cost of each language."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import bpeviz
from app_pages import lesson, views
from app_pages.i18n import t
from bpeviz import corpora, metrics
from bpeviz.reference_encodings import LABELS, REFERENCE_NAMES, VOCAB_SIZES

LESSON = "lesson"
SHORT_LABELS = {"gpt2": "GPT-2", "cl100k_base": "cl100k", "o200k_base": "o200k"}
LESSON_SENTENCES = {  # the four sentences of the lesson: (language, length) -> sentence
    ("English", "short"): "The cat sat on the roof.",
    ("Portuguese", "short"): "O gato sentou no telhado.",
    ("English", "long"): "Unfortunately, the internationalization of the documentation was postponed indefinitely.",
    ("Portuguese", "long"): "Infelizmente, a internacionalização da documentação foi adiada indefinidamente.",
}


@st.cache_data(max_entries=16, show_spinner=False)
def curves(digest: str, vocab_size: int, pretokenizer: str, fraction: float, _docs: list[str]) -> dict:
    """Training and held-out curves plus the real encodings on the held-out text (one training run)."""
    train_docs, heldout = metrics.split_heldout(_docs, fraction)
    choice = lesson.CorpusChoice("chart corpus", text="\n".join(train_docs), lines_are_docs=len(train_docs) > 1)
    tok = lesson.train_cached(choice, vocab_size, "bytes", pretokenizer, "first")
    train_curve = metrics.training_curve(tok)
    step = max(1, len(train_curve) // 400)
    reference_points = []
    for name in REFERENCE_NAMES:
        n_tokens = len(views.reference(name).encode_ordinary(heldout))
        reference_points.append((SHORT_LABELS[name], VOCAB_SIZES[name], metrics.bytes_per_token(heldout, n_tokens)))
    return {
        "train": train_curve[::step] + [train_curve[-1]],
        "heldout": metrics.heldout_curve(tok, heldout),
        "references": reference_points,
        "heldout_chars": len(heldout),
        "merges": len(tok.merges),
    }


def vocab_chart() -> None:
    st.subheader(t("chart_vocab", lesson.lang()))
    options = ["english", LESSON, *[k for k in corpora.CORPORA if k not in ("english", "toy_pt")]]
    c1, c2, c3, c4 = st.columns(4)
    key = c1.selectbox("Corpus", options, key="chart_corpus",
                       format_func=lambda k: "the training page's corpus" if k == LESSON else corpora.CORPORA[k].label)
    vocab_size = c2.select_slider("Trained vocab size", [512, 1024, 2048, 4096, 8192], value=4096, key="chart_vocab")
    pretokenizer = c3.selectbox("Split", list(bpeviz.PRETOKENIZERS), index=1, key="chart_pre")
    percent = c4.slider("Held out (%)", 5, 50, 10, key="chart_heldout", help="The end of the corpus, never trained on.")
    if key == LESSON:
        choice = lesson.corpus_choice()[0]
        if choice is None or choice.is_replay or choice.is_bytes:
            st.info("The training page's corpus cannot be charted here (none chosen, GPT-2 replay, or not UTF-8).")
            return
        raw = choice.documents()
        docs = [raw] if isinstance(raw, str) else list(raw)
    else:
        docs = corpora.documents(key)
    if sum(len(d) for d in docs) < 200:
        st.info("This corpus is too small to hold a part out; pick a longer one.")
        return
    digest = lesson.corpus_digest(lesson.CorpusChoice("chart", text="\x00".join(docs)))
    with st.spinner(f"Training to {vocab_size:,} on {sum(len(d) for d in docs):,} characters…"):
        try:
            data = curves(digest, vocab_size, pretokenizer, percent / 100, docs)
        except ValueError as exc:
            st.error(str(exc))
            return
    rows = [{"vocab size": v, "bytes per token": b, "series": "training text"} for v, b in data["train"]]
    rows += [{"vocab size": v, "bytes per token": b, "series": "held-out text"} for v, b in data["heldout"]]
    lines = pd.DataFrame(rows)
    refs = pd.DataFrame([{"vocab size": v, "bytes per token": b, "series": name} for name, v, b in data["references"]])
    x = alt.X("vocab size:Q", scale=alt.Scale(type="log", base=2), title="vocab size (log₂)")
    y = alt.Y("bytes per token:Q", title="bytes per token (higher = fewer tokens)")
    line_chart = alt.Chart(lines).mark_line(point=False, strokeWidth=3).encode(
        x=x, y=y, color=alt.Color("series:N", title=None), tooltip=["series", "vocab size", alt.Tooltip("bytes per token:Q", format=".2f")])
    held_points = alt.Chart(lines[lines.series == "held-out text"]).mark_point(size=70, filled=True).encode(x=x, y=y, color="series:N")
    ref_points = alt.Chart(refs).mark_point(size=160, shape="diamond", filled=True, color="#333").encode(
        x=x, y=y, tooltip=["series", "vocab size", alt.Tooltip("bytes per token:Q", format=".2f")])
    ref_labels = alt.Chart(refs).mark_text(align="center", dy=-16, fontSize=14, fontWeight="bold").encode(x=x, y=y, text="series")
    st.altair_chart((line_chart + held_points + ref_points + ref_labels).properties(height=420), width="stretch")
    st.caption(f"One training run ({data['merges']:,} merges), measured after every merge on the training text; the held-out "
               f"curve encodes the last {percent} % ({data['heldout_chars']:,} characters) with the first k merges. "
               "The real tokenizers (diamonds) are measured on the same held-out text.")
    steps_table = metrics.doublings(data["heldout"])
    if steps_table:
        st.markdown("**What each doubling bought (held-out text)**")
        st.dataframe(pd.DataFrame({
            "vocab size": [f"{d.from_size:,} → {d.to_size:,}" for d in steps_table],
            "bytes/token": [f"{d.from_bpt:.2f} → {d.to_bpt:.2f}" for d in steps_table],
            "bought": [d.sentence() for d in steps_table],
        }), hide_index=True)


@st.cache_data(max_entries=16, show_spinner=False)
def language_rows(digest: str, settings: tuple, _tok: bpeviz.Tokenizer | None) -> pd.DataFrame:
    """Tokens, words, bytes and premium per language and tokenizer (cached per trained tokenizer)."""
    texts = {code: corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES}
    toy = lesson.train_cached(lesson.CorpusChoice("toy", shipped="toy_pt"), 64, "chars", "gpt2", "first")
    encoders = {}
    if _tok is not None:
        encoders["trained here"] = _tok.encode_ordinary
    encoders["toy Portuguese"] = toy.encode_ordinary
    for name in REFERENCE_NAMES:
        encoders[LABELS[name]] = views.reference(name).encode_ordinary
    rows = metrics.language_table(texts, encoders)
    return pd.DataFrame({
        "language": [corpora.UDHR_LANGUAGES[r.language] + (" *" if r.language in corpora.NO_SPACES else "") for r in rows],
        "code": [r.language for r in rows],
        "tokenizer": [r.tokenizer for r in rows],
        "tokens": [r.tokens for r in rows],
        "words": [r.words for r in rows],
        "bytes": [r.n_bytes for r in rows],
        "tokens per word": [round(r.tokens_per_word, 3) for r in rows],
        "bytes per token": [round(r.bytes_per_token, 3) for r in rows],
        "premium": [round(r.premium, 3) for r in rows],
    })


def language_chart(tok: bpeviz.Tokenizer | None) -> None:
    st.subheader(t("chart_languages", lesson.lang()))
    choice = lesson.corpus_choice()[0]
    ss = st.session_state
    digest = lesson.corpus_digest(choice) if choice is not None and tok is not None else "none"
    settings = (int(ss.vocab_size), str(ss.level), lesson.current_pretokenizer(), str(ss.tie_break))
    table = language_rows(digest, settings, tok)
    c1, c2, c3 = st.columns([2, 1, 1])
    languages = c1.multiselect("Languages", list(corpora.UDHR_LANGUAGES), default=list(corpora.UDHR_LANGUAGES),
                               format_func=corpora.UDHR_LANGUAGES.get, key="lang_pick")
    measure = c2.selectbox("Measure", ["premium", "tokens per word", "bytes per token", "tokens"], key="lang_measure")
    sort_by = c3.selectbox("Sort by", ["premium (o200k_base)", "premium (GPT-2)", "language"], key="lang_sort")
    shown = table[table.code.isin(languages)]
    if shown.empty:
        st.info("Pick at least one language.")
        return
    if sort_by == "language":
        order = sorted(shown.language.unique())
    else:
        ref = LABELS["o200k_base"] if "o200k" in sort_by else LABELS["gpt2"]
        order = list(shown[shown.tokenizer == ref].sort_values("premium", ascending=False).language)
    chart = alt.Chart(shown).mark_point(filled=True, size=110).encode(
        y=alt.Y("language:N", sort=order, title=None, axis=alt.Axis(labelFontSize=13, labelLimit=240)),
        x=alt.X(f"{measure}:Q", title=measure),
        color=alt.Color("tokenizer:N", legend=alt.Legend(orient="top", title=None)),
        shape=alt.Shape("tokenizer:N", legend=None),
        tooltip=["language", "tokenizer", "tokens", "words", "tokens per word", "bytes per token", "premium"],
    ).properties(height=alt.Step(22))
    rule = alt.Chart(pd.DataFrame({"x": [1.0]})).mark_rule(strokeDash=[4, 4], color="#888").encode(x="x:Q")
    st.altair_chart(chart + rule if measure == "premium" else chart, width="stretch")
    st.caption("Premium = tokens for this language ÷ tokens for English, same content and tokenizer (Petrov et al., 2023). "
               "* Thai, Japanese and Chinese are written without spaces between words, so tokens per word means little "
               "there: read the premium. Text: the UDHR preamble and Articles 1–10.")
    st.dataframe(shown.drop(columns=["code"]), hide_index=True)
    st.download_button("Download the table (CSV)", shown.to_csv(index=False).encode(), file_name="bpeviz-languages.csv",
                       mime="text/csv")


def portuguese_panel(tok: bpeviz.Tokenizer | None) -> None:
    st.subheader(t("chart_portuguese", lesson.lang()))
    gpt2 = views.reference("gpt2")
    rows = []
    for (language, _length), sentence in LESSON_SENTENCES.items():
        words = metrics.count_words(sentence)
        n_gpt2 = len(gpt2.encode_ordinary(sentence))
        row = {"sentence": sentence, "language": language, "words": words, "GPT-2 tokens": n_gpt2,
               "GPT-2 tokens/word": round(n_gpt2 / words, 2)}
        if tok is not None:
            n = len(tok.encode_ordinary(sentence))
            row.update({"trained tokens": n, "trained tokens/word": round(n / words, 2)})
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.caption("GPT-2 learned its merges mostly from English web text: English words are often one token, "
               "Portuguese words with accents split into several.")


lg = lesson.lang()
st.title(t("charts_title", lg))
_, trained = lesson.tokenizer()
vocab_chart()
language_chart(trained)
portuguese_panel(trained)
