"""A Hugging Face tokenizer.json's `pre_tokenizer`, both ways, as a bpeviz split (a preset name or a regex).

HF's regex engine (Oniguruma) reads one construct differently from `regex`: `X{1,3}+` (see
splits.for_oniguruma), so patterns are rewritten on the way out and on the way in. A step
bpeviz cannot replay exactly (a second regex split, a prefix space, a split that drops what it
matches) is refused by name rather than replaced by another split. This module reads no files.
"""

from __future__ import annotations

import regex

from bpeviz.core.errors import BpevizError
from bpeviz.pre_tokenizers import oniguruma, splits


def split_step(pattern: str) -> dict:
    """The Split step that cuts as `pattern` does under `regex` (isolated: every match and every gap is a piece)."""
    return {"type": "Split", "pattern": {"Regex": oniguruma.for_oniguruma(pattern)}, "behavior": "Isolated",
            "invert": False}


def _refuse(name: str, step: object, why: str) -> BpevizError:
    kind = step.get("type") if isinstance(step, dict) else type(step).__name__
    return BpevizError("import_pretokenizer", f"{name}: its pre-tokenizer step {str(kind)[:40]!r} {why}; bpeviz cannot replay "
                       "it exactly, so it does not import the file with another split.", step=str(kind)[:40])


def _steps(pre: object, name: str) -> list[dict]:
    if pre is None:
        return []
    if isinstance(pre, dict) and pre.get("type") == "Sequence":
        inner = pre.get("pretokenizers")
        if not isinstance(inner, list) or not all(isinstance(step, dict) for step in inner):
            raise BpevizError("import_pretokenizer", f"{name}: \"pretokenizers\" must be a list of steps.", step="Sequence")
        return inner
    if not isinstance(pre, dict):
        raise BpevizError("import_pretokenizer", f"{name}: \"pre_tokenizer\" must be an object or null.", step="?")
    return [pre]


def _regex_of(step: dict, name: str) -> str:
    pattern = step.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
        return oniguruma.from_oniguruma(pattern["Regex"])
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str) and pattern["String"]:
        return regex.escape(pattern["String"])
    raise _refuse(name, step, "has no regex or string pattern")


def reads_hf_tables(pre: object, name: str = "the file") -> bool:
    """Whether the file's regex split must read text with HF's older Unicode tables to cut as HF cuts it.

    True for a regex HF's Oniguruma runs (a Split's Regex, ByteLevel's own GPT-2 regex) unless the
    pattern names the newer code points itself, as bpeviz's own export does (oniguruma.for_oniguruma).
    """
    for step in _steps(pre, name):
        pattern = step.get("pattern")
        if step.get("type") == "Split" and isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
            if not oniguruma.names_lagging(pattern["Regex"]):
                return True
        elif step.get("type") == "ByteLevel" and step.get("use_regex", True) or step.get("type") == "BertPreTokenizer":
            return True
    return False


def read(pre: object, name: str = "the file", *, byte_level: bool) -> str:
    """The bpeviz split of a `pre_tokenizer`: "none" when nothing splits, a preset name, or a regex.

    byte_level: the model is byte-level BPE, whose ByteLevel step (without its own regex) only maps bytes.
    Example: read({"type": "ByteLevel", "use_regex": True, "add_prefix_space": False}, byte_level=True) -> "gpt2"
    """
    found: list[str] = []
    for step in _steps(pre, name):
        kind = step.get("type")
        if kind == "Split":
            if step.get("behavior") not in ("Isolated", "isolated") or step.get("invert"):
                raise _refuse(name, step, f"has behavior {str(step.get('behavior'))[:20]!r} (bpeviz keeps every match and "
                                          "every gap as a piece: 'Isolated')")
            found.append(_regex_of(step, name))
        elif kind == "ByteLevel" and byte_level:
            if step.get("add_prefix_space"):
                raise _refuse(name, step, "adds a space before the text")
            if step.get("use_regex", True):
                found.append(splits.GPT2_PATTERN)
        elif kind in ("BertPreTokenizer", "Whitespace") and not byte_level:
            found.append(splits.BERT_SPLIT)
        elif kind == "Metaspace" and not byte_level:
            found.append("spaces")
        else:
            raise _refuse(name, step, "is not one of Split, ByteLevel, BertPreTokenizer, Whitespace, Metaspace")
    if len(found) > 1:
        raise BpevizError("import_pretokenizer", f"{name}: its pre-tokenizer splits {len(found)} times in a row; bpeviz "
                          "replays one split, so it does not import the file with another.", step="Sequence")
    if not found:
        return "none"
    split = splits.preset_named(found[0]) or found[0]
    splits.resolve(split)  # a pattern that does not compile, or is too costly, fails here with its reason
    return split
