"""The corpora bpeviz ships (in the package, beside this module: data/corpora/), as named data.

Each entry says how its file becomes documents: one per line (the toy corpus), blocks
separated by a blank line (the UDHR), or the whole file as one document.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

CORPORA_DIR = files(__package__) / "corpora"  # package data, read the same from a checkout or an installed wheel

UDHR_LANGUAGES = {  # code -> name, in the order the charts list them
    "en": "English", "pt": "Portuguese (BR)", "pt-PT": "Portuguese (PT)", "es": "Spanish", "fr": "French",
    "de": "German", "it": "Italian", "nl": "Dutch", "pl": "Polish", "ru": "Russian", "uk": "Ukrainian",
    "el": "Greek", "tr": "Turkish", "fi": "Finnish", "sw": "Swahili", "id": "Indonesian", "vi": "Vietnamese",
    "ar": "Arabic", "he": "Hebrew", "fa": "Persian", "hi": "Hindi", "bn": "Bengali", "th": "Thai",
    "ja": "Japanese", "zh": "Chinese (Simplified)", "ko": "Korean",
}
NO_SPACES = {"th", "ja", "zh"}  # scripts written without spaces between words


@dataclass(frozen=True)
class CorpusInfo:
    """A shipped corpus: where it is, how it splits into documents, and its licence."""

    key: str
    label: str
    files: tuple[str, ...]
    split: str  # "lines", "blocks" or "whole"
    licence: str
    vocab_size: int = 512  # the lesson's starting settings when this corpus is picked
    level: str = "bytes"


CORPORA: dict[str, CorpusInfo] = {
    "toy_pt": CorpusInfo("toy_pt", "Toy Portuguese (8 sentences)", ("toy_pt.txt",), "lines", "written for bpeviz",
                         vocab_size=64, level="chars"),
    "english": CorpusInfo("english", "English prose: Alice in Wonderland (151 KB)", ("english/alice.txt",), "whole",
                          "public domain"),
    "portuguese": CorpusInfo("portuguese", "Portuguese novel: Dom Casmurro (390 KB)", ("portuguese/dom_casmurro.txt",), "whole",
                             "public domain"),
    "python": CorpusInfo(
        "python",
        "Python source: 7 standard-library modules (102 KB)",
        tuple(f"python/{m}.py.txt" for m in ("bisect", "colorsys", "fractions", "graphlib", "heapq", "shlex", "textwrap")),
        "whole",
        "PSF License",
    ),
}
for _code, _name in UDHR_LANGUAGES.items():
    CORPORA[f"udhr-{_code}"] = CorpusInfo(f"udhr-{_code}", f"UDHR: {_name}", (f"udhr/{_code}.txt",), "blocks", "UDHR in XML "
                                                                                                               "(OHCHR)")


def corpus_text(key: str) -> str:
    """The raw text of a shipped corpus (files joined by a newline)."""
    return "\n".join(_read(name) for name in _info(key).files)


@lru_cache(maxsize=64)
def _read(name: str) -> str:
    path = CORPORA_DIR / name
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ValueError(f"Corpus file {name} is missing from the installed package; reinstall bpeviz.") from exc


DEFAULT_CORPUS = "toy_pt"


def _info(key: str) -> CorpusInfo:
    if key not in CORPORA:
        raise ValueError(f"Unknown corpus {key!r}; choose one of {', '.join(CORPORA)}.")
    return CORPORA[key]


def documents(key: str) -> list[str]:
    """A shipped corpus as a list of documents, following its split rule.

    Example: documents("toy_pt")[0] -> "o gato sentou no telhado."
    """
    info = _info(key)
    if info.split == "whole":
        return [_read(name) for name in info.files]
    text = corpus_text(key)
    if info.split == "lines":
        return [line for line in text.splitlines() if line]
    return [block for block in text.split("\n\n") if block.strip()]
