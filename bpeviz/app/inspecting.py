"""The Inspect page's long computations, cached for every visitor.

A first visit to Inspect takes about 18 s on the 2-core VM (bench/first_visits.py), 15 of them in the
training-mix inference's linear programs for cl100k_base. The page draws its quick sections first and fills
the mix in above them when it is ready. Not warmed at server start: every server would pay 15 s of a core
for a page a class rarely opens first.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from bpeviz.data import corpora
from bpeviz.lessons import inspect

EXTRA = ("prose-en", "python")  # categories beside the UDHR languages
CATEGORIES = (*corpora.UDHR_LANGUAGES, *EXTRA)
DEFAULT_CATEGORIES = ("en", "pt", "es", "fr", "de", "ru", "zh", "python")


def sample(code: str) -> str:
    if code == "prose-en":
        return corpora.corpus_text("english")[:60_000]
    if code == "python":
        return corpora.corpus_text("python")[:60_000]
    return corpora.corpus_text(f"udhr-{code}")


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def mixture(key: str, categories: tuple[str, ...], n_merges: int, _tok: object,
            _progress: Callable[[int, int], None] | None = None) -> tuple[dict, str, int]:
    """The inferred mix; _progress (the visitor's budget) may stop it during the replay or between solver rounds."""
    found = inspect.infer_mixture(_tok, {code: sample(code) for code in categories}, n_merges=n_merges, progress=_progress)
    return dict(found), found.outcome, found.merges_used


@st.cache_data(max_entries=8, ttl=3600, show_spinner=False)
def junk(key: str, _tok: object) -> tuple[list[int], int, list[int], int]:
    """Unreachable ids, the number of merged tokens, the merged ids the shipped corpora never make, tokens no merge makes."""
    tok = inspect.as_tokenizer(_tok)
    merged = [tok.file_ids[m.id] if tok.file_ids else m.id for m in tok.merges]
    text = "\n".join(corpora.corpus_text(k) for k in ("english", "portuguese", "python"))
    text += "\n".join(corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES)
    return inspect.unreachable(tok), len(merged), inspect.never_emitted(_tok, text, merged), inspect.not_merges(tok)

