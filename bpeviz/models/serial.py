"""A tokenizer as bpeviz JSON data (lossless), for every algorithm; reading it back is `bpeviz_json.py`'s job.

Reads only a tokenizer's attributes (imports no tokenizer class), so `Tokenizer.save` can use it.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from bpeviz.core.errors import BpevizError

FORMAT_NAME = "bpeviz"
FORMAT_VERSION = 1
BPE_LIKE = ("bpe", "superbpe", "boundless")  # algorithms whose file holds merges


def to_dict(tok) -> dict:  # tok: a TokenizerBase
    """Everything about a tokenizer as JSON-ready data (lossless)."""
    if getattr(tok, "split_function", None) is not None:
        raise BpevizError("save_own_split", "This tokenizer splits text with its base's own code (DeepSeek V4's three "
                          "regex splits), which bpeviz JSON cannot hold.")
    if tok.kept_as:
        raise BpevizError("save_kept_as", f"This tokenizer is a {tok.kept_as} file: bpeviz JSON cannot hold it whole; "
                          "keep the file itself (bpeviz reads it as it is).", kind=tok.kept_as)
    head: dict = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "settings": asdict(tok.settings)}
    if tok.algorithm in BPE_LIKE:
        head["alphabet"] = list(tok.alphabet) if tok.alphabet is not None else None
    head.update(corpus_bytes=tok.corpus_bytes, corpus_tokens=tok.corpus_tokens, special_tokens=list(tok.special_tokens))
    if tok.file_ids is not None and tok.algorithm in BPE_LIKE:  # an imported or grafted file's own ids, kept
        head.update(file_ids=[tok.file_ids[i] for i in range(len(tok.vocab))], special_ids=tok.file_specials())
    if getattr(tok, "base_size", 0):
        head.update(base_merges=tok.base_merges, base_size=tok.base_size)
    body = (_bpe if tok.algorithm in BPE_LIKE else {"wordpiece": _wordpiece, "unigram": _unigram}[tok.algorithm])(tok)
    return {**head, **body}


def dumps(tok) -> bytes:
    """The bpeviz JSON file's bytes."""
    return json.dumps(to_dict(tok), ensure_ascii=False, indent=1).encode()


def _bpe(tok) -> dict:
    return {
        "merges": [
            {"rank": m.rank, "left_id": m.left_id, "right_id": m.right_id, "id": m.id, "count": m.count,
             "tokens_after": m.tokens_after, "ties": [list(pair) for pair in m.tie_ids],
             **({"top": [list(entry) for entry in m.top]} if m.top else {}), **({"stage": m.stage} if m.stage != 1 else {})}
            for m in tok.merges
        ],
    }


def _wordpiece(tok) -> dict:
    unknown = {"unk_token": tok.unk_token, "max_input_chars_per_word": tok.max_input_chars_per_word} \
        if tok.unk_token is not None else {}  # an imported BERT file's [UNK] rule
    return {**unknown, "alphabet": list(tok.alphabet), "merges": [
        {"rank": m.rank, "left_id": m.left_id, "right_id": m.right_id, "id": m.id, "count": m.count, "score": m.score,
         "left_count": m.left_count, "right_count": m.right_count, "tokens_after": m.tokens_after,
         "top": [list(t) for t in m.top], "most_frequent": list(m.most_frequent) if m.most_frequent else None}
        for m in tok.merges]}


def _unigram(tok) -> dict:
    sums = {"sums": tok.sums} if tok.sums != "float32" else {}  # an imported HF file keeps HF's arithmetic
    sums |= {"prefix_unless_space": True} if tok.prefix_unless_space else {}  # and its Metaspace's prefix
    sums |= {"unk_id": tok.unk_id} if tok.unk_id is not None else {}  # and its unknown id (T5: no byte fallback)
    sums |= {"meta_as_space": True} if tok.meta_as_space else {}  # and its Metaspace's reading of ▁
    return {"pieces": [list(p) for p in tok.scored], "rounds": [asdict(r) for r in tok.rounds], **sums}
