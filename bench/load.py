"""Load: N browser sessions at once train their own text and step through it on one local server.

    python bench/load.py [--sessions 10] [--url http://127.0.0.1:PORT]
    python bench/load.py --attack        # one session steps while another attacks: latency ratio and memory
    python bench/load.py --attack --normal 8 --attackers 2   # eight sessions step while two attack
    python bench/load.py --attack --uploads --normal 8 --attackers 2   # eight switch pages while two upload whitespace
    python bench/load.py --attack --uploads --normal 8 --attackers 2 --rounds 2   # the same server attacked twice

Without --url it starts `streamlit run app.py` on a free loopback port and stops it at the end.
Each session pastes a different text, trains it, jumps to the last merge and checks that the merge
table and corpus show its own text and nobody else's. Prints per-session times and whether the
server stayed up. With --attack, a teacher's session clicks Next while another session opens
regex compile bombs from links and uploads hostile files; it prints the teacher's step latency
alone and under attack, and the server's memory. Traffic goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_MS = 180_000
WORDS = ["alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima"]


def session_text(k: int) -> tuple[str, str]:
    """A text of its own for session k, and a word only it contains."""
    own = f"{WORDS[k % len(WORDS)]}{k}x"
    return " ".join([own] * 30 + ["o gato subiu no telhado"] * 10), own


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
ATTACKERS_NICE = 19  # the attackers: on their own machines in a real class, here on the server's cores


async def launch(p):
    """Debian's Chromium."""
    return await p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)


ATTACKS = {"hostile": lambda browser, url, k, sustained=False: attack(browser, url, k),
           "heavy": lambda browser, url, k, sustained=False: heavy_training(browser, url, sustained, k),
           "uploads": lambda browser, url, k, sustained=False: whitespace_uploads(browser, url, k)}
SUSTAINED_SECONDS = 60  # the attackers' process: how long a heavy trainer keeps submitting trainings
REPORTING = False  # True in the attackers' process: say on stdout when each attack's heavy part starts and ends


def report(kind: str, k: int, what: str) -> None:
    """In the attackers' process: one line for attackers_elsewhere, "ATTACK <kind> <k> under way|over"."""
    if REPORTING:
        print(f"ATTACK {kind} {k} {what}", flush=True)


class Attack:
    """What the measuring side knows of the attackers' process: when every attack's heavy part was under way, and
    when the first of them was over (time.monotonic); `started` is set once every attack is under way."""

    def __init__(self, jobs: int) -> None:
        self.jobs, self.under_way, self.first_over = jobs, set(), None
        self.started = asyncio.Event()

    def read(self, line: str) -> None:
        _, kind, k, what = line.split(" ", 3)
        if what == "under way":
            self.under_way.add((kind, k))
            if len(self.under_way) == self.jobs:
                self.started.set()
        elif what == "over" and self.first_over is None:
            self.first_over = time.monotonic()

    def held_through(self, end: float) -> str:
        """Whether every attack was still under way at `end`, in words."""
        if self.first_over is None or self.first_over > end:
            return "every attack was under way from the first step to the last"
        return f"the first attack was over {end - self.first_over:.1f} s before the last step ended"


async def after(event: asyncio.Event, coroutine):
    """Run the coroutine once the event is set (bounded by TIMEOUT_MS)."""
    await asyncio.wait_for(event.wait(), TIMEOUT_MS / 1000)
    return await coroutine


