"""Encode page: replay the merges on a new sentence, then see what real tokenizers make of it."""

from __future__ import annotations

import hashlib

import altair as alt
import pandas as pd
import streamlit as st

from bpeviz import formats
from bpeviz.app import box, live, player, runs, sidebar, state, views, votes
from bpeviz.app.i18n import bound, error_text, num, t
from bpeviz.app.main import page_path
from bpeviz.core.errors import BpevizError
from bpeviz.core.records import ENDOFTEXT, has_raw_bytes
from bpeviz.lessons import render, sources
from bpeviz.models import sampling
from bpeviz.models.bpe import Tokenizer
from bpeviz.models.unigram import UnigramTokenizer
from bpeviz.pre_tokenizers import splits as pretokenize
from bpeviz.pretrained.encodings import ENCODINGS
from bpeviz.trainers.settings import resolve_settings

MAX_TRACE = 2_000  # characters traced merge by merge
MAX_SPAN_TEXT = 2_000  # characters the span slider reaches
MAX_COUNT_MB = 20  # an uploaded file whose tokens are counted
MAX_DROPOUT_TEXT = 300  # characters encoded with dropout
SAMPLE_SIZES = (200, 1000, 5000)
TOP_SEGMENTATIONS = 10
SUGGESTIONS = {  # key -> sentence; the button labels are interface strings "sugg_<key>"
    "subiu": "o gato subiu no",
    "unseen": "pássaro",
    "english": "The cat climbed onto the roof.",
    "emoji": "Ação e emoção no coração! 😀🇧🇷",
    "number": "Em 2024 eram 1234567 gatos, ou 3.14159 por telhado.",
    "python": "        return self.cache[key]",
}


def _suggest(sentence: str) -> None:
    st.session_state.sentence = sentence
    _show_whole_trace()


def _show_whole_trace() -> None:
    st.session_state.trace_step = state.MAX_STEP  # clamped to the trace's length


@st.fragment(run_every=live.follow_every())  # a following student's player polls
def trace_player(tok: Tokenizer, lesson: sidebar.Lesson, text: str) -> None:
    source, settings = lesson.source, lesson.settings
    assert source is not None  # the page drew a tokenizer: there is a corpus
    digest = hashlib.sha256(f"{runs.run_digest(source, settings)}|{text}".encode()).hexdigest()[:20]
    history = runs.trace_history(sources.digest(source), settings, text, source)
    player.mount("player_trace", "trace", digest, len(history["fired"]), "trace_step", lambda: history)


def open_in_table(tok: Tokenizer, lesson: sidebar.Lesson, text: str) -> None:
    """Pick a merge of the trace and jump to its row on the Train page."""
    assert lesson.source is not None  # the page drew a tokenizer: there is a corpus
    fired = [f[0] for f in runs.trace_history(sources.digest(lesson.source), lesson.settings, text, lesson.source)["fired"]]
    if not fired:
        return
    row = st.container(horizontal=True, vertical_alignment="bottom")
    rank = row.selectbox(t("open_merge"), fired, index=len(fired) - 1, key="trace_open", width=360,
                         format_func=lambda r: f"#{r}: {render.show(tok.merges[r - 1].token)}")
    if row.button(t("open_button"), key="trace_open_btn"):
        st.session_state.step = rank
        st.switch_page(page_path("train"))


def final_tokens(tok: Tokenizer, text: str, ids: list[int]) -> None:
    st.subheader(t("final_tokens"))
    views.chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
    same = t("round_trip_ok") if tok.decode(ids) == text else t("round_trip_differs")
    st.markdown(f"{t('n_tokens', n=len(ids), chars=len(text))} · {same}")
    fallback = sorted({ch for ch in text if tok.level == "chars" and ch not in (tok.alphabet or ())})
    if fallback:
        st.caption(t("fallback", chars=", ".join(render.code(repr(ch)) for ch in fallback[:20])))


