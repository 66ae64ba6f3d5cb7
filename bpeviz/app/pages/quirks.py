"""Quirks gallery: the famous tokenizer oddities, each live and editable."""

from __future__ import annotations

import unicodedata
from collections import Counter

import altair as alt
import pandas as pd
import streamlit as st

import bpeviz
from bpeviz.app import runs, sidebar, state, views
from bpeviz.app.i18n import bound, corpus_label, t
from bpeviz.core.records import Settings
from bpeviz.data import corpora
from bpeviz.lessons import render, sources
from bpeviz.pretrained.encodings import ENCODINGS

MAX_QUIRK_TEXT = 5_000
TOY = sources.Shipped(corpora.DEFAULT_CORPUS)
TOY_SETTINGS = Settings(vocab_size=corpora.CORPORA[corpora.DEFAULT_CORPUS].vocab_size, level="chars")


def editable(key: str, default: str, label: str, *, area: bool = False) -> str:
    """An editable text for a panel; its value survives reruns and page switches."""
    text = (st.text_area if area else st.text_input)(label, **state.bind(key, default))
    if len(text) > MAX_QUIRK_TEXT:
        st.warning(t("quirk_text_cut", cap=MAX_QUIRK_TEXT))
        text = text[:MAX_QUIRK_TEXT]
    return text


def pieces_of(name: str, text: str) -> list[str]:
    """How a real encoding cuts text, each piece shown with ␣ and escapes."""
    enc = views.reference(name)
    return [render.show(enc.decode_single_token_bytes(i)) for i in enc.encode_ordinary(text)]


def splits(text: str) -> dict[str, str]:
    """How each real encoding cuts text, as 'a|b|c'."""
    return {encoding.label: "|".join(pieces_of(name, text)) for name, encoding in ENCODINGS.items()}


def numbers_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_numbers"), icon=":material/pin:", expanded=True):
        text = editable("q_numbers", "1234 12345 1000000 3.14159 2024", t("numbers"))
        views.compare(text, tok, show_table=False)
        frame = pd.DataFrame([{t("col_number"): n, **splits(n)} for n in list(dict.fromkeys(text.split()))[:12]])
        if st.session_state.get("classroom"):  # a tokenizer per row: eight columns of names do not fit a 1024 px projector
            frame = frame.set_index(t("col_number")).T.rename_axis(t("col_tokenizer")).reset_index()
        views.table(frame)
        st.markdown(t("numbers_explained"))


def indentation_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_indent"), icon=":material/format_indent_increase:"):
        text = editable("q_indent", "    x = 1\n        x = 1\n\tx = 1", t("lines_of_code"), area=True)
        for line in text.splitlines()[:6]:
            counts = " · ".join(f"{render.md(label)}: {t('n_tokens_short', n=v.count('|') + 1)}"
                                for label, v in splits(line).items())
            st.markdown(f"{render.code(render.visible(line))} → {counts}")
        views.compare(text, tok, show_table=False)
        st.markdown(t("indent_explained"))


def spelling_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_spell"), icon=":material/spellcheck:"):
        word = editable("q_spell", "strawberry", t("word"))
        letter = st.text_input(t("letter_to_count"), max_chars=1, **state.bind("q_letter", "r")) or "r"
        pieces = pieces_of("cl100k_base", word)
        letters = t("letters_line", letters=render.md(" ".join(word)), letter=render.code(letter), n=word.count(letter))
        st.markdown(letters + "  \n" + t("model_sees", n=len(pieces)) + " " + " ".join(render.code(p) for p in pieces))
        st.markdown(t("reversed_line", word=render.code(word[::-1])) + " "
                    + " ".join(render.code(p) for p in pieces_of("cl100k_base", word[::-1])))
        views.compare(word, tok, show_table=False)
        st.markdown(t("spell_explained"))


def leading_space_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_space"), icon=":material/space_bar:"):
        text = editable("q_space", "the the The THE", t("words"))
        views.compare(text, tok, show_table=False)
        note = views.leading_space_note(text)
        if note:
            st.info(note)
        st.markdown(t("space_explained"))


def glitch_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_glitch"), icon=":material/bug_report:"):
        st.markdown(t("glitch_explained"))
        views.compare(" SolidGoldMagikarp", None, show_table=False)
        if tok is None:
            return
        choices = [k for k in corpora.CORPORA if k != corpora.DEFAULT_CORPUS]
        key = st.selectbox(t("heldout_text"), choices, format_func=bound(corpus_label),
                           **state.bind("q_glitch_text", "udhr-pt", choices))
        used = Counter(tok.encode_ordinary(corpora.corpus_text(key)))
        unused = [m for m in tok.merges if used[m.id] == 0]
        st.markdown(t("glitch_unused", n=len(unused), total=len(tok.merges)))
        views.table(pd.DataFrame({t("col_rank"): [m.rank for m in unused[:25]],
                                   t("col_token"): [render.show(m.token) for m in unused[:25]],
                                   t("col_count_training"): [m.count for m in unused[:25]]}))


