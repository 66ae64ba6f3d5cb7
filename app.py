"""bpeviz: watch a BPE tokenizer learn (and WordPiece and Unigram beside it). Run with `streamlit run app.py`."""

import streamlit as st

from bpeviz_app import live, runs, sidebar, state, style
from bpeviz_app.i18n import t

st.set_page_config(page_title="bpeviz: how BPE tokenizers learn", page_icon=str(style.ASSETS / "icon.png"), layout="wide")
state.init()
runs.warm_up()
style.apply()
pages = [
    st.Page("app_pages/train.py", title=t("nav_train"), icon=":material/school:", default=True),
    st.Page("app_pages/encode.py", title=t("nav_encode"), icon=":material/text_fields:", url_path="encode"),
    st.Page("app_pages/rules.py", title=t("nav_rules"), icon=":material/rule:", url_path="rules"),
    st.Page("app_pages/algorithms.py", title=t("nav_algorithms"), icon=":material/compare:", url_path="algorithms"),
    st.Page("app_pages/charts.py", title=t("nav_charts"), icon=":material/show_chart:", url_path="charts"),
    st.Page("app_pages/languages.py", title=t("nav_languages"), icon=":material/translate:", url_path="languages"),
    st.Page("app_pages/quirks.py", title=t("nav_quirks"), icon=":material/psychology_alt:", url_path="quirks"),
    st.Page("app_pages/beyond.py", title=t("nav_beyond"), icon=":material/auto_awesome:", url_path="beyond"),
    st.Page("app_pages/inspect.py", title=t("nav_inspect"), icon=":material/search:", url_path="inspect"),
    st.Page("app_pages/files.py", title=t("nav_files"), icon=":material/save:", url_path="files"),
]
live.catch_up({p.url_path: p for p in pages})  # a student following the teacher: before any widget is drawn
page = st.navigation(pages)
sidebar.show()
with st.sidebar:
    live.teacher_panel()
live.student_bar()
live.teacher_banner()
for kind, notice in state.pop_notices():
    getattr(st, kind)(notice)
try:
    page.run()
finally:  # a page that stopped early (st.stop, an error shown) still keeps what was chosen on it
    state.keep()
state.sync_url()
live.publish(page.url_path)
