"""The Streamlit app: pages (pages/) and what they share, one module per job; started by `bpeviz app`."""
