"""Public: who pays: train on a mix of languages, attribute each merge to one, measure premiums (`lessons/mix.py`)."""

from __future__ import annotations

from .lessons.mix import (
    HELDOUT_FROM,
    MAX_WEIGHT,
    PRESETS,
    MixRun,
    attribute,
    check_weights,
    fairness,
    gini,
    heldout_text,
    heldout_tokens,
    mix_settings,
    premiums,
    train_mix,
    training_documents,
)

__all__ = ["HELDOUT_FROM", "MAX_WEIGHT", "PRESETS", "MixRun", "attribute", "check_weights", "fairness", "gini",
           "heldout_text", "heldout_tokens", "mix_settings", "premiums", "train_mix", "training_documents"]
