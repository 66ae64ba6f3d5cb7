"""The compiled encoder, as a BPE tokenizer is handed it: a table of pieces for a long text, when the engine can.

A tokenizer asks only for texts of COLD_TEXT characters or more (models/bpe.py); the answer is None (encode in
Python) unless the split is one compiled/encode.py writes out and the "encode" group is loaded, or numba's cache
holds it and the text is long enough to pay for loading it. Otherwise a long text starts its compile in the
background (background.py), as training does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from . import background, loading

if TYPE_CHECKING:
    from bpeviz.compiled.encode import PieceTable
    from bpeviz.models.bpe import MergeRule, NewPieces

COMPILED_SPLITS = ("gpt4", "gpt4-hf", "r2l-digits", "gpt2", "gpt2-original")  # compiled/encode.py's KINDS (a test checks)
LOAD_MIN_CHARS = 1 << 19  # a text this long pays for loading the encoder from numba's cache (~0.2 s)
# a corpus this long pays for it when only counted (compiled, ~40 ms less per MB; loading, numba's import included,
# up to 0.8 s in a fresh command): smaller ones are counted in Python unless the kernels are loaded already
COUNT_LOAD_MIN_CHARS = 1 << 24


class CompiledEncoder:
    """Hands a tokenizer the compiled encoder's table of pieces for a long text, or None (encode in Python); and the
    compiled count of pre-tokens to the counting of a corpus."""

    def __reduce__(self) -> str:
        return "ENCODER"  # pickled by name: a tokenizer copied from a worker process gets this process's encoder

    def piece_table(self, pretokenizer: str, encode_new: NewPieces, size: int,
                    merges: MergeRule | None = None) -> PieceTable | None:
        """A new table for one tokenizer whose split is `pretokenizer`; new pieces are merged by the kernel when merges
        gives the tokenizer's merges (their rule is merge_by_rank's), else by encode_new."""
        if not self._ready(pretokenizer, size):
            return None
        from bpeviz.compiled.encode import PieceTable

        return PieceTable(pretokenizer, encode_new, merges)

    def counter(self, pretokenizer: str, size: int) -> Callable[[Sequence[str], str], Counter[str]] | None:
        """splits.count_pieces compiled (the same table, order included) for size characters cut by pretokenizer, or
        None: count in Python."""
        if not self._ready(pretokenizer, size, COUNT_LOAD_MIN_CHARS):
            return None
        from bpeviz.compiled.count import count_pieces

        return count_pieces

    @staticmethod
    def _ready(pretokenizer: str, size: int, load_min: int | None = None) -> bool:
        """Whether the "encode" group serves this split now: loaded, or loaded here from numba's cache for a text long
        enough to pay for it; otherwise a long text starts its compile in the background."""
        if pretokenizer not in COMPILED_SPLITS or not loading.numba_installed():
            return False
        if loading.loaded("encode"):
            return True
        if size < (LOAD_MIN_CHARS if load_min is None else load_min):
            return False
        if background.ready("encode") and loading.load("encode"):
            return True
        background.start("encode")
        return False


ENCODER = CompiledEncoder()
