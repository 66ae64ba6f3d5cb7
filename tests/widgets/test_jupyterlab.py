"""The Player in a real JupyterLab, driven in headless Chromium: a notebook builds it on the toy corpus, the test steps
it to 41/41 with clicks and keys, checks the merge table and the chips, and Python sees the step."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest
from conftest import ARTIFACTS, SCREENSHOTS, _free_port

pytestmark = [pytest.mark.browser, pytest.mark.server]

CELLS = [
    "import bpeviz\nfrom bpeviz import corpora\nfrom bpeviz.widgets import Player\n"
    "docs = corpora.documents('toy_pt')\ntok = bpeviz.train(docs, vocab_size=64, level='chars')\n"
    "player = Player(tok, corpus=docs)\nplayer",
    "print('python sees step', player.step)",
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a free loopback port, no token, its settings and runtime in a temporary folder."""
    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "player.ipynb")
    port = _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(root / ".config"), "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(root / ".settings"), "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces")}
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "jupyterlab.log", "w")  # noqa: SIM115  # closed after the server stops
    proc = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1", "--port", str(port),
                             "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.root_dir=" + str(root),
                             "--LabApp.news_url=", "--ServerApp.disable_check_xsrf=True", "--allow-root",
                             "--LabApp.extension_manager=readonly"],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url + "/api/status", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("JupyterLab did not start: see test-artifacts/jupyterlab.log") from None
            time.sleep(0.3)
    yield url
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


def test_the_player_steps_in_jupyterlab_with_clicks_and_keys(lab, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(lab + "/lab/tree/player.ipynb")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    # the kernel is up and idle before a cell runs (the status bar says so)
    page.wait_for_function("() => /Idle/.test(document.querySelector('#jp-main-statusbar')?.innerText || '')",
                           timeout=120_000)
    try:
        page.locator(".jp-Cell .jp-InputArea-editor").first.click()
        page.keyboard.press("Shift+Enter")  # run the cell that builds the player
        counter = page.locator(".bpe-player [data-testid='bpe-counter']")
        counter.wait_for(timeout=120_000)
    except Exception:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "failed-jupyterlab.png"), full_page=True)
        (ARTIFACTS / "failed-jupyterlab.txt").write_text(page.inner_text("body"))
        raise
    assert counter.inner_text().replace(" ", "").startswith("0/41")
    page.get_by_role("button", name="Last").first.click()
    page.wait_for_function("() => document.querySelector(\".bpe-player [data-testid='bpe-counter']\").innerText"
                           ".replace(/\\s/g, '').startsWith('41/41')", timeout=10_000)
    rows = page.locator(".bpe-player table.bpe-table tbody tr")
    assert rows.count() == 41
    chips = page.locator(".bpe-player [data-testid='bpe-corpus'] .bpe-chip")
    assert chips.count() > 20
    page.locator(".bpe-player [data-testid='bpe-counter']").click()  # focus the output, not a text box
    page.keyboard.press("p")
    page.wait_for_function("() => document.querySelector(\".bpe-player [data-testid='bpe-counter']\").innerText"
                           ".replace(/\\s/g, '').startsWith('40/41')", timeout=10_000)
    page.keyboard.press("n")
    page.wait_for_function("() => document.querySelector(\".bpe-player [data-testid='bpe-counter']\").innerText"
                           ".replace(/\\s/g, '').startsWith('41/41')", timeout=10_000)
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "notebook-player-jupyterlab.png"))
    page.wait_for_timeout(600)  # the player tells Python at most every 400 ms
    page.locator(".jp-Cell").nth(1).click()
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Enter")
    page.wait_for_function("() => document.body.innerText.includes('python sees step 41')", timeout=60_000)
    outside = [u for u in requests if not u.startswith(lab) and not u.startswith(("data:", "blob:"))]
    assert outside == []  # nothing from a CDN or anywhere else
    context.close()
