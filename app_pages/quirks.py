"""Quirks gallery: the famous tokenizer oddities, each live and editable."""

from __future__ import annotations

import unicodedata
from collections import Counter

import altair as alt
import pandas as pd
import streamlit as st

import bpeviz
from app_pages import lesson, views
from app_pages.i18n import t
from bpeviz import corpora, render
from bpeviz.reference_encodings import LABELS, REFERENCE_NAMES

MAX_QUIRK_TEXT = 5_000


def editable(key: str, default: str, label: str = "Text", *, area: bool = False) -> str:
    """An editable text for a panel; its value survives reruns and page switches."""
    if key not in st.session_state:
        st.session_state[key] = default
    else:
        st.session_state[key] = st.session_state[key]
    text = (st.text_area if area else st.text_input)(label, key=key)
    if len(text) > MAX_QUIRK_TEXT:
        st.warning(f"Only the first {MAX_QUIRK_TEXT:,} characters are used here.")
        text = text[:MAX_QUIRK_TEXT]
    return text


def splits(text: str, names=REFERENCE_NAMES) -> dict[str, str]:
    """How each real encoding cuts text, as 'a|b|c'."""
    out = {}
    for name in names:
        enc = views.reference(name)
        out[LABELS[name]] = "|".join(render.show(enc.decode_single_token_bytes(i)) for i in enc.encode_ordinary(text))
    return out


def numbers_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_numbers", lesson.lang()), icon=":material/pin:", expanded=True):
        text = editable("q_numbers", "1234 12345 1000000 3.14159 2024", "Numbers")
        views.compare(text, tok, show_table=False)
        rows = [{"number": n, **splits(n)} for n in text.split()[:12]]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        st.markdown("GPT-2 merges digits like letters, so `12345` splits wherever frequent digit runs happened to be "
                    "merged: the same quantity gets different pieces in different numbers. cl100k_base and o200k_base "
                    "pre-split digits into groups of at most three from the left (`123|45`), so arithmetic sees "
                    "regular chunks. Some models (LLaMA) go further and split every digit.")


def indentation_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_indent", lesson.lang()), icon=":material/format_indent_increase:"):
        text = editable("q_indent", "    x = 1\n        x = 1\n\tx = 1", "Lines of code", area=True)
        for line in text.splitlines()[:6]:
            st.markdown(f"`{render.visible(line)}` → " + " · ".join(f"{k}: {v.count('|') + 1} tokens" for k, v in splits(line).items()))
        views.compare(text, tok, show_table=False)
        st.markdown("GPT-2 has no tokens for runs of spaces, so every indented line of code spends one token per "
                    "space. cl100k_base learned tokens for runs of spaces, which is one reason it reads code so "
                    "much more cheaply.")


def spelling_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_spell", lesson.lang()), icon=":material/spellcheck:"):
        word = editable("q_spell", "strawberry", "Word")
        letter = st.text_input("Letter to count", "r", max_chars=1, key="q_letter") or "r"
        enc = views.reference("cl100k_base")
        pieces = [enc.decode_single_token_bytes(i).decode("utf-8", "replace") for i in enc.encode_ordinary(word)]
        st.markdown(f"**Letters:** {' '.join(word)} → `{letter}` occurs **{word.count(letter)}** times.  \n"
                    f"**What the model sees (cl100k_base):** {len(pieces)} tokens: "
                    + " ".join(f"`{render.show(p)}`" for p in pieces))
        reversed_word = word[::-1]
        st.markdown(f"**Reversed:** `{reversed_word}` → " + " ".join(
            f"`{render.show(enc.decode_single_token_bytes(i))}`" for i in enc.encode_ordinary(reversed_word)))
        views.compare(word, tok, show_table=False)
        st.markdown("A model receives token ids, not letters: counting letters or reversing a word asks it to recall "
                    "the spelling of each token, which it only learned indirectly.")


def leading_space_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_space", lesson.lang()), icon=":material/space_bar:"):
        text = editable("q_space", "the the The THE", "Words")
        views.compare(text, tok, show_table=False)
        note = views.leading_space_note(text)
        if note:
            st.info(note)
        st.markdown("The space belongs to the word that follows it. `the` at the start of a text, ` the` inside a "
                    "sentence and `The` are three different ids: the model must learn that they mean the same.")


