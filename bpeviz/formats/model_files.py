"""WordPiece and Unigram tokenizers in files: bpeviz JSON (lossless) and Hugging Face tokenizer.json, both ways.

`formats.py` hands these over by the tokenizer's algorithm. An HF export keeps bpeviz's ids:
WordPiece's `[UNK]` and Unigram's byte pieces `<0xNN>` get ids after bpeviz's own byte-fallback
range (WordPiece) or exactly on it (Unigram), so `tokenizers` gives the ids `tok.encode` gives
on every text WordPiece can spell (HF's WordPiece writes `[UNK]` for a whole word where bpeviz
falls back to bytes). Imported files (BERT- and T5-style) encode for comparison: their
normalizer (lowercasing, accents) is not replayed; give text as the model expects it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from bpeviz.core.errors import BpevizError, cut
from bpeviz.core.records import ENDOFTEXT, PruneRound, Settings, WordPieceMerge
from bpeviz.models.base import TokenizerBase
from bpeviz.models.unigram import SUMS, UnigramTokenizer
from bpeviz.models.wordpiece import CONTINUATION, WordPieceTokenizer, parse, spell
from bpeviz.pre_tokenizers import splits

from . import hf_split
from .file_checks import a_list as _list
from .file_checks import whole as _int

UNK = "[UNK]"
META = "\u2581"  # SentencePiece's ▁, which HF's Metaspace puts for a space


def _num(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{what} must be a number, not {cut(value)}.")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if math.isinf(number):
        raise ValueError(f"{what} is out of range ({cut(value)}): a score must be a finite number.")
    return number


# -- bpeviz JSON ---------------------------------------------------------------------------------


def _scored_pair(row: object, what: str) -> tuple[str, str, int, float]:
    if not isinstance(row, list) or len(row) != 4 or not all(isinstance(x, str) for x in row[:2]):
        raise ValueError(f"{what} must be [left, right, count, score], not {cut(row)}.")
    return row[0], row[1], _int(row[2], what), _num(row[3], what)


def _wordpiece_from(data: dict, settings: Settings, details: dict) -> WordPieceTokenizer:
    alphabet = _list(data.get("alphabet"), "\"alphabet\"")
    if not all(isinstance(s, str) and s for s in alphabet) or len(set(alphabet)) != len(alphabet):
        raise ValueError("\"alphabet\" must list distinct non-empty tokens.")
    keys = {i: parse(s) for i, s in enumerate(alphabet)}
    known = {k: i for i, k in keys.items()}
    merges = []
    for k, entry in enumerate(_list(data.get("merges"), "\"merges\"")):
        what = f"merge {k + 1}"
        if not isinstance(entry, dict):
            raise ValueError(f"{what} must be an object, not {cut(entry)}.")
        left, right, new = (_int(entry.get(f), f"{what}'s {f}") for f in ("left_id", "right_id", "id"))
        if left not in keys or right not in keys or not keys[right][0]:
            raise ValueError(f"{what} joins ids {left} and {right}: both must exist and the right one must continue a word.")
        key = (keys[left][0], keys[left][1] + keys[right][1])
        expected = known.get(key, len(keys))
        if new != expected:
            raise ValueError(f"{what} must make id {expected}, not {new}.")
        keys[new] = key
        known.setdefault(key, new)
        top = tuple(_scored_pair(row, f"{what}'s top pairs") for row in _list(entry.get("top", []), f"{what}'s top"))
        frequent = entry.get("most_frequent")
        merges.append(WordPieceMerge(
            k + 1, spell(keys[left]), spell(keys[right]), spell(key), _int(entry.get("count", 0), f"{what}'s count"),
            _num(entry.get("score", 0.0), f"{what}'s score"), new, left, right,
            _int(entry.get("left_count", 0), f"{what}'s left_count"), _int(entry.get("right_count", 0), f"{what}'s right_count"),
            _int(entry.get("tokens_after", 0), f"{what}'s tokens_after"), top,
            _scored_pair(frequent, f"{what}'s most_frequent") if frequent is not None else None))
    unk = data.get("unk_token")
    limit = data.get("max_input_chars_per_word")
    if unk is not None and (not isinstance(unk, str) or not (limit is None or isinstance(limit, int) and limit > 0)):
        raise ValueError("\"unk_token\" must be text and \"max_input_chars_per_word\" a positive whole number.")
    return WordPieceTokenizer(settings=settings, alphabet=alphabet, merges=merges, unk_token=unk,
                              max_input_chars_per_word=limit, **details)


def _unigram_from(data: dict, settings: Settings, details: dict) -> UnigramTokenizer:
    pieces = []
    for row in _list(data.get("pieces"), "\"pieces\""):
        if not isinstance(row, list) or len(row) != 2 or not isinstance(row[0], str) or not row[0]:
            raise ValueError(f"Each piece must be [text, score], not {cut(row)}.")
        pieces.append((row[0], _num(row[1], f"the score of {cut(row[0])}")))
    if len({p for p, _ in pieces}) != len(pieces):
        raise ValueError("\"pieces\" repeat a piece; list each once.")
    rounds = []
    for entry in _list(data.get("rounds", []), "\"rounds\""):
        if not isinstance(entry, dict):
            raise ValueError(f"A round must be an object, not {cut(entry)}.")
        pruned = _list(entry.get("pruned", []), "a round's pruned pieces")
        rounds.append(PruneRound(
            _int(entry.get("round"), "a round's number"), _int(entry.get("vocab_before"), "vocab_before"),
            _int(entry.get("vocab_after"), "vocab_after"), _num(entry.get("log_likelihood"), "log_likelihood"),
            _int(entry.get("tokens", 0), "a round's tokens"), tuple(str(p) for p in pruned)))
    sums = data.get("sums", "float32")
    if sums not in SUMS:
        raise ValueError(f"\"sums\" must be one of {', '.join(SUMS)}, not {cut(sums)}.")
    unk_id = data.get("unk_id")
    if unk_id is not None and not (isinstance(unk_id, int) and 0 <= unk_id < len(pieces)):
        raise ValueError(f"\"unk_id\" must name a piece (0 to {len(pieces) - 1}), not {cut(unk_id)}.")
    tok = UnigramTokenizer(settings=settings, pieces=pieces, rounds=rounds, sums=sums, unk_id=unk_id,
                           prefix_unless_space=data.get("prefix_unless_space") is True, **details)
    tok.meta_as_space = data.get("meta_as_space") is True
    return tok


def from_dict(data: dict, settings: Settings) -> TokenizerBase:
    """A WordPiece or Unigram tokenizer from bpeviz JSON data (formats.from_dict checked the header and settings)."""
    specials = _list(data.get("special_tokens", [ENDOFTEXT]), "\"special_tokens\"")
    details = {"corpus_bytes": _int(data.get("corpus_bytes", 0), "\"corpus_bytes\""),
               "corpus_tokens": _int(data.get("corpus_tokens", 0), "\"corpus_tokens\""), "special_tokens": specials}
    if settings.level != "chars":
        raise ValueError(f"a {settings.algorithm} tokenizer works on characters (\"level\": \"chars\").")
    if settings.algorithm == "wordpiece":
        return _wordpiece_from(data, settings, details)
    return _unigram_from(data, settings, details)


# -- Hugging Face tokenizer.json -----------------------------------------------------------------


def _added(tok: TokenizerBase, extra: dict[str, int]) -> list[dict]:
    specials = {**tok.special_tokens, **extra}
    return [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
             "special": True} for s, i in sorted(specials.items(), key=lambda x: x[1])]


# HF's WordPiece looks every vocabulary entry up at the start of a word too, so "##" + "(" is also the word "##(".
# When a split can make such a word, the export writes continuations after "#\t#", which no preset split keeps
# whole (a tab ends every run of signs), so no word can start with it.
CONTINUATION_PREFIXES = (CONTINUATION, "#\t#")


def _continuation_prefix(tok: TokenizerBase, continuations: list[str], refuse: Callable[[str], Exception]) -> str:
    """The first prefix of CONTINUATION_PREFIXES with which no continuation can be read as the start of a word."""
    split = tok.settings.pretokenizer
    for prefix in CONTINUATION_PREFIXES:
        if all(splits.split_text(prefix + text, split)[0] != prefix + text for text in continuations):
            return prefix
    raise refuse(f"With the split {cut(split)}, a continuation token written after '##' (or '#\\t#') could also be a "
                 "whole word, which HF's WordPiece would read as that token; the export would encode differently. Keep "
                 "the bpeviz JSON, or train with a preset split that ends words at a tab.")


def hf_json(tok: TokenizerBase, pattern: str, refuse: Callable[[str], Exception] = ValueError) -> dict:
    """tokenizer.json for a WordPiece or Unigram tokenizer split with pattern (formats.split_pattern checked it)."""
    body = {"version": "1.0", "truncation": None, "padding": None, "normalizer": None,
            "pre_tokenizer": hf_split.split_step(pattern), "post_processor": None}
    if isinstance(tok, WordPieceTokenizer):
        return _wordpiece_json(tok, body, refuse)
    if isinstance(tok, UnigramTokenizer):
        return _unigram_json(tok, body, refuse)
    raise refuse(f"Not a WordPiece or Unigram tokenizer: {type(tok).__name__}.")


def _wordpiece_json(tok: WordPieceTokenizer, body: dict, refuse: Callable[[str], Exception]) -> dict:
    vocab: dict[str, int] = {}
    for i, token in tok.vocab.items():
        if vocab.setdefault(token, i) != i:  # type: ignore[arg-type]  # WordPiece's tokens are str
            raise refuse(f"Two tokens are both spelled {cut(token)} (one starts a word with '##', the other "
                         "continues one); tokenizer.json keys tokens by spelling, so it cannot hold both.")
    prefix = _continuation_prefix(tok, [parse(t)[1] for t in vocab if parse(t)[0]], refuse)
    vocab = {prefix + parse(t)[1] if parse(t)[0] else t: i for t, i in vocab.items()}
    unk_id = tok.byte_fallback_start + 256
    vocab.update(tok.special_tokens)  # HF numbers an added token after the vocab unless the vocab holds it
    vocab[UNK] = unk_id
    return {**body, "added_tokens": _added(tok, {UNK: unk_id}),
            "decoder": {"type": "WordPiece", "prefix": prefix, "cleanup": False},
            "model": {"type": "WordPiece", "unk_token": UNK, "continuing_subword_prefix": prefix,
                      "max_input_chars_per_word": 1_000_000, "vocab": vocab}}


def _unigram_json(tok: UnigramTokenizer, body: dict, refuse: Callable[[str], Exception]) -> dict:
    # ids: the pieces, the special tokens, then the 256 byte pieces exactly where bpeviz's byte fallback is
    # the extra entries take the worst piece's score, so HF's penalty for an unknown character equals bpeviz's
    # (a text that spells one, "<0x41>", with characters the model does not know, is read as that entry by HF)
    low = min((s for _, s in tok.scored), default=0.0)
    pieces = [[p, s] for p, s in tok.scored] + [[s, low] for s in tok.special_tokens]
    pieces += [[f"<0x{b:02X}>", low] for b in range(256)] + [[UNK, low]]
    decoder: list[dict] = [{"type": "ByteFallback"}, {"type": "Fuse"}]
    if tok.settings.dummy_prefix:  # SentencePiece style ("spaces" split): HF's Metaspace, spaces written as ▁
        if not pieces or any(META in p for p, _ in tok.scored):
            raise refuse(f"A piece holds {META!r}, which HF's Metaspace reads as a space; the export would differ.")
        for row in pieces[:len(tok.scored)]:
            row[0] = str(row[0]).replace(" ", META)
        # ▁ before every text and for every space, in the normalizer (as HF's own SentencePiece conversions do):
        # Metaspace's prepend would skip a text that starts with a space, where SentencePiece and bpeviz add it
        body["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": META}, {"type": "Replace", "pattern": {"String": " "}, "content": META}]}
        body["pre_tokenizer"] = {"type": "Metaspace", "replacement": META, "prepend_scheme": "never", "split": True}
        decoder = [{"type": "Replace", "pattern": {"String": META}, "content": " "}, {"type": "ByteFallback"},
                   {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]
    return {**body, "added_tokens": _added(tok, {}), "decoder": {"type": "Sequence", "decoders": decoder},
            "model": {"type": "Unigram", "unk_id": len(pieces) - 1, "vocab": pieces, "byte_fallback": True}}


def _import_wordpiece(model: dict, name: str, pattern: str, specials: list[str], hf_unicode: bool) -> WordPieceTokenizer:
    vocab = model.get("vocab")
    if not isinstance(vocab, dict) or not all(isinstance(i, int) for i in vocab.values()):
        raise ValueError(f"{name}: a WordPiece model's vocab maps tokens to ids.")
    unk = model.get("unk_token")
    prefix = model.get("continuing_subword_prefix", CONTINUATION)
    if not isinstance(prefix, str) or not prefix:
        raise ValueError(f"{name}: \"continuing_subword_prefix\" must be text, not {cut(prefix)}.")
    if prefix != CONTINUATION:  # bpeviz spells a continuation "##" + its text
        vocab = {CONTINUATION + t[len(prefix):] if t.startswith(prefix) and len(t) > len(prefix) else t: i
                 for t, i in vocab.items()}
    ordered = sorted(vocab.items(), key=lambda x: x[1])
    alphabet = [t for t, _ in ordered if t not in specials and t != unk or vocab[t] < len(vocab) - len(specials) - 1]
    if [vocab[t] for t in alphabet] != list(range(len(alphabet))):
        raise ValueError(f"{name}: the WordPiece ids must run 0, 1, 2, … without gaps (special tokens may follow).")
    settings = Settings(vocab_size=len(alphabet), pretokenizer=pattern, algorithm="wordpiece", hf_unicode=hf_unicode)
    limit = model.get("max_input_chars_per_word", 100)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"{name}: \"max_input_chars_per_word\" must be a positive whole number, not {cut(limit)}.")
    others = [s for s in specials if s not in alphabet and s != unk]
    own_layout = vocab.get(unk) == len(alphabet) + len(others) + 256  # bpeviz's export: byte fallback, then [UNK]
    unk_token = unk if isinstance(unk, str) and (unk in alphabet or unk in specials) and not own_layout else None
    return WordPieceTokenizer(settings=settings, alphabet=alphabet, merges=[],
                              special_tokens=others + ([unk_token] if unk_token and unk_token not in alphabet else []),
                              unk_token=unk_token, max_input_chars_per_word=limit)


PREPEND = {"type": "Prepend", "prepend": META}
SPACES_AS_META = {"type": "Replace", "pattern": {"String": " "}, "content": META}


def _prepends(normalizer: object, name: str) -> bool:
    """Whether a WordPiece or Unigram file's normalizer puts ▁ before the text; one bpeviz cannot replay is refused.

    bpeviz replays none, ▁ before the text (Prepend), spaces as ▁ (Replace; Metaspace does it too), or both.
    """
    steps = normalizer.get("normalizers") if isinstance(normalizer, dict) and normalizer.get("type") == "Sequence" \
        else [normalizer] if normalizer else []
    if not isinstance(steps, list) or any(step not in (PREPEND, SPACES_AS_META) for step in steps):
        raise BpevizError("import_normalizer", f"{name} normalizes text before it splits ({cut(normalizer)}); bpeviz "
                          "replays only a ▁ put before the text and spaces written as ▁, so it does not import this "
                          "one.", name=name)
    return PREPEND in steps


def import_hf(obj: dict, name: str) -> TokenizerBase:
    """A WordPiece or Unigram tokenizer.json as a bpeviz tokenizer with the file's ids, for encoding and comparison."""
    model = obj["model"]
    kind = model.get("type")
    if obj.get("normalizer") is not None and not isinstance(obj.get("normalizer"), dict):
        raise ValueError(f"{name}: \"normalizer\" must be an object or null, not {cut(obj.get('normalizer'))}.")
    pre = obj["pre_tokenizer"] if isinstance(obj.get("pre_tokenizer"), dict) else {}
    scheme = pre.get("prepend_scheme") or ("always" if pre.get("add_prefix_space", True) else "never")  # older files
    metaspace = pre.get("type") == "Metaspace" and scheme != "never"
    prepends = _prepends(obj.get("normalizer"), name)
    pattern = hf_split.read(obj.get("pre_tokenizer"), name, byte_level=False)
    added = _list(obj.get("added_tokens") or [], f"{name}'s \"added_tokens\"")
    specials = [t["content"] for t in added if isinstance(t, dict) and isinstance(t.get("content"), str)]
    if kind == "WordPiece":
        return _import_wordpiece(model, name, pattern, specials, hf_split.reads_hf_tables(obj.get("pre_tokenizer"), name))
    if kind == "Unigram":
        hf_unicode = hf_split.reads_hf_tables(obj.get("pre_tokenizer"), name)
        return _import_unigram(model, name, pattern, specials, (prepends, metaspace, hf_unicode))
    raise ValueError(f"{name}: model type {cut(kind)} is not WordPiece or Unigram.")


