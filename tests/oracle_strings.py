"""Strings built to find where an encoder differs from its oracle: text the models never saw, and hostile parts.

UDHR lines in languages the test models are not trained on, their cuts and joins, and parts that break encoders:
NFKC-sensitive characters, controls, NUL, ▁, runs of spaces, emoji sequences, combining marks, RTL, code points
newer than Unicode 15.1, and the special symbols of real models written as plain text.
"""

from __future__ import annotations

import random

from bpeviz.data import corpora

TRAIN = [line for key in ("english", "portuguese") for line in corpora.corpus_text(key).splitlines() if line.strip()]
UNSEEN = [line for key in ("udhr-de", "udhr-ru", "udhr-zh", "udhr-ar", "udhr-hi", "udhr-ja", "udhr-th", "udhr-vi")
          for line in corpora.corpus_text(key).splitlines() if line.strip()]
PARTS = ["ﬁ", "①", "Ａｂｃ", "ｶﾀｶﾅ", "™", "½", "ℌ", "\u200b", "\u00ad", "\ufeff", "\x00", "\x07", "\x1f", "\x7f", "\u0085",
         "▁", "▁▁", " ▁ ", "  ", "   ", "\t", "\n", "\r\n", "\u3000", "\u00a0", "é", "e\u0301", "👩‍💻", "🇧🇷", "👍🏽",
         "\u202e", "مرحبا", "שלום", "\U0001df43", "\U000187f9", "\u2e60", "<s>", "</s>", "<unk>", "<0x41>", "[INST]",
         "[REFERENCE_DOC_1]", "[REFERENCE_DOC_", "<tag>", "@@", "1234567", "3.14", "don't", " x ", "ǅ", "ﷺ", "Å", "Ω"]


def varied(n: int, seed: int = 3) -> list[str]:
    """n strings: unseen lines, their cuts and joins, hostile parts, and lines with hostile parts put in."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        kind, line = rng.randrange(5), rng.choice(UNSEEN)
        if kind == 0:
            out.append(line[:200])
        elif kind == 1:
            a = rng.randrange(len(line))
            out.append(line[a:a + rng.randrange(1, 50)])
        elif kind == 2:
            out.append("".join(rng.choice(PARTS) for _ in range(rng.randint(1, 8))))
        elif kind == 3:
            chars = list(rng.choice(TRAIN)[:80])
            for _ in range(rng.randrange(1, 5)):
                chars.insert(rng.randrange(len(chars) + 1), rng.choice(PARTS))
            out.append("".join(chars))
        else:
            out.append(rng.choice(TRAIN)[:60] + rng.choice(["", " ", "  ", "\n"]) + line[:40])
    return out
