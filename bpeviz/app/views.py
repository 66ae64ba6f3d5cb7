"""Drawing pieces shared by pages: token chips, and one text through every tokenizer."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

import bpeviz
from bpeviz.core.records import to_bytes
from bpeviz.lessons import metrics, render
from bpeviz.pretrained.encodings import ENCODINGS

from .i18n import lang, t

if TYPE_CHECKING:  # altair and pandas are imported where a chart or a table is drawn: the first page draws none
    import altair as alt  # (1.2 s and 0.3 s less before it shows)
    import pandas as pd


def token_info(token_id: int, token: str | bytes, tok=None, reference_name: str | None = None) -> str:
    """The inspector's lines for one token: id, bytes in hex, and where it comes from (merge and parents, or rank)."""
    data = token if isinstance(token, bytes) else to_bytes(token)
    lines = [t("tip_id", id=token_id), t("tip_bytes", hex=render.hex_bytes(data) or "-")]
    if tok is not None and tok.is_byte_fallback(token_id):
        lines.append(t("tip_fallback"))
    elif isinstance(tok, bpeviz.Tokenizer):
        merge = tok.merge_of(token_id)  # an imported file's tokens keep the file's ids
        lines.append(t("tip_merge", rank=merge.rank, left=render.show(merge.left), right=render.show(merge.right))
                     if merge is not None else t("tip_base"))
    elif reference_name is not None:
        parents = reference_parents(reference_name, token_id)
        rank = getattr(reference(reference_name), "rank_of", lambda i: i)(token_id)  # Tekken: ids start after specials
        said = [t("tip_rank", rank=rank)] if rank is not None else []
        if parents:
            said.append(t("tip_parents", left=render.show(parents[0]), right=render.show(parents[1])))
        if said:
            lines.append(" · ".join(said))
    if render.is_partial(token):
        lines.append(t("tip_partial"))
    return "\n".join(lines)


@st.cache_data(max_entries=20_000, show_spinner=False)
def reference_parents(name: str, token_id: int) -> tuple[bytes, bytes] | None:
    """The two tokens a real tokenizer's token was merged from (tiktoken: the split its lower ranks make)."""
    from bpeviz import formats
    from bpeviz.pretrained.open_models import tiktoken_parts

    enc = reference(name)
    parents = getattr(enc, "parents", None)
    if parents is not None:
        return parents(token_id)
    ranks = (tiktoken_parts(enc) or ({}, ""))[0]
    token = enc.decode_single_token_bytes(token_id)
    if not ranks or len(token) < 2 or token not in ranks:
        return None
    return formats.split_by_lower_ranks(token, ranks[token], ranks)


MAX_CHIPS = 2_000  # tokens drawn as chips; the counts beside them cover the whole text


def chips(tokens: Sequence[tuple[int, str | bytes]], *, tok=None, show_ids: bool = False, highlight: int | None = None,
          reference_name: str | None = None, marks: Sequence[bool] | None = None) -> None:
    """Draw (id, token) pairs as coloured chips with the inspector; byte-fallback and cut-character tokens flagged.

    The Encode page's toggles (session state) choose plain whitespace or marks, and the byte view.
    """
    ss = st.session_state
    text_of = render.show if ss.get("show_whitespace", True) else render.plain_text
    shown = tokens[:MAX_CHIPS]  # a chip is about 1 KB of HTML: 100 000 of them took 41 s and 120 MB per rerun
    items = [
        render.Chip(text_of(token), token_id, partial=render.is_partial(token),
                    fallback=bool(tok is not None and tok.is_byte_fallback(token_id)), highlight=token_id == highlight,
                    info=token_info(token_id, token, tok, reference_name),
                    hex=render.hex_bytes(token if isinstance(token, bytes) else to_bytes(token)),
                    marked=bool(marks[k]) if marks is not None else False)
        for k, (token_id, token) in enumerate(shown)
    ]
    st.markdown(render.chips_html(items, show_ids=show_ids, byte_view=bool(ss.get("byte_view"))), unsafe_allow_html=True)
    if len(tokens) > len(shown):
        st.caption(t("chips_cut", shown=len(shown), n=len(tokens)))
    if any(chip.fallback for chip in items):
        st.caption(t("legend_fallback"))
    elif any(chip.partial for chip in items):
        st.caption(t("legend_partial"))