async def attackers_elsewhere(url: str, jobs: list[tuple[str, int]], nice: int, attack: Attack | None = None) -> list[str]:
    """The attackers as on machines of their own: another process (its own Python, Playwright driver and Chromium)
    at `nice`, which Chromium cannot undo (as root it sets its own priorities, -8 for its browser process, unless
    CAP_SYS_NICE is dropped). Sharing this process's Playwright driver, a 20 MB upload held the teacher's clicks back
    for seconds, counted as the server's delay. With `attack`, its heavy parts are reported as they start and end, so
    a measurement can wait until they are under way (without it, a class could step before the attack began and
    be counted as under attack). Returns what the attackers were shown."""
    import json
    import os
    import shutil

    drop = ["setpriv", "--bounding-set=-sys_nice", "--inh-caps=-sys_nice"] if os.geteuid() == 0 and shutil.which(
        "setpriv") else []
    proc = await asyncio.create_subprocess_exec(*drop, "nice", "-n", str(int(nice)), sys.executable, __file__,
                                                "--be-attackers", url, json.dumps(jobs), stdout=asyncio.subprocess.PIPE)
    last = b""
    assert proc.stdout is not None
    async for line in proc.stdout:
        if line.startswith(b"ATTACK ") and attack is not None:
            attack.read(line.decode().strip())
        elif line.strip():
            last = line
    if await proc.wait():
        raise RuntimeError(f"the attackers' process failed ({proc.returncode})")
    return json.loads(last.decode())


async def be_attackers(url: str, jobs: list[tuple[str, int]]) -> list[str]:
    """In the attackers' process: every job at once from one browser, heavy trainers sustained, each reported."""
    from playwright.async_api import async_playwright

    global REPORTING
    REPORTING = True
    async with async_playwright() as p:
        browser = await launch(p)
        found = await asyncio.gather(*[ATTACKS[kind](browser, url, k, True) for kind, k in jobs])
        await browser.close()
    return [m for seen in found for m in seen]


async def one_session(browser, url: str, k: int, n: int) -> dict:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    text, own = session_text(k)
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)  # ten sessions share two cores: a rerun can take a while
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    start = time.perf_counter()
    try:
        await page.goto(url, timeout=TIMEOUT_MS)
        await page.wait_for_selector("h1", timeout=TIMEOUT_MS)
        await idle(page)  # a click during the first run can land on a sidebar the run then draws again
        await page.get_by_text("Paste text").click()
        box = page.get_by_label("Text to train on", exact=True)
        await box.wait_for(timeout=TIMEOUT_MS)
        await box.fill(text)
        await box.press("Control+Enter")
        await page.wait_for_selector("text=pasted text", timeout=TIMEOUT_MS)
        await page.get_by_role("button", name="Last »").click()
        # the step counter reads "n / n" once the last merge is drawn
        await page.wait_for_function(
            """() => { const m = document.querySelector('[data-testid="bpe-counter"]');
                       if (!m) return false; const [a, b] = m.innerText.split('/').map(s => s.trim());
                       return a !== '0' && a === b; }""", timeout=TIMEOUT_MS)
        others = [session_text(j)[1] for j in range(n) if j != k]
        leaked: set[str] = set()
        seen_own = False
        for _ in range(40):  # read until the page settles; every read is checked for other sessions' text
            body = (await page.inner_text("body")).replace("␣", " ")
            leaked.update(w for w in others if w in body)
            if own in body and await page.locator("#merge-table").count():
                seen_own = True
                break
            await page.wait_for_timeout(250)
        ok = seen_own and not leaked and not dialogs
        error = "" if ok else f"own text shown: {seen_own}; dialogs: {dialogs}"
        leaked = sorted(leaked)
        return {"session": k, "seconds": time.perf_counter() - start, "ok": ok, "leaked": leaked, "error": error}
    except PlaywrightTimeout as exc:
        return {"session": k, "seconds": time.perf_counter() - start, "ok": False, "leaked": [], "error": str(exc)[:200]}
    finally:
        await context.close()


async def run(url: str, n: int) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await launch(p)
        results = await asyncio.gather(*(one_session(browser, url, k, n) for k in range(n)))
        await browser.close()
    return list(results)


BOMBS = ["((a{1000}){500}){10}", "((b{1000}){500}){10}", "((c{1000}){500}){10}"]
HOSTILE_UPLOADS = [
    ("deep.json", b"[" * 100_000 + b"]" * 100_000),
    ("merges.json", b'{"model": {"type": "BPE", "vocab": {}, "merges": 5}}'),
    ("ranks.tiktoken", b"YQ== 0\nYg== 0\n"),
]