def inspector_controls(text: str) -> tuple[int, int]:
    """The toggles every row of chips follows, and the span of the sentence to outline in each row."""
    row = st.container(horizontal=True, vertical_alignment="center")
    row.toggle(t("show_whitespace"), help=t("show_whitespace_help"), **state.bind("show_whitespace", True, (True, False)))
    row.toggle(t("byte_view"), help=t("byte_view_help"), **state.bind("byte_view", False, (True, False)))
    length = min(len(text), MAX_SPAN_TEXT)
    if length < 2:
        return (0, 0)
    key = "span_" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]  # a new sentence starts unmarked
    start, end = st.slider(t("span_label"), 0, length, (0, 0), key=key, help=t("span_help"))
    if end > start:
        st.caption(t("span_caption", span=render.code(render.show(text[start:end])), a=start, b=end))
    return (start, end)


COUNT_CACHE = 8  # files whose counts a session keeps (a rerun redraws the table without counting again)


def count_file(tok: Tokenizer | None, lesson: sidebar.Lesson) -> None:
    """How many tokens is my file? The trained tokenizer and every real one, on an uploaded file, counted in a process
    of its own (app/box.py): stopped when the visitor leaves or the budget runs out, its memory capped."""
    st.subheader(t("count_file_title"))
    upload = st.file_uploader(t("count_file_label", cap=MAX_COUNT_MB), type=["txt", "md", "py", "csv", "json", "html"],
                              key="count_upload", max_upload_size=MAX_COUNT_MB, help=t("count_file_help", cap=MAX_COUNT_MB))
    if upload is None:
        return
    if upload.size > MAX_COUNT_MB * 1_000_000:
        st.error(t("too_big", name=render.md(upload.name), size=upload.size / 1e6, cap=MAX_COUNT_MB))
        return
    data = upload.getvalue()
    text = data.decode("utf-8", "surrogateescape")
    labels = {name: encoding.label for name, encoding in ENCODINGS.items()}
    header: dict = {"names": list(ENCODINGS), "cut_at": "gpt2", "trained": None}
    blobs = [data]
    if tok is not None and lesson.source is not None and (tok.level == "bytes" or not has_raw_bytes(text)):
        trained = _as_file(tok)
        if trained is not None:
            header.update(trained=t("trained_here"), cut_at=_cut_at(tok))
            blobs.append(trained)
    key = hashlib.sha256(data + b"\0" + (blobs[1] if len(blobs) > 1 else b"")).hexdigest()
    cache = st.session_state.setdefault("count_cache", {})
    if key not in cache:
        try:
            cache[key] = _count_in_box(header, blobs)
        except BpevizError as exc:
            st.error(render.md(error_text(exc)))
            return
        while len(cache) > COUNT_CACHE:
            cache.pop(next(iter(cache)))
    rows = []
    for label, n in cache[key].items():
        rows.append({t("col_tokenizer"): labels.get(label, label), t("col_tokens"): num(n), t("col_characters"): num(len(text)),
                     t("col_bytes"): num(len(data)), t("col_bytes_per_token"): num(len(data) / n, ".2f") if n else "–"})
    st.caption(t("count_file_caption", name=render.md(upload.name)))
    st.table(pd.DataFrame(rows).set_index(t("col_tokenizer")))  # seven rows: a plain table reads on a projector


def _count_in_box(header: dict, blobs: list[bytes]) -> dict[str, int]:
    """The counts, with a bar that says which tokenizer is counting (or how many visitors' tasks are ahead)."""
    bar = st.progress(0.0, text=t("counting_start"))

    def on_message(message: dict) -> None:
        done = (message["tokenizer"] + message["done"] / message["total"]) / message["tokenizers"]
        bar.progress(min(1.0, done), text=t("counting_with", name=render.md(message["label"])))

    def on_wait(ahead: int) -> None:
        bar.progress(0.0, text=t("count_waiting", n=ahead))

    try:
        return box.run("count_file", header, blobs, budget=runs.budget(), on_message=on_message, on_wait=on_wait)["tokens"]
    finally:
        bar.empty()


