"""Public: many segmentations of one text with BPE-dropout (`models/sampling.py`); Unigram samples by its own methods."""

from __future__ import annotations

from .models.sampling import DropoutStep, dropout_counts, dropout_encode, dropout_word

__all__ = ["DropoutStep", "dropout_counts", "dropout_encode", "dropout_word"]
