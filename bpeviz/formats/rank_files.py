"""tiktoken's rank files: writing them, reading them, and recovering the merges behind the ranks."""

from __future__ import annotations

import base64
import binascii
import hashlib
import heapq
import json
from functools import cache

from bpeviz.core.errors import BpevizError, cut
from bpeviz.models.base import TokenizerBase
from bpeviz.pre_tokenizers import oniguruma, splits

from .export_checks import require_bytes, require_unique_tokens, split_pattern
from .file_checks import parse_json

MAX_TOKEN_BYTES = 1_024  # longest token a rank file may hold (cl100k_base's and o200k_base's longest: 128)
# The real rank files whose split is known without a sidecar: sha256 (tiktoken's expected hash) -> preset
KNOWN_RANK_FILES = {
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": "gpt4",  # cl100k_base
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k",  # o200k_base
}


def tiktoken_ranks(tok: TokenizerBase) -> dict[bytes, int]:
    """mergeable_ranks for tiktoken: every byte, then each merge's bytes, with bpeviz's ids."""
    bpe = require_bytes(tok, "tiktoken")
    require_unique_tokens(bpe, "tiktoken")
    ranks = {bytes([b]): bpe.file_id(b) for b in range(256)}  # the ids it speaks (a grafted or imported file's own)
    ranks.update({m.token: bpe.file_id(m.id) for m in bpe.merges if isinstance(m.token, bytes)})  # bytes level: all are
    return ranks


def tiktoken_pattern(tok: TokenizerBase) -> str:
    """The pat_str tiktoken must split with to cut as this tokenizer cuts: its pattern, each \\p{X} naming the code
    points newer than tiktoken's Unicode 15.1 tables that `regex` puts in X (not for a tokenizer that reads 15.1)."""
    pattern = split_pattern(tok)
    return pattern if tok.settings.hf_unicode else oniguruma.with_lagging(pattern)


def tiktoken_encoding(tok: TokenizerBase, name: str = "bpeviz"):  # -> tiktoken.Encoding
    """A tiktoken.Encoding with this tokenizer's merges, split pattern and special tokens."""
    import tiktoken

    return tiktoken.Encoding(name=name, pat_str=tiktoken_pattern(tok), mergeable_ranks=tiktoken_ranks(tok),
                             special_tokens=tok.file_specials())


def write_tiktoken(tok: TokenizerBase) -> bytes:
    split_pattern(tok)  # refuses a split tiktoken would do differently; the pattern goes in the sidecar
    ranks = tiktoken_ranks(tok)
    return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in sorted(ranks.items(), key=lambda x: x[1]))


def tiktoken_sidecar(tok: TokenizerBase) -> bytes:
    """The split pattern and special tokens that go beside a .tiktoken file."""
    return json.dumps({"pat_str": tiktoken_pattern(tok), "special_tokens": tok.file_specials()}, indent=1).encode()


def split_by_lower_ranks(token: bytes, rank: int, ranks: dict[bytes, int]) -> tuple[bytes, bytes] | None:
    """BPE on token's bytes with the ranks below `rank`: the two parts it leaves, or None if it leaves more.

    A heap over adjacent parts keeps this O(n log n) in the token's length.
    """
    parts: list[bytes | None] = [bytes([b]) for b in token]
    nxt = list(range(1, len(parts) + 1))
    prv = list(range(-1, len(parts) - 1))
    heap: list[tuple[int, int, int]] = []  # (rank of the joined parts, left part, right part)

    def push(i: int) -> None:
        j = nxt[i]
        a, b = parts[i], parts[j] if j < len(parts) else None
        if a is not None and b is not None:
            r = ranks.get(a + b)
            if r is not None and r < rank:
                heapq.heappush(heap, (r, i, j))

    for i in range(len(parts) - 1):
        push(i)
    left = len(parts)
    while heap and left > 2:
        r, i, j = heapq.heappop(heap)
        a, b = parts[i], parts[j]
        if a is None or b is None or nxt[i] != j or ranks.get(a + b) != r:
            continue  # stale: a neighbour changed since this entry was pushed
        parts[i], parts[j] = a + b, None
        nxt[i] = nxt[j]
        if nxt[i] < len(parts):
            prv[nxt[i]] = i
        left -= 1
        push(i)
        if prv[i] >= 0:
            push(prv[i])
    remaining = [p for p in parts if p is not None]
    return (remaining[0], remaining[1]) if len(remaining) == 2 else None


