"""bpeviz: watch a BPE tokenizer learn. From a checkout: `streamlit run app.py`; installed: `bpeviz app`.

The app itself lives in the package (bpeviz/app/); this file only runs it.
"""

from bpeviz.app.main import run

run()
