"""The slow, obvious BPE trainer: recount every pair after every merge (minbpe's way).

The oracle the fast trainer in bpeviz/trainer.py must match merge for merge.
"""

from __future__ import annotations


def get_stats(words: list[list[int]], weights: list[int]) -> dict[tuple[int, int], int]:
    """Pair counts, built left to right so dict order is first-occurrence order.

    Example: get_stats([[1, 2, 1, 2]], [1]) -> {(1, 2): 2, (2, 1): 1}
    """
    counts: dict[tuple[int, int], int] = {}
    for ids, w in zip(words, weights):
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + w
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


def naive_train(words, weights, n_merges, first_token, tie_break="first"):
    """[(left, right, token, count, tokens_after)] for up to n_merges merges."""
    words = [list(w) for w in words]
    result = []
    for step in range(n_merges):
        stats = get_stats(words, weights)
        if not stats:
            break
        if tie_break == "first":
            pair = max(stats, key=stats.get)  # first inserted among the largest
        else:
            top = max(stats.values())
            pair = min(p for p, c in stats.items() if c == top)
        token = first_token + step
        words = [merge(w, pair, token) for w in words]
        result.append((pair[0], pair[1], token, stats[pair], sum(len(w) * n for w, n in zip(words, weights))))
    return result


def naive_words(docs, level, pretokenizer):
    """Distinct pre-tokens as base ids with their counts, in order of first occurrence, the obvious way."""
    from bpeviz import split_text

    counts = {}
    for doc in docs:
        for piece in split_text(doc, pretokenizer):
            counts[piece] = counts.get(piece, 0) + 1
    if level == "bytes":
        return [list(word.encode("utf-8", "surrogateescape")) for word in counts], list(counts.values()), 256
    alphabet = sorted({ch for word in counts for ch in word})
    index = {ch: i for i, ch in enumerate(alphabet)}
    return [[index[ch] for ch in word] for word in counts], list(counts.values()), len(alphabet)