def _import_unigram(model: dict, name: str, pattern: str, specials: list[str], how: tuple[bool, bool, bool]) -> UnigramTokenizer:
    """A Unigram tokenizer.json's model; how: (its normalizer prepends ▁, its Metaspace does, it reads HF's tables)."""
    prepends, metaspace, hf_unicode = how
    rows = model.get("vocab")
    if not isinstance(rows, list):
        raise ValueError(f"{name}: a Unigram model's vocab is a list of [piece, score].")
    meta = META if pattern == "spaces" else None
    pieces = []
    for row in rows:
        if not isinstance(row, list) or len(row) != 2 or not isinstance(row[0], str):
            raise ValueError(f"{name}: a Unigram vocab entry must be [piece, score], not {cut(row)}.")
        pieces.append((row[0].replace(meta, " ") if meta else row[0], _num(row[1], f"{name}: a piece's score")))
    tail = [f"<0x{b:02X}>" for b in range(256)]
    unk_id = model.get("unk_id")
    own_layout = [p for p, _ in pieces[-257:-1]] == tail and unk_id == len(pieces) - 1
    if own_layout:  # bpeviz's own export: byte fallback after the pieces and the special tokens
        pieces = pieces[:-257]
        while pieces and pieces[-1][0] in specials:
            pieces.pop()
    seen = {p for p, _ in pieces}
    if len(seen) != len(pieces):
        raise ValueError(f"{name}: the Unigram vocab lists a piece twice.")
    settings = Settings(vocab_size=len(pieces), pretokenizer=pattern, dummy_prefix=prepends or metaspace,
                        algorithm="unigram", hf_unicode=hf_unicode)
    unknown = unk_id if not own_layout and isinstance(unk_id, int) and 0 <= unk_id < len(pieces) else None
    tok = UnigramTokenizer(settings=settings, pieces=pieces, special_tokens=[s for s in specials if s not in seen],
                           sums="float64", prefix_unless_space=metaspace and not prepends,  # HF's arithmetic
                           unk_id=unknown)  # a file's unknown piece (T5), where HF gives it
    tok.meta_as_space = meta is not None and not own_layout  # HF reads a ▁ in the text as the space it writes
    return tok
