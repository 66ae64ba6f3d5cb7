"""Write bpeviz/pre_tokenizers/unicode_lag.py: the code points `regex` knows as assigned and HF tokenizers' regex engine
calls unassigned, and those the two put in different letter classes.

HF tokenizers (Oniguruma) and tiktoken (Rust's regex) read Unicode 15.1; the `regex` module a newer version. Run with
`tokenizers` and `tiktoken` installed, after a package changes its tables: `python scripts/unicode_lag.py` (it checks
that tiktoken reads as HF does). tests/pretrained/test_open_models.py and tests/formats/test_exact.py check the table.
"""

from __future__ import annotations

from pathlib import Path

import regex
from tokenizers import Regex, pre_tokenizers

OUT = Path(__file__).resolve().parents[1] / "bpeviz" / "pre_tokenizers" / "unicode_lag.py"


def lagging() -> list[tuple[int, int]]:
    """Ranges (first, last) of code points assigned for `regex` and unassigned (\\p{Cn}) for HF tokenizers."""
    unassigned = regex.compile(r"\p{Cn}")
    known = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF and not unassigned.match(chr(cp)))
    kept = "".join(piece for piece, _ in pre_tokenizers.Split(Regex(r"\p{Cn}"), behavior="removed").pre_tokenize_str(known))
    ranges: list[list[int]] = []
    for cp in sorted(map(ord, set(known) - set(kept))):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return [(a, b) for a, b in ranges]


CLASSES = {"Lu": "A", "Ll": "a", "Lt": "\u01c5", "Lm": "\u02b0", "Lo": "\u05d0"}  # a letter of each class, in both


def reclassified() -> dict[int, str]:
    """Letters assigned in both whose class HF reads otherwise (U+0295: Ll in 15.1, Lo since 16) -> a stand-in of HF's."""
    known = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF and regex.match(r"\p{L}", chr(cp)))
    out = {}
    for name, stand_in in CLASSES.items():
        theirs = set(known) - {piece for piece, _ in pre_tokenizers.Split(Regex(rf"\p{{{name}}}"), behavior="removed")
                               .pre_tokenize_str(known) for piece in piece}
        ours = set(regex.findall(rf"\p{{{name}}}", known))
        lag = {chr(cp) for a, b in lagging() for cp in range(a, b + 1)}
        out.update({ord(c): stand_in for c in theirs - ours - lag})
    return dict(sorted(out.items()))


def tiktoken_reads_as_hf() -> bool:
    """tiktoken's classes equal HF's on every code point (probed: a pattern keeps only the characters it matches)."""
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)}
    text = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    for name in ["L", "N", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "P", "Cn"]:
        enc = tiktoken.Encoding("probe", pat_str=rf"\p{{{name}}}", mergeable_ranks=ranks, special_tokens={})
        theirs = set(enc.decode_bytes(enc.encode_ordinary(text)).decode("utf-8"))
        hf = set(text) - {c for piece, _ in pre_tokenizers.Split(Regex(rf"\p{{{name}}}"), behavior="removed")
                          .pre_tokenize_str(text) for c in piece}
        if theirs != hf:
            return False
    return True


HEAD = ('"""Code points the `regex` module knows and HF tokenizers'
        ' and tiktoken (Unicode 15.1) call unassigned, and letters')  # the written file's first line


def main() -> None:
    assert tiktoken_reads_as_hf(), "tiktoken's Unicode tables no longer equal HF's: give each its own table"
    rows = "\n".join(f"    (0x{a:05X}, 0x{b:05X})," for a, b in lagging())
    moved = "\n".join(f"    0x{cp:05X}: {stand_in!r}," for cp, stand_in in reclassified().items())
    OUT.write_text(HEAD + f'''
they class otherwise: written by scripts/unicode_lag.py from the engines. A file made by HF or tiktoken splits reading
them as those engines do (see as_hf_reads).
"""

from __future__ import annotations

STAND_IN = "\\u0378"  # unassigned in every Unicode version so far: both engines class it \\p{{Cn}}
LAGGING = (  # (first, last) code point, inclusive
{rows}
)
RECLASSIFIED = {{  # a letter both know, in another letter class for HF and tiktoken -> a letter of their class
{moved}
}}
_TABLE = {{cp: STAND_IN for first, last in LAGGING for cp in range(first, last + 1)}} | RECLASSIFIED


def as_hf_reads(text: str) -> str:
    """text as HF and tiktoken read it: every lagging code point an unassigned one, a reclassified letter one of their
    class; length kept (split it, then cut the original)."""
    return text.translate(_TABLE)
''')


if __name__ == "__main__":
    main()
