"""Encoding throughput on about 1 MB: bpeviz against tiktoken, as ratios.

    python bench/encode.py

Three encoders on the same text, all with cl100k_base's split pattern:
tiktoken's cl100k_base itself, tiktoken loaded with bpeviz's own merges (exported),
and bpeviz (its per-word cache warmed by one pass first, as in the app). The compiled engine is not
loaded here, so this is the Python encoder; bench/speed.py prints it beside the compiled one.
"""

from __future__ import annotations

from common import median_time

import bpeviz
from bpeviz import formats
from bpeviz.data import corpora


def main() -> None:
    text = corpora.corpus_text("english") + corpora.corpus_text("portuguese") + corpora.corpus_text("python")
    text += "".join(corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES)
    text = (text * 2)[:1_000_000]
    mb = len(text.encode()) / 1e6
    tok = bpeviz.train(corpora.corpus_text("english"), vocab_size=4096, level="bytes", pretokenizer="gpt4")
    ours_in_tiktoken = formats.tiktoken_encoding(tok)
    cl100k = bpeviz.reference("cl100k_base")
    assert ours_in_tiktoken.encode_ordinary(text) == tok.encode_ordinary(text)
    cold = median_time(lambda: tok.truncated(len(tok.merges)).encode_ordinary(text), repeat=3)
    warm = median_time(lambda: tok.encode_ordinary(text))
    t_ours_tt = median_time(lambda: ours_in_tiktoken.encode_ordinary(text))
    t_cl100k = median_time(lambda: cl100k.encode_ordinary(text))
    print(f"text: {mb:.2f} MB; medians of 5 runs\n")
    for label, seconds in [("bpeviz, words cached", warm), ("bpeviz, cold cache", cold),
                           ("tiktoken, bpeviz merges", t_ours_tt), ("tiktoken, cl100k_base", t_cl100k)]:
        print(f"{label:<26}{mb / seconds:8.2f} MB/s")
    print(f"\nbpeviz (cached) / tiktoken with the same merges: {t_ours_tt / warm:.2f}x the throughput")
    print(f"bpeviz (cached) / tiktoken cl100k_base:          {t_cl100k / warm:.2f}x the throughput (target >= 0.9x)")


if __name__ == "__main__":
    main()