MAIN_ERROR_MENTIONS = """n => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stAlertContentError"]')]
                             .some(e => e.innerText.includes(n))"""


async def idle(page, quiet_ms: int = 400) -> None:
    """Until Streamlit's running indicator has been gone for quiet_ms."""
    while True:
        await page.wait_for_function("""() => !document.querySelector('[data-testid="stStatusWidget"]')""")
        await page.wait_for_timeout(quiet_ms)
        if await page.locator('[data-testid="stStatusWidget"]').count() == 0:
            return


@contextlib.asynccontextmanager
async def new_page(browser, width: int = 1300, height: int = 900):
    """A page in a browser context of its own, closed at the end; every wait bounded by TIMEOUT_MS."""
    context = await browser.new_context(viewport={"width": width, "height": height})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        yield page
    finally:
        await context.close()


async def step_latencies(browser, url: str, clicks: int) -> list[float]:
    """A fresh session on the toy corpus clicks Next `clicks` times; seconds until each new merge row shows."""
    async with new_page(browser) as page:
        await page.goto(url)
        await page.wait_for_selector("h1")
        await page.wait_for_selector("text=Toy Portuguese (8 sentences)")
        await page.wait_for_selector('[data-testid="bpe-counter"]')
        await idle(page)  # a click during the first run can land on a player the run then replaces
        times = []
        for k in range(1, clicks + 1):
            start = time.perf_counter()
            await page.get_by_role("button", name="Next ▶").click()
            await page.wait_for_function(f"document.querySelectorAll('#merge-table tbody tr').length === {k}")
            times.append(time.perf_counter() - start)
        return times


async def attack(browser, url: str, k: int = 0) -> list[str]:
    """One session opens regex bombs from links and uploads hostile files; returns the messages it was shown."""
    from urllib.parse import quote

    seen = []
    report("hostile", k, "under way")
    async with new_page(browser) as page:
        for bomb in BOMBS:
            await page.goto(f"{url}/?pre=custom&re={quote(bomb)}")
            await page.wait_for_function("t => document.body.innerText.includes(t)", arg="repeats too much")
            seen.append("bomb refused")
        await page.goto(f"{url}/files")
        await page.wait_for_selector("h1")
        for name, data in HOSTILE_UPLOADS:
            await page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
                {"name": name, "mimeType": "application/json", "buffer": data})
            await page.wait_for_function(MAIN_ERROR_MENTIONS, arg=name)
            seen.append(f"{name} refused")
        report("hostile", k, "over")
        return seen


async def heavy_training(browser, url: str, sustained: bool = False, k: int = 0) -> list[str]:
    """One session pastes 300 KB with no spaces and asks for the largest vocabulary: the budget must stop it.
    Sustained, it pastes another such text (the words in another order, so no cached run answers) as each run ends,
    for SUSTAINED_SECONDS."""
    from urllib.parse import quote

    seen = []
    async with new_page(browser) as page:
        await page.goto(f"{url}/?src=paste&vocab=50256&text={quote('x')}")
        await page.wait_for_selector("h1")
        await idle(page)
        box = page.get_by_label("Text to train on", exact=True)
        until = time.monotonic() + SUSTAINED_SECONDS
        for round_ in range(len(WORDS)):
            words = WORDS[round_:] + WORDS[:round_]
            await box.fill("".join(words) * 5_000)
            await box.press("Control+Enter")
            if round_ == 0:
                report("heavy", k, "under way")
            await page.wait_for_timeout(1000)
            await idle(page)  # the run ends, or the budget stops it
            body = await page.inner_text("body")
            stopped = "the most one visitor may use" in body or "of the shared server's memory" in body  # time/memory
            seen.append("heavy training stopped by the budget" if stopped else "heavy training finished")
            if not sustained or time.monotonic() > until:
                break
        report("heavy", k, "over")
        return [f"{seen[-1]} ({len(seen)} rounds)" if sustained else seen[-1]]


