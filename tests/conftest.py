import json
import os
import socket
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
sys.path.insert(0, str(TESTS))  # for the helpers and oracles here (naive.py, naive_beyond.py, app_helpers.py)


# A test's kind follows from what it uses, so no test can forget its mark (pyproject.toml lists the marks).
KIND_OF_FIXTURE = {"browser": "browser", "page": "browser", "app_server": "server", "app_url": "server", "cluster": "cluster"}


def pytest_collection_modifyitems(items):
    for item in items:
        for kind in {KIND_OF_FIXTURE[f] for f in getattr(item, "fixturenames", ()) if f in KIND_OF_FIXTURE}:
            item.add_marker(kind)


@pytest.fixture(scope="session")
def toy_reference() -> dict:
    return json.loads((TESTS / "toy_pt_merges.json").read_text(encoding="utf-8"))


LOOPBACK = ("127.", "localhost", "::1")


def _is_loopback(host) -> bool:
    return isinstance(host, str) and (host.startswith(LOOPBACK) or host == "")


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch):
    """Every test: any connection or name lookup beyond 127.0.0.1 fails loudly (in this process)."""
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

    def getaddrinfo(host, *args, **kwargs):
        if not _is_loopback(host):
            raise OSError(f"network blocked by the test: lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
            raise OSError(f"network blocked by the test: {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture()
def no_network(monkeypatch):
    """Stricter still: no name lookup at all, even of localhost."""

    def refuse(*args, **kwargs):
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)


# -- the real app in a real browser ---------------------------------------------------------

ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ROOT / "screenshots"
CHROMIUM = "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_url(app_server) -> str:
    return app_server.url


class Server:
    """The running app: its address and process (for memory readings)."""

    def __init__(self, url: str, pid: int) -> None:
        self.url, self.pid = url, pid

    def rss_mb(self) -> float:
        """Resident memory of the server process, from /proc."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


@pytest.fixture(scope="session")
def app_server(request):
    """Start `streamlit run app.py` on a free loopback port; stop it at the end, keep its log on failure."""
    import subprocess
    import time
    import urllib.request

    ARTIFACTS.mkdir(exist_ok=True)
    port = _free_port()
    log_path = ARTIFACTS / "streamlit-server.log"
    log = open(log_path, "w")  # noqa: SIM115  # closed in the finally below, after the server stops
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start; see {log_path}:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.3)
        yield Server(url, proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        failed = request.session.testsfailed
        if not failed:
            log_path.unlink(missing_ok=True)
        else:
            print(f"\nstreamlit server log kept at {log_path}")


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (scripts/setup.sh test does it)")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )
        yield b
        b.close()


@pytest.fixture()
def page(browser, request):
    """A fresh browser context and page; records dialogs (nothing should ever open one) and page errors."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.dialogs = []
    pg.requests = []  # every URL the page asked for: nothing may leave the app's origin
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.on("request", lambda r: pg.requests.append(r.url))
    yield pg
    if getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / f"failed-{request.node.name}.png"), full_page=True)
    context.close()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


def shot(pg, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)
