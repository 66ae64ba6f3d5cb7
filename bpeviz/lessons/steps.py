"""Replaying a training run at any step: pair counts before the next merge, the corpus segmented.

Everything is derived from a trained Tokenizer and the corpus; nothing is retrained. The
*_history functions package a whole run (or an encoding trace) as JSON-ready data, so that a
browser can draw any step itself without asking the server again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bpeviz.core import rules
from bpeviz.core.records import MAX_TIES_RECORDED, Token, documents_of
from bpeviz.models.bpe import Tokenizer
from bpeviz.pre_tokenizers import splits

from . import render


@dataclass(frozen=True, slots=True)
class PairCount:
    """A candidate pair at some step: its tokens, ids, count, and where it first occurs."""

    left: Token
    right: Token
    left_id: int
    right_id: int
    count: int
    first_seen: int  # order of first occurrence when the corpus is read in order


def recorded_pair_counts(tok: Tokenizer, step: int) -> list[PairCount] | None:
    """The best pairs before merge step+1 as the trainer recorded them (train with record_top), or None."""
    if step >= len(tok.merges) or not tok.merges[step].top:
        return None
    return [PairCount(tok.token_of(a), tok.token_of(b), a, b, count, k) for k, (a, b, count) in enumerate(tok.merges[step].top)]


def pair_counts(tok: Tokenizer, words: Counter[str], step: int) -> list[PairCount]:
    """All adjacent pairs after the first `step` merges, best first by the tokenizer's tie rule."""
    at_step = tok.truncated(step)
    sequences = [at_step.encode_word(word) for word in words]
    counts = rules.count_pairs(sequences, list(words.values()), rules.count_rule(tok.settings.count_rule))
    first = {pair: k for k, pair in enumerate(counts)}  # count_pairs keeps first-occurrence order
    tie = rules.tie_rule(tok.settings.tie_break)
    texts = [tok.token_of(i) for i in range(tok.vocab_size)] if tie.kind == "text" else []
    order = sorted(counts, key=lambda p: (-counts[p], tie.order(p, first[p], texts)))
    return [PairCount(tok.token_of(a), tok.token_of(b), a, b, counts[(a, b)], first[(a, b)]) for a, b in order]


def corpus_window(corpus: str | bytes | Sequence[str], max_chars: int = 3000) -> list[str]:
    """The first documents of a corpus, cut to about max_chars characters in all, for drawing."""
    shown: list[str] = []
    total = 0
    for doc in documents_of(corpus):
        if total >= max_chars:
            break
        shown.append(doc[: max_chars - total])
        total += len(shown[-1])
    return shown


# -- a whole run as data for a browser that draws every step itself ---------------------------

TOP_SENT = 12  # pairs per step the browser gets (the chart shows 12, more when they tie)
TOP_CHUNK = 2_000  # steps of pair counts per message once a run is too long to send whole
SEND_WHOLE = 5_000  # runs up to this many merges send every step's pair counts at once
SHOWN_TOKEN_CHARS = 400  # characters of one token the player draws at most


def token_texts(tok: Tokenizer, upto: int) -> list[str]:
    """How each id below `upto` reads in a class (␣ for spaces, \\xNN for cut bytes); a token longer than
    SHOWN_TOKEN_CHARS shows its start and end around "…" (a run on one endless word makes tokens of a million
    characters: 32 merges of 2.5 M no-break spaces sent 126 MB to the browser)."""
    return [shown(tok.token_of(i)) for i in range(upto)]


def shown(token: Token) -> str:
    if len(token) <= SHOWN_TOKEN_CHARS:
        return render.show(token)
    return f"{render.show(token[:SHOWN_TOKEN_CHARS * 3 // 4])}…{render.show(token[-(SHOWN_TOKEN_CHARS // 4):])}"


def top_chunk(tok: Tokenizer, start: int, stop: int, after_last: Sequence[PairCount] = ()) -> list[list[int]]:
    """The recorded best pairs before each merge in [start, stop), flat [l, r, c, l, r, c, ...] per step.

    The step after the last merge has no record; `after_last` (a recount) fills it in.
    """
    rows = []
    for step in range(start, min(stop, len(tok.merges) + 1)):
        if step < len(tok.merges):
            rows.append([x for triple in tok.merges[step].top[:TOP_SENT] for x in triple])
        else:
            rows.append([x for p in after_last[:TOP_SENT] for x in (p.left_id, p.right_id, p.count)])
    return rows


