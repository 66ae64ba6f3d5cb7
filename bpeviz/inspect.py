"""Public: read a tokenizer like a detective: its training mix, its unreachable and unused tokens (`lessons/inspect.py`)."""

from __future__ import annotations

from .lessons.inspect import Mixture, as_tokenizer, infer_mixture, never_emitted, not_merges, token_usage, unreachable

__all__ = ["Mixture", "as_tokenizer", "infer_mixture", "never_emitted", "not_merges", "token_usage", "unreachable"]