WHITESPACE_MB = {"train": 5, "count": 20}  # the largest file each place takes: the sidebar's corpus, Encode's count


async def whitespace_uploads(browser, url: str, k: int, parts: tuple[str, ...] = ("train", "count")) -> list[str]:
    """One session uploads files of nothing but whitespace as big as the app takes: a corpus to train on at the largest
    vocabulary (spaces, or no-break spaces for every second attacker), then a file to count on Encode."""
    blank = [" ", "\u00a0"][k % 2]
    seen = []
    async with new_page(browser) as page:
        await page.goto(f"{url}/?src=upload&vocab=50256")
        await page.wait_for_selector("h1")
        await idle(page)
        if "train" not in parts:
            await page.goto(f"{url}/encode")
            return seen + await _count_upload(page, blank, k)
        corpus = (blank * (WHITESPACE_MB["train"] * 1_000_000 // len(blank.encode()) - 1)).encode()
        await page.locator('[data-testid="stSidebar"] input[type="file"]').first.set_input_files(
            {"name": "blank.txt", "mimeType": "text/plain", "buffer": corpus})
        await page.wait_for_timeout(1000)
        await idle(page)
        seen.append("whitespace corpus: " + await outcome(page))
        if "count" not in parts:
            return seen
        await page.get_by_role("link", name="Encode").click()
        return seen + await _count_upload(page, blank, k)


async def _count_upload(page, blank: str, k: int) -> list[str]:
    """On Encode: count a file of whitespace as big as the page takes."""
    await page.wait_for_selector('text="How many tokens is my file?"')
    await idle(page)
    counted = (blank * (WHITESPACE_MB["count"] * 1_000_000 // len(blank.encode()) - 1)).encode()
    await page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
        {"name": "blank.txt", "mimeType": "text/plain", "buffer": counted})
    report("uploads", k, "under way")  # the count runs until the budget stops it (about 90 s)
    await page.wait_for_timeout(1000)
    await idle(page)
    report("uploads", k, "over")
    return ["whitespace count: " + await outcome(page)]


async def outcome(page) -> str:
    """What the page says after a heavy task: stopped by the budget, or done."""
    body = await page.inner_text("body")
    for sign, said in (("the most one visitor may use", "stopped for time"), ("MB of memory", "stopped for memory")):
        if sign in body:
            return said
    return "done"


async def page_switches(browser, url: str, switches: int) -> list[float]:
    """A fresh session on the toy lesson goes from Train to Encode and back `switches` times; seconds until each page's
    title and player show."""
    async with new_page(browser) as page:
        await page.goto(url)
        await page.wait_for_selector('[data-testid="bpe-counter"]')
        await idle(page)
        times = []
        for k in range(switches):
            name, title = [("Encode", "Encode a sentence"), ("Train", "Training: watch the merge table grow")][k % 2]
            start = time.perf_counter()
            await page.get_by_role("link", name=name).click()
            await page.wait_for_selector(f'h1:has-text("{title}")')
            await page.wait_for_selector('[data-testid="bpe-counter"]')
            times.append(time.perf_counter() - start)
            await idle(page)
        return times


SETTLE_SECONDS = 160  # Streamlit keeps a closed session for server.disconnectedSessionTTL (120 s); the server's
# sweep (bpeviz/app/leftovers.py, every GIVE_BACK_SECONDS) then shuts it down and hands its memory back


async def attack_run(url: str, clicks: int, normal: int = 1, attackers: int = 1, pid: int | None = None,
                     uploads: bool = False, attackers_nice: int = 0) -> dict:
    """Step latencies of `normal` sessions stepping at once, alone, then while `attackers` sessions attack; with pid,
    the server's settled memory after the sessions alone (the warm baseline) and once every visitor has gone.
    With uploads, the normal sessions switch pages and the attackers upload whitespace files instead. With
    attackers_nice > 0 the attackers are a process of their own at that niceness (attackers_elsewhere: their machines
    are not the server's); at 0 they share this process and its browser."""
    from playwright.async_api import async_playwright

    memory: dict[str, float] = {}
    async with async_playwright() as p:
        browser = await launch(p)
        normal_work = page_switches if uploads else step_latencies
        alone = await asyncio.gather(*[normal_work(browser, url, clicks) for _ in range(normal)])
        if pid is not None:
            memory["warm"] = await asyncio.to_thread(settled_rss_mb, pid)
        jobs = [("uploads" if uploads else ["hostile", "heavy"][k % 2], k) for k in range(attackers)]
        if attackers_nice > 0:  # the normal sessions start once every attack's heavy part is under way
            attack = Attack(len(jobs))
            hostile = [attackers_elsewhere(url, jobs, attackers_nice, attack)]
            measured = [after(attack.started, normal_work(browser, url, clicks)) for _ in range(normal)]
        else:  # in this process, from the normal sessions' browser (the suite's small attack)
            attack, hostile = None, [ATTACKS[kind](browser, url, k) for kind, k in jobs]
            measured = [normal_work(browser, url, clicks) for _ in range(normal)]
        ended: list[float] = []
        found = await asyncio.gather(*[_timed_end(m, ended) for m in measured], *hostile)
        await browser.close()
    if pid is not None:
        memory["peak"] = peak_rss_mb(pid)
        await asyncio.sleep(SETTLE_SECONDS)
        memory["after"] = await asyncio.to_thread(settled_rss_mb, pid)
    under_attack, refused = found[:normal], [m for seen in found[normal:] for m in seen]
    return {"alone": [t for ts in alone for t in ts], "under_attack": [t for ts in under_attack for t in ts],
            "refused": refused, "memory": memory,
            "held": attack.held_through(max(ended)) if attack is not None else "the attack ran in this process"}


async def _timed_end(coroutine, ended: list[float]):
    """The coroutine's result; the time.monotonic() it ended at goes to `ended`."""
    result = await coroutine
    ended.append(time.monotonic())
    return result


def in_thread(coroutine):
    """Run a coroutine in a thread of its own: a caller (pytest with sync Playwright) may already run an event loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb(pid: int) -> float:
    """The most memory the server has held so far (VmHWM)."""
    return rss_mb(pid, "VmHWM")


GIVE_BACK_SECONDS = 30  # bpeviz/app/runs.py: how often the server hands freed memory back to the system


def settled_rss_mb(pid: int, still_mb: float = 3.0, window: int = GIVE_BACK_SECONDS // 2 + 3, every: float = 2.0,
                   at_most: float = 300.0) -> float:
    """The server's memory once it has stopped moving: `window` readings `every` seconds apart within `still_mb`.

    A fresh server warms up in the background (real tokenizers, the default mix, the compiled engine), so a
    baseline read too early is lower than the server's own steady state. The window is longer than the server's
    period of handing memory back, so a reading taken just before it does is not called settled (it had been: 8 s).
    Bounded by `at_most` seconds.
    """
    readings = [rss_mb(pid)]
    deadline = time.monotonic() + at_most
    while time.monotonic() < deadline:
        time.sleep(every)
        readings = [*readings[-(window - 1):], rss_mb(pid)]
        if len(readings) == window and max(readings) - min(readings) <= still_mb:
            break
    return readings[-1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=5) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def start_server() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.address", "127.0.0.1", "--server.port", str(port),
                             "--browser.gatherUsageStats", "false"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while not healthy(url):
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit("the server did not start")
        time.sleep(0.3)
    return proc, url


def load(n: int, url: str | None = None) -> tuple[list[dict], bool, float]:
    """Run n sessions at once; returns (results, server still healthy, wall seconds)."""
    proc = None
    if url is None:
        proc, url = start_server()
    try:
        start = time.perf_counter()
        results = in_thread(run(url, n))
        return results, healthy(url), time.perf_counter() - start
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=15)


def main_attack(clicks: int, normal: int = 1, attackers: int = 1, uploads: bool = False,
                attackers_nice: int = ATTACKERS_NICE, rounds: int = 1) -> None:
    """rounds > 1: the same server is attacked again, each round read as the first (does memory grow per attack?)."""
    proc, url = start_server()
    try:
        for k in range(rounds):
            if rounds > 1:
                print(f"round {k + 1} of {rounds}", flush=True)
            result = in_thread(attack_run(url, clicks, normal, attackers, pid=proc.pid, uploads=uploads,
                                          attackers_nice=attackers_nice))
            report_attack(result, clicks, normal, attackers, uploads)
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def report_attack(result: dict, clicks: int, normal: int, attackers: int, uploads: bool) -> None:
    alone, attacked = statistics.median(result["alone"]), statistics.median(result["under_attack"])
    doing = "switching pages" if uploads else "clicking Next"
    print(f"{normal} session(s) {doing}, median of {clicks} each: without attackers {alone * 1000:.0f} ms, "
          f"while {attackers} session(s) attack {attacked * 1000:.0f} ms ({attacked / alone:.2f}x); 90th percentile "
          f"{quantile(result['alone'], 0.9) * 1000:.0f} and {quantile(result['under_attack'], 0.9) * 1000:.0f} ms, "
          f"worst {max(result['alone']) * 1000:.0f} and {max(result['under_attack']) * 1000:.0f} ms")
    memory = result["memory"]
    print(f"attacks refused: {', '.join(result['refused'])}")
    print(f"the normal sessions started once every attack was under way; {result['held']}")
    print(f"server memory (settled): {memory['warm']:.0f} MB warm with the normal sessions, {memory['peak']:.0f} MB at the "
          f"peak, {memory['after']:.0f} MB {SETTLE_SECONDS} s after every visitor left "
          f"({memory['after'] / memory['warm']:.2f}x the warm baseline)", flush=True)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--url")
    parser.add_argument("--attack", action="store_true", help="latency of one session while another attacks")
    parser.add_argument("--clicks", type=int, default=12)
    parser.add_argument("--normal", type=int, default=1, help="with --attack: sessions that step")
    parser.add_argument("--attackers", type=int, default=1, help="with --attack: sessions that attack (bombs and hostile "
                        "files; every second one a training too heavy for the budget)")
    parser.add_argument("--uploads", action="store_true", help="with --attack: the attackers upload whitespace files as "
                        "big as the app takes (train 5 MB, count 20 MB) and the normal sessions switch pages")
    parser.add_argument("--attackers-nice", type=int, default=ATTACKERS_NICE, help="with --attack: the attackers' "
                        "process's niceness (0: in the bench's own process and browser, at the server's priority)")
    parser.add_argument("--rounds", type=int, default=1, help="with --attack: attack the same server this many times, "
                        "each round measured as the first (memory that grows per round is a leak)")
    parser.add_argument("--be-attackers", nargs=2, metavar=("URL", "JOBS"), help=argparse.SUPPRESS)  # see attackers_elsewhere
    args = parser.parse_args()
    if args.be_attackers:
        import json

        print(json.dumps(asyncio.run(be_attackers(args.be_attackers[0], json.loads(args.be_attackers[1])))))
        return
    if args.attack:
        main_attack(args.clicks, args.normal, args.attackers, args.uploads, args.attackers_nice, args.rounds)
        return
    results, up, wall = load(args.sessions, args.url)
    for r in results:
        verdict = "ok" if r["ok"] else f"FAILED {r.get('error', '')} leaked: {r['leaked']}"
        print(f"session {r['session']:2d}: {r['seconds']:6.1f} s  {verdict}")
    times = [r["seconds"] for r in results]
    print(f"\n{sum(r['ok'] for r in results)}/{len(results)} sessions correct; wall {wall:.1f} s; "
          f"median {statistics.median(times):.1f} s, max {max(times):.1f} s; server {'up' if up else 'DOWN'}")
    sys.exit(0 if up and all(r["ok"] for r in results) else 1)


if __name__ == "__main__":
    main()
