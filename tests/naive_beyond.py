"""Slow, obvious oracles for SuperBPE, BoundlessBPE, parity-aware BPE and the optimal merge search.

Written apart from bpeviz/superword.py, boundless.py, parity.py and optimal.py: every step recounts
everything from scratch; nothing here calls those modules.
"""

from __future__ import annotations

from bpeviz.trainers.educational import best_first, count_pairs, learn_merges, merge, words_of


def naive_train(words, weights, n_merges, first_token, tie_break="first", texts=None):
    """The educational trainer's merges as rows (left, right, token, count, tokens after)."""
    return [(m.left_id, m.right_id, m.token_id, m.count, m.tokens_after)
            for m in learn_merges(words, weights, n_merges, first_token, tie_break=tie_break, texts=texts)]


def naive_superbpe(docs, level, pretokenizer, vocab_size, transition, tie_break="first"):
    """[(left, right, token, count, tokens_after, stage)]: BPE on words up to `transition`, then on superword pieces."""
    words, weights, n_base, texts = words_of(docs, level, pretokenizer)
    n_total = vocab_size - n_base
    n_first = max(0, min(transition, vocab_size) - n_base)
    first = naive_train(words, weights, n_first, n_base, tie_break, texts=texts)
    out = [(*m, 1) for m in first]
    if len(first) < n_first or n_first >= n_total:
        return out
    pieces, piece_weights, _, _ = words_of(docs, level, "superword")
    grown = list(texts)
    for left, right, token, _, _ in first:
        pieces = [merge(p, (left, right), token) for p in pieces]
        grown.append(grown[left] + grown[right])
    second = naive_train(pieces, piece_weights, n_total - len(first), n_base + len(first), tie_break, texts=grown)
    return out + [(*m, 2) for m in second]


def _boundless_pairs(chunks):
    counts = {}
    for groups, w in chunks:
        for g in groups:
            for pair in zip(g, g[1:]):
                counts[pair] = counts.get(pair, 0) + w
        for a, b in zip(groups, groups[1:]):
            if len(a) == 1 and len(b) == 1:
                counts[(a[0], b[0])] = counts.get((a[0], b[0]), 0) + w
    return counts


def _boundless_apply(groups, pair, token):
    groups = [merge(g, pair, token) for g in groups]
    out, k = [], 0
    while k < len(groups):
        if k + 1 < len(groups) and [*groups[k], *groups[k + 1]] == list(pair) and len(groups[k]) == 1:
            out.append([token])
            k += 2
        else:
            out.append(groups[k])
            k += 1
    return out


def naive_boundless(docs, level, pretokenizer, vocab_size):
    """[(left, right, token, count, tokens_after)]: regular pairs and pairs of whole one-token words, one ranking,
    most frequent first, ties to the smaller pair."""
    from bpeviz import split_text

    counts = {}
    for doc in docs:
        for piece in split_text(doc, "superword"):
            lines = piece.split("\n")
            for k, line in enumerate(lines):
                line += "\n" if k < len(lines) - 1 else ""
                while line:  # long lines: at most 1 000 characters, cut after a space if one is in reach
                    cut = len(line) if len(line) <= 1000 else (line.rfind(" ", 1, 1000) + 1 or 1000)
                    counts[line[:cut]] = counts.get(line[:cut], 0) + 1
                    line = line[cut:]
    alphabet = sorted({ch for doc in docs for ch in doc})
    n_base = 256 if level == "bytes" else len(alphabet)

    def to_ids(s):
        return list(s.encode("utf-8", "surrogateescape")) if level == "bytes" else [alphabet.index(ch) for ch in s]

    chunks = [([to_ids(w) for w in split_text(p, pretokenizer)], n) for p, n in counts.items()]
    result = []
    while len(result) < vocab_size - n_base:
        counts = _boundless_pairs(chunks)
        if not counts:
            break
        count, pair = max((n, (-a, -b)) for (a, b), n in counts.items())
        pair = (-pair[0], -pair[1])
        token = n_base + len(result)
        chunks = [(_boundless_apply(groups, pair, token), w) for groups, w in chunks]
        result.append((pair[0], pair[1], token, count, sum(len(g) * w for groups, w in chunks for g in groups)))
    return result


def naive_parity(train_words, heldout_words, n_merges):
    """[(left, right, token, language)]: the language with the most held-out tokens (first on ties) that still has
    a pair gives its most frequent pair (first seen on ties); byte level. *_words: language -> [(bytes, weight)]."""
    train = {lang: ([list(w) for w, _ in words], [n for _, n in words]) for lang, words in train_words.items()}
    held = {lang: ([list(w) for w, _ in words], [n for _, n in words]) for lang, words in heldout_words.items()}
    result = []
    while len(result) < n_merges:
        order = sorted(train, key=lambda lang: -sum(len(w) * n for w, n in zip(*held[lang])))
        chosen = next((lang for lang in order if count_pairs(*train[lang])), None)
        if chosen is None:
            break
        pair = best_first(count_pairs(*train[chosen]), "first", [])[0]
        token = 256 + len(result)
        for table in (train, held):
            for lang, (words, weights) in table.items():
                table[lang] = ([merge(w, pair, token) for w in words], weights)
        result.append((pair[0], pair[1], token, chosen))
    return result


def brute_best(words, n_merges):
    """The most symbols any n_merges merges save (fewer merges when no pair is left), by trying every sequence."""
    alphabet = sorted({ch for w in words for ch in w})
    seqs = [[alphabet.index(ch) for ch in w] for w in words]
    weights = list(words.values())

    def best(seqs, left, token):
        if left == 0:
            return 0
        stats = count_pairs(seqs, weights)
        found = 0
        for pair in stats:
            merged = [merge(s, pair, token) for s in seqs]
            saved = sum((len(a) - len(b)) * w for a, b, w in zip(seqs, merged, weights))
            found = max(found, saved + best(merged, left - 1, token + 1))
        return found

    return best(seqs, n_merges, len(alphabet))
