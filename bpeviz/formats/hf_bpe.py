"""Hugging Face tokenizer.json for byte-level BPE, both ways (WordPiece and Unigram files: `model_files.py`)."""

from __future__ import annotations

import json
from dataclasses import replace

from bpeviz.core.byte_chars import hf_bytes, hf_str
from bpeviz.core.errors import BpevizError, cut
from bpeviz.models.base import TokenizerBase
from bpeviz.models.bpe import Tokenizer

from . import hf_split, model_files
from .export_checks import MATCH_ALL, require_bpe, require_bytes, require_unique_tokens, split_pattern
from .file_checks import a_list
from .listings import from_pairs, keep_file_ids


def hf_tokenizer_json(tok: TokenizerBase) -> dict:
    """A Hugging Face tokenizer.json (byte-level BPE) that keeps bpeviz's ids.

    `<|endoftext|>` is an added special token, as in GPT-2's own file: HF encodes that string as
    the special id (bpeviz's `encode_ordinary` treats it as text) and `decode` skips it unless
    called with skip_special_tokens=False.
    """
    if tok.kept_as:
        require_bpe(tok, "hf")  # refuses, saying why
    if not isinstance(tok, Tokenizer):
        return model_files.hf_json(tok, split_pattern(tok), hf_refusal)
    tok = require_bytes(tok, "hf")
    require_unique_tokens(tok, "hf")
    template = getattr(tok, "hf_template", None)  # a graft of an HF file: the file's own splits and added tokens
    pattern = split_pattern(tok) if template is None else MATCH_ALL
    vocab = {hf_str(bytes([b])): tok.file_id(b) for b in range(256)}  # the ids it speaks
    vocab.update({hf_str(m.token): tok.file_id(m.id) for m in tok.merges if isinstance(m.token, bytes)})  # bytes: all
    merges = [[hf_str(bytes(m.left)), hf_str(bytes(m.right))] for m in tok.merges]  # type: ignore[arg-type]  # bytes
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    pre = [byte_level] if pattern == MATCH_ALL else [hf_split.split_step(split_pattern(tok)), byte_level]
    if template is not None:  # its added tokens in the vocabulary too, as in the file: HF keeps their ids then
        vocab.update({t["content"]: t["id"] for t in template.get("added_tokens", []) if isinstance(t, dict)})
        return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": template.get("added_tokens", []),
                "normalizer": template.get("normalizer"), "pre_tokenizer": template.get("pre_tokenizer"),
                "post_processor": template.get("post_processor"), "decoder": template.get("decoder"),
                "model": _bpe_model(vocab, merges)}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
            for s, i in tok.file_specials().items()
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": _bpe_model(vocab, merges),
    }


def _bpe_model(vocab: dict, merges: list) -> dict:
    return {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None, "end_of_word_suffix": None,
            "fuse_unk": False, "byte_fallback": False, "ignore_merges": False, "vocab": vocab, "merges": merges}


def hf_refusal(message: str) -> BpevizError:
    return BpevizError("export_duplicate_token", message, format="hf")


def write_hf(tok: TokenizerBase) -> bytes:
    return json.dumps(hf_tokenizer_json(tok), ensure_ascii=False).encode()


def hf_pairs(model: dict, name: str) -> list[tuple[bytes, bytes]]:
    pairs = []
    for k, entry in enumerate(a_list(model.get("merges", []), f"{name}'s \"merges\"")):
        if isinstance(entry, str):
            parts = entry.split(" ")
        elif isinstance(entry, list):
            parts = entry
        else:
            raise ValueError(f"{name}: merge {k + 1} is {cut(entry)}; a merge is \"left right\" or [left, right].")
        if len(parts) != 2:
            raise ValueError(f"{name}: merge {k + 1} is {cut(entry)}; a merge has exactly two parts.")
        pairs.append((hf_bytes(parts[0], name), hf_bytes(parts[1], name)))
    return pairs


def import_hf(obj: dict, name: str, n_merges: int | None) -> Tokenizer:
    """A byte-level BPE tokenizer.json's first n_merges merges, split as its pre_tokenizer says, with the file's ids."""
    model = obj["model"]
    normalizer = obj.get("normalizer")
    if normalizer is not None and normalizer != {"type": "Sequence", "normalizers": []}:  # an empty Sequence does nothing
        raise BpevizError("import_normalizer", f"{name} normalizes text before it splits (a normalizer); bpeviz replays "
                          "byte-level BPE files without one, so it does not import this one.", name=name)
    split = hf_split.read(obj.get("pre_tokenizer"), name, byte_level=True)
    a_list(obj.get("added_tokens") or [], f"{name}'s \"added_tokens\"")  # read, not replayed
    vocab = model.get("vocab")
    tok = from_pairs(hf_pairs(model, name)[:n_merges], pretokenizer=split)
    tok.settings = replace(tok.settings, hf_unicode=hf_split.reads_hf_tables(obj.get("pre_tokenizer"), name))
    if isinstance(vocab, dict):
        keep_file_ids(tok, lambda token: vocab.get(hf_str(token)))
    return tok
