"""Load: one teacher and N students in a live class on one local server, each student in a browser context of its own.

    python bench/live_load.py [--students 40] [--steps 5] [--protocol]
    python bench/live_load.py --students 40 --protocol --classes 2 --attackers 2   # the second class under attack

--protocol makes the students lighter clients that speak Streamlit's websocket protocol (bench/protocol_student.py)
instead of browsers, so that forty students' renderers do not share the server's two cores.

Prints: how long a teacher's step takes to reach every student (median and 90th percentile over students and
steps), whether every vote was counted exactly once, the teacher's own step latency with no class and with the
class, and the server's memory before, during and after the class. Starts `streamlit run app.py` on a free
loopback port and stops it at the end; every wait is bounded. With --attackers N (and --protocol), the last class
runs while N other visitors attack: whitespace files as big as the app takes, and a training too heavy for the budget.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402  (bench/load.py: the server, memory and idle helpers)

SETTLE_SECONDS = load.SETTLE_SECONDS  # the reconnect time, then one sweep of the server (bench/load.py)
TIMEOUT_MS = int(__import__("os").environ.get("LIVE_TIMEOUT_MS", 300_000))
AT_STEP = """k => { const c = document.querySelector('[data-testid="bpe-counter"]');
                    return c && c.innerText.startsWith(k + ' '); }"""


async def teacher_steps(page, steps: int, first: int = 1) -> list[float]:
    """The teacher clicks Next `steps` times: seconds until each new merge row shows on the projector."""
    times = []
    for k in range(first, first + steps):
        start = time.perf_counter()
        await page.get_by_role("button", name="Next ▶").click()
        await page.wait_for_function(f"document.querySelectorAll('#merge-table tbody tr').length === {k}", timeout=TIMEOUT_MS)
        times.append(time.perf_counter() - start)
    return times


async def start_class(browser, url: str):
    context = await browser.new_context(viewport={"width": 1024, "height": 768})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    await page.goto(url)
    await page.wait_for_selector('[data-testid="bpe-counter"]')
    await load.idle(page)
    return context, page


async def open_room(page) -> str:
    start = page.get_by_role("button", name="Start a live class")
    while not await start.is_visible():
        await page.locator('[data-testid="stSidebar"] summary', has_text="Live class").click()
        await page.wait_for_timeout(1000)
    await start.click()
    await page.wait_for_function("() => /Class code: [A-Z0-9]{5}/.test(document.body.innerText)")
    return re.search(r"Class code: ([A-Z0-9]{5})", await page.inner_text("body")).group(1)


async def join(browser, url: str, code: str):
    context = await browser.new_context(viewport={"width": 390, "height": 844})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    await page.goto(f"{url}/?class={code}")
    try:
        await page.wait_for_selector('[data-testid="bpe-counter"]')
    except Exception:
        await page.screenshot(path="/tmp/live-join-failed.png")
        raise
    return context, page


async def reach(page, step: int, since: float) -> float:
    await page.wait_for_function(AT_STEP, arg=step, timeout=TIMEOUT_MS)
    return time.perf_counter() - since


async def vote(page) -> None:
    await page.wait_for_function("() => document.body.innerText.includes('Which pair merges next?')", timeout=TIMEOUT_MS)
    await page.locator('[data-testid="stMain"] [role="radiogroup"]').first.locator("label").first.click()
    await page.wait_for_function("() => document.body.innerText.includes('Your vote is counted')", timeout=TIMEOUT_MS)


async def protocol_class(teacher, url: str, code: str, students: int, steps: int, out: dict, pid: int,
                         first: int = 1, attack: load.Attack | None = None) -> None:
    """The same class with students as protocol clients (bench/protocol_student.py): the server measured alone."""
    import protocol_student

    until = asyncio.Event()
    pupils = [protocol_student.Student(url, code) for _ in range(students)]
    tasks = [asyncio.create_task(p.run(until)) for p in pupils]
    await teacher.wait_for_function(f"() => document.body.innerText.includes('{students} students have joined')",
                                    timeout=TIMEOUT_MS)
    await asyncio.sleep(3)
    out["memory"]["class"] = load.rss_mb(pid)
    if attack is not None:  # step once every attack's heavy part is under way, not before the attack began
        await asyncio.wait_for(attack.started.wait(), TIMEOUT_MS / 1000)
    delays, with_class = [], []
    for k in range(first + steps, first + 2 * steps):
        since = time.perf_counter()
        with_class += await teacher_steps(teacher, 1, k)
        deadline = time.perf_counter() + TIMEOUT_MS / 1000
        while any(k not in p.first_seen for p in pupils) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        delays += [p.first_seen[k] - since for p in pupils if k in p.first_seen]
        out.setdefault("slowest", []).append(max(delays[-students:], default=0.0))  # one slow step, or every step slow
    out["delays"], out["with_class"] = out.get("delays", []) + delays, out.get("with_class", []) + with_class
    if attack is not None:
        out["held"] = attack.held_through(time.monotonic())
    await teacher.get_by_role("button", name="Ask the class: which pair merges next?").click()
    await teacher.wait_for_function(f"() => document.body.innerText.includes('{students} votes so far')",
                                    timeout=TIMEOUT_MS)
    out["votes_counted"] = min(out.get("votes_counted", students), sum(p.counted for p in pupils))
    out.setdefault("histories", []).append(max(p.histories for p in pupils))
    until.set()
    await asyncio.gather(*tasks, return_exceptions=True)


async def attackers_during(url: str, attackers: int, make_class, nice: int) -> list[str]:
    """Run the class (make_class(attack) gives its coroutine) while `attackers` visitors attack from a process of their
    own at `nice` (load.attackers_elsewhere); the class steps once every attack's heavy part is under way. Returns
    what the attackers were shown."""
    jobs = [("uploads" if k % 2 == 0 else "heavy", k) for k in range(attackers)]
    attack = load.Attack(len(jobs))
    found = await asyncio.gather(make_class(attack), load.attackers_elsewhere(url, jobs, nice, attack))
    return found[1]


async def loop_lag(lags: list[float]) -> None:
    """How late this process's event loop wakes (the students' clients and the browsers' drivers share it): a late
    loop would be counted as a late server."""
    while True:
        start = time.perf_counter()
        await asyncio.sleep(0.05)
        lags.append(time.perf_counter() - start - 0.05)


async def run(url: str, pid: int, students: int, steps: int, protocol: bool = False, classes: int = 1,
              attackers: int = 0, attackers_nice: int = load.ATTACKERS_NICE) -> dict:
    from playwright.async_api import async_playwright

    out: dict = {"memory": {}}
    async with async_playwright() as p:
        browser = await load.launch(p)
        teacher_context, teacher = await start_class(browser, url)
        out["alone"] = await teacher_steps(teacher, steps)
        # warm: the lesson trained, the teacher's page drawn, the server's background warm-up done
        out["memory"]["before"] = await asyncio.to_thread(load.settled_rss_mb, pid)
        if protocol:
            watch = asyncio.create_task(loop_lag(out.setdefault("lags", [0.0])))
            for k in range(classes):  # a second class shows whether memory grows class after class
                code = await open_room(teacher)
                before = len(out.get("delays", []))
                def one_class(attack=None, code=code, k=k):
                    return protocol_class(teacher, url, code, students, steps, out, pid, 1 + k * steps, attack)
                if attackers and k == classes - 1:
                    out["attacks"] = await attackers_during(url, attackers, one_class, attackers_nice)
                else:
                    await one_class()
                out.setdefault("per_class", []).append(out["delays"][before:])
                await teacher.get_by_role("button", name="End the class").click()
                await asyncio.sleep(SETTLE_SECONDS)
                out["memory"].setdefault("after", []).append(await asyncio.to_thread(load.settled_rss_mb, pid))
            watch.cancel()
            await teacher_context.close()
            await browser.close()
            return out
        code = await open_room(teacher)
        joined = await asyncio.gather(*[join(browser, url, code) for _ in range(students)])
        await teacher.wait_for_function(f"() => document.body.innerText.includes('{students} students have joined')",
                                        timeout=TIMEOUT_MS)
        out["memory"]["class"] = load.rss_mb(pid)
        delays, with_class = [], []
        for k in range(steps + 1, 2 * steps + 1):
            since = time.perf_counter()
            with_class += await teacher_steps(teacher, 1, k)
            delays += await asyncio.gather(*[reach(page, k, since) for _, page in joined])
        out["delays"], out["with_class"] = delays, with_class
        await teacher.get_by_role("button", name="Ask the class: which pair merges next?").click()
        await asyncio.gather(*[vote(page) for _, page in joined])
        await teacher.wait_for_function(f"() => document.body.innerText.includes('{students} votes so far')",
                                        timeout=TIMEOUT_MS)
        out["votes_counted"] = students
        await teacher.get_by_role("button", name="End the class").click()
        for context, _ in joined:
            await context.close()
        await teacher_context.close()
        await browser.close()
    await asyncio.sleep(SETTLE_SECONDS)
    out["memory"]["after"] = await asyncio.to_thread(load.settled_rss_mb, pid)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--protocol", action="store_true", help="students as websocket clients, not browsers")
    parser.add_argument("--classes", type=int, default=1, help="with --protocol: classes one after another")
    parser.add_argument("--attackers", type=int, default=0, help="with --protocol: visitors who attack during the last class")
    parser.add_argument("--attackers-nice", type=int, default=load.ATTACKERS_NICE, help="the attackers' process's "
                        "niceness (0: at the server's own priority, as if they ran on the server's machine)")
    args = parser.parse_args()
    proc, url = load.start_server()
    try:
        result = load.in_thread(run(url, proc.pid, args.students, args.steps, args.protocol, args.classes, args.attackers,
                                    args.attackers_nice))
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    delays = sorted(result["delays"])
    alone, with_class = statistics.median(result["alone"]), statistics.median(result["with_class"])
    print(f"{args.students} students, {args.steps} steps: a step reached every student in {statistics.median(delays):.2f} s "
          f"at the median, {delays[int(len(delays) * 0.9)]:.2f} s at the 90th percentile, {delays[-1]:.2f} s at most")
    for k, class_delays in enumerate(result.get("per_class", [])):
        attacked = " (under attack)" if args.attackers and k == len(result["per_class"]) - 1 else ""
        print(f"class {k + 1}{attacked}: median {statistics.median(class_delays):.2f} s, 90th percentile "
              f"{load.quantile(class_delays, 0.9):.2f} s, at most {max(class_delays):.2f} s")
    if result.get("slowest"):
        print("each step's last student: " + ", ".join(f"{s:.2f}" for s in result["slowest"]) + " s; the teacher's own "
              "page: " + ", ".join(f"{s:.2f}" for s in result["with_class"]) + " s")
    if result.get("lags"):
        print(f"the bench's own event loop woke at most {max(result['lags']):.2f} s late (the students' clients share it)")
    if result.get("attacks"):
        print(f"attackers were shown: {', '.join(result['attacks'])}")
        print(f"the class stepped once every attack was under way; {result['held']}")
    print(f"votes: the teacher's page reached {args.students} in each class; {result['votes_counted']} "
          f"of {args.students} students had drawn their \"counted\" line when the class ended")
    if result.get("histories"):
        print(f"a run's history sent to one student at most {max(result['histories'])} times a class (a browser: once a run)")
    print(f"teacher's Next: {alone * 1000:.0f} ms with no class, {with_class * 1000:.0f} ms with the class "
          f"({with_class / alone:.2f}x)")
    memory = result["memory"]
    after = memory["after"] if isinstance(memory["after"], list) else [memory["after"]]
    print(f"server memory (settled): {memory['before']:.0f} MB before, {memory['class']:.0f} MB with the class, "
          f"{' then '.join(f'{m:.0f}' for m in after)} MB {SETTLE_SECONDS} s after each class ended "
          f"({max(after) / memory['before']:.2f}x the baseline at most)")


if __name__ == "__main__":
    main()
