"""Every file format bpeviz writes or reads, as named data: the registry, export and import.

Formats: bpeviz JSON (lossless; `serial.py` writes it, `bpeviz_json.py` reads it), the CSV merge
table and the minbpe-style .vocab listing (`listings.py`), tiktoken ranks plus a JSON sidecar with
the split pattern (`rank_files.py`), and Hugging Face tokenizer.json (`hf_bpe.py`; WordPiece and
Unigram in `model_files.py`). Export refuses, saying why, what a format cannot express rather than
writing a file that encodes differently (`export_checks.py`). Import validates the file and replays
its merges at its own level; every error is a ValueError with a plain message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bpeviz.core.byte_chars import BYTE_CHARS, CHAR_BYTES
from bpeviz.core.errors import BpevizError, cut
from bpeviz.core.records import ENDOFTEXT
from bpeviz.models.base import TokenizerBase
from bpeviz.models.serial import FORMAT_NAME, FORMAT_VERSION, dumps, to_dict

from . import model_files, sentencepiece_model
from .bpeviz_json import from_dict, load
from .export_checks import LABELS, MATCH_ALL, split_pattern
from .file_checks import parse_json, read_path, whole
from .hf_bpe import hf_tokenizer_json, import_hf, write_hf
from .listings import (
    VOCAB_HEADER,
    from_pairs,
    gpt2_pairs,
    keep_file_ids,
    read_csv,
    read_merge_table,
    read_vocab,
    write_csv,
    write_vocab,
)
from .rank_files import (
    MAX_TOKEN_BYTES,
    pairs_from_ranks,
    rank_file_split,
    read_tiktoken_ranks,
    sidecar_specials,
    split_by_lower_ranks,
    tiktoken_encoding,
    tiktoken_ranks,
    tiktoken_sidecar,
    write_tiktoken,
)
from .sentencepiece_model import merge_table as sentencepiece_merge_table
from .sentencepiece_model import write_model

__all__ = [  # what callers import from here; the code lives in the modules named above
    "BYTE_CHARS", "CHAR_BYTES", "FORMATS", "FORMAT_NAME", "FORMAT_VERSION", "MATCH_ALL", "MAX_TOKEN_BYTES", "Format",
    "cut", "export", "from_dict", "from_pairs", "gpt2_pairs", "hf_tokenizer_json", "import_data", "import_file", "load",
    "pairs_from_ranks", "parse_json", "read_csv", "read_merge_table", "read_tiktoken_ranks", "read_vocab", "save",
    "sentencepiece_merge_table",
    "split_by_lower_ranks", "split_pattern", "tiktoken_encoding", "tiktoken_ranks", "tiktoken_sidecar", "to_dict",
    "write_csv", "write_hf", "write_json", "write_model", "write_tiktoken", "write_vocab",
]


@dataclass(frozen=True)
class Format:
    """A file format: its name, file extension, a one-line note, and the writer."""

    name: str
    label: str
    extension: str
    note: str
    write: Callable[[TokenizerBase], bytes]  # refuses, with a message, a tokenizer its format cannot hold
    sidecar: Callable[[TokenizerBase], bytes] | None = None  # a second file written beside the first


def write_json(tok: TokenizerBase) -> bytes:
    return dumps(tok)


def save(tok: TokenizerBase, path: str | Path) -> None:
    """Write tok as bpeviz JSON."""
    Path(path).write_bytes(dumps(tok))


FORMATS: dict[str, Format] = {
    "json": Format("json", LABELS["json"], ".json",
                   "bpeviz's own file: settings, merges with counts and history. Load it back with bpeviz.load().", write_json),
    "csv": Format("csv", LABELS["csv"], ".csv", "The merge table: rank, left, right, token, id, count.", write_csv),
    "vocab": Format("vocab", LABELS["vocab"], ".vocab", "A listing to read, minbpe style: [a][b] -> [ab] id.", write_vocab),
    "tiktoken": Format("tiktoken", LABELS["tiktoken"], ".tiktoken",
                       "Mergeable ranks for tiktoken.Encoding (the split pattern goes in the .json beside it).",
                       write_tiktoken, sidecar=tiktoken_sidecar),
    "hf": Format("hf", LABELS["hf"], ".tokenizer.json",
                 "A Hugging Face tokenizers tokenizer.json (byte-level BPE, same ids as here).", write_hf),
}


def export(tok: TokenizerBase, fmt: str) -> bytes:
    """The file contents of tok in format fmt (a key of FORMATS)."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    return FORMATS[fmt].write(tok)


