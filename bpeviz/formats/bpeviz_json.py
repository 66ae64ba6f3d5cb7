"""Reading bpeviz JSON back: every field checked, a ValueError saying what is wrong (`serial.py` writes it)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bpeviz.core.errors import cut
from bpeviz.core.ids import RawMerge
from bpeviz.core.records import ALGORITHMS, ENDOFTEXT, LEVELS, SUPERWORD_ALGORITHMS, Settings
from bpeviz.core.rules import COUNT_RULES, DIALECTS, TIE_RULES
from bpeviz.engine import ENCODER
from bpeviz.models.boundless import BoundlessTokenizer
from bpeviz.models.bpe import Tokenizer, TokenizerBase, build
from bpeviz.models.serial import BPE_LIKE, FORMAT_NAME, FORMAT_VERSION
from bpeviz.pre_tokenizers import splits

from . import model_files
from .file_checks import a_list, parse_json, read_path, whole


def _settings_from(data: object) -> Settings:
    if not isinstance(data, dict):
        raise ValueError("\"settings\" must be an object.")
    level, pretokenizer, tie_break = data.get("level"), data.get("pretokenizer"), data.get("tie_break", "first")
    count_rule, dialect = data.get("count_rule", "overlapping"), data.get("dialect", "")
    algorithm = data.get("algorithm", "bpe")
    if algorithm not in ALGORITHMS + SUPERWORD_ALGORITHMS:
        raise ValueError(f"\"algorithm\" must be one of {', '.join(ALGORITHMS + SUPERWORD_ALGORITHMS)}, not {cut(algorithm)}.")
    if level not in LEVELS:
        raise ValueError(f"\"level\" must be one of {', '.join(LEVELS)}, not {cut(level)}.")
    if not isinstance(pretokenizer, str):
        raise ValueError(f"\"pretokenizer\" must be a preset name or a regex, not {cut(pretokenizer)}.")
    splits.resolve(pretokenizer)  # a bad pattern fails here, not at the first encode
    if tie_break not in TIE_RULES:
        raise ValueError(f"\"tie_break\" must be one of {', '.join(TIE_RULES)}, not {cut(tie_break)}.")
    if count_rule not in COUNT_RULES:
        raise ValueError(f"\"count_rule\" must be one of {', '.join(COUNT_RULES)}, not {cut(count_rule)}.")
    if dialect and dialect not in DIALECTS:
        raise ValueError(f"\"dialect\" must be one of {', '.join(DIALECTS)}, not {cut(dialect)}.")
    flags = {name: data.get(name, False) for name in ("dummy_prefix", "unique_tokens", "hf_unicode")}
    if not all(isinstance(v, bool) for v in flags.values()):
        raise ValueError("\"dummy_prefix\", \"unique_tokens\" and \"hf_unicode\" are true or false.")
    inner_split = data.get("inner_split", "")
    if not isinstance(inner_split, str) or (algorithm in SUPERWORD_ALGORITHMS) != bool(inner_split):
        raise ValueError("\"inner_split\" names the split words are learned in, for superbpe and boundless only.")
    if inner_split:
        splits.resolve(inner_split)
    return Settings(vocab_size=whole(data.get("vocab_size"), "\"vocab_size\""), level=level, pretokenizer=pretokenizer,
                    tie_break=tie_break, count_rule=count_rule, dialect=dialect, algorithm=algorithm,
                    transition=whole(data.get("transition", 0), "\"transition\""), inner_split=inner_split, **flags)


def _alphabet_from(data: object, level: str) -> list[str] | None:
    if level == "bytes":
        if data is not None:
            raise ValueError("A bytes-level file has \"alphabet\": null.")
        return None
    alphabet = a_list(data, "\"alphabet\"")
    if not all(isinstance(ch, str) and len(ch) == 1 for ch in alphabet) or len(set(alphabet)) != len(alphabet):
        raise ValueError("\"alphabet\" must list distinct single characters.")
    return alphabet


def _pairs_of(value: object, what: str, width: int, below: int) -> tuple[tuple[int, ...], ...]:
    rows = []
    for row in a_list(value, what):
        if not isinstance(row, list) or len(row) != width:
            raise ValueError(f"Each entry of {what} must be a list of {width} numbers, not {cut(row)}.")
        ids = tuple(whole(x, f"an id in {what}") for x in row)
        if any(i >= below for i in ids[:2]):
            raise ValueError(f"{what} names a token that did not exist yet: {cut(row)}.")
        rows.append(ids)
    return tuple(rows)


def _raw_merges_from(data: object, n_base: int) -> list[RawMerge]:
    raw = []
    for k, entry in enumerate(a_list(data, "\"merges\"")):
        if not isinstance(entry, dict):
            raise ValueError(f"Merge {k + 1} must be an object, not {cut(entry)}.")
        token_id = n_base + k
        if entry.get("id") != token_id:
            raise ValueError(f"Merge {k + 1} must make id {token_id}, not {cut(entry.get('id'))}.")
        left, right = (whole(entry.get(side), f"merge {k + 1}'s {side}") for side in ("left_id", "right_id"))
        if left >= token_id or right >= token_id:
            raise ValueError(f"Merge {k + 1} uses a token that did not exist yet (ids {left}, {right}).")
        ties = _pairs_of(entry.get("ties", []), f"merge {k + 1}'s ties", 2, token_id)
        top = _pairs_of(entry.get("top", []), f"merge {k + 1}'s top pairs", 3, token_id)
        count = whole(entry.get("count", 0), f"merge {k + 1}'s count")
        after = whole(entry.get("tokens_after", 0), f"merge {k + 1}'s tokens_after")
        raw.append(RawMerge(left, right, token_id, count, ties, after, top))  # type: ignore[arg-type]  # _pairs_of checked ints
    return raw


def from_dict(data: object) -> Tokenizer:
    """A Tokenizer from bpeviz JSON data, every field checked; ValueError saying what is wrong."""
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise ValueError("This is not a bpeviz tokenizer file (no \"format\": \"bpeviz\" field).")
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(f"bpeviz file version {cut(data.get('version'))} is not supported; this bpeviz reads version "
                         f"{FORMAT_VERSION}.")
    try:
        settings = _settings_from(data.get("settings"))
        if settings.algorithm not in BPE_LIKE:
            # a WordPiece or Unigram tokenizer, as the file says
            return model_files.from_dict(data, settings)  # type: ignore[return-value]
        alphabet = _alphabet_from(data.get("alphabet"), settings.level)
        n_base = 256 if alphabet is None else len(alphabet)
        special_tokens = a_list(data.get("special_tokens", [ENDOFTEXT]), "\"special_tokens\"")
        tok = build(settings, alphabet, _raw_merges_from(data.get("merges"), n_base),
                    corpus_bytes=whole(data.get("corpus_bytes", 0), "\"corpus_bytes\""),
                    corpus_tokens=whole(data.get("corpus_tokens", 0), "\"corpus_tokens\""), special_tokens=special_tokens,
                    encoder=ENCODER)
        tok = _superword(tok, data["merges"]) if settings.algorithm in SUPERWORD_ALGORITHMS else tok
        _file_ids(tok, data)
        return tok
    except ValueError as exc:
        raise ValueError(f"The bpeviz tokenizer file is damaged: {exc}") from None


def _file_ids(tok: Tokenizer, data: dict) -> None:
    """An imported or grafted file's own ids (each vocabulary id's, then the special tokens'), and a graft's marks."""
    ids = data.get("file_ids")
    if ids is None:
        return
    ids = a_list(ids, "\"file_ids\"")
    specials = data.get("special_ids", {})
    if len(ids) != len(tok.vocab) or not isinstance(specials, dict):
        raise ValueError("\"file_ids\" must give one id per vocabulary entry, and \"special_ids\" name to id.")
    tok.with_file_ids({i: whole(v, "a file id") for i, v in enumerate(ids)},
                      {str(k): whole(v, "a special token's id") for k, v in specials.items()})
    if "base_size" in data:
        tok.base_merges = whole(data.get("base_merges", 0), "\"base_merges\"")
        tok.base_size = whole(data["base_size"], "\"base_size\"")


def _superword(tok: Tokenizer, entries: list) -> Tokenizer:
    """A SuperBPE or BoundlessBPE tokenizer from its plain BPE form: each merge's stage, and boundless's own encoding."""
    stages = [entry.get("stage", 1) for entry in entries]
    if any(stage not in (1, 2) for stage in stages):
        raise ValueError("A merge's \"stage\" is 1 or 2.")
    merges = [replace(m, stage=stage) for m, stage in zip(tok.merges, stages)]
    kind = BoundlessTokenizer if tok.settings.algorithm == "boundless" else Tokenizer
    return kind(settings=tok.settings, alphabet=tok.alphabet, merges=merges, corpus_bytes=tok.corpus_bytes,
                corpus_tokens=tok.corpus_tokens, special_tokens=tuple(tok.special_tokens), encoder=tok.encoder)


def load(path: str | Path) -> TokenizerBase:
    """Load a tokenizer saved with Tokenizer.save (bpeviz JSON)."""
    return from_dict(parse_json(read_path(path), str(path)))
