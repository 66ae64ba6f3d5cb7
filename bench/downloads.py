"""The handout, made on click, while other sessions' runs end on the same server: how many clicks end in a file.

    python bench/downloads.py [--clicks 20] [--others 10] [--root DIR]

A fresh `streamlit run app.py` (from --root: another checkout, to compare with code before a change), a teacher's tab
on the Train page at step 7, and `--others` tabs that reload the Encode page over and over (each reload is a full
script run, whose end sweeps the files no session holds, as a class's polling students do). The teacher clicks
"Printable handout" `--clicks` times, a second apart; the bench prints how many downloads completed and how each
failed one failed (Chromium's "canceled": the file was gone when the browser asked for it). Traffic to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402  (bench/load.py: the server and the browser)


async def clicks_under_churn(url: str, clicks: int, others: int) -> tuple[int, list[str]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await load.launch(p)
        teacher = await browser.new_page(accept_downloads=True)
        await teacher.goto(url + "/?step=7")
        await teacher.wait_for_selector('[data-testid="bpe-counter"]', timeout=load.TIMEOUT_MS)
        await load.idle(teacher)
        stop = asyncio.Event()

        async def reload_over_and_over() -> None:
            page = await browser.new_page()
            await page.goto(url + "/encode")
            await page.wait_for_selector("h1", timeout=load.TIMEOUT_MS)
            while not stop.is_set():
                await page.reload()
                await page.wait_for_selector("h1", timeout=load.TIMEOUT_MS)

        churn = [asyncio.create_task(reload_over_and_over()) for _ in range(others)]
        await asyncio.sleep(5)  # the others under way
        done, failures = 0, []
        for _ in range(clicks):
            async with teacher.expect_download(timeout=60_000) as caught:
                await teacher.get_by_role("button", name="Printable handout").click()
            try:
                await (await caught.value).path()
                done += 1
            except Exception as exc:  # Playwright's Error: the download did not complete
                failures.append(str(exc))
            await asyncio.sleep(1)
        stop.set()
        await asyncio.gather(*churn, return_exceptions=True)
        await browser.close()
    return done, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--others", type=int, default=10, help="tabs reloading the Encode page meanwhile")
    parser.add_argument("--root", type=Path, default=load.ROOT, help="the checkout whose app.py the server runs")
    args = parser.parse_args()
    load.ROOT = args.root.resolve()  # start_server runs app.py from load.ROOT
    proc, url = load.start_server()
    try:
        done, failures = asyncio.run(clicks_under_churn(url, args.clicks, args.others))
    finally:
        proc.terminate()
    print(f"{done} of {args.clicks} handouts downloaded while {args.others} other sessions reloaded", flush=True)
    for failure in failures:
        print("  failed:", failure)


if __name__ == "__main__":
    main()
