"""What an export must refuse, saying why, rather than write a file that encodes differently."""

from __future__ import annotations

from bpeviz.core.errors import BpevizError, cut
from bpeviz.core.records import SUPERWORD_ALGORITHMS, Token
from bpeviz.models.base import TokenizerBase
from bpeviz.models.bpe import Tokenizer
from bpeviz.pre_tokenizers import splits

MATCH_ALL = r"[\s\S]+"  # a split pattern for "no split": the whole text is one piece
LABELS = {"json": "bpeviz JSON", "csv": "CSV merge table", "vocab": "vocab listing", "tiktoken": "tiktoken ranks",
          "hf": "Hugging Face tokenizer.json"}  # format name -> how messages name it


def require_bpe(tok: TokenizerBase, fmt: str) -> Tokenizer:
    """tok itself, as a BPE tokenizer; else a BpevizError that says which formats hold it."""
    if tok.kept_as:
        raise BpevizError("export_kept_as", f"This tokenizer is a {tok.kept_as} file; the {LABELS[fmt]} format cannot "
                          "hold it whole. Keep the file itself (bpeviz reads it as it is).", format=fmt, kind=tok.kept_as)
    if tok.algorithm in SUPERWORD_ALGORITHMS:
        raise BpevizError("export_superword", f"The {LABELS[fmt]} format cannot say where merges may cross words; "
                          f"keep this {tok.algorithm} tokenizer as bpeviz JSON.", format=fmt, algorithm=tok.algorithm)
    if tok.algorithm != "bpe":
        label = LABELS[fmt]
        raise BpevizError("export_needs_bpe", f"The {label} format holds BPE merges; this is a {tok.algorithm} tokenizer. "
                          "Export it as bpeviz JSON or a Hugging Face tokenizer.json.", format=fmt, algorithm=tok.algorithm)
    assert isinstance(tok, Tokenizer)  # every tokenizer of algorithm "bpe" is one
    return tok


def require_bytes(tok: TokenizerBase, fmt: str) -> Tokenizer:
    """tok itself, as a bytes-level BPE tokenizer; else a BpevizError."""
    bpe = require_bpe(tok, fmt)
    if tok.level != "bytes":
        label = LABELS[fmt]
        raise BpevizError(
            "export_needs_bytes",
            f"The {label} format works on bytes; this tokenizer is at level 'chars' with byte fallback, "
            f"which {label} cannot express. Retrain at level 'bytes' to export it.",
            format=fmt,
        )
    return bpe


def require_unique_tokens(tok: Tokenizer, fmt: str) -> None:
    seen: dict[Token, int] = {}
    for m in tok.merges:
        if m.token in seen:
            raise BpevizError(
                "export_duplicate_token",
                f"Merges {seen[m.token]} and {m.rank} both make {cut(m.token)}; {LABELS[fmt]} keys tokens by their bytes, "
                "so it cannot hold both. Export fewer merges (bpeviz import --merges) or use the bpeviz JSON.",
                first=seen[m.token], second=m.rank, format=fmt,
            )
        seen[m.token] = m.rank


def split_pattern(tok: TokenizerBase) -> str:
    """The regex a foreign tokenizer should split with; refuses custom patterns that leave gaps."""
    if getattr(tok, "split_function", None) is not None:
        raise BpevizError("export_own_split", "This tokenizer splits text with its base's own code (DeepSeek V4's three "
                          "regex splits), which one split pattern cannot say: it exports only as tokenizer.json, with the "
                          "base file's own splits.")
    pattern = splits.resolve(tok.settings.pretokenizer)
    if pattern is None:
        return MATCH_ALL
    if splits.is_custom(tok.settings.pretokenizer):
        raise BpevizError(
            "export_custom_pattern",
            "This tokenizer splits with a custom pattern. bpeviz keeps text the pattern skips, other tools drop it, "
            "so the export could encode differently; retrain with a preset split to export.",
        )
    return pattern
