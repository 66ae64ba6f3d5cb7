"""Code points HF's BertPreTokenizer classes otherwise than bpeviz's BERT split: written by scripts/bert_lag.py.

HF cuts at Rust's whitespace and at punctuation as an old Unicode table knows it; `regex` reads newer tables. An
imported BERT file (Settings.hf_unicode) reads each of these as HF does (as_bert_reads), so it splits as HF splits.
"""

from __future__ import annotations

STAND_INS = {"word": "a", "punctuation": "!", "space": " "}  # a character of that class in both
DIFFERENT = {  # HF's class -> (first, last) code points, inclusive
    'word': (
        (0x0061D, 0x0061D),
        (0x009FD, 0x009FD),
        (0x00A76, 0x00A76),
        (0x00C77, 0x00C77),
        (0x00C84, 0x00C84),
        (0x01B4E, 0x01B4F),
        (0x01B7D, 0x01B7F),
        (0x02E43, 0x02E4F),
        (0x02E52, 0x02E5D),
        (0x02E60, 0x02E63),
        (0x10D6E, 0x10D6E),
        (0x10EAD, 0x10EAD),
        (0x10ED0, 0x10ED0),
        (0x10F55, 0x10F59),
        (0x10F86, 0x10F89),
        (0x113D4, 0x113D5),
        (0x113D7, 0x113D8),
        (0x1144B, 0x1144F),
        (0x1145A, 0x1145B),
        (0x1145D, 0x1145D),
        (0x11660, 0x1166C),
        (0x116B9, 0x116B9),
        (0x1183B, 0x1183B),
        (0x11944, 0x11946),
        (0x119E2, 0x119E2),
        (0x11A3F, 0x11A46),
        (0x11A9A, 0x11A9C),
        (0x11A9E, 0x11AA2),
        (0x11B00, 0x11B09),
        (0x11BE1, 0x11BE1),
        (0x11C41, 0x11C45),
        (0x11C70, 0x11C71),
        (0x11EF7, 0x11EF8),
        (0x11F43, 0x11F4F),
        (0x11FFF, 0x11FFF),
        (0x12FF1, 0x12FF2),
        (0x16D6D, 0x16D6F),
        (0x16E97, 0x16E9A),
        (0x16FE2, 0x16FE2),
        (0x1E5FF, 0x1E5FF),
        (0x1E95E, 0x1E95F),
    ),
    'punctuation': (
        (0x0166D, 0x0166D),
        (0x111C9, 0x111C9),
    ),
    'space': (

    ),
}
_TABLE = {cp: STAND_INS[kind] for kind, ranges in DIFFERENT.items() for first, last in ranges
          for cp in range(first, last + 1)}


def as_bert_reads(text: str) -> str:
    """text with every such code point replaced by a character of HF's class, length kept (split it, cut the original)."""
    return text.translate(_TABLE)
