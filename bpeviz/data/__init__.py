"""Data: the corpora bpeviz ships, read from inside the package."""
