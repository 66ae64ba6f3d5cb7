"""The script Streamlit runs for `bpeviz app` (an installed bpeviz); from a checkout, `streamlit run app.py` is the same."""

from bpeviz.app.main import run

run()