# 26 colours told apart at a glance (Kelly's 20 of maximum contrast, then six more): the 26-language area chart
# repeated the default ten (German and Indonesian the same blue)
MANY_COLOURS = ("#F3C300", "#875692", "#F38400", "#A1CAF1", "#BE0032", "#C2B280", "#848482", "#008856", "#E68FAC",
                "#0067A5", "#F99379", "#604E97", "#F6A600", "#B3446C", "#DCD300", "#882D17", "#8DB600", "#654522",
                "#E25822", "#2B3D26", "#1F3A93", "#17BECF", "#FF69B4", "#4B0082", "#2E8B57", "#D2691E")
LEGEND_COLUMNS = 2  # legends wrap; one long row was cut at the chart's edge on a projector (one column there)


NUMBER_LOCALES = {"pt": {"decimal": ",", "thousands": ".", "grouping": [3], "currency": ["R$", ""]}}  # d3-format's


def with_locale(spec: Any, number: dict) -> Any:
    """A copy of the chart whose config has Vega's number locale (its other config kept)."""
    import altair as alt

    spec = spec.copy(deep=False)
    config = alt.Config() if spec.config is alt.Undefined else spec.config.copy(deep=False)
    config.locale = {"number": number}
    spec.config = config
    return spec


def chart(spec: alt.TopLevelMixin, **kwargs) -> None:
    """st.altair_chart with legends that wrap and never cut a name, and large type in classroom mode."""
    big = bool(st.session_state.get("classroom"))
    if lang() in NUMBER_LOCALES:  # the axes, labels and tooltips write numbers as the interface language does
        spec = with_locale(spec, NUMBER_LOCALES[lang()])
    legend: dict = {"labelLimit": 0, "columns": LEGEND_COLUMNS}  # a legend's own columns= wins (the 26 languages)
    if big:  # large, and at full contrast by classroom.css in either theme (the theme's grey is 3.7:1 on white)
        legend.update(labelFontSize=18, titleFontSize=18, columns=1)
        spec = spec.configure_axis(labelFontSize=18, titleFontSize=18)
        spec = spec.configure_text(fontSize=18)
    st.altair_chart(spec.configure_legend(**legend), width="stretch", **kwargs)


CLASSROOM_TABLE_HEIGHT = 520  # px: a long table scrolls inside this box in classroom mode


def heading(column: object) -> str:
    """A column's name for a projector table: escaped, and breakable after _ / ( as well as at spaces (never inside
    a word: "pala|vras"), so that eight tokenizer names fit 1024 px."""
    breakable = re.sub(r"([_/(])(?=\w)", "\\1\u200b", render.md(str(column)))
    return breakable.replace("\\-", "\u2011")  # GPT-2 stays whole: a non-breaking hyphen


def table(frame: pd.DataFrame, *, height: int | None = None, highlight: Callable[[pd.Series], bool] | None = None,
          classroom_columns: list[str] | None = None) -> None:
    """A table of data: st.dataframe (sortable, scrolls) or, in classroom mode, a plain table whose type the mode enlarges.

    st.dataframe draws on a canvas at the theme's ~13 px, which no stylesheet reaches; st.table is HTML but reads its
    cells as Markdown, so every text cell and heading is escaped there (a token may be "[x](y)").
    highlight: rows for which it is true get a yellow background. classroom_columns: the columns a projector shows.
    """
    import pandas as pd

    big = bool(st.session_state.get("classroom"))
    if big:
        frame = frame[classroom_columns] if classroom_columns else frame
        # a cell may wrap after a token separator "|" (an invisible space there): "1|000|000" in a 1024 px projector column
        inert = lambda v: render.md(v).replace("\\|", "\\|\u200b") if isinstance(v, str) else v  # noqa: E731
        frame = pd.DataFrame({heading(c): col.map(inert) for c, col in frame.items()}, index=frame.index)
    data = frame if highlight is None else \
        frame.style.apply(lambda row: ["background-color: #ffe97a; color: #111" if highlight(row) else "" for _ in row], axis=1)
    if big:
        st.table(data, hide_index=True, height=CLASSROOM_TABLE_HEIGHT if len(frame) > 12 else "content")
    else:
        st.dataframe(data, hide_index=True, width="stretch", height=height or "auto")


