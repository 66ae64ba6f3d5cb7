"""Counting a big file: the process pool against Dask's local:N (workers reading their own byte ranges), as ratios.

    python bench/cluster.py [MEGABYTES]   # default 200; needs the cluster extra: pip install -e ".[cluster]"

Writes a file of the shipped corpora repeated (in a temporary folder), counts it with
`count_files(workers=N)` and with `scheduler="local:N"` (N = the machine's cores), checks the two
tables are equal, order included, and prints the times and their ratio (issue 29 asks for
local:N within 1.2x of the pool). The cluster's start-up is timed apart.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (puts the repository on the path)

from bpeviz.counting import blocks as counting
from bpeviz.data import corpora


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    n = os.cpu_count() or 1
    text = "\n".join(corpora.corpus_text(name) for name in ("english", "portuguese", "python"))
    text += "".join(corpora.corpus_text(f"udhr-{code}") for code in corpora.UDHR_LANGUAGES)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.txt"
        with open(path, "w", encoding="utf-8") as out:
            for _ in range(megabytes * 1_000_000 // len(text.encode()) + 1):
                out.write(text)
        size = path.stat().st_size / 1e6
        start = time.perf_counter()
        pool = counting.count_files([path], "gpt4", workers=n)
        t_pool = time.perf_counter() - start
        from distributed import Client, LocalCluster

        start = time.perf_counter()
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address="127.0.0.1:0") as cluster, Client(cluster):
            t_up = time.perf_counter() - start
            start = time.perf_counter()
            dask = counting.count_files([path], "gpt4", scheduler=cluster.scheduler_address)
            t_dask = time.perf_counter() - start
        assert list(dask.counts.items()) == list(pool.counts.items())
    print(f"{size:.0f} MB, gpt4 split, {n} cores: process pool {t_pool:.1f} s, Dask {n} workers {t_dask:.1f} s "
          f"(+{t_up:.1f} s to start the cluster): Dask / pool = {t_dask / t_pool:.2f}x, tables equal")


if __name__ == "__main__":
    main()
