"""Helpers for driving the Streamlit app in Chromium."""

from __future__ import annotations

import time


def wait_idle(pg, timeout: float = 30.0) -> None:
    """Wait until Streamlit has finished the current run (no 'running' status widget)."""
    pg.wait_for_timeout(300)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pg.locator('[data-testid="stStatusWidget"]').count() == 0:
            pg.wait_for_timeout(200)
            if pg.locator('[data-testid="stStatusWidget"]').count() == 0:
                return
        pg.wait_for_timeout(150)
    raise AssertionError("the app kept running for too long")


def open_app(pg, url: str, path: str = "", idle: float = 30.0) -> None:
    pg.goto(url + path)
    pg.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=60_000)
    pg.wait_for_selector("h1", timeout=60_000)
    wait_idle(pg, idle)


def assert_no_errors(pg) -> None:
    body = pg.inner_text("body")
    assert pg.locator('[data-testid="stException"]').count() == 0, body[:2000]
    assert pg.locator('[data-testid="stAlertContentError"]').count() == 0, body[:2000]
    assert "Traceback" not in body


def set_textarea(pg, label: str, text: str) -> None:
    box = pg.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Control+Enter")
    wait_idle(pg)


def set_text_input(pg, label: str, text: str, nth: int = 0) -> None:
    box = pg.get_by_label(label, exact=True).nth(nth)
    box.fill(text)
    box.press("Enter")
    wait_idle(pg)


def chart_marks(pg, index: int = 0) -> int:
    """How many data marks (lines, points, bars, labels; not axes) the index-th Vega-Lite chart drew."""
    pg.wait_for_selector(".vega-embed svg .role-mark", timeout=30_000)
    return pg.evaluate("(i) => document.querySelectorAll('.vega-embed')[i].querySelectorAll('svg .role-mark > *').length", index)


def wait_text(pg, text: str, timeout: float = 30_000) -> None:
    """Wait until the page shows text (a rerun may still be on its way when the status widget is not yet up)."""
    pg.wait_for_function("t => document.body.innerText.includes(t)", arg=text, timeout=timeout)


TRUNCATED = """() => {
  // every visible element that cuts its own text: an ellipsis, or hidden overflow, with content wider than the box
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    if (!el.offsetParent || !el.firstChild) continue;
    const style = getComputedStyle(el);
    const clips = style.textOverflow === 'ellipsis'
      || (style.overflowX === 'hidden' && el.matches('button, button *, label, label *, [data-baseweb="select"] *'));
    const text = (el.innerText || '').trim();
    if (clips && el.scrollWidth > el.clientWidth + 1 && text) found.push(text.slice(0, 40));
  }
  // a table wider than its box scrolls, and its last columns hide
  for (const el of document.querySelectorAll('[data-testid="stTable"] table')) {
    const box = el.parentElement;
    if (el.offsetParent && box.scrollWidth > box.clientWidth + 1) found.push('table: ' + (el.innerText || '').slice(0, 30));
  }
  for (const el of document.querySelectorAll('input[role="combobox"]')) {  // a select box showing its choice
    if (el.offsetParent && el.scrollWidth > el.clientWidth + 1) found.push(el.value.slice(0, 40));
  }
  return found;
}"""


def truncated_controls(pg) -> list[str]:
    """Text of every visible control or label whose content is cut (scrollWidth beyond clientWidth)."""
    return pg.evaluate(TRUNCATED)


CUT_CHART_LABELS = """() => {
  // every chart legend label that is cut: ended with an ellipsis, or drawn past the right edge of its chart
  const found = [];
  for (const svg of document.querySelectorAll('.vega-embed svg')) {
    const right = svg.getBoundingClientRect().right;
    for (const label of svg.querySelectorAll('.role-legend-label text, .role-legend text')) {
      const text = (label.textContent || '').trim();
      if (text && (text.endsWith('…') || label.getBoundingClientRect().right > right + 1)) found.push(text.slice(0, 40));
    }
  }
  return found;
}"""


def cut_chart_labels(pg) -> list[str]:
    """Legend labels of the page's charts that are cut off or drawn outside their chart."""
    return pg.evaluate(CUT_CHART_LABELS)


BROKEN_HEADERS = """() => {
  // every table heading word drawn on more than one line ("pala|vras"): a Range over the word has a rect per line
  const found = [];
  for (const th of document.querySelectorAll('[data-testid="stTable"] th, .bpe-table th')) {
    if (!th.offsetParent) continue;
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/[^\\s\\u200b]+/g)) {  // a zero-width space is a break we chose
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) found.push(m[0]);
      }
    }
  }
  return found;
}"""


def broken_headers(pg) -> list[str]:
    """Words of visible table headings broken across lines."""
    return pg.evaluate(BROKEN_HEADERS)


LOW_CONTRAST = """(selector) => {
  // bpeviz's own text (selector) that reads under 4.5:1 against the background it is drawn on (3:1 for large type);
  // chart text against the page. Each found: [its text, the ratio].
  const rgba = (c) => (c.match(/[0-9.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(c => c / 255).map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const found = [];
  const page = behind(document.querySelector('[data-testid="stMain"]'));
  for (const el of document.querySelectorAll(selector)) {
    for (const node of [el, ...el.querySelectorAll('*')]) {
      if (!node.offsetParent || node.closest('button:disabled, svg')) continue;
      const own = [...node.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own) continue;
      const style = getComputedStyle(node);
      const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.6 && +style.fontWeight >= 700);
      const r = ratio(rgba(style.color).slice(0, 3), behind(node));
      if (r < (large ? 3 : 4.5)) found.push([node.textContent.trim().slice(0, 30), +r.toFixed(2)]);
    }
  }
  for (const t of document.querySelectorAll('.vega-embed svg :is(.role-axis-label, .role-axis-title, .role-legend-label) text')) {
    const r = ratio(rgba(getComputedStyle(t).fill).slice(0, 3), page);
    if (r < 4.5) found.push([t.textContent.slice(0, 30), +r.toFixed(2)]);
  }
  return found;
}"""
OWN_TEXT = ".bpe-player, .bpe-table, .bpe-chips, .bpe-join-code, [data-testid='stTable']"


def low_contrast(pg) -> list:
    """bpeviz's own text (the player, tables, chips, chart labels) that reads under 4.5:1 (large type 3:1) where drawn."""
    return pg.evaluate(LOW_CONTRAST, OWN_TEXT)
