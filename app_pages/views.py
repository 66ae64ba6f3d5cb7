"""Drawing pieces shared by pages: token chips, and one text through every tokenizer."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

import bpeviz
from bpeviz import metrics, render
from bpeviz.reference_encodings import LABELS, REFERENCE_NAMES


def plural(n: int, word: str) -> str:
    """Example: plural(1, "token") -> "1 token"; plural(3, "token") -> "3 tokens" """
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def chips(tokens: Sequence[tuple[int, str | bytes]], *, tok: bpeviz.Tokenizer | None = None, show_ids: bool = False,
          highlight: int | None = None) -> None:
    """Draw (id, token) pairs as coloured chips; byte-fallback and cut-character tokens flagged."""
    items = [
        render.Chip(render.show(token), token_id, partial=render.is_partial(token),
                    fallback=bool(tok is not None and tok.is_byte_fallback(token_id)), highlight=token_id == highlight)
        for token_id, token in tokens
    ]
    st.markdown(render.chips_html(items, show_ids=show_ids), unsafe_allow_html=True)


@st.cache_resource(show_spinner="Loading the real tokenizers (offline)…")
def reference(name: str):
    """A real encoding; read-only and the same for everyone, so shared."""
    return bpeviz.reference(name)


def reference_tokens(name: str, text: str) -> list[tuple[int, bytes]]:
    enc = reference(name)
    return [(i, enc.decode_single_token_bytes(i)) for i in enc.encode_ordinary(text)]


def compare(text: str, tok: bpeviz.Tokenizer | None, *, trained_label: str = "trained here", show_table: bool = True) -> None:
    """The text through the trained tokenizer and the three real ones: chips with ids, then the numbers."""
    rows = []
    words = metrics.count_words(text)
    if tok is not None:
        ids = tok.encode_ordinary(text)
        st.markdown(f"**{trained_label}** · {plural(len(ids), 'token')}")
        chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
        rows.append((trained_label, len(ids)))
    for name in REFERENCE_NAMES:
        tokens = reference_tokens(name, text)
        st.markdown(f"**{LABELS[name]}** · {plural(len(tokens), 'token')}")
        chips(tokens, show_ids=True)
        rows.append((LABELS[name], len(tokens)))
    if show_table and text:
        n_bytes = len(bpeviz.tokenizer.to_bytes(text))
        st.dataframe(
            pd.DataFrame({
                "tokenizer": [r[0] for r in rows],
                "tokens": [r[1] for r in rows],
                "tokens per word": [round(r[1] / words, 2) if words else None for r in rows],
                "bytes per token": [round(n_bytes / r[1], 2) if r[1] else None for r in rows],
            }),
            hide_index=True,
        )


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
    word, variants = next(iter(mixed.items()))
    listing = ", ".join(f"`{render.show(p)}` = {i}" for p, i in variants.items())
    return f"Same word, different tokens: {listing} (cl100k_base). A leading space or a capital letter makes another token."
