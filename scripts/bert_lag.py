"""Write bpeviz/pre_tokenizers/bert_lag.py: the code points HF's BertPreTokenizer classes otherwise than bpeviz's BERT split.

HF's BertPreTokenizer cuts at Rust's whitespace and at punctuation as the `unicode_categories` crate's old tables
know it; bpeviz's BERT split reads `regex`'s newer \\p{P} and \\s. Each code point is probed in HF itself ("a" + c +
"a" gives one piece for a word character, three for punctuation, two for whitespace) and, where bpeviz's class
differs, written down with HF's class. Run with `tokenizers` installed, after either package changes its tables:
`python scripts/bert_lag.py`. tests/formats/test_algorithm_files.py holds imported BERT files to HF.
"""

from __future__ import annotations

from pathlib import Path

import regex
from tokenizers import pre_tokenizers

OUT = Path(__file__).resolve().parents[1] / "bpeviz" / "pre_tokenizers" / "bert_lag.py"
BERT_SPLIT = r"\s+|[^\s\p{P}!-/:-@\[-`{-~]+|[\p{P}!-/:-@\[-`{-~]"


def classes() -> dict[str, list[tuple[int, int]]]:
    """HF's class ("word", "punctuation", "space") -> ranges (first, last) of the code points bpeviz classes otherwise."""
    bert = pre_tokenizers.BertPreTokenizer()
    split = regex.compile(BERT_SPLIT)
    found: dict[str, list[list[int]]] = {"word": [], "punctuation": [], "space": []}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        theirs = {1: "word", 2: "space", 3: "punctuation"}[len(bert.pre_tokenize_str("a" + c + "a"))]
        pieces = split.findall("a" + c + "a")
        ours = "word" if len(pieces) == 1 else "space" if c.isspace() and pieces[1] == c and regex.match(r"\s", c) \
            else "punctuation"
        if theirs != ours:
            ranges = found[theirs]
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return {kind: [(a, b) for a, b in ranges] for kind, ranges in found.items()}


HEAD = ('"""Code points HF\'s BertPreTokenizer classes otherwise t'
        'han bpeviz\'s BERT split: written by scripts/bert_lag.py.')  # the written file's first line


def main() -> None:
    found = classes()
    tables = "\n".join(f"    {kind!r}: (\n" + "\n".join(f"        (0x{a:05X}, 0x{b:05X})," for a, b in ranges) + "\n    ),"
                       for kind, ranges in found.items())
    OUT.write_text(HEAD + f'''

HF cuts at Rust's whitespace and at punctuation as an old Unicode table knows it; `regex` reads newer tables. An
imported BERT file (Settings.hf_unicode) reads each of these as HF does (as_bert_reads), so it splits as HF splits.
"""

from __future__ import annotations

STAND_INS = {{"word": "a", "punctuation": "!", "space": " "}}  # a character of that class in both
DIFFERENT = {{  # HF's class -> (first, last) code points, inclusive
{tables}
}}
_TABLE = {{cp: STAND_INS[kind] for kind, ranges in DIFFERENT.items() for first, last in ranges
          for cp in range(first, last + 1)}}


def as_bert_reads(text: str) -> str:
    """text with every such code point replaced by a character of HF's class, length kept (split it, cut the original)."""
    return text.translate(_TABLE)
''')


if __name__ == "__main__":
    main()
