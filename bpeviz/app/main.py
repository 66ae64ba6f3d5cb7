"""The app's navigation: every page, the sidebar, the live class; `run()` once per rerun (see streamlit_app.py)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import live, reclaim, runs, sidebar, state, style
from .i18n import t

PAGES = Path(__file__).resolve().parent / "pages"
# (file, title key, icon, url path): the first is the default page
PAGE_LIST = (
    ("train.py", "nav_train", ":material/school:", ""),
    ("encode.py", "nav_encode", ":material/text_fields:", "encode"),
    ("rules.py", "nav_rules", ":material/rule:", "rules"),
    ("algorithms.py", "nav_algorithms", ":material/compare:", "algorithms"),
    ("charts.py", "nav_charts", ":material/show_chart:", "charts"),
    ("languages.py", "nav_languages", ":material/translate:", "languages"),
    ("quirks.py", "nav_quirks", ":material/psychology_alt:", "quirks"),
    ("beyond.py", "nav_beyond", ":material/auto_awesome:", "beyond"),
    ("graft.py", "nav_graft", ":material/call_split:", "graft"),
    ("inspect.py", "nav_inspect", ":material/search:", "inspect"),
    ("files.py", "nav_files", ":material/save:", "files"),
)


def page_path(name: str) -> str:
    """A page's file as st.switch_page takes it: "train" -> .../bpeviz/app/pages/train.py."""
    return str(PAGES / f"{name}.py")


def run() -> None:
    """Draw the app once: configuration, navigation, sidebar, the chosen page, then what the URL and the class keep."""
    st.set_page_config(page_title="bpeviz: how BPE tokenizers learn", page_icon=str(style.ASSETS / "icon.png"), layout="wide")
    state.init()
    style.apply()
    pages = [st.Page(PAGES / file, title=t(title), icon=icon, **({"url_path": url} if url else {"default": True}))
             for file, title, icon, url in PAGE_LIST]
    live.catch_up({p.url_path: p for p in pages})  # a student following the teacher: before any widget is drawn
    page = st.navigation(pages)
    sidebar.show()
    with st.sidebar:
        live.teacher_panel()
    live.student_bar()
    live.teacher_banner()
    reclaim.keeper()  # a reload gives the teacher's class back
    for kind, notice in state.pop_notices():
        getattr(st, kind)(notice)
    try:
        page.run()
    finally:  # a page that stopped early (st.stop, an error shown) still keeps what was chosen on it
        state.keep()
        runs.warm_up()  # once per server, after the first page is drawn: its imports and reads do not slow that page
    state.sync_url()
    live.publish(page.url_path)
