"""The slow, obvious WordPiece trainer (the HF course's), with exact scores: the oracle of trainers/wordpiece.py.

BPE's slow obvious trainer is in the package (bpeviz.trainers.educational), where a class can import it.
"""

from __future__ import annotations

from fractions import Fraction


def wordpiece(words: list[tuple[str, int]], vocab_size: int) -> list[tuple[str, str, Fraction, int]]:
    """The HF course's WordPiece trainer, with exact scores: (left, right, score, count) per merge, in order.

    Recount everything each step; the best score wins, the first pair met (words in order, left
    to right) on ties; stop when vocab_size distinct tokens exist or no pair is left.
    """
    splits = [[w[0]] + ["##" + ch for ch in w[1:]] for w, _ in words]
    vocab = {p for s in splits for p in s}
    out = []
    while len(vocab) < vocab_size:
        unit: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}
        for s, (_, n) in zip(splits, words):
            for p in s:
                unit[p] = unit.get(p, 0) + n
            for pair in zip(s, s[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best, best_score = None, None
        for pair, n in pairs.items():
            score = Fraction(n, unit[pair[0]] * unit[pair[1]])
            if best_score is None or score > best_score:
                best, best_score = pair, score
        a, b = best
        new = a + b[2:]
        for k, s in enumerate(splits):
            merged, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == a and s[i + 1] == b:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(s[i])
                    i += 1
            splits[k] = merged
        vocab.add(new)
        out.append((a, b, best_score, pairs[best]))
    return out
