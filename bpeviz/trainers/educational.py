"""The slow, obvious BPE trainer: count every pair, merge the most frequent, recount everything. Read this first.

    from bpeviz.trainers import educational
    tok = educational.train(["o gato sentou no telhado.", "o cão sentou no chão."], vocab_size=40)
    tok.merges[0]  # Merge(rank=1, left=' ', right='s', token=' s', count=2, ...): what bpeviz.train gives

It is the oracle of the fast trainers: engine/merge_loop.py (the same algorithm with a heap and positions, so a merge
touches only its own occurrences) and the compiled loop must give the same records, merge for merge
(tests/test_trainer.py, test_dialects.py, test_compiled.py). So that a mistake cannot hide in shared code, it spells
out each tie rule and counting rule itself instead of calling core/rules.py, and splits words into base symbols its
own way. It recounts the whole corpus after every merge: fine for a lesson, minutes for a novel.

Not here: encoding (models/bpe.py), drawing (lessons/), other algorithms (wordpiece.py, unigram.py, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

from bpeviz.core.byte_chars import BYTE_CHARS
from bpeviz.core.ids import Pair, RawMerge
from bpeviz.core.records import MAX_TIES_RECORDED, Corpus, documents_of, join
from bpeviz.models.bpe import Tokenizer, build
from bpeviz.pre_tokenizers.splits import split_text

from .settings import resolve_settings

Word = list[int]  # one distinct pre-token, spelled in token ids


def train(corpus: Corpus, *, vocab_size: int, level: str | None = None, pretokenizer: str | None = None,
          tie_break: str | None = None, count_rule: str | None = None, dialect: str | None = None) -> Tokenizer:
    """BPE on a corpus the obvious way, with bpeviz.train's settings and result (its merges, counts, ties).

    Example: train(["aaabdaaabac"], vocab_size=6, pretokenizer="none").merges[0].token -> "aa"
    """
    # 1. The settings, as bpeviz.train resolves them (a dialect fills in what is not given).
    settings = resolve_settings(vocab_size, level=level, pretokenizer=pretokenizer, tie_break=tie_break,
                                count_rule=count_rule, dialect=dialect)
    # 2. Cut every document into words (pre-tokens) and spell each distinct word in base symbols.
    prefix = " " if settings.dummy_prefix else ""
    docs = [prefix + doc for doc in documents_of(corpus)]
    words, weights, n_base, texts = words_of(docs, settings.level, settings.pretokenizer)
    # 3. Learn the merges: vocab_size minus the base symbols (fewer if the corpus runs out of pairs).
    merges = learn_merges(words, weights, settings.vocab_size - n_base, n_base, tie_break=settings.tie_break,
                          count_rule=settings.count_rule, texts=texts, unique_tokens=settings.unique_tokens)
    # 4. Name every token and hand the merges to a Tokenizer that encodes with them.
    alphabet = None if settings.level == "bytes" else [str(t) for t in texts[:n_base]]
    return build(settings, alphabet, merges, corpus_bytes=sum(len(_utf8(doc)) for doc in docs),
                 corpus_tokens=sum(len(w) * n for w, n in zip(words, weights)), engine="educational")


def words_of(docs: Sequence[str], level: str, pretokenizer: str) -> tuple[list[Word], list[int], int, list]:
    """Distinct words in order of first occurrence, spelled in base ids, with their counts.

    Returns (words, counts, number of base symbols, the text of each base symbol). At level "chars" the base
    symbols are the corpus's characters in code-point order; at level "bytes", the 256 bytes.
    Example: words_of(["ab a"], "chars", "gpt2") -> ([[1, 2], [0, 1]], [1, 1], 3, [" ", "a", "b"])
    """
    counts: dict[str, int] = {}
    for doc in docs:
        for word in split_text(doc, pretokenizer):
            counts[word] = counts.get(word, 0) + 1
    if level == "bytes":
        return [list(_utf8(w)) for w in counts], list(counts.values()), 256, [bytes([b]) for b in range(256)]
    alphabet = sorted({ch for word in counts for ch in word})
    index = {ch: i for i, ch in enumerate(alphabet)}
    return [[index[ch] for ch in word] for word in counts], list(counts.values()), len(alphabet), list(alphabet)


def learn_merges(words: Sequence[Word], weights: Sequence[int], n_merges: int, first_token: int, *,
                 tie_break: str = "first", count_rule: str = "overlapping", texts: Sequence[str | bytes] | None = None,
                 unique_tokens: bool = False, record_top: int = 0) -> list[RawMerge]:
    """Up to n_merges merges of weighted words, each recorded as the fast engines record it (RawMerge).

    texts: each id's text, needed by the "sentencepiece" tie rule and by unique_tokens (a merge whose token text
    exists already is skipped, as SentencePiece does). record_top=N keeps the N best pairs before each merge.
    Example: learn_merges([[0, 0, 0, 1]], [1], 1, 2)[0] -> RawMerge(0, 0, 2, 2, (), 3)
    """
    words = [list(w) for w in words]
    texts = list(texts or [])
    skipped: set[Pair] = set()  # pairs whose token text exists already (unique_tokens)
    merges: list[RawMerge] = []
    while len(merges) < n_merges:
        # 1. Count every adjacent pair of every word, weighted by the word's count (dict order: first occurrence).
        counts = {p: c for p, c in count_pairs(words, weights, count_rule).items() if p not in skipped}
        # 2. No pair left: every word is one token.
        if not counts:
            break
        # 3. The most frequent pair; among pairs with the same count, the tie rule decides.
        ranked = best_first(counts, tie_break, texts)
        left, right = pair = ranked[0]
        # 4. SentencePiece learns a token once: a pair that spells an existing token is skipped for good.
        if unique_tokens and join(texts[left], texts[right]) in texts:
            skipped.add(pair)
            continue
        # 5. A new token for the pair, replacing it left to right in every word.
        token = first_token + len(merges)
        if texts:
            texts.append(join(texts[left], texts[right]))
        words = [merge(w, pair, token) for w in words]
        # 6. Record it: the pair, the new id, its count, the pairs it tied with, the corpus length after it.
        ties = tuple(p for p in ranked[1:MAX_TIES_RECORDED + 1] if counts[p] == counts[pair])
        top = tuple((a, b, counts[(a, b)]) for a, b in ranked[:record_top])
        merges.append(RawMerge(left, right, token, counts[pair], ties, sum(len(w) * n for w, n in zip(words, weights)),
                               top))
    return merges


def count_pairs(words: Sequence[Word], weights: Sequence[int], count_rule: str = "overlapping") -> dict[Pair, int]:
    """Every adjacent pair's weighted count, in order of first occurrence.

    "overlapping" counts every position (in a a a a a, the pair a a occurs 4 times); "nonoverlapping" only what a
    left-to-right merge can replace (2 times): after counting an a a, the next position is not counted if it is a a.
    Example: count_pairs([[1, 2, 1, 2]], [1]) -> {(1, 2): 2, (2, 1): 1}
    """
    counts: dict[Pair, int] = {}
    for word, weight in zip(words, weights):
        just_counted_a_run = False
        for pair in zip(word, word[1:]):
            if count_rule == "nonoverlapping" and pair[0] == pair[1] and just_counted_a_run:
                just_counted_a_run = False
                continue
            counts[pair] = counts.get(pair, 0) + weight
            just_counted_a_run = pair[0] == pair[1]
    return counts


def best_first(counts: dict[Pair, int], tie_break: str, texts: Sequence[str | bytes]) -> list[Pair]:
    """Every pair, the most frequent first, equal counts in the tie rule's order.

    "first": the pair that occurs first in the corpus; "smallest": the smaller ids (left, then right); "hf": the same,
    bytes numbered as HF tokenizers' ByteLevel alphabet sorts them; "sentencepiece": the shorter merged token, then
    the smaller one as UTF-8 with a space written ▁.
    """
    if tie_break == "first":
        order = {p: k for k, p in enumerate(counts)}
        return sorted(counts, key=lambda p: (-counts[p], order[p]))
    if tie_break == "smallest":
        return sorted(counts, key=lambda p: (-counts[p], p))
    if tie_break == "hf":
        rank = _hf_byte_rank()
        return sorted(counts, key=lambda p: (-counts[p], tuple(rank[x] if x < 256 else x for x in p)))
    if tie_break == "sentencepiece":
        def spelled(p: Pair) -> tuple[int, bytes]:
            text = join(texts[p[0]], texts[p[1]])
            return len(text), _utf8(text).replace(b" ", "▁".encode())
        return sorted(counts, key=lambda p: (-counts[p], spelled(p)))
    raise ValueError(f"Unknown tie-break rule {tie_break!r}.")


def merge(word: Word, pair: Pair, token: int) -> Word:
    """Replace every occurrence of pair, left to right. Example: merge([1, 1, 1], (1, 1), 9) -> [9, 1]"""
    out, i = [], 0
    while i < len(word):
        if i < len(word) - 1 and (word[i], word[i + 1]) == pair:
            out.append(token)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def _hf_byte_rank() -> dict[int, int]:
    """Each byte's id in HF's ByteLevel vocabulary: GPT-2's printable stand-ins for bytes, sorted."""
    return {b: rank for rank, b in enumerate(sorted(range(256), key=lambda b: BYTE_CHARS[b]))}


def _utf8(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