def progress_bar():  # -> (the slot, progress(done, total))
    """An empty slot and a progress(done, total) that draws training's bar in it; slot.empty() clears it."""
    slot = st.empty()

    def progress(done: int, total: int) -> None:
        slot.progress(done / max(total, 1), text=t("training_progress", done=done, total=total))

    return slot, progress


def language_dots(table: pd.DataFrame, y: str, x: str, x_title: str, order: list, tooltip: list) -> alt.Chart:
    """One row per language (sorted by `order`), one coloured and shaped dot per tokenizer at its value of `x`."""
    import altair as alt

    return alt.Chart(table).mark_point(filled=True, size=110).encode(
        y=alt.Y(f"{y}:N", sort=order, title=None, axis=alt.Axis(labelFontSize=13, labelLimit=240)),
        x=alt.X(f"{x}:Q", title=x_title),
        color=alt.Color("tokenizer:N", legend=alt.Legend(orient="top", title=None)),
        shape=alt.Shape("tokenizer:N", legend=None),
        tooltip=tooltip,
    ).properties(height=alt.Step(22))


@st.cache_resource(show_spinner=False)
def reference(name: str):
    """A real encoding; read-only and the same for everyone, so shared."""
    with st.spinner(t("loading_references")):
        return bpeviz.reference(name)


def reference_tokens(name: str, text: str) -> list[tuple[int, bytes]]:
    enc = reference(name)
    return [(i, enc.decode_single_token_bytes(i)) for i in enc.encode_ordinary(text)]


def compare(text: str, tok: bpeviz.Tokenizer | None, *, label: str | None = None, show_table: bool = True,
            span: tuple[int, int] = (0, 0)) -> None:
    """The text through the trained tokenizer (called `label`) and the real ones: chips with ids, then the numbers.

    span: characters text[a:b] whose tokens are outlined in every row.
    """
    rows = []
    if tok is not None:
        label = label or t("trained_here")
        ids = tok.encode_ordinary(text)
        st.markdown(f"**{label}** · {t('n_tokens_short', n=len(ids))}")
        tokens = [(i, tok.token_of(i)) for i in ids]
        chips(tokens, tok=tok, show_ids=True, marks=render.covering([tok.token_bytes(i) for i in ids], text, *span))
        rows.append((label, len(ids)))
    for name, encoding in ENCODINGS.items():
        pieces = reference_tokens(name, text)
        st.markdown(f"**{render.md(encoding.label)}** · {t('n_tokens_short', n=len(pieces))}")
        chips(list(pieces), show_ids=True, reference_name=name, marks=render.covering([b for _, b in pieces], text, *span),
              tok=getattr(reference(name), "tokenizer", None))  # a SentencePiece model flags its byte-fallback pieces
        rows.append((encoding.label, len(pieces)))
    if show_table and text:
        import pandas as pd

        words = metrics.count_words(text)
        n_bytes = len(to_bytes(text))
        table(pd.DataFrame({
            t("col_tokenizer"): [r[0] for r in rows],
            t("col_tokens"): [r[1] for r in rows],
            t("col_tokens_per_word"): [round(r[1] / words, 2) if words else None for r in rows],
            t("col_bytes_per_token"): [round(n_bytes / r[1], 2) if r[1] else None for r in rows],
        }))


def leading_space_note(text: str) -> str | None:
    """When a word appears as `the`, ` the` or `The` in text, say that these are different cl100k tokens."""
    enc = reference("cl100k_base")
    forms: dict[str, dict[str, int]] = {}
    for i in enc.encode_ordinary(text):
        piece = enc.decode_single_token_bytes(i).decode("utf-8", "replace")
        key = piece.strip().lower()
        if key.isalpha():
            forms.setdefault(key, {})[piece] = i
    mixed = {k: v for k, v in forms.items() if len(v) > 1}
    if not mixed:
        return None
    variants = next(iter(mixed.values()))
    listing = ", ".join(f"{render.code(render.show(p))} = {i}" for p, i in variants.items())
    return t("same_word_note", listing=listing)