def _as_file(tok: Tokenizer) -> bytes | None:
    """The trained tokenizer as a bpeviz file for the counting process, or None if it cannot be written as one."""
    try:
        return formats.FORMATS["json"].write(tok)
    except (ValueError, TypeError, AttributeError):
        return None


def _cut_at(tok: Tokenizer) -> str:
    """A split the file may be cut at for every tokenizer counted: GPT-2's, unless the trained one's cannot be cut."""
    pattern = tok.settings.pretokenizer
    return "gpt2" if pretokenize.is_chunkable(pattern) else pattern


def dropout_section(tok: Tokenizer, lesson: sidebar.Lesson, text: str) -> None:
    """BPE-dropout: merges skipped at random; the same seed gives the same samples. Then Unigram's samples beside it."""
    st.subheader(t("dropout_title"))
    st.caption(t("dropout_caption"))
    c1, c2, c3 = st.columns([2, 1, 1])
    p = c1.slider(t("dropout_p"), 0.0, 0.9, step=0.05, **state.bind("dropout_p"))
    seed = int(c2.number_input(t("dropout_seed"), 0, 10**6, **state.bind("dropout_seed")))
    n = int(c3.selectbox(t("dropout_samples"), SAMPLE_SIZES, format_func=bound(lambda v, lg: num(v, ",", lg)),
                         **state.bind("dropout_n", SAMPLE_SIZES[0], SAMPLE_SIZES)))
    short = text[:MAX_DROPOUT_TEXT]
    steps: list[sampling.DropoutStep] = []
    ids = sampling.dropout_encode(tok, short, p, seed, steps)
    views.chips([(i, tok.token_of(i)) for i in ids], tok=tok, show_ids=True)
    skipped = [s for s in steps if s.skipped]
    st.caption(t("dropout_result", tokens=len(ids), usual=len(tok.encode_ordinary(short)), n=len(skipped)))
    if steps:
        views.table(pd.DataFrame({t("col_rank"): [s.rank for s in steps],
                                  t("col_merge"): [f"{render.show(s.left)} + {render.show(s.right)}" for s in steps],
                                  t("dropout_what"): [t("dropout_skipped" if s.skipped else "dropout_made") for s in steps]}),
                    height=min(36 * (len(steps) + 1), 260))
    words = [w for w in dict.fromkeys(pretokenize.split_text(short, tok.settings.pretokenizer)) if w.strip()]
    if not words:
        return
    longest = max(range(len(words)), key=lambda k: len(words[k]))
    key = "dropout_w_" + hashlib.sha256(short.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    word = st.selectbox(t("dropout_word"), words, index=longest, key=key, format_func=render.show)
    counts = sampling.dropout_counts(tok, word, p, n, seed)
    distribution_chart(counts, n, "BPE-dropout")
    if lesson.source is not None and not sources.is_replay(lesson.source):
        unigram_samples(lesson, word, n, seed)


def distribution_chart(counts, n: int, title: str, probability: dict | None = None) -> None:
    """The top segmentations of a word and how often each came out of n samples (and the model's probability)."""
    top = counts.most_common(TOP_SEGMENTATIONS)
    rows = pd.DataFrame({"segmentation": [" · ".join(render.show(p) for p in seg) for seg, _ in top],
                         "share": [c / n for _, c in top]})
    chart = alt.Chart(rows).mark_bar().encode(
        x=alt.X("share:Q", axis=alt.Axis(format="%"), title=t("dropout_share", n=n)),
        y=alt.Y("segmentation:N", sort="-x", title=None, axis=alt.Axis(labelLimit=400, labelFontSize=13)),
        tooltip=[alt.Tooltip("segmentation:N", title=t("col_segmentation")), alt.Tooltip("share:Q", format=".1%")])
    st.markdown(f"**{title}** · {t('dropout_distinct', k=len(counts))}")
    views.chart(chart.properties(height=alt.Step(24)))


def unigram_samples(lesson: sidebar.Lesson, word: str, n: int, seed: int) -> None:
    """Unigram's sampled segmentations of the same word, with the model's own probability of each."""
    base = lesson.settings
    settings = resolve_settings(base.vocab_size, pretokenizer=base.pretokenizer, algorithm="unigram")
    try:
        unigram = runs.run(lesson.source, settings) if lesson.source is not None else None
    except ValueError as exc:
        st.caption(t("unigram_unavailable", why=render.md(error_text(exc))))
        return
    if not isinstance(unigram, UnigramTokenizer):
        return
    alpha = st.slider(t("unigram_alpha"), 0.1, 2.0, step=0.1, help=t("unigram_alpha_help"), **state.bind("unigram_alpha", 1.0))
    counts = unigram.sample_counts(word, alpha, n, seed)
    distribution_chart(counts, n, t("unigram_samples_title", vocab=unigram.vocab_size))
    if alpha == 1.0:  # then a segmentation comes out as often as the model says it should
        exact = {tuple(p): q for p, q in unigram.nbest(word, TOP_SEGMENTATIONS)}
        top = counts.most_common(TOP_SEGMENTATIONS)
        views.table(pd.DataFrame({
            t("col_segmentation"): [" · ".join(render.show(x) for x in seg) for seg, _ in top],
            t("dropout_sampled"): [num(c / n, ".1%") for _, c in top],
            t("col_probability"): [num(exact[seg], ".1%") if seg in exact else "–" for seg, _ in top],
        }))


def suggestions() -> None:
    row = st.container(horizontal=True)  # wraps on a narrow screen instead of cutting the labels
    for key, sentence in SUGGESTIONS.items():
        row.button(t(f"sugg_{key}"), on_click=_suggest, args=(sentence,), key=f"suggest_{key}")


def answer(tok: Tokenizer, lesson: sidebar.Lesson, text: str, ids: list[int]) -> None:
    """What the sentence becomes, here and in the real tokenizers (hidden while the class votes on it)."""
    open_in_table(tok, lesson, text[:MAX_TRACE])
    final_tokens(tok, text, ids)
    st.subheader(t("real_tokenizers"))
    span = inspector_controls(text)
    views.compare(text, tok, span=span)
    spaces = views.leading_space_note(text)
    if spaces:
        st.info(spaces)
    dropout_section(tok, lesson, text)


st.title(t("encode_title"))
lesson = sidebar.current()
tok = runs.for_page(lesson)
suggestions()
text = st.text_area(t("sentence"), key="sentence", height=80, on_change=_show_whole_trace)

if not text:
    st.info(t("type_sentence"))
elif len(text) > state.MAX_SENTENCE:
    st.error(t("sentence_too_long", n=len(text), cap=state.MAX_SENTENCE))
elif tok is not None:
    if ENDOFTEXT in text:
        st.info(t("endoftext_note", token=render.code(ENDOFTEXT)))
    try:
        ids = tok.encode_ordinary(text)
    except ValueError as exc:
        st.error(render.md(error_text(exc)))
        st.stop()
    if len(text) <= MAX_TRACE and isinstance(tok, Tokenizer):
        votes.vote_controls("tokens", votes.tokens_question(tok, text))
    st.subheader(t("trace"))
    if len(text) > MAX_TRACE:
        st.warning(t("trace_cut", cap=MAX_TRACE))
    trace_player(tok, lesson, text[:MAX_TRACE])
    if votes.held("tokens") is not None:  # the class is voting on these tokens: the answer waits for the reveal
        st.info(t("live_answer_hidden"))
    else:
        answer(tok, lesson, text, ids)
count_file(tok, lesson)
