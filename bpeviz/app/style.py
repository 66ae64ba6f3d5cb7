"""The app's CSS (assets/*.css): chips, tables, and classroom mode (large type, high contrast, for a projector)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import streamlit as st

from bpeviz.lessons import render

ASSETS = Path(__file__).resolve().parent / "assets"


@cache
def asset(name: str) -> str:
    """The text of a file in assets/ (CSS, the player's JavaScript)."""
    return (ASSETS / name).read_text(encoding="utf-8")


@cache
def css(name: str) -> str:
    """A stylesheet from assets/, wrapped for st.markdown, its comments left out: st.markdown reads the text between
    one comment's closing and the next one's opening star as Markdown emphasis and drops the stars, which left the
    first comment unclosed and every rule after it unread; and a blank line ends its HTML block."""
    rules = re.sub(r"/[*].*?[*]/", "", asset(name), flags=re.S)
    return "<style>\n" + "\n".join(line for line in rules.splitlines() if line.strip()) + "\n</style>"  # a blank line ends it


def apply() -> None:
    """The page's CSS: chips and tables in the page's light or dark theme (theme.js marks which), and classroom mode's
    large type when it is on; Streamlit's own texts translated."""
    sheets = render.CHIP_CSS + css("base.css") + (css("classroom.css") if st.session_state.get("classroom") else "")
    st.markdown(sheets, unsafe_allow_html=True)
    language = "pt" if st.session_state.get("lang") == "pt" else "en"  # the script holds no other value
    scripts = script("streamlit_texts.js").replace("__LANG__", language) + "\n" + script("theme.js")
    st.html(f"<script>{scripts}</script>", unsafe_allow_javascript=True)


@cache
def script(name: str) -> str:
    """A script of assets/ without its comment lines (they are for the reader, not for every page sent)."""
    return "\n".join(line for line in asset(name).splitlines() if not line.lstrip().startswith("//"))
