"""bpeviz: watch a BPE tokenizer learn. Run with `streamlit run app.py`."""

import streamlit as st

from app_pages import lesson
from app_pages.i18n import t

st.set_page_config(page_title="bpeviz: how BPE tokenizers learn", page_icon=":material/token:", layout="wide")
lesson.init_state()
lesson.apply_style()
lg = lesson.lang()
pages = [
    st.Page("app_pages/train.py", title=t("nav_train", lg), icon=":material/school:", default=True),
    st.Page("app_pages/encode.py", title=t("nav_encode", lg), icon=":material/text_fields:", url_path="encode"),
    st.Page("app_pages/charts.py", title=t("nav_charts", lg), icon=":material/show_chart:", url_path="charts"),
    st.Page("app_pages/quirks.py", title=t("nav_quirks", lg), icon=":material/psychology_alt:", url_path="quirks"),
    st.Page("app_pages/files.py", title=t("nav_files", lg), icon=":material/save:", url_path="files"),
]
page = st.navigation(pages)
lesson.sidebar()
if st.session_state.pop("_url_warning", None):
    st.warning("Some settings in the address were not understood and were left at their defaults.")
page.run()
lesson.sync_url()
