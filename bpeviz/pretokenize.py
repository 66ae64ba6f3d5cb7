"""Public: the split presets (PRETOKENIZERS) and how text is cut into pre-tokens; the code is in `pre_tokenizers/`."""

from __future__ import annotations

from .pre_tokenizers.patterns import MAX_PATTERN_LENGTH
from .pre_tokenizers.splits import (
    PRETOKENIZERS,
    PatternError,
    Piece,
    Pretokenizer,
    compile_pattern,
    count_pieces,
    is_custom,
    resolve,
    split_pieces,
    split_text,
)

__all__ = ["MAX_PATTERN_LENGTH", "PRETOKENIZERS", "PatternError", "Piece", "Pretokenizer", "compile_pattern", "count_pieces",
           "is_custom", "resolve", "split_pieces", "split_text"]
