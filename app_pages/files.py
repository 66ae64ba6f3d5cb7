"""Files page: download the trained tokenizer in several formats; import a real one and replay it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages import lesson, views
from app_pages.i18n import t
from bpeviz import interop, render

FORMAT_NOTES = {
    "json": "bpeviz's own file: settings, merges with counts and history. Load it back with bpeviz.load().",
    "csv": "The merge table: rank, left, right, token, id, count.",
    "vocab": "A listing to read, minbpe style: [a][b] -> [ab] id.",
    "tiktoken": "Mergeable ranks for tiktoken.Encoding (the split pattern goes in the .json beside it).",
    "hf": "A Hugging Face tokenizers tokenizer.json (byte-level BPE, same ids as here).",
}


def export_section() -> None:
    st.subheader("Export the tokenizer trained here")
    _, tok = lesson.tokenizer()
    if tok is None:
        return
    for fmt in interop.FORMATS:
        c1, c2 = st.columns([1, 3])
        try:
            data = interop.export(tok, fmt)
        except ValueError as exc:
            c1.button(f"{fmt} (not available)", disabled=True, key=f"export_{fmt}")
            c2.caption(str(exc))
            continue
        name = f"bpeviz-{tok.level}-{tok.vocab_size}{interop.EXTENSIONS[fmt]}"
        c1.download_button(f"Download {fmt}", data, file_name=name, key=f"export_{fmt}", width="stretch")
        c2.caption(FORMAT_NOTES[fmt])
        if fmt == "tiktoken":
            c2.download_button("…and its split pattern (.json)", interop.tiktoken_sidecar(tok), file_name=name + ".json",
                               key="export_tiktoken_side")


def import_section() -> None:
    st.subheader("Import a real tokenizer and replay its merges")
    st.caption("A Hugging Face tokenizer.json (byte-level BPE), a .tiktoken file, or a bpeviz JSON. "
               "To step through its merges on the Train page, pick “Replay a tokenizer file” in the sidebar "
               "(or “Replay GPT-2's merges” for GPT-2's own).")
    upload = st.file_uploader("Tokenizer file", type=["json", "tiktoken"], key="import_file", max_upload_size=lesson.MAX_IMPORT_MB)
    if upload is None:
        return
    if upload.size > lesson.MAX_IMPORT_MB * 1_000_000:
        st.error(f"{upload.name} is larger than {lesson.MAX_IMPORT_MB} MB.")
        return
    n = st.number_input("Replay the first N merges", 1, 200_000, 1000, key="import_n")
    try:
        tok = interop.import_data(upload.getvalue(), upload.name, n_merges=int(n))
    except ValueError as exc:
        st.error(str(exc))
        return
    st.success(f"{upload.name}: {len(tok.merges):,} merges replayed at level bytes (ids renumbered from 256).")
    st.dataframe(pd.DataFrame({"rank": [m.rank for m in tok.merges[:200]],
                               "merge": [f"{render.show(m.left)} + {render.show(m.right)} → {render.show(m.token)}" for m in tok.merges[:200]]}),
                 hide_index=True, height=260)
    k = st.slider("Encode with the first k merges", 0, len(tok.merges), len(tok.merges), key="import_k")
    text = st.text_input("Text", "The cat climbed onto the roof.", key="import_text")
    prefix = tok.truncated(int(k))
    views.chips([(i, prefix.token_of(i)) for i in prefix.encode_ordinary(text)], show_ids=True)


st.title(t("files_title", lesson.lang()))
export_section()
import_section()
