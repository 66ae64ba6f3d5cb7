"""Public: the corpora bpeviz ships, as named data (`data/corpora.py`)."""

from __future__ import annotations

from .data.corpora import CORPORA, DEFAULT_CORPUS, NO_SPACES, UDHR_LANGUAGES, CorpusInfo, corpus_text, documents

__all__ = ["CORPORA", "DEFAULT_CORPUS", "NO_SPACES", "UDHR_LANGUAGES", "CorpusInfo", "corpus_text", "documents"]
