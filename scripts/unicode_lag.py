"""Write bpeviz/pre_tokenizers/unicode_lag.py: the code points `regex` knows as assigned and HF tokenizers' regex engine calls unassigned.

HF tokenizers (Oniguruma) reads Unicode 15.1; the `regex` module a newer version. Run with `tokenizers` installed,
after either package changes its tables: `python scripts/unicode_lag.py`. tests/test_open_models.py checks the table.
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


def main() -> None:
    rows = "\n".join(f"    (0x{a:05X}, 0x{b:05X})," for a, b in lagging())
    OUT.write_text(f'''"""Code points the `regex` module knows and HF tokenizers (Unicode 15.1) calls unassigned: written by
scripts/unicode_lag.py from both engines. HF replays read them as any unassigned code point (see as_hf_reads).
"""

from __future__ import annotations

STAND_IN = "\\u0378"  # unassigned in every Unicode version so far: both engines class it \\p{{Cn}}
LAGGING = (  # (first, last) code point, inclusive
{rows}
)
_TABLE = {{cp: STAND_IN for first, last in LAGGING for cp in range(first, last + 1)}}


def as_hf_reads(text: str) -> str:
    """text with every lagging code point replaced by an unassigned one, length kept (split it, then cut the original)."""
    return text.translate(_TABLE)
''')


if __name__ == "__main__":
    main()
