"""Graft page: continue a real tokenizer's merges on one language, every old id kept, and see what the new ones buy.

A base (GPT-2, cl100k_base, o200k_base, Tekken, Mistral v3's SentencePiece model) and a UDHR language: bpeviz.extend
learns the new merges on that language's training articles; the page steps through them, shows each as the base
tokens it stands for, the language's tokens per word on held-out articles before and after, English's (unchanged),
and the base tokens the graft stops needing.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import bpeviz
from bpeviz.app import state, views
from bpeviz.app.i18n import bound, num, t
from bpeviz.data import corpora
from bpeviz.lessons import graft, mix, render
from bpeviz.pretrained.encodings import ENCODINGS

BASES = ("gpt2", "cl100k_base", "o200k_base", "tekken", "mistral-v3")  # Mistral v3: new SentencePiece pieces
SIZES = (50, 100, 200, 500, 1000)
SHOWN = 200  # new merges listed


@st.cache_resource(max_entries=3, show_spinner=False)  # a graft of GPT-2 holds about 30 MB
def grafted(base: str, language: str, n_new: int) -> bpeviz.Tokenizer | graft.SentencePieceGraft:
    """One graft per (base, language, size), shared read-only by every visitor."""
    return bpeviz.extend(base, mix.training_documents(language), n_new)


@st.cache_data(max_entries=8, show_spinner=False)
def report(base: str, language: str, n_new: int) -> dict:
    tok, real = grafted(base, language, n_new), views.reference(base)
    held, english = mix.heldout_text(language), mix.heldout_text("en")
    n = len(tok.merges) - tok.base_merges
    ks = sorted({0, n // 4, n // 2, 3 * n // 4, n})
    cut = tok.truncated(tok.base_merges)
    rows = [{"rank": tok.base_merges + k + 1, "token": render.show(tok.merges[tok.base_merges + k].token),
             "replaces": " + ".join(render.show(real.decode_single_token_bytes(i)) for i in graft.replaced_by(tok, k, cut)),
             "count": tok.merges[tok.base_merges + k].count} for k in range(min(n, SHOWN))]
    return {"n": n, "curve": graft.tokens_per_word(tok, held, ks), "rows": rows,
            "english": (len(real.encode_ordinary(english)), len(tok.encode_ordinary(english))),
            "rarer": [(render.show(real.decode_single_token_bytes(i)), b, a)
                      for i, b, a in graft.rarer(tok, real.encode_ordinary, held)]}


st.title(t("graft_title"))
st.caption(t("graft_caption"))
c1, c2, c3 = st.columns(3)
base = c1.selectbox(t("graft_base"), BASES, format_func=lambda k: ENCODINGS[k].label, **state.bind("graft_base", "gpt2", BASES))
language = c2.selectbox(t("col_language"), list(corpora.UDHR_LANGUAGES), format_func=bound(lambda k, lg: t(f"udhr_{k}", lg)),
                        **state.bind("graft_language", "hi", list(corpora.UDHR_LANGUAGES)))
size = c3.selectbox(t("graft_size"), SIZES, format_func=bound(lambda v, lg: num(v, ",", lg)),
                    **state.bind("graft_size", 200, SIZES))
with st.spinner(t("graft_working")):
    data = report(base, language, size)
    tok = grafted(base, language, size)
n = data["n"]
curve = dict(data["curve"])
m1, m2, m3 = st.columns(3)
m1.metric(t("graft_before"), num(curve[0], ".2f"))
m2.metric(t("graft_after", n=num(n, ",")), num(curve[n], ".2f"), delta=num(curve[n] - curve[0], "+.2f"), delta_color="inverse")
before, after = data["english"]
m3.metric(t("graft_english"), num(after, ","), delta=num(after - before, "+,"), delta_color="off")
if n < size:
    st.info(t("graft_ran_out", n=num(n, ","), asked=num(size, ",")))
st.caption(t("graft_ids", base=ENCODINGS[base].label, merges=num(tok.base_merges, ","), first=num(tok.base_size, ",")))
k = st.slider(t("graft_step"), 0, n, n, key="graft_k")
sentence = mix.heldout_text(language).split("\n")[0][:300]
cut = tok.truncated(tok.base_merges + k)
views.chips([(i, cut.token_of(i)) for i in cut.encode_ordinary(sentence)], show_ids=True)
st.subheader(t("graft_new_tokens"))
views.table(pd.DataFrame({t("col_rank"): [r["rank"] for r in data["rows"]], t("col_token"): [r["token"] for r in data["rows"]],
                          t("graft_replaces"): [r["replaces"] for r in data["rows"]],
                          t("col_count_training"): [r["count"] for r in data["rows"]]}), height=300)
st.subheader(t("graft_rarer"))
views.table(pd.DataFrame({t("col_token"): [r[0] for r in data["rarer"]], t("graft_uses_before"): [r[1] for r in data["rarer"]],
                          t("graft_uses_after"): [r[2] for r in data["rarer"]]}))
st.markdown(t("graft_explained"))