def import_data(data: bytes, name: str = "", *, n_merges: int | None = None, sidecar: bytes | None = None) -> TokenizerBase:
    """The first n_merges merges of a bpeviz JSON, tokenizer.json, .tiktoken, SentencePiece .model, CSV or .vocab file.

    A file bpeviz cannot read raises BpevizError, one line naming what the file is and what it lacks.
    """
    name = name or "the file"
    try:
        return _import_data(data, name, n_merges=n_merges, sidecar=sidecar)
    except BpevizError:
        raise
    except UnicodeDecodeError as exc:
        raise BpevizError("import_not_text", f"{name} is not UTF-8 text (byte {exc.start:,}), nor a SentencePiece .model; "
                          "bpeviz cannot read it.", name=name, position=exc.start) from None
    except ValueError as exc:
        raise BpevizError("import_failed", str(exc), name=name) from exc


def _import_data(data: bytes, name: str = "", *, n_merges: int | None = None, sidecar: bytes | None = None) -> TokenizerBase:
    """import_data's reading, file kind by file kind.

    Each file is split as it says: a tokenizer.json by its pre_tokenizer, a .tiktoken by the pat_str of its sidecar
    (cl100k_base's and o200k_base's own files by theirs; other rank files without one by GPT-2's). A .tiktoken and a
    tokenizer.json keep their own ids (tok.encode gives the file's ranks or vocabulary ids).
    """
    name = name or "the file"
    n_merges = None if n_merges is None else whole(n_merges, "The number of merges to keep")
    head = data.lstrip()[:64]
    if head[:1] == b"{":
        return _import_json(parse_json(data, name), name, n_merges)
    if head.startswith(VOCAB_HEADER.encode()):
        return read_vocab(data, name).truncated(n_merges if n_merges is not None else 10**9)
    if head.startswith(b"rank,left,right"):
        return read_csv(data, name).truncated(n_merges if n_merges is not None else 10**9)
    model = _sentencepiece(data, name)
    if model is not None:
        return model if n_merges is None else model.truncated(n_merges)
    split, reads_15_1 = rank_file_split(data, sidecar, name)
    ranks = read_tiktoken_ranks(data, name)
    # a token no two others make (Qwen3.6 has 121) is left out and counted, as the Inspect page reads such a file
    specials = sidecar_specials(sidecar, name) or {ENDOFTEXT: max(ranks.values()) + 1}
    tok = keep_file_ids(from_pairs(pairs_from_ranks(ranks, n_merges, strict=False), pretokenizer=split,
                                   special_tokens=tuple(specials)), ranks.get, specials)
    tok.settings = replace(tok.settings, hf_unicode=reads_15_1)  # split as tiktoken reads Unicode, unless bpeviz wrote it
    tok.not_merges = 0 if n_merges is not None else sum(len(t) > 1 for t in ranks) - len(tok.merges)
    return tok


def _sentencepiece(data: bytes, name: str) -> TokenizerBase | None:
    """A SentencePiece model when the file is one: by its name (errors then say why), or by its first bytes."""
    if name.endswith(".model"):
        return sentencepiece_model.import_model(data, name)
    if sentencepiece_model.looks_like_model(data):
        try:
            return sentencepiece_model.import_model(data, name)
        except BpevizError:
            return None  # not a model after all: read as the other kinds
    return None


def import_file(path: str | Path, *, n_merges: int | None = None) -> TokenizerBase:
    """import_data on a file; a .tiktoken file's sidecar (the same name plus .json, as export writes it) is read too."""
    side = Path(str(path) + ".json")
    sidecar = side.read_bytes() if str(path).endswith(".tiktoken") and side.is_file() else None
    return import_data(read_path(path), str(path), n_merges=n_merges, sidecar=sidecar)


def _import_json(obj: object, name: str, n_merges: int | None) -> TokenizerBase:
    if isinstance(obj, dict) and obj.get("format") == FORMAT_NAME:
        tok = from_dict(obj)
        return tok if n_merges is None else tok.truncated(n_merges)
    model = obj.get("model") if isinstance(obj, dict) else None
    if isinstance(model, dict) and model.get("type") in ("WordPiece", "Unigram"):
        return model_files.import_hf(obj, name)  # type: ignore[arg-type]  # a dict, checked just above
    if not isinstance(model, dict) or model.get("type") != "BPE":
        raise ValueError(f"{name} is JSON but not a Hugging Face tokenizer.json (BPE, WordPiece, Unigram) nor a bpeviz file.")
    return import_hf(obj, name, n_merges)  # type: ignore[arg-type]  # a dict, checked just above
