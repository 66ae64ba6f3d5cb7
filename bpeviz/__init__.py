"""bpeviz: watch a byte-pair-encoding tokenizer learn, step by step.

    import bpeviz
    tok = bpeviz.train(corpus, vocab_size=64, level="chars", pretokenizer="gpt2")
    tok.merges[0], tok.trace("o gato subiu no"), tok.encode("o gato")
    bpeviz.reference("cl100k_base").encode("hello world")
    bpeviz.train(corpus, vocab_size=1024, algorithm="superbpe", transition=800)  # words, then superwords
    bpeviz.mix.train_mix({"en": 1, "hi": 1}, 1024, parity=True), bpeviz.optimal.best_merges(words, 3)

Heavy imports (tiktoken) wait until `reference` is called.
"""

from __future__ import annotations

from . import mix, optimal
from .bpeviz_json import load
from .errors import BpevizError
from .pretokenize import PRETOKENIZERS, PatternError, Piece, split_pieces, split_text
from .records import ENDOFTEXT, LEVELS, Merge, Settings, TraceStep
from .rules import TIE_BREAKS, TIE_RULES
from .tokenizer import Tokenizer
from .training import train

__all__ = [
    "ENDOFTEXT",
    "BpevizError",
    "LEVELS",
    "PRETOKENIZERS",
    "TIE_BREAKS",
    "TIE_RULES",
    "Merge",
    "PatternError",
    "Piece",
    "Settings",
    "Tokenizer",
    "TraceStep",
    "engines",
    "load",
    "mix",
    "optimal",
    "reference",
    "split_pieces",
    "split_text",
    "train",
]
__version__ = "0.1.0"


def engines() -> list[str]:
    """The merge-loop engines usable here: ["python"], plus "compiled" when numba is installed (the `fast` extra)."""
    from .engine import engines as _engines

    return _engines()


def reference(name: str):  # -> tiktoken.Encoding
    """A real tokenizer ("gpt2", "cl100k_base", "o200k_base", ...) built offline from shipped data."""
    from .reference_encodings import reference as _reference

    return _reference(name)
