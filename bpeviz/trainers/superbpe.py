"""SuperBPE (Liu et al., COLM 2025, arXiv 2503.13423): BPE that learns words first, then superwords across spaces.

Stage 1 is plain BPE on the chosen split (the words). At the transition vocabulary size t, training
resumes on the text cut only by the "superword" split (digits stand apart, grouped right to left, as
the authors' training script does; spaces, newlines and punctuation no longer cut): the stage-1
merges are replayed on those long pieces, then merging goes on, so pairs like (" of", " the") win.
The finished tokenizer is plain BPE with the superword split: encoding replays every merge in rank
order over the superword pieces. With t = vocab_size it is plain BPE.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from bpeviz import engine as engines
from bpeviz.core.gc import paused_gc
from bpeviz.core.records import Prepared, Settings, to_bytes
from bpeviz.core.rules import Rules
from bpeviz.engine.merge_loop import MergeLoop
from bpeviz.models.bpe import Tokenizer, build
from bpeviz.pre_tokenizers import splits
from bpeviz.pre_tokenizers.splits import SUPERWORD_SPLIT


def stage_two_pieces(docs: Sequence[str]) -> dict[str, int]:
    """Distinct superword pieces of the documents with their counts, in corpus order."""
    return dict(splits.count_pieces(docs, SUPERWORD_SPLIT))


def train_superbpe(docs: Sequence[str], prepared: Prepared, rules: Rules, settings: Settings, *,
                   progress: Callable[[int, int], None] | None = None, record_top: int = 0,
                   engine: str = "auto") -> Tokenizer:
    """Stage 1 on the prepared words up to settings.transition, stage 2 on the documents' superword pieces.

    docs are the documents as training reads them (with SentencePiece's dummy prefix if the settings add one);
    prepared holds the words (bpe.prepare) and rules the trainer's rules (bpe.train_rules).
    """
    n_total = settings.vocab_size - prepared.n_base
    n_stage1 = max(0, min(settings.transition, settings.vocab_size) - prepared.n_base)
    with paused_gc():
        run = engines.resolve(engine, size=sum(len(ids) for ids, _ in prepared.sequences), group="bpe")
        raw = run.train_ids(prepared.sequences, n_stage1, prepared.n_base, rules=rules,
                            progress=_part(progress, 0, n_total), record_top=record_top)
        if len(raw) == n_stage1 < n_total:
            pieces = stage_two_pieces(docs)
            to_ids = base_ids(prepared.alphabet)
            sequences = [(to_ids(piece), n) for piece, n in pieces.items()]
            loop = MergeLoop(sequences, rules)
            loop.replay([(m.left_id, m.right_id) for m in raw], prepared.n_base, None)
            raw += loop.run(n_total - len(raw), prepared.n_base + len(raw), _part(progress, len(raw), n_total), record_top)
    stage2 = len(raw) > n_stage1
    final = settings if stage2 else replace(settings, pretokenizer=settings.inner_split)
    tok = build(final, prepared.alphabet, raw, corpus_bytes=prepared.corpus_bytes, corpus_tokens=prepared.corpus_tokens,
                engine=run.name, encoder=engines.ENCODER)
    tok.merges = [replace(m, stage=2) if k >= n_stage1 else m for k, m in enumerate(tok.merges)]
    return tok


def base_ids(alphabet: Sequence[str] | None) -> Callable[[str], list[int]]:
    """Text -> base ids, for texts whose characters are all in the alphabet (None: bytes)."""
    if alphabet is None:
        return lambda text: list(to_bytes(text))
    ids = {ch: i for i, ch in enumerate(alphabet)}
    return lambda text: [ids[ch] for ch in text]


def _part(progress: Callable[[int, int], None] | None, done: int, total: int) -> Callable[[int, int], None] | None:
    """progress for a part of the run that starts after `done` of `total` merges."""
    if progress is None:
        return None
    return lambda k, _n: progress(done + k, total)


def superwords(tok: Tokenizer) -> list[int]:
    """Ranks (1-based) of the merges whose token bridges a space: whitespace after a non-space ("e ", " of the")."""
    return [m.rank for m in tok.merges if is_superword(m.token)]


def is_superword(token: str | bytes) -> bool:
    """True when whitespace follows a non-space in the token. Example: is_superword(" of the") -> True"""
    text = token.decode("utf-8", "replace") if isinstance(token, bytes) else token
    return any(ch.isspace() for ch in text.lstrip())