def cut_character_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_cut"), icon=":material/content_cut:"):
        text = editable("q_cut", "café — naïve — 日本語", t("text_to_decode"))
        enc = views.reference("gpt2")
        ids = enc.encode_ordinary(text)
        alone = [enc.decode([i]) for i in ids]
        views.table(pd.DataFrame({t("col_token_id"): ids, t("col_bytes"): [repr(enc.decode_single_token_bytes(i)) for i in ids],
                                   t("col_decoded_alone"): [render.visible(a) for a in alone]}))
        joined = enc.decode(ids)
        broken = sum("\ufffd" in a for a in alone)
        st.markdown(t("cut_count", broken=broken, n=len(ids)) + " " + t("decoded_together", text=render.code(joined))
                    + (" ✓" if joined == text else " ✗"))
        st.markdown(t("cut_explained"))
        if tok is not None and tok.level == "bytes":
            views.chips([(i, tok.token_of(i)) for i in tok.encode_ordinary(text)], tok=tok, show_ids=True)


def byte_fallback_panel() -> None:
    """The same text under byte fallback (Mistral v3: characters, a missing one as <0x..> bytes) and byte level (GPT-2)."""
    with st.expander(t("q_fallback"), icon=":material/data_array:"):
        text = editable("q_fallback", "gato 🐈 ꙮ 𓀀", t("text"))
        rows = []
        for name in ("mistral-v3", "gpt2"):
            enc = views.reference(name)
            ids = enc.encode_ordinary(text)
            inner = getattr(enc, "tokenizer", None)
            fallback = sum(bool(inner is not None and inner.is_byte_fallback(i)) for i in ids)
            st.markdown(f"**{render.md(ENCODINGS[name].label)}** · {t('n_tokens_short', n=len(ids))}")
            views.chips([(i, enc.decode_single_token_bytes(i)) for i in ids], tok=inner, show_ids=True, reference_name=name)
            rows.append({t("col_tokenizer"): ENCODINGS[name].label, t("col_tokens"): len(ids),
                         t("col_starts_from"): t("starts_from_chars") if inner is not None else t("starts_from_bytes"),
                         t("col_byte_tokens"): fallback})
        views.table(pd.DataFrame(rows))
        st.markdown(t("fallback_explained"))


def normalization_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_nfc"), icon=":material/text_rotation_none:"):
        word = editable("q_nfc", "ação café", t("words_with_accents"))
        for form in ("NFC", "NFD"):
            text = unicodedata.normalize(form, word)
            points = " ".join(f"U+{ord(ch):04X}" for ch in text)
            st.markdown(f"**{form}** · {t('code_points', n=len(text), bytes=len(text.encode()))}: {render.code(points)}")
            views.compare(text, tok, show_table=False)
        st.markdown(t("nfc_explained"))


def unseen_panel() -> None:
    with st.expander(t("q_unseen"), icon=":material/travel_explore:"):
        toy = runs.run(TOY, TOY_SETTINGS)
        text = editable("q_unseen", "pássaro · The cat climbed onto the roof.", t("text_never_seen"))
        views.compare(text, toy, label=t("toy_tokenizer"), show_table=True)
        st.markdown(t("unseen_explained"))


def usage_panel(tok: bpeviz.Tokenizer | None) -> None:
    with st.expander(t("q_zipf"), icon=":material/bar_chart:"):
        if tok is None:
            st.info(t("train_first"))
            return
        names = list(corpora.CORPORA)
        key = st.selectbox(t("text"), names, format_func=bound(corpus_label), **state.bind("q_zipf_text", names[0], names))
        vocab = tok.vocab_size
        counts = Counter(i for i in tok.encode_ordinary(corpora.corpus_text(key)) if i < vocab)  # byte fallback is not vocabulary
        freq = sorted(counts.values(), reverse=True)
        data = pd.DataFrame({"rank": range(1, len(freq) + 1), "uses": freq})
        chart = alt.Chart(data).mark_line(point=True).encode(
            x=alt.X("rank:Q", scale=alt.Scale(type="log"), title=t("zipf_x")),
            y=alt.Y("uses:Q", scale=alt.Scale(type="log"), title=t("zipf_y")),
            tooltip=[alt.Tooltip("rank", title=t("col_rank")), alt.Tooltip("uses", title=t("zipf_y"))])
        views.chart(chart.properties(height=300))
        st.markdown(t("zipf_used", used=len(counts), vocab=vocab, unused=vocab - len(counts)))


st.title(t("quirks_title"))
st.caption(t("q_caption"))
trained = runs.for_page(sidebar.current())
numbers_panel(trained)
indentation_panel(trained)
spelling_panel(trained)
leading_space_panel(trained)
glitch_panel(trained)
cut_character_panel(trained)
byte_fallback_panel()
normalization_panel(trained)
unseen_panel()
usage_panel(trained)
