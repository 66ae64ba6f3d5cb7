"""The slow, obvious BPE trainer: recount every pair after every merge (minbpe's way).

The oracle the fast trainer in bpeviz/trainer.py must match merge for merge, for every tie rule
and counting rule. Written apart from the library on purpose: nothing here calls bpeviz's rules.
"""

from __future__ import annotations

from fractions import Fraction


def get_stats(words: list[list[int]], weights: list[int], overlapping: bool = True) -> dict[tuple[int, int], int]:
    """Pair counts, built left to right so dict order is first-occurrence order.

    Non-overlapping: after counting an `a a`, the next position is not counted if it is `a a` too.
    Example: get_stats([[1, 2, 1, 2]], [1]) -> {(1, 2): 2, (2, 1): 1}
    """
    counts: dict[tuple[int, int], int] = {}
    for ids, w in zip(words, weights):
        just_counted_self_pair = False
        for pair in zip(ids, ids[1:]):
            if not overlapping and pair[0] == pair[1] and just_counted_self_pair:
                just_counted_self_pair = False
                continue
            counts[pair] = counts.get(pair, 0) + w
            just_counted_self_pair = pair[0] == pair[1]
    return counts


def merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every occurrence of pair, left to right. Example: merge([1, 1, 1], (1, 1), 9) -> [9, 1]"""
    out, i = [], 0
    while i < len(ids):
        if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def hf_byte_rank() -> dict[int, int]:
    """Each byte's id in HF's ByteLevel vocabulary: GPT-2's printable stand-ins for bytes, sorted."""
    printable = set(range(33, 127)) | set(range(161, 173)) | set(range(174, 256))
    stand_in, extra = {}, 0
    for b in range(256):
        if b in printable:
            stand_in[b] = chr(b)
        else:
            stand_in[b] = chr(256 + extra)
            extra += 1
    return {b: rank for rank, b in enumerate(sorted(range(256), key=lambda b: stand_in[b]))}


def ranked(stats: dict[tuple[int, int], int], tie_break: str, texts: list) -> list[tuple[int, int]]:
    """The pairs with the highest count, best first by the tie rule (first-occurrence order among equals)."""
    top = max(stats.values())
    tied = [p for p, c in stats.items() if c == top]  # in first-occurrence order
    if tie_break == "first":
        return tied
    if tie_break == "smallest":
        return sorted(tied)
    if tie_break == "hf":
        rank = hf_byte_rank()
        return sorted(tied, key=lambda p: tuple(rank[x] if x < 256 else x for x in p))
    if tie_break == "sentencepiece":
        def key(p):  # shorter first, then smaller as SentencePiece writes it: a space is ▁
            text = texts[p[0]] + texts[p[1]]
            raw = text if isinstance(text, bytes) else text.encode("utf-8")
            return len(text), raw.replace(b" ", b"\xe2\x96\x81")
        return sorted(tied, key=key)
    raise ValueError(tie_break)


def pick(stats: dict[tuple[int, int], int], tie_break: str, texts: list) -> tuple[int, int]:
    return ranked(stats, tie_break, texts)[0]


def naive_train(words, weights, n_merges, first_token, tie_break="first", count_rule="overlapping", texts=None,
                unique_tokens=False, ties=None):
    """[(left, right, token, count, tokens_after)] for up to n_merges merges.

    With a list `ties`, each merge also appends the pairs it beat at its count, best first (at most 4).
    """
    words = [list(w) for w in words]
    texts = list(texts or [])
    forbidden: set[tuple[int, int]] = set()  # pairs whose text exists already (unique tokens)
    result = []
    while len(result) < n_merges:
        stats = {p: c for p, c in get_stats(words, weights, count_rule == "overlapping").items() if p not in forbidden}
        if not stats:
            break
        pair = pick(stats, tie_break, texts)
        if unique_tokens and texts[pair[0]] + texts[pair[1]] in texts:
            forbidden.add(pair)
            continue
        token = first_token + len(result)
        if texts:
            texts.append(texts[pair[0]] + texts[pair[1]])
        if ties is not None:
            ties.append(tuple(ranked(stats, tie_break, texts)[1:5]))
        words = [merge(w, pair, token) for w in words]
        result.append((pair[0], pair[1], token, stats[pair], sum(len(w) * n for w, n in zip(words, weights))))
    return result


def naive_words(docs, level, pretokenizer):
    """Distinct pre-tokens as base ids with their counts, in order of first occurrence, the obvious way.

    Returns (words, weights, number of base symbols, the text of each base symbol).
    """
    from bpeviz import split_text

    counts = {}
    for doc in docs:
        for piece in split_text(doc, pretokenizer):
            counts[piece] = counts.get(piece, 0) + 1
    if level == "bytes":
        words = [list(word.encode("utf-8", "surrogateescape")) for word in counts]
        return words, list(counts.values()), 256, [bytes([b]) for b in range(256)]
    alphabet = sorted({ch for word in counts for ch in word})
    index = {ch: i for i, ch in enumerate(alphabet)}
    return [[index[ch] for ch in word] for word in counts], list(counts.values()), len(alphabet), alphabet


def wordpiece(words: list[tuple[str, int]], vocab_size: int) -> list[tuple[str, str, Fraction, int]]:
    """The HF course's WordPiece trainer, with exact scores: (left, right, score, count) per merge, in order.

    Recount everything each step; the best score wins, the first pair met (words in order, left
    to right) on ties; stop when vocab_size distinct tokens exist or no pair is left.
    """
    splits = [[w[0]] + ["##" + ch for ch in w[1:]] for w, _ in words]
    vocab = {p for s in splits for p in s}
    out = []
    while len(vocab) < vocab_size:
        unit: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}
        for s, (_, n) in zip(splits, words):
            for p in s:
                unit[p] = unit.get(p, 0) + n
            for pair in zip(s, s[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        if not pairs:
            break
        best, best_score = None, None
        for pair, n in pairs.items():
            score = Fraction(n, unit[pair[0]] * unit[pair[1]])
            if best_score is None or score > best_score:
                best, best_score = pair, score
        a, b = best
        new = a + b[2:]
        for k, s in enumerate(splits):
            merged, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == a and s[i + 1] == b:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(s[i])
                    i += 1
            splits[k] = merged
        vocab.add(new)
        out.append((a, b, best_score, pairs[best]))
    return out
