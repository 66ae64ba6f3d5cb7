"""Files page: download the trained tokenizer in every format; import a real one and replay it."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from bpeviz import formats
from bpeviz.app import runs, sidebar, state, views
from bpeviz.app.i18n import error_text, t
from bpeviz.lessons import render
from bpeviz.models.bpe import Tokenizer
from bpeviz.models.sentencepiece import SentencePieceTokenizer

MAX_IMPORT_MERGES = 200_000
MAX_IMPORT_TEXT = 2_000  # characters of the text encoded with an imported tokenizer


def export_row(tok: Tokenizer, fmt: formats.Format) -> None:
    row = st.container(horizontal=True, vertical_alignment="center")  # wraps on a narrow screen
    label = t(f"format_label_{fmt.name}", default=fmt.label)
    try:
        data = fmt.write(tok)
    except ValueError as exc:
        row.button(t("format_unavailable", label=label), disabled=True, key=f"export_{fmt.name}")
        row.caption(render.md(error_text(exc)))
        return
    name = f"bpeviz-{tok.level}-{tok.vocab_size}{fmt.extension}"
    row.download_button(t("download_format", label=label), data, file_name=name, key=f"export_{fmt.name}", on_click="ignore")
    if fmt.sidecar is not None:
        row.download_button(t("download_sidecar"), fmt.sidecar(tok), file_name=name + ".json", key=f"export_{fmt.name}_side",
                            on_click="ignore")
    row.caption(t(f"format_{fmt.name}", default=fmt.note))


def export_section() -> None:
    st.subheader(t("export_title"))
    tok = runs.for_page(sidebar.current())
    if tok is None:
        return
    for fmt in formats.FORMATS.values():
        export_row(tok, fmt)


def import_section() -> None:
    st.subheader(t("import_title"))
    st.caption(t("import_caption"))
    upload = st.file_uploader(t("tokenizer_file", cap=sidebar.MAX_TOKENIZER_MB), type=sidebar.TOKENIZER_FILE_TYPES,
                              key="import_file", max_upload_size=sidebar.MAX_TOKENIZER_MB)
    if upload is None:
        return
    if upload.size > sidebar.MAX_TOKENIZER_MB * 1_000_000:
        st.error(t("too_big", name=render.md(upload.name), size=upload.size / 1e6, cap=sidebar.MAX_TOKENIZER_MB))
        return
    n = st.number_input(t("replay_first_n"), 1, MAX_IMPORT_MERGES, 1000, key="import_n")
    try:
        data = upload.getvalue()
        tok = runs.imported(hashlib.sha256(data).hexdigest(), upload.name, int(n), data)
    except ValueError as exc:
        st.error(render.md(error_text(exc)))
        return
    sentencepiece = isinstance(tok, SentencePieceTokenizer)
    if tok.algorithm != "bpe":  # a WordPiece or Unigram file: a vocabulary, no merges to replay
        st.success(t("imported_sentencepiece" if sentencepiece else "imported_other", name=render.md(upload.name),
                     algorithm=tok.algorithm, n=tok.vocab_size))
        text = st.text_input(t("text"), max_chars=MAX_IMPORT_TEXT, **state.bind("import_text", "The cat climbed onto the roof."))
        views.chips([(i, tok.token_of(i)) for i in tok.encode_ordinary(text)], tok=tok, show_ids=True)
        return
    st.success(t("imported", name=render.md(upload.name), n=len(tok.merges), level=t(f"level_{tok.level}")))
    if isinstance(tok, SentencePieceTokenizer):
        st.caption(t("sentencepiece_merges_note", n=tok.not_merges))
    elif tok.not_merges:
        st.caption(t("inspect_not_merges", n=tok.not_merges))
    shown = tok.merges[:200]
    views.table(pd.DataFrame({t("col_rank"): [m.rank for m in shown],
                               t("col_merge"): [render.merge_text(m) for m in shown]}), height=260)
    k = st.slider(t("encode_with_k"), 0, len(tok.merges), len(tok.merges), key="import_k")
    text = st.text_input(t("text"), max_chars=MAX_IMPORT_TEXT, **state.bind("import_text", "The cat climbed onto the roof."))
    prefix = tok.truncated(int(k))
    try:
        views.chips([(i, prefix.token_of(i)) for i in prefix.encode_ordinary(text)], tok=prefix, show_ids=True)
    except ValueError as exc:
        st.error(render.md(error_text(exc)))


st.title(t("files_title"))
export_section()
import_section()
