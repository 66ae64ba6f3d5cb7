"""Read a tokenizer like a detective: its training mix from the order of its merges, its unreachable tokens, its usage.

Mixture inference follows Hayase et al., "Data Mixture Inference: What do BPE Tokenizers Reveal about
their Training Data?" (NeurIPS 2024): each merge was, at its step, the most frequent pair of the unknown
training mix. Replaying the merges on a sample of each category gives every pair's count per category at
every step; the weights that make each merge win (with slack for what small samples miss) solve a linear
program, here HiGHS (highspy). Weights are shares of training bytes.

Unreachable tokens (Picky BPE, LiteToken): a token whose own bytes, merged as one piece, do not give the
token back; encoding never emits it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from bpeviz import formats
from bpeviz.core.errors import BpevizError
from bpeviz.models.bpe import Tokenizer
from bpeviz.pre_tokenizers import splits
from bpeviz.pretrained.mistral import TekkenEncoding
from bpeviz.pretrained.open_models import HFByteLevelBPE, tiktoken_parts

from . import mixture

MAX_MIX_MERGES = 20_000  # merges an inference reads at most


class Mixture(dict):
    """category -> share of the training bytes (they sum to 1), with what the solver said."""

    def __init__(self, weights: Mapping[str, float], status: str, merges_used: int, slack: float) -> None:
        super().__init__(weights)
        self.status = status  # the LP solver's own message ("Optimization terminated successfully..." or why not)
        self.merges_used = merges_used  # merges that gave constraints (a merge no sample shows gives none)
        self.slack = slack  # total slack per million bytes: how far the samples are from explaining every merge

    @property
    def outcome(self) -> str:
        """The status as a word a page can translate: "solved", "no_merge", "unconstrained" or "failed"."""
        if self.status in (mixture.NO_MERGE, mixture.UNCONSTRAINED):
            return "no_merge" if self.status == mixture.NO_MERGE else "unconstrained"
        return "failed" if self.status.startswith(mixture.GAVE_UP) else "solved"


def as_tokenizer(tokenizer: object, n_merges: int | None = None) -> Tokenizer:
    """A bpeviz Tokenizer with the first n_merges merges of a bpeviz Tokenizer or a tiktoken Encoding (bpeviz.reference).

    One read from a tiktoken encoding carries its encoder's rule, `whole_pieces_first` (a piece that is a
    token whole is that token, see unreachable), and `not_merges`, the count of its tokens no merge makes.
    """
    if isinstance(tokenizer, Tokenizer):
        return tokenizer if n_merges is None else tokenizer.truncated(n_merges)
    if isinstance(tokenizer, TekkenEncoding):  # Mistral NeMo: tiktoken's ranks, ids moved up past its special tokens
        tok = as_tokenizer(tokenizer._encoding, n_merges)
        tok.with_file_ids({i: tok.file_id(i) + tokenizer.offset for i in tok.vocab})
        return tok
    if isinstance(tokenizer, HFByteLevelBPE):  # DeepSeek V4: its file's merges, cut by its own three regex splits
        tok = formats.from_pairs(tokenizer.merge_pairs(n_merges), pretokenizer="none").use_split(tokenizer.pieces)
        return formats.keep_file_ids(tok, tokenizer.id_of)
    parts = tiktoken_parts(tokenizer)
    if parts is None:
        raise BpevizError("inspect_unsupported", f"bpeviz reads the merges of a bpeviz tokenizer or a tiktoken encoding, "
                          f"not of {type(tokenizer).__name__}.", kind=type(tokenizer).__name__)
    ranks, pattern = parts
    split = splits.preset_named(pattern) or pattern
    # a token no two tokens make (Qwen3.6 has 121) is no merge: tiktoken gives it only to a piece that is it whole
    tok = formats.keep_file_ids(formats.from_pairs(formats.pairs_from_ranks(ranks, n_merges, strict=False),
                                                   pretokenizer=split), ranks.get)  # ids as the encoding's own ranks
    tok.settings = replace(tok.settings, hf_unicode=True)  # split as tiktoken reads Unicode (15.1)
    tok.whole_pieces_first = True  # type: ignore[attr-defined]  # set on this one tokenizer: encode by tiktoken's rule
    # the count the page shows, on this tokenizer
    tok.not_merges = 0 if n_merges is not None else sum(len(t) > 1 for t in ranks) - len(tok.merges)
    return tok


def not_merges(tokenizer: object) -> int:
    """How many of a tiktoken encoding's multi-byte tokens no merge makes (no two tokens join into them); 0 otherwise.

    tokenizer: the encoding, or as_tokenizer's read of it.
    """
    return getattr(as_tokenizer(tokenizer), "not_merges", 0)


def sample_words(tok: Tokenizer, sample: object, name: str) -> Counter[str]:
    """A category's sample as pre-token counts: text cut by the tokenizer's own split, or a count table as it is."""
    if isinstance(sample, str):
        if not sample:
            raise BpevizError("inspect_samples", f"The sample of {name!r} is empty.", name=name)
        return Counter(tok.split_text(sample))
    counts = getattr(sample, "counts", sample)  # a CountTable, or a mapping of pre-token -> count
    if not isinstance(counts, Mapping) or not counts or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v > 0 for k, v in counts.items()):
        raise BpevizError("inspect_samples", f"The sample of {name!r} is text or a count table (pre-token -> count).",
                          name=name)
    return Counter(counts)


def infer_mixture(tokenizer: object, samples: Mapping[str, object], n_merges: int = 2_000, *,
                  progress: Callable[[int, int], None] | None = None) -> Mixture:
    """The training mix that best explains the merge order, as shares of training bytes per category of `samples`.

    samples: category -> sample text or count table (pre-token -> count; lessons/samples.py builds them from word
    lists). The method is Hayase et al.'s (lessons/mixture.py). Example, a tokenizer trained on English and Portuguese:
    infer_mixture(tok, {"en": english, "pt": portuguese}) -> {"en": 0.49, "pt": 0.51}
    progress(done, total): called during the replay and after each solver round (a budget may stop it there).
    """
    if len(samples) < 2:
        raise BpevizError("inspect_samples", "Give at least two categories, each with some sample text.")
    n_merges = max(1, min(int(n_merges), MAX_MIX_MERGES))
    tok = as_tokenizer(tokenizer, n_merges)
    words = {name: sample_words(tok, sample, name) for name, sample in samples.items()}
    weights, message, steps, slack = mixture.infer(tok, words, progress=progress)
    return Mixture(weights, message, steps, slack)


def unreachable(tokenizer: object) -> list[int]:
    """Ids (as the tokenizer numbers them) of merged tokens that are whole characters and never come out of encoding
    their own text: the split always cuts them (" \n" under a split that ends words at newlines), or their
    bytes merge into other tokens (merges a+b, b+c, a+bc: "abc" becomes ab|c). Tokens that cut a character in
    half are left out: how an encoder treats text that is not UTF-8 differs from library to library. Tests
    check the list against tiktoken's own encoder (GPT-2, cl100k_base, Qwen3.6) and HF's (DeepSeek V4).
    A tiktoken encoding gives a piece that is a token whole that token before any merging (tiktoken's
    rule), so there only the split can cut a token off: by merging alone, 113 of Qwen3.6's would be.
    """
    tok = as_tokenizer(tokenizer)
    if tok.level != "bytes":
        raise BpevizError("inspect_level", "Unreachable tokens are read from byte-level tokenizers.")
    whole_first = getattr(tok, "whole_pieces_first", False)
    found = []
    for m in tok.merges:
        try:
            text = m.token.decode("utf-8")  # type: ignore[union-attr]  # a bytes-level table's tokens are bytes
        except UnicodeDecodeError:
            continue
        token_id = tok.file_ids[m.id] if tok.file_ids else m.id
        if whole_first and tok.split_text(text) == [text]:
            continue
        if tok.encode_ordinary(text) != [token_id]:
            found.append(token_id)
    return sorted(found)


def token_usage(tokenizer: object, text: str) -> Counter[int]:
    """How often each id is emitted on text (tiktoken encodings and bpeviz tokenizers alike; specials as text)."""
    encode = getattr(tokenizer, "encode_ordinary", None)
    if encode is None:
        raise BpevizError("inspect_unsupported", f"{type(tokenizer).__name__} cannot encode text.",
                          kind=type(tokenizer).__name__)
    return Counter(encode(text))


def never_emitted(tokenizer: object, text: str, ids: Sequence[int]) -> list[int]:
    """The ids among `ids` that encoding text never emits."""
    used = token_usage(tokenizer, text)
    return [i for i in ids if not used[i]]