def window_pieces(tok: Tokenizer, documents: Sequence[str], max_chars: int = 3000) -> list[list[list[int]]]:
    """The first documents cut into pre-tokens, each as base ids: what the browser segments at any step."""
    return [[tok.base_ids(piece) for piece in splits.split_text(doc, tok.settings.pretokenizer)]
            for doc in corpus_window(documents, max_chars)]


def train_history(tok: Tokenizer, documents: Sequence[str], words: Counter[str] | None = None) -> dict:
    """Everything a browser needs to draw any step of a run, JSON-ready, sent once per run.

    merges: [left id, right id, count, corpus tokens after, ties] per merge; tokens: the text of every id;
    top: the best pairs before each step (all steps, or the first chunk of a long run); window: the corpus
    shown, as base ids per pre-token. words (distinct pre-tokens with counts) give the last step's pairs.
    """
    n = len(tok.merges)
    after_last = pair_counts(tok, words, n)[:TOP_SENT] if words is not None else []
    total_chars = sum(len(d) for d in documents)
    window = window_pieces(tok, documents)
    return {
        "n": n,
        "base": tok.n_base,
        "level": tok.level,
        "tieRule": tok.settings.tie_break,
        "tokens": token_texts(tok, tok.n_base + n),
        "partial": [i for i in range(tok.n_base + n) if render.is_partial(tok.token_of(i))],
        "fallbackStart": tok.byte_fallback_start if tok.level == "chars" else None,
        "merges": [[m.left_id, m.right_id, m.count, m.tokens_after, len(m.ties)] for m in tok.merges],
        "maxTies": MAX_TIES_RECORDED,  # a merge with this many ties recorded may have had more
        "corpusTokens": tok.corpus_tokens,
        "corpusBytes": tok.corpus_bytes,
        "counted": bool(n == 0 or tok.merges[0].top),
        "top": {"start": 0, "rows": top_chunk(tok, 0, n + 1 if n <= SEND_WHOLE else TOP_CHUNK, after_last)},
        "chunk": n + 1 if n <= SEND_WHOLE else TOP_CHUNK,
        "window": window,
        "shownChars": sum(len(doc) for doc in corpus_window(documents)),
        "totalChars": total_chars,
    }


def trace_history(tok: Tokenizer, text: str) -> dict:
    """An encoding trace as data: the pre-tokens as base ids and the merges that fire, in rank order.

    The browser replays the fired merges to draw the pieces after any step.
    """
    trace = tok.trace(text)
    words = [tok.base_ids(piece) for piece in splits.split_text(text, tok.settings.pretokenizer)]
    fired = [[s.merge.rank, s.merge.left_id, s.merge.right_id, s.merge.id, s.fired] for s in trace[1:] if s.merge is not None]
    ids = sorted({i for w in words for i in w} | {f[3] for f in fired} | {x for f in fired for x in f[1:3]})
    return {"words": words, "fired": fired, "texts": {str(i): render.show(tok.token_of(i)) for i in ids},
            "partial": [i for i in ids if render.is_partial(tok.token_of(i))]}


def wordpiece_history(tok) -> dict:  # tok: WordPieceTokenizer
    """A WordPiece run as the browser's table player needs it: one row per merge with its score and BPE's pick."""
    rows = []
    for m in tok.merges:
        f = m.most_frequent or ("", "", 0, 0.0)
        rows.append([m.rank, render.show(m.left), render.show(m.right), render.show(m.token), m.count, round(m.score, 6),
                     render.show(f[0]), render.show(f[1]), f[2], round(f[3], 6), m.tokens_after])
    return {"n": len(rows), "base": tok.n_base, "rows": rows, "corpusTokens": tok.corpus_tokens,
            "corpusBytes": tok.corpus_bytes}


def unigram_history(tok) -> dict:  # tok: UnigramTokenizer
    """A Unigram run for the table player: one row per pruning round, then the final cut to the vocabulary size."""
    rows = [[r.round, r.vocab_before, r.vocab_after, round(r.log_likelihood, 1), r.tokens,
             [render.show(p) for p in r.pruned[:24]], r.vocab_before - r.vocab_after] for r in tok.rounds]
    return {"n": len(rows), "rows": rows, "final": tok.vocab_size, "corpusTokens": tok.corpus_tokens,
            "corpusBytes": tok.corpus_bytes, "start": tok.rounds[0].vocab_before if tok.rounds else tok.vocab_size}


TABLE_HISTORIES = {"wordpiece": wordpiece_history, "unigram": unigram_history}  # the table player's rows, by algorithm
