"""bpeviz: watch a byte-pair-encoding tokenizer learn, step by step.

    import bpeviz
    tok = bpeviz.train(corpus, vocab_size=64, level="chars", pretokenizer="gpt2")
    tok.merges[0], tok.trace("o gato subiu no"), tok.encode("o gato")
    bpeviz.reference("cl100k_base").encode("hello world")
    bpeviz.train(corpus, vocab_size=1024, algorithm="superbpe", transition=800)  # words, then superwords
    bpeviz.mix.train_mix({"en": 1, "hi": 1}, 1024, parity=True), bpeviz.optimal.best_merges(words, 3)
    bpeviz.extend("cl100k_base", hindi_text, 2000)  # a real tokenizer's merges, then 2 000 more, old ids kept

The public API is `__all__` here and the modules beside this file (`pretokenize`, `engine`, `mix`, `inspect`,
`optimal`, `sampling`, `corpora`, `formats`, `cli`); everything inside the stage folders (core, pre_tokenizers,
models, engine, trainers, ...) is internal and may change. Heavy imports (tiktoken) wait until `reference` is called.
"""

from __future__ import annotations

from . import corpora, engine, mix, optimal, pretokenize, sampling
from .core.errors import BpevizError
from .core.records import ENDOFTEXT, LEVELS, Merge, Settings, TraceStep
from .core.rules import TIE_BREAKS, TIE_RULES
from .formats import save
from .formats.bpeviz_json import load
from .lessons.check_merges import check
from .lessons.graft import extend
from .models.bpe import Tokenizer
from .pre_tokenizers.splits import PRETOKENIZERS, PatternError, Piece, split_pieces, split_text
from .trainers.training import train, train_counts

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
    "check",
    "corpora",
    "engine",
    "engines",
    "extend",
    "load",
    "mix",
    "optimal",
    "pretokenize",
    "reference",
    "sampling",
    "save",
    "split_pieces",
    "split_text",
    "train",
    "train_counts",
]
__version__ = "0.1.0"


def engines() -> list[str]:
    """The merge-loop engines usable here: ["python"], plus "compiled" when numba is installed (the `fast` extra)."""
    return engine.engines()


def reference(name: str):  # -> tiktoken.Encoding
    """A real tokenizer ("gpt2", "cl100k_base", "o200k_base", ...) built offline from shipped data."""
    from .pretrained.encodings import reference as _reference

    return _reference(name)
