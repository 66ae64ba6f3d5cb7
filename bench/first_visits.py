"""Each page's first visit on a fresh server, as a teacher meets it, then the same visit again.

A new `streamlit run` (empty caches; numba's on-disk cache as the machine has it), one Chromium tab, the
pages in the order of the navigation. A visit is timed from the address typed to the page drawn with
Streamlit idle and its main content present (a player's counter, a chart, a metric). The second pass shows
what the caches bought. Usage: .venv/bin/python bench/first_visits.py [--pages train,inspect] [--lang pt]
"""

from __future__ import annotations

import argparse
import sys
import time

from common import ROOT, machine
from load import start_server

sys.path.insert(0, str(ROOT / "tests"))
from browser_helpers import wait_idle  # noqa: E402

# page -> (path, what shows that its main content is drawn)
PAGES = {
    "train": ("/", '[data-testid="bpe-counter"]'),
    "encode": ("/encode", '[data-testid="bpe-counter"]'),
    "rules": ("/rules", '[data-testid="stAlertContainer"]'),
    "algorithms": ("/algorithms", '[data-testid="bpe-counter"]'),
    "charts": ("/charts", ".vega-embed svg .role-mark"),
    "languages": ("/languages", ".vega-embed svg .role-mark"),
    "quirks": ("/quirks", ".bpe-chip"),
    "beyond": ("/beyond", ".vega-embed"),
    "graft": ("/graft", '[data-testid="stMetric"]'),
    "inspect": ("/inspect", '[data-testid="stMetric"]'),
    "files": ("/files", '[data-testid="stFileUploader"]'),
}


def visit(page, url: str, path: str, ready: str, lang: str) -> tuple[float, float]:
    """(seconds until the page's main content shows, seconds until Streamlit is idle)."""
    start = time.perf_counter()
    page.goto(f"{url}{path}?lang={lang}")
    page.wait_for_selector(ready, state="attached", timeout=180_000)
    shown = time.perf_counter() - start
    wait_idle(page, 180)
    return shown, time.perf_counter() - start


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default=",".join(PAGES), help="comma-separated, in visiting order")
    parser.add_argument("--lang", default="en", choices=("en", "pt"))
    args = parser.parse_args()
    names = [n for n in args.pages.split(",") if n]
    print(machine())
    proc, url = start_server()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium")
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            first = {name: visit(tab, url, *PAGES[name], args.lang) for name in names}
            again = {name: visit(tab, url, *PAGES[name], args.lang) for name in names}
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"{'page':<12}{'first: shown':>13}{'done':>8}{'again: shown':>14}{'done':>8}")
    for name in names:
        (s1, d1), (s2, d2) = first[name], again[name]
        print(f"{name:<12}{s1:>12.1f}s{d1:>7.1f}s{s2:>13.1f}s{d2:>7.1f}s")
    done = {name: first[name][1] for name in names}
    print(f"slowest first visit: {max(done, key=done.get)} {max(done.values()):.1f} s to done; first visits over 3 s "
          f"to show: {sum(first[n][0] > 3 for n in names)} of {len(names)}, to done: {sum(v > 3 for v in done.values())}")


if __name__ == "__main__":
    main()
