"""Category samples for mixture inference, offline: word lists (wordfreq), the UDHR, Python source.

Nobody has a real tokenizer's training text, so a category is known by a sample of its own: `word_list(lang)` turns
wordfreq's frequencies (Wikipedia, subtitles, news, books and web text, about 40 languages, shipped in the package)
into pre-token counts as a tokenizer's split cuts them, each word once with its space before it, as text has it
(also capitalised, as a sentence's first word); `code()` counts the Python sources bpeviz ships; `udhr(lang)` the
Declaration's articles, a second source independent of the first.

wordfreq lists Chinese, Japanese and Korean cut into morphemes (は, の, 는 as words of their own), so their word-list
samples lack every pair that crosses a morpheme in running text. Those three are read worst (bench/mixture.py's
help-trained design), though not only for that: running text from another source reads Japanese too high as well, if
less (docs/library.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache

from bpeviz.core.errors import BpevizError
from bpeviz.data import corpora

WORDS = 30_000  # a language's most frequent words kept
TOTAL = 20_000_000  # a sample's words are counted as if it held this many
CAPITALISED = 0.1  # the share of a word's uses written with a capital (a sentence's first word, titles)
NO_SPACES = {"zh", "ja"}  # written without spaces between words


@cache
def languages() -> tuple[str, ...]:
    """The languages wordfreq has a full word list of ("best")."""
    try:
        import wordfreq
    except ModuleNotFoundError as exc:
        raise BpevizError("wordfreq_missing", "Word-list samples need the package 'wordfreq': pip install wordfreq") from exc
    return tuple(sorted(wordfreq.available_languages(wordlist="best")))


def word_list(lang: str, split: Callable[[str], list[str]], words: int = WORDS, parity: int | None = None) -> Counter[str]:
    """A language's word frequencies as pre-token counts, cut by split; parity 0 or 1 keeps every other word by rank
    (two samples that share no word, for a held-out check)."""
    if lang not in languages():
        raise BpevizError("wordfreq_language", f"wordfreq has no word list for {lang!r}; it has {', '.join(languages())}.",
                          language=lang)
    import wordfreq

    out: Counter[str] = Counter()
    space = "" if lang in NO_SPACES else " "
    for rank, (word, share) in enumerate(wordfreq.get_frequency_dict(lang, wordlist="best").items()):
        if rank >= words:
            break
        if parity is not None and rank % 2 != parity:
            continue
        n = round(share * TOTAL)
        if not n:
            continue
        capital = round(n * CAPITALISED) if word[:1].isalpha() and word[:1].lower() != word[:1].upper() else 0
        for form, count in ((space + word, n - capital), (space + word[:1].upper() + word[1:], capital)):
            if count:
                for piece in split(form):
                    out[piece] += count
    return out


def code(split: Callable[[str], list[str]]) -> Counter[str]:
    """The Python sources bpeviz ships, cut by split."""
    return Counter(split(corpora.corpus_text("python")))


def udhr(lang: str, split: Callable[[str], list[str]]) -> Counter[str]:
    """The Declaration's articles in a language bpeviz ships it in, cut by split."""
    return Counter(split(corpora.corpus_text(f"udhr-{lang}")))