def earliest_split(token: bytes, when: dict[bytes, float]) -> tuple[float, tuple[bytes, bytes]] | None:
    """The split of token into two known tokens that both exist soonest, and when that is; None if there is none."""
    best = None
    for k in range(1, len(token)):
        left, right = token[:k], token[k:]
        if left in when and right in when:
            ready = max(when[left], when[right])
            if best is None or ready < best[0]:
                best = (ready, (left, right))
    return best


def pairs_from_ranks(ranks: dict[bytes, int], n_merges: int | None = None, *,
                     strict: bool = True) -> list[tuple[bytes, bytes]]:
    """Recover the merge pairs behind tiktoken ranks, in an order where every merge comes after its parts.

    BPE on each token with the lower ranks usually leaves two parts: that pair merges at the token's
    rank. A few real tokens (o200k_base's `urrent`, rank 1315) need a part with a higher rank; tiktoken
    forms them as soon as the part exists, so here their merge comes right after that part. A token
    no two tokens make (Qwen3.6 has some: "سبب", whose "سب" and "بب" are not tokens) is no merge:
    tiktoken gives it only to a piece that is that token whole. strict: refuse such a file; else skip them.
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
        pair = split_by_lower_ranks(token, rank, ranks)
        if pair is None or pair[0] not in when or pair[1] not in when:  # no split, or a part that itself waits
            deferred.append((rank, token))
            continue
        when[token] = max(rank, when[pair[0]] + 0.5, when[pair[1]] + 0.5)
        found.append((when[token], rank, pair))
        heapq.heappush(times, when[token])
    for rank, token in sorted(deferred, key=lambda rt: len(rt[1])):  # parts are shorter, so placed by then
        split = earliest_split(token, when)
        if split is None and not stopped and strict:
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
            raise BpevizError("import_unknown", f"{name} is not a tokenizer file bpeviz reads (a tokenizer.json, a "
                              f".tiktoken file, a SentencePiece .model, a CSV merge table or a .vocab listing): line "
                              f"{number} is not 'base64 rank'.", name=name, line=number) from None
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


def sidecar_specials(sidecar: bytes | None, name: str) -> dict[str, int]:
    """The special tokens a .tiktoken file's sidecar names, with their ids (none without a sidecar)."""
    if sidecar is None:
        return {}
    found = parse_json(sidecar, f"{name}'s sidecar")
    specials = found.get("special_tokens", {}) if isinstance(found, dict) else {}
    if not isinstance(specials, dict) or not all(isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool)
                                                 and v >= 0 for k, v in specials.items()):
        raise BpevizError("import_sidecar_specials", f"{name}'s sidecar: \"special_tokens\" maps each token's text to "
                          "its id.", name=name)
    return specials


def rank_file_split(data: bytes, sidecar: bytes | None, name: str) -> tuple[str, bool]:
    """The split of a .tiktoken file and whether it reads Unicode 15.1 as tiktoken does: its sidecar's pat_str (bpeviz's
    own, which names the newer code points, is its preset read by `regex`), a known file's preset, else GPT-2's."""
    if sidecar is None:
        return KNOWN_RANK_FILES.get(hashlib.sha256(data).hexdigest(), "gpt2"), True
    side = parse_json(sidecar, f"{name}'s sidecar")
    pattern = side.get("pat_str") if isinstance(side, dict) else None
    if not isinstance(pattern, str) or not pattern:
        raise BpevizError("import_sidecar", f"{name}'s sidecar has no \"pat_str\" (the split pattern).", name=name)
    own = _widened_presets().get(pattern)
    if own is not None:
        return own, False
    split = splits.preset_named(pattern) or pattern
    splits.resolve(split)  # a pattern that does not compile, or is too costly, fails with its reason
    return split, not oniguruma.names_lagging(pattern)


@cache
def _widened_presets() -> dict[str, str]:
    """Each preset's pattern as bpeviz writes it for tiktoken (tiktoken_pattern) -> the preset's name."""
    return {oniguruma.with_lagging(p.pattern): key for key, p in splits.PRETOKENIZERS.items() if p.pattern}