def glitch_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_glitch", lesson.lang()), icon=":material/bug_report:"):
        st.markdown("A token that was frequent in the tokenizer's training text but rare in the model's training text "
                    "gets an embedding that is barely trained. GPT-2's ` SolidGoldMagikarp` (a Reddit user name) is the "
                    "famous one: one token in GPT-2, and ChatGPT-era models could not repeat it.")
        views.compare(" SolidGoldMagikarp", None, show_table=False)
        if tok is None:
            return
        key = st.selectbox("Held-out text", [k for k in corpora.CORPORA if k != "toy_pt"], index=list(corpora.CORPORA).index("udhr-pt") - 1,
                           format_func=lambda k: corpora.CORPORA[k].label, key="q_glitch_text")
        used = Counter(tok.encode_ordinary(corpora.corpus_text(key)))
        unused = [m for m in tok.merges if used[m.id] == 0]
        st.markdown(f"**{len(unused)} of {len(tok.merges)}** merged tokens of the tokenizer trained here never occur in this text. "
                    "The earliest merges (frequent in training) are the best glitch candidates:")
        st.dataframe(pd.DataFrame({"rank": [m.rank for m in unused[:25]], "token": [render.show(m.token) for m in unused[:25]],
                                   "count in training": [m.count for m in unused[:25]]}), hide_index=True)


def cut_character_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_cut", lesson.lang()), icon=":material/content_cut:"):
        text = editable("q_cut", "café — naïve — 日本語", "Text to decode token by token")
        enc = views.reference("gpt2")
        ids = enc.encode_ordinary(text)
        rows = [{"token id": i, "bytes": repr(enc.decode_single_token_bytes(i)),
                 "decoded alone": enc.decode([i]).replace(" ", "␣")} for i in ids]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        joined = enc.decode(ids)
        broken = sum("\ufffd" in r["decoded alone"] for r in rows)
        st.markdown(f"GPT-2: **{broken}** of {len(ids)} tokens end mid-character and decode alone to `�`. "
                    f"Decoded together: `{joined}` {'✓' if joined == text else '✗'}")
        st.markdown("Byte-level BPE merges bytes, not characters, so a token can hold half of `日` (3 bytes in UTF-8). "
                    "A streaming API that sent each token's text at once would print `�`; it buffers bytes until "
                    "they form whole characters.")
        if tok is not None and tok.level == "bytes":
            views.chips([(i, tok.token_of(i)) for i in tok.encode_ordinary(text)], tok=tok, show_ids=True)


def normalization_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_nfc", lesson.lang()), icon=":material/text_rotation_none:"):
        word = editable("q_nfc", "ação café", "Words with accents")
        for form in ("NFC", "NFD"):
            text = unicodedata.normalize(form, word)
            points = " ".join(f"U+{ord(ch):04X}" for ch in text)
            st.markdown(f"**{form}** · {len(text)} code points, {len(text.encode())} bytes: `{points}`")
            views.compare(text, tok, show_table=False)
        st.markdown("`é` can be one code point (NFC) or `e` plus a combining accent (NFD). They look the same but "
                    "are different bytes, so a tokenizer sees different tokens, usually more of them for NFD. "
                    "Many pipelines normalise text to NFC before tokenizing for this reason.")


def unseen_panel() -> None:
    with st.expander(t("q_unseen", lesson.lang()), icon=":material/travel_explore:"):
        toy = lesson.train_cached(lesson.CorpusChoice("toy", shipped="toy_pt"), 64, "chars", "gpt2", "first")
        text = editable("q_unseen", "pássaro · The cat climbed onto the roof.", "Text the toy corpus never saw")
        views.compare(text, toy, trained_label="toy Portuguese tokenizer (64)", show_table=True)
        st.markdown("The toy tokenizer learned ` gato`, ` no`, ` sub`… from eight sentences. A new word falls apart "
                    "into known pieces and single characters; characters it never saw (dashed chips) fall back to "
                    "their UTF-8 bytes, so nothing is ever unknown, just expensive.")


def usage_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_zipf", lesson.lang()), icon=":material/bar_chart:"):
        if tok is None:
            st.info("Train a tokenizer first.")
            return
        key = st.selectbox("Text", list(corpora.CORPORA), key="q_zipf_text", format_func=lambda k: corpora.CORPORA[k].label)
        counts = Counter(tok.encode_ordinary(corpora.corpus_text(key)))
        freq = sorted(counts.values(), reverse=True)
        data = pd.DataFrame({"rank": range(1, len(freq) + 1), "uses": freq})
        chart = alt.Chart(data).mark_line(point=True).encode(
            x=alt.X("rank:Q", scale=alt.Scale(type="log"), title="token rank by use (log)"),
            y=alt.Y("uses:Q", scale=alt.Scale(type="log"), title="uses (log)"), tooltip=["rank", "uses"])
        st.altair_chart(chart.properties(height=300), width="stretch")
        vocab = tok.n_base + len(tok.merges)
        st.markdown(f"{len(counts):,} of {vocab:,} tokens used; {vocab - len([i for i in counts if i < vocab]):,} never used on this text.")


lg = lesson.lang()
st.title(t("quirks_title", lg))
st.caption(t("q_caption", lg))
_, trained = lesson.tokenizer()
numbers_panel(trained)
indentation_panel(trained)
spelling_panel(trained)
leading_space_panel(trained)
glitch_panel(trained)
cut_character_panel(trained)
normalization_panel(trained)
unseen_panel()
usage_panel(trained)
