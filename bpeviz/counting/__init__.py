"""Counting: big corpora streamed in blocks, pre-tokens counted on every core or a Dask cluster, count tables on disk."""
