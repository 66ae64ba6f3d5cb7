"""Drawing pieces shared by pages: token chips, and one text through every tokenizer."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd
import streamlit as st

import bpeviz
from bpeviz import metrics, render
from bpeviz.records import to_bytes
from bpeviz.reference_encodings import ENCODINGS

from .i18n import t


def chips(tokens: Sequence[tuple[int, str | bytes]], *, tok: bpeviz.Tokenizer | None = None, show_ids: bool = False,
          highlight: int | None = None) -> None:
    """Draw (id, token) pairs as coloured chips; byte-fallback and cut-character tokens flagged."""
    items = [
        render.Chip(render.show(token), token_id, partial=render.is_partial(token),
                    fallback=bool(tok is not None and tok.is_byte_fallback(token_id)), highlight=token_id == highlight)
        for token_id, token in tokens
    ]
    st.markdown(render.chips_html(items, show_ids=show_ids), unsafe_allow_html=True)
    if any(chip.fallback for chip in items):
        st.caption(t("legend_fallback"))
    elif any(chip.partial for chip in items):
        st.caption(t("legend_partial"))


def chart(spec: alt.TopLevelMixin, **kwargs) -> None:
    """st.altair_chart with large axis, legend and label type in classroom mode."""
    if st.session_state.get("classroom"):
        spec = (spec.configure_axis(labelFontSize=18, titleFontSize=18).configure_legend(labelFontSize=18, titleFontSize=18)
                .configure_text(fontSize=18))
    st.altair_chart(spec, width="stretch", **kwargs)


@st.cache_resource(show_spinner=False)
def reference(name: str):
    """A real encoding; read-only and the same for everyone, so shared."""
    with st.spinner(t("loading_references")):
        return bpeviz.reference(name)


def reference_tokens(name: str, text: str) -> list[tuple[int, bytes]]:
    enc = reference(name)
    return [(i, enc.decode_single_token_bytes(i)) for i in enc.encode_ordinary(text)]


def compare(text: str, tok: bpeviz.Tokenizer | None, *, label: str | None = None, show_table: bool = True) -> None:
    """The text through the trained tokenizer (called `label`) and the real ones: chips with ids, then the numbers."""
    rows = []
    if tok is not None:
        label = label or t("trained_here")
        ids = tok.encode_ordinary(text)
        st.markdown(f"**{label}** · {t('n_tokens_short', n=len(ids))}")
        chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
        rows.append((label, len(ids)))
    for name, encoding in ENCODINGS.items():
        tokens = reference_tokens(name, text)
        st.markdown(f"**{render.md(encoding.label)}** · {t('n_tokens_short', n=len(tokens))}")
        chips(tokens, show_ids=True)
        rows.append((encoding.label, len(tokens)))
    if show_table and text:
        words = metrics.count_words(text)
        n_bytes = len(to_bytes(text))
        st.dataframe(pd.DataFrame({
            t("col_tokenizer"): [r[0] for r in rows],
            t("col_tokens"): [r[1] for r in rows],
            t("col_tokens_per_word"): [round(r[1] / words, 2) if words else None for r in rows],
            t("col_bytes_per_token"): [round(n_bytes / r[1], 2) if r[1] else None for r in rows],
        }), hide_index=True)


def leading_space_note(text: str) -> str | None:
    """When a word appears as `the`, ` the` or `The` in text, say that these are different cl100k tokens."""
    enc = reference("cl100k_base")
    forms: dict[str, dict[str, int]] = {}
    for i in enc.encode_ordinary(text):
        piece = enc.decode_single_token_bytes(i).decode("utf-8", "replace")
        key = piece.strip().lower()
        if key.isalpha():
            forms.setdefault(key, {})[piece] = i
    mixed = {k: v for k, v in forms.items() if len(v) > 1}
    if not mixed:
        return None
    variants = next(iter(mixed.values()))
    listing = ", ".join(f"{render.code(render.show(p))} = {i}" for p, i in variants.items())
    return t("same_word_note", listing=listing)
