"""Numbers as SentencePiece computes them in Unigram training: the digamma function of its Bayesian M step."""

from __future__ import annotations

import math


def digamma(x: float) -> float:
    """The digamma function (asymptotic series after shifting x above 7)."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return result + math.log(x) + xx2 / 24 - 7 * xx4 / 960 + 31 * xx4 * xx2 / 8064 - 127 * xx4 * xx4 / 30720
