"""The Inspect page's long computations, cached for every visitor.

A first visit to Inspect took about 8 s on the 2-core VM (bench/first_visits.py): its junk table and the
training-mix inference's linear programs for cl100k_base. The page draws its quick sections first and fills
the mix in above them when it is ready; the server's warm-up (runs.warm_up) computes both for the page's default
tokenizer once the first page is drawn, so a class that opens Inspect finds them ready.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from bpeviz.core.records import to_bytes
from bpeviz.data import corpora
from bpeviz.lessons import inspect, mix

EXTRA = ("prose-en", "python")  # categories beside the UDHR languages
CATEGORIES = (*corpora.UDHR_LANGUAGES, *EXTRA)
DEFAULT_CATEGORIES = ("en", "pt", "es", "fr", "de", "ru", "zh", "python")
DEFAULT_TOKENIZER, DEFAULT_MERGES = "cl100k_base", 2000  # what the page shows first
KNOWN_MIXES = {"en 1 : pt 1": {"en": 1, "pt": 1}, "en 3 : pt 1": {"en": 3, "pt": 1},
               "en 1 : ru 2 : fr 1": {"en": 1, "ru": 2, "fr": 1}}
DEFAULT_KNOWN = "en 3 : pt 1"


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



@st.cache_data(max_entries=8, show_spinner=False)
def known_answer(name: str, _mix_run: Callable, _progress: Callable[[int, int], None] | None = None):  # -> pd.DataFrame
    """A tokenizer trained here on a known mix (KNOWN_MIXES[name], by _mix_run: runs.mix_run), its mix read back from
    its training text: columns lang, truth, inferred."""
    import pandas as pd

    weights = KNOWN_MIXES[name]
    run = _mix_run(tuple(sorted(weights.items())), 4096)
    samples = {lang: "\n".join(mix.training_documents(lang)) for lang in weights}
    sizes = {lang: len(to_bytes(samples[lang])) * w for lang, w in weights.items()}
    found = inspect.infer_mixture(run.tok, samples, n_merges=4096, progress=_progress)
    return pd.DataFrame({"lang": list(weights), "truth": [sizes[g] / sum(sizes.values()) for g in weights],
                         "inferred": [found[g] for g in weights]})


def warm(mix_run: Callable) -> None:
    """Compute the page's default sections (its tokenizer's junk, its mix, the known mix read back) into the caches the
    page reads; mix_run: runs.mix_run."""
    from bpeviz.pretrained.encodings import reference

    tok = reference(DEFAULT_TOKENIZER)
    junk(DEFAULT_TOKENIZER, tok)
    mixture(DEFAULT_TOKENIZER, DEFAULT_CATEGORIES, DEFAULT_MERGES, tok)
    known_answer(DEFAULT_KNOWN, mix_run)
