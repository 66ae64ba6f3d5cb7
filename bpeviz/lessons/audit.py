"""An audit of a byte-level tokenizer's vocabulary: the tokens that cost an embedding row and earn little.

- unreachable: merged tokens that encoding their own text never gives back (inspect.unreachable: the library's rule);
- cut: tokens that end or start inside a UTF-8 character (they exist only as parts of others, or for broken text);
- duplicates: tokens equal to another once normalised as the tokenizer normalises (NFC for Qwen);
- never emitted: tokens no sample's encoding emits (with samples);
- residue: tokens used mostly inside a later merge and rarely alone (arXiv 2602.04706): made often while training
  on the samples, emitted seldom when encoding them (with samples).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bpeviz.core.errors import BpevizError

from . import inspect

RESIDUE_SHARE = 0.05  # emitted less than this share of the times the replay made it
MAX_SAMPLE_CHARS = 400_000  # of the samples, read for usage and residue


@dataclass(frozen=True)
class Audit:
    vocab: int
    unreachable: list[int]
    cut: list[int]
    duplicates: list[tuple[int, int]]  # (token, the token it equals after normalisation)
    never_emitted: list[int]
    residue: list[int]

    def summary(self) -> dict[str, int]:
        return {"tokens": self.vocab, "unreachable": len(self.unreachable), "cut": len(self.cut),
                "duplicates": len(self.duplicates), "never_emitted": len(self.never_emitted), "residue": len(self.residue)}


def audit(tokenizer: object, samples: Mapping[str, str] | None = None, *, normalise: str | None = None) -> Audit:
    """Audit a byte-level tokenizer (a real one or a bpeviz one); samples: name -> text, for what encoding them shows.

    normalise: "NFC" (Qwen's) or another Unicode form the tokenizer puts its text in, for duplicates; None reads it
    from the tokenizer (a NormalizedEncoding says its form).
    """
    tok = inspect.as_tokenizer(tokenizer)
    if tok.level != "bytes":
        raise BpevizError("inspect_level", "An audit reads byte-level tokenizers.")
    form = normalise or getattr(tokenizer, "form", None)
    ids = {m.id: m.token for m in tok.merges}
    cut: list[int] = []
    by_text: dict[str, int] = {}
    duplicates: list[tuple[int, int]] = []
    for i, token in ids.items():
        try:
            text = bytes(token).decode("utf-8")  # type: ignore[arg-type]  # a bytes-level table's tokens are bytes
        except UnicodeDecodeError:
            cut.append(tok.file_id(i))
            continue
        key = unicodedata.normalize(form, text) if form else text  # type: ignore[arg-type]  # a Unicode form's name
        if key in by_text and key != text:
            duplicates.append((tok.file_id(i), by_text[key]))
        by_text.setdefault(key, tok.file_id(i))
    never: list[int] = []
    residue: list[int] = []
    if samples:
        text = "\n".join(samples.values())[:MAX_SAMPLE_CHARS]
        used = inspect.token_usage(tokenizer, text)
        merged = set(ids)
        never = sorted(tok.file_id(i) for i in merged if not used[tok.file_id(i)])
        made = _made(tok, text)
        residue = sorted(tok.file_id(i) for i, n in made.items() if n >= 20 and used[tok.file_id(i)] < RESIDUE_SHARE * n)
    return Audit(len(tok.vocab), inspect.unreachable(tokenizer), sorted(cut), duplicates, never, residue)


def _made(tok, text: str) -> Counter[int]:
    """How often each merged token is made while its merges replay on text (whether a later merge then eats it)."""
    made: Counter[int] = Counter()
    for piece in tok.split_text(text):
        ids = tok.base_ids(piece)
        while len(ids) > 1:
            best = min((tok.ranks[p][0], k) for k, p in enumerate(zip(ids, ids[1:])) if p in tok.ranks) \
                if any(p in tok.ranks for p in zip(ids, ids[1:])) else None
            if best is None:
                break
            k = best[1]
            new = tok.ranks[(ids[k], ids[k + 1])][1]
            made[new] += 1
            ids = ids[:k] + [new] + ids[k + 2:]
    return made
