"""WordPiece's tokenizer, as the Hugging Face course (chapter 6) teaches it: greedy longest match (training: trainers/).

Tokens are spelled WordPiece's way: `##` starts a piece that continues a word ("gato" -> g ##a ##t ##o).
Encoding is greedy longest-match-first within each pre-token, as HF's `models.WordPiece`. Where
no token matches (a character never seen in training, or never at that position), that one
character is written as its UTF-8 bytes (byte-fallback tokens) and matching goes on, so
decode(encode(s)) == s; HF writes `[UNK]` for the whole word instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import regex

from bpeviz.core.records import ENDOFTEXT, Settings, Token, WordPieceMerge
from bpeviz.pre_tokenizers import splits

from .base import TokenizerBase
from .merging import WordCache

CONTINUATION = "##"
# A WordPiece tokenizer that splits BERT's way drops the whitespace, as BERT does (imported BERT files).
BERT_SPLIT = splits.BERT_SPLIT
_SPACES = regex.compile(r"\s+")

Key = tuple[bool, str]  # (continues a word, the text it stands for): a token as the trainer tells them apart


def spell(key: Key) -> str:
    """A token as WordPiece writes it. Example: spell((True, "at")) -> "##at" """
    return CONTINUATION + key[1] if key[0] else key[1]


def parse(spelled: str) -> Key:
    """A vocabulary entry as a key. Example: parse("##at") -> (True, "at"); parse("#") -> (False, "#")"""
    if spelled.startswith(CONTINUATION) and len(spelled) > len(CONTINUATION):
        return True, spelled[len(CONTINUATION):]
    return False, spelled


def word_keys(word: str) -> list[Key]:
    """A pre-token as WordPiece's starting pieces. Example: word_keys("gato") -> [(False, "g"), (True, "a"), ...]"""
    return [(k > 0, ch) for k, ch in enumerate(word)]


class WordPieceTokenizer(TokenizerBase):
    """A trained WordPiece tokenizer: ids 0..n-1 are the starting pieces in code-point order of their spelling,
    then one id per new token in merge order; special tokens, then byte fallback, follow."""

    def __init__(self, *, settings: Settings, alphabet: Sequence[str], merges: Sequence[WordPieceMerge],
                 corpus_bytes: int = 0, corpus_tokens: int = 0, special_tokens: Sequence[str] = (ENDOFTEXT,),
                 unk_token: str | None = None, max_input_chars_per_word: int | None = None) -> None:
        """unk_token: an imported file's unknown token (BERT's [UNK]): a word with a character no token starts, or
        longer than max_input_chars_per_word characters, is that one token, as HF does; else (bpeviz's own) the
        missing character falls back to its bytes."""
        self.settings = settings
        self.unk_token, self.max_input_chars_per_word = unk_token, max_input_chars_per_word
        self.alphabet = tuple(alphabet)  # spelled: "a", "##a"
        self.merges: list[WordPieceMerge] = list(merges)
        self.corpus_bytes, self.corpus_tokens = corpus_bytes, corpus_tokens
        self.n_base = len(self.alphabet)
        self.vocab: dict[int, Token] = dict(enumerate(self.alphabet))
        for m in self.merges:
            self.vocab[m.id] = m.token
        self.keys: dict[int, Key] = {i: parse(s) for i, s in enumerate(self.alphabet)}
        for m in self.merges:  # a new token continues a word when its left part does
            left, right = self.keys[m.left_id], self.keys[m.right_id]
            self.keys[m.id] = (left[0], left[1] + right[1])
        self._first: dict[str, int] = {}  # text -> id of a token that starts a word
        self._next: dict[str, int] = {}  # text -> id of a token that continues one
        self._text: dict[int, str] = {}
        for i, (cont, text) in self.keys.items():
            (self._next if cont else self._first).setdefault(text, i)
            self._text[i] = text
        # the token lengths there are, longest first: a match is tried only at those (one 1 M-character entry made
        # every position try every length up to it, cubic in the word)
        self._lengths = sorted({len(t) for t in self._text.values()}, reverse=True)
        self._init_codec(max(self.vocab, default=-1) + 1, special_tokens)
        self._unk = self._first.get(unk_token, self.special_tokens.get(unk_token)) if unk_token is not None else None
        if unk_token is not None and self._unk is None:
            raise ValueError(f"The unknown token {unk_token!r} is not in the vocabulary.")
        self._start_caches()

    _CACHES = ("_cache",)

    def _start_caches(self) -> None:
        self._cache = WordCache(self._match)  # word -> ids, bounded in entries and bytes

    @property
    def vocab_size(self) -> int:
        """Distinct tokens: starting pieces plus new tokens (specials and byte fallback not counted)."""
        return len(self.vocab)

    def _surface(self, token_id: int) -> Token:
        return self._text[token_id]

    def truncated(self, n_merges: int) -> WordPieceTokenizer:
        """The same tokenizer with only its first n_merges merges."""
        n = max(0, min(n_merges, len(self.merges)))
        return WordPieceTokenizer(settings=self.settings, alphabet=self.alphabet, merges=self.merges[:n],
                                  corpus_bytes=self.corpus_bytes, corpus_tokens=self.corpus_tokens,
                                  special_tokens=tuple(self.special_tokens), unk_token=self.unk_token,
                                  max_input_chars_per_word=self.max_input_chars_per_word)

    def bytes_per_token_after(self, k: int) -> float:
        tokens = self.corpus_tokens if k == 0 else self.merges[k - 1].tokens_after
        return self.corpus_bytes / tokens if tokens else 0.0

    def encode_word(self, word: str) -> tuple[int, ...]:
        """Greedy longest match, left to right. Example: tok.encode_word("gatos") -> ids of "gato", "##s" """
        return self._cache[word]

    def _match(self, word: str) -> tuple[int, ...]:
        ids: list[int] = []
        i, n = 0, len(word)
        if self._unk is not None and self.max_input_chars_per_word is not None and n > self.max_input_chars_per_word:
            return (self._unk,)
        while i < n:
            table = self._next if i else self._first
            for length in self._lengths:
                if length > n - i:
                    continue
                token_id = table.get(word[i:i + length])
                if token_id is not None:
                    ids.append(token_id)
                    i += length
                    break
            else:  # no token starts here: the word is the unknown token (a file's), or this character is its bytes
                if self._unk is not None:
                    return (self._unk,)
                ids.extend(self.byte_fallback_start + b for b in word[i].encode("utf-8"))
                i += 1
        return tuple(ids)

    def _encode_text(self, text: str) -> list[int]:
        words = self._pretokens(text)
        if self.settings.pretokenizer == BERT_SPLIT:
            words = [w for w in words if not _SPACES.fullmatch(w)]  # \s as the split reads it (str.isspace takes \x1f)
        return list(chain.from_iterable(map(self.encode_word, words)))
