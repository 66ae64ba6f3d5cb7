"""The real tokenizers' training mixes as this tool reads them, beside what Hayase et al. publish (named data).

Each row was measured with `bpeviz infer-mix NAME --merges 2000 --json` (20 wordfreq languages and Python source
as samples; lessons/mixture.py) on 2026-12-07; `tests/cli/test_cli.py` runs the command again for GPT-2 and checks
its row. The paper's figures (arXiv 2407.16607, their table of commercial tokenizers) are what it says, rounded as it
rounds them. Shares are percent of training bytes: English, every other language, code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

MERGES = 2000  # the first merges read, as in the command above


@dataclass(frozen=True)
class Reading:
    """One tokenizer: the shares read here, and the paper's figure if it gives one (kind: "other" or "code")."""

    english: float
    other: float
    code: float
    paper_kind: str = ""
    paper_share: float | None = None


READINGS: dict[str, Reading] = {
    "gpt2": Reading(92.5, 7.5, 0.0),
    "cl100k_base": Reading(27.1, 17.2, 55.8, "code", 60.0),  # the paper: about 60 % code (GPT-3.5's tokenizer)
    "o200k_base": Reading(25.8, 38.3, 35.9, "other", 39.0),  # the paper: 39 % non-English (GPT-4o)
    "tekken": Reading(36.7, 47.4, 15.9, "other", 47.0),  # the paper: 47 % non-English (Mistral NeMo)
    "qwen3.6": Reading(28.0, 24.5, 47.5),
    "deepseek-v4": Reading(52.7, 41.2, 6.2),
}


def shares(mix: Mapping[str, float]) -> tuple[float, float, float]:
    """English, other languages and code, in percent, from a mix read over languages and "code".

    Example: shares({"en": 0.5, "pt": 0.25, "code": 0.25}) -> (50.0, 25.0, 25.0)
    """
    english = 100 * float(mix.get("en", 0.0))
    code = 100 * float(mix.get("code", 0.0))
    return round(english, 1), round(100 * sum(float(v) for k, v in mix.items() if k not in ("en", "code")), 1), round(code, 1)
