"""Stepping in a real browser: how long a step takes to redraw, and whether Play keeps its pace without flicker.

    python bench/stepping.py

Starts `streamlit run app.py` on a free loopback port, opens it in Debian's Chromium, and measures in
the page itself: from a click (Next, Previous, First, Last, a slider jump) to the next painted frame,
on the toy corpus (41 merges), on GPT-2's 50 000 merges replayed, and on the Encode page's trace. Then
it plays at 0.25 s a step for 5 seconds, checking on every animation frame that the step counter, the
merge table and the corpus agree (a frame where they do not is a flicker). Targets: a step < 100 ms on the
toy corpus and < 300 ms at 50 000 merges, Play at 4 steps/s with no flicker.
"""

from __future__ import annotations

import statistics
import sys
import time

from load import start_server

TIME_ACTIONS = """async ([kind, values]) => {
  // each action (a button's click, or the slider set to a value), then the next frame: milliseconds for each
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const slider = document.querySelector('.bpe-player .bpe-slider');
  const act = kind === 'click'
    ? (name) => [...document.querySelectorAll('.bpe-player .bpe-btn')].find(b => b.textContent.includes(name)).click()
    : (value) => { slider.value = String(value); slider.dispatchEvent(new Event('input', {bubbles: true})); };
  const out = [];
  for (const value of values) {
    const t0 = performance.now();
    act(value);
    await frame();
    out.push(performance.now() - t0);
  }
  return out;
}"""


def time_clicks(page, button: str, times: int) -> list[float]:
    return page.evaluate(TIME_ACTIONS, ["click", [button] * times])


def time_slider(page, values: list[int]) -> list[float]:
    return page.evaluate(TIME_ACTIONS, ["slider", values])


WATCH_PLAY = """async (seconds) => {
  const counter = document.querySelector('.bpe-player .bpe-counter');
  const steps = [];
  let bad = 0, frames = 0;
  const observer = new MutationObserver(() => steps.push([performance.now(), counter.textContent]));
  observer.observe(counter, {childList: true, characterData: true, subtree: true});
  const end = performance.now() + seconds * 1000;
  await new Promise(resolve => {
    const check = () => {
      frames++;
      const step = parseInt(counter.textContent.replace(/,/g, ''), 10);
      const rows = document.querySelectorAll('#merge-table tbody tr').length;
      const chips = document.querySelectorAll('.bpe-player .bpe-chip').length;
      if ((step > 0 && rows !== Math.min(step, 200)) || chips === 0) bad++;
      if (performance.now() < end) requestAnimationFrame(check); else resolve();
    };
    requestAnimationFrame(check);
  });
  observer.disconnect();
  const rate = steps.length > 1 ? (steps.length - 1) / ((steps.at(-1)[0] - steps[0][0]) / 1000) : 0;
  return {rate, bad, frames, steps: steps.length};
}"""


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values):6.1f} ms (max {max(values):6.1f})"


def open_player(page, url: str, path: str, timeout: float = 180_000) -> None:
    page.goto(url + path)
    page.wait_for_selector(".bpe-player .bpe-counter", timeout=timeout)
    page.wait_for_timeout(1500)


def measure(url: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu",
                                    "--disable-dev-shm-usage", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        rows = []
        open_player(page, url, "/")
        rows.append(("toy corpus, 41 merges", "Next", time_clicks(page, "Next", 40), 100))
        rows.append(("toy corpus, 41 merges", "Previous", time_clicks(page, "Previous", 40), 100))
        page.select_option("select.bpe-speed", "0.25")
        page.locator(".bpe-player .bpe-primary").click()
        play = page.evaluate(WATCH_PLAY, 5)
        page.locator(".bpe-player .bpe-primary").click()
        start = time.perf_counter()
        open_player(page, url, "/?src=gpt2&vocab=50256")
        first_load = time.perf_counter() - start
        jumps = [t for _ in range(3) for name in ("Last", "First") for t in time_clicks(page, name, 1)]
        rows.append(("GPT-2, 50 000 merges", "Last / First", jumps, 300))
        time_clicks(page, "Last", 1)
        rows.append(("GPT-2, 50 000 merges", "Previous", time_clicks(page, "Previous", 20), 300))
        jumps = time_slider(page, [100, 25_000, 49_000, 7, 33_333, 2_000])
        rows.append(("GPT-2, 50 000 merges", "slider jumps", jumps, 300))
        open_player(page, url, "/encode")
        time_clicks(page, "First", 1)
        rows.append(("Encode trace", "Next", time_clicks(page, "Next", 10), 100))
        browser.close()
    print(f"{'run':<24}{'action':<15}{'redraw, median':>32}{'target':>10}")
    for run, action, times, target in rows:
        verdict = "ok" if statistics.median(times) < target else "SLOW"
        print(f"{run:<24}{action:<15}{median_ms(times):>32}{f'< {target} ms':>10}  {verdict}")
    print(f"\nPlay at 0.25 s / step for 5 s: {play['rate']:.2f} steps/s (target 4), {play['bad']} of {play['frames']} frames "
          f"with the counter, table and corpus out of step (target 0)")
    print(f"GPT-2's 50 000 merges: first load (replay, counts, history sent once) {first_load:.1f} s")


def main() -> None:
    proc, url = start_server()
    try:
        measure(url)
    finally:
        proc.terminate()
        proc.wait(timeout=15)


if __name__ == "__main__":
    sys.exit(main())
