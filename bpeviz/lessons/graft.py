"""Graft: continue a real tokenizer's merges on a new corpus, every old id kept (`bpeviz.extend`).

1. Read the base as bpeviz merges with its own ids, split and special tokens (a tiktoken encoding, Tekken, an HF
   byte-level BPE such as DeepSeek V4's, an imported tokenizer.json or .tiktoken, a bpeviz tokenizer). A SentencePiece
   BPE model (Mistral v3, an imported .model) is grafted by its own rule instead: graft_sentencepiece.py.
2. Cut the corpus with the base's split, as its own engine reads Unicode, and encode each distinct word with the base's
   merges: the state replaying every base merge on the corpus reaches.
3. Go on with BPE from there: n_new merges, most frequent pair first, ties by `tie_break`.
4. Number the new tokens after every id the base uses, special tokens included: base tokens and specials keep theirs.
Cut back to its base merges (`tok.truncated(tok.base_merges)`), a graft encodes as the base does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import overload

from bpeviz import engine as engines
from bpeviz.core.errors import BpevizError
from bpeviz.core.gc import paused_gc
from bpeviz.core.ids import RawMerge
from bpeviz.core.records import Corpus, to_bytes
from bpeviz.core.rules import rules_for
from bpeviz.models.bpe import Tokenizer, build
from bpeviz.models.sentencepiece import SentencePieceTokenizer
from bpeviz.pretrained.encodings import ENCODINGS, reference
from bpeviz.pretrained.mistral import SentencePieceEncoding, TekkenEncoding
from bpeviz.pretrained.open_models import HFByteLevelBPE, tiktoken_parts
from bpeviz.trainers.bpe import corpus_documents, corpus_words
from bpeviz.trainers.settings import check_vocab_size

from . import graft_sentencepiece, inspect
from .graft_sentencepiece import SentencePieceGraft

MAX_NEW_MERGES = 100_000


def base_tokenizer(base: object) -> tuple[Tokenizer, dict[str, int], int]:
    """1. The base as a bytes-level bpeviz tokenizer speaking its ids; its special tokens; how many ids it uses."""
    if isinstance(base, str):
        if base not in ENCODINGS:
            raise BpevizError("extend_base", f"Unknown base {base!r}; give a tokenizer or one of {', '.join(ENCODINGS)}.",
                              base=base[:40])
        return _named_base(base)
    return _base_of(base)


@lru_cache(maxsize=2)
def _named_base(name: str) -> tuple[Tokenizer, dict[str, int], int]:
    """A real tokenizer read once (cl100k_base's 100 000 merges take seconds to recover); two kept, about 30 MB each."""
    return _base_of(reference(name))


def _base_of(base: object) -> tuple[Tokenizer, dict[str, int], int]:
    if isinstance(base, Tokenizer):
        if base.level != "bytes":
            raise BpevizError("extend_bytes", "Grafting continues a byte-level tokenizer; this one works on characters.")
        ids = [base.file_id(i) for i in (*base.vocab, *base.special_tokens.values())]
        return base, base.file_specials(), max(ids) + 1
    if isinstance(base, TekkenEncoding):
        return inspect.as_tokenizer(base), {name: i for i, name in enumerate(base.specials)}, base.n_vocab
    if isinstance(base, HFByteLevelBPE):
        return inspect.as_tokenizer(base), dict(base.special_tokens), base.n_vocab
    if tiktoken_parts(base) is None:
        raise BpevizError("extend_base", f"bpeviz grafts onto a bpeviz tokenizer or a real one (tiktoken's, Tekken, HF "
                          f"byte-level BPE), not {type(base).__name__}.", base=type(base).__name__)
    specials = {name: base.encode_single_token(name) for name in sorted(base.special_tokens_set)}  # type: ignore[attr-defined]
    return inspect.as_tokenizer(base), specials, base.n_vocab  # type: ignore[attr-defined]


def sentencepiece_base(base: object) -> SentencePieceTokenizer | None:
    """The SentencePiece model under base, if it is one (by name, as the encoding, or imported)."""
    if isinstance(base, str) and base in ENCODINGS:
        base = reference(base)
    if isinstance(base, SentencePieceEncoding):
        return base.tokenizer
    return base if isinstance(base, SentencePieceTokenizer) else None


def _words(start: Tokenizer, docs: list[str]) -> Counter[str]:
    """2. The corpus cut as the base cuts it."""
    if start.split_function is not None:  # DeepSeek V4: its own three regex splits
        return Counter(piece for doc in docs for piece in start.split_function(doc))
    return corpus_words(docs, start.settings)


@overload
def extend(base: SentencePieceTokenizer | SentencePieceEncoding, corpus: Corpus, n_new: int, *, engine: str = "auto",
           tie_break: str = "first", progress: Callable[[int, int], None] | None = None) -> SentencePieceGraft: ...
@overload
def extend(base: object, corpus: Corpus, n_new: int, *, engine: str = "auto", tie_break: str = "first",
           progress: Callable[[int, int], None] | None = None) -> Tokenizer | SentencePieceGraft: ...
def extend(base: object, corpus: Corpus, n_new: int, *, engine: str = "auto", tie_break: str = "first",
           progress: Callable[[int, int], None] | None = None) -> Tokenizer | SentencePieceGraft:
    """A base tokenizer with n_new merges learned on corpus after its own; `.base_merges`, `.base_size` say where.

    A SentencePiece BPE base ("mistral-v3", an imported .model) gets new pieces instead (graft_sentencepiece.py): the
    result is a SentencePiece model, which writes a .model file (formats.write_model).
    Example: tok = bpeviz.extend("cl100k_base", hindi_text, 2000); tok.truncated(tok.base_merges) encodes as cl100k_base.
    """
    if isinstance(n_new, bool) or not isinstance(n_new, int) or not 0 <= n_new <= MAX_NEW_MERGES:
        raise BpevizError("extend_merges", f"n_new is a whole number from 0 to {MAX_NEW_MERGES:,}, not {n_new!r}.",
                          cap=MAX_NEW_MERGES)
    model = sentencepiece_base(base)
    if model is not None:
        return graft_sentencepiece.extend(model, corpus, n_new, progress)
    start, specials, base_size = base_tokenizer(base)
    docs = corpus_documents(corpus, "bytes")
    words = _words(start, docs)
    first = start.n_base + len(start.merges)
    with paused_gc():
        sequences = [(start.merge_ids(start.base_ids(word)), n) for word, n in words.items()]
        run = engines.resolve(engine, size=sum(len(ids) for ids, _ in sequences), group="bpe")
        new = run.train_ids(sequences, n_new, first, rules=rules_for(tie_break, start.settings.count_rule),
                            progress=progress)
    old = [RawMerge(m.left_id, m.right_id, m.id, 0, (), 0) for m in start.merges]
    settings = replace(start.settings, vocab_size=check_vocab_size(first + len(new)), tie_break=tie_break)
    tok = build(settings, None, old + new, special_tokens=tuple(specials), engine=run.name, encoder=engines.ENCODER,
                corpus_bytes=sum(len(to_bytes(w)) * n for w, n in words.items()),
                corpus_tokens=sum(len(to_bytes(w)) * n for w, n in words.items()))
    ids = {i: start.file_id(i) for i in start.vocab}
    ids.update({m.token_id: base_size + k for k, m in enumerate(new)})  # 4. after every id the base uses
    tok.with_file_ids(ids, specials)
    tok.base_merges, tok.base_size = len(start.merges), base_size
    tok.hf_template = getattr(_resolved(base), "hf_template", None)  # an HF file's splits and added tokens, for its export
    return tok if start.split_function is None else tok.use_split(start.split_function)


def _resolved(base: object) -> object:
    return reference(base) if isinstance(base, str) and base in ENCODINGS else base


def replaced_by(tok: Tokenizer | SentencePieceGraft, k: int, base: Tokenizer | SentencePieceTokenizer | None = None
                ) -> list[int]:
    """The base's ids that the k-th new token (from 0) stands for: the base merges applied to its bytes (FVT-style
    initialisation averages their embeddings). base: tok cut to its base merges, when the caller has it."""
    if isinstance(tok, SentencePieceGraft):
        return tok.replaced_by(k)
    base = base if isinstance(base, Tokenizer) else tok.truncated(tok.base_merges)
    token = tok.merges[tok.base_merges + k].token
    return [base.file_id(i) for i in base.merge_ids(list(token if isinstance(token, bytes) else to_bytes(token)))]


def tokens_per_word(tok: Tokenizer | SentencePieceGraft, text: str, ks: list[int]) -> list[tuple[int, float]]:
    """(new merges kept, tokens per word of text) for each k in ks."""
    words = max(1, len(text.split()))
    return [(k, len(tok.truncated(tok.base_merges + k).encode_ordinary(text)) / words) for k in ks]


def rarer(tok: Tokenizer | SentencePieceGraft, base_encode: Callable[[str], list[int]], text: str, n: int = 10
          ) -> list[tuple[int, int, int]]:
    """The base tokens the graft uses least in place of the base on text: (id, uses by the base, uses by the graft)."""
    before, after = Counter(base_encode(text)), Counter(tok.encode_ordinary(text))
    drops = sorted(before, key=lambda i: (after.get(i, 0) - before[i], i))
    return [(i, before[i], after.get(i, 0)) for i in drops[:n] if after.get(i, 0) < before[i]]
