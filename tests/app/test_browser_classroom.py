"""Classroom mode at projector sizes, in English and Portuguese: nothing cut, everything enlarged."""

import pytest
from browser_helpers import assert_no_errors, broken_headers, cut_chart_labels, low_contrast, open_app, truncated_controls
from conftest import shot

PAGES = ["", "/encode", "/rules", "/algorithms", "/charts", "/languages", "/quirks", "/inspect", "/beyond", "/files"]
PLAYER_PAGES = {"", "/encode", "/algorithms"}  # their step buttons must be on screen before anything is measured
LEGEND_PAGES = {"/charts", "/languages"}  # their charts' legends must be drawn before they are measured
TABLE_CELL_SIZES = """[...document.querySelectorAll('[data-testid="stTable"] td')].slice(0, 50)
                      .map(td => parseFloat(getComputedStyle(td).fontSize))"""
FAINT_CHART_TEXT = """() => [...document.querySelectorAll(
    ['.role-axis-label text', '.role-axis-title text', '.role-legend-label text'].map(s => '.vega-embed svg ' + s).join(', '))]
  .map(t => getComputedStyle(t).fill).filter(fill => {
    const [r, g, b] = (fill.match(/[0-9.]+/g) || [0, 0, 0]).map(Number).map(c => c / 255)
      .map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05) < 4.5;  // contrast with white under 4.5:1
  })"""
CAPTION_SIZE = "parseFloat(getComputedStyle(document.querySelector('[data-testid=\"stCaptionContainer\"] p')).fontSize)"


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("size", ["1024x768", "1280x720"])
def test_no_control_is_cut_at_projector_sizes(browser, app_url, size, lang):
    width, height = map(int, size.split("x"))
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        for path in PAGES:
            # Inspect's first visit infers cl100k's mix (about 18 s alone on 2 cores, docs/performance.md)
            open_app(page, app_url, f"{path}?big=1&lang={lang}", idle=180 if path == "/inspect" else 30)
            if path in PLAYER_PAGES:
                page.locator('[data-testid="bpe-counter"]').first.wait_for(state="visible", timeout=30_000)
            if path == "/inspect":  # its three sections are drawn once the tokenizer's merges are read
                page.locator('[data-testid="stMetric"]').first.wait_for(state="visible", timeout=120_000)
                page.locator(".vega-embed").nth(2).wait_for(state="attached", timeout=120_000)  # the heatmap: a canvas
            if path == "/beyond":  # three trainers, then their curves
                page.locator(".vega-embed").first.wait_for(state="attached", timeout=120_000)
            if path in LEGEND_PAGES:
                page.locator(".vega-embed svg .role-legend").first.wait_for(state="attached", timeout=60_000)
            page.wait_for_timeout(300)
            assert truncated_controls(page) == [], (path, size, lang)
            assert cut_chart_labels(page) == [], (path, size, lang)  # issue 27.3: legends cut on the projector
            assert broken_headers(page) == [], (path, size, lang)  # issue 45.6: "pala|vras", "vocabul|ário"
            assert page.evaluate(FAINT_CHART_TEXT) == [], (path, size, lang)  # issue 45.10: grey chart text, 3.7:1
            # issue 27.9: no canvas table (its 13 px type does not grow); the HTML tables' cells are large
            assert page.locator('[data-testid="stDataFrame"]').count() == 0, path
            cells = page.evaluate(TABLE_CELL_SIZES)
            assert all(size >= 19 for size in cells), (path, min(cells))  # 1.2rem: 14 px before
            assert_no_errors(page)
            shot(page, f"classroom-{size}-{lang}-{path.strip('/') or 'train'}")
        caption = page.evaluate(CAPTION_SIZE)
        assert caption >= 19  # 1.2rem and more: large type
    finally:
        context.close()


ON_SCREEN = """() => [['controls', '.bpe-controls'], ['table', '.bpe-scroll'], ['chart', '[data-testid="bpe-chart"]'],
                     ['corpus', '[data-testid="bpe-corpus"] .bpe-chip']].map(([name, sel]) => {
  const r = document.querySelector(sel)?.getBoundingClientRect();
  return r && r.width > 0 && r.top >= 0 && r.bottom <= innerHeight + 1 ? null : name;
}).filter(Boolean)"""
SPLIT_WORDS = """() => [...document.querySelectorAll('[data-testid="bpe-corpus"] .bpe-word')].filter(w => {
  const tops = new Set([...w.querySelectorAll('.bpe-chip')].map(c => Math.round(c.getBoundingClientRect().top)));
  return tops.size > 1;
}).length"""


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_presenting_puts_controls_table_chart_and_corpus_on_one_projector_screen(browser, app_url, lang):
    """Issue 45.3: at 1024×768 the sidebar took the room; presenting shows the four on one screen, a clicker steps."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    try:
        open_app(page, app_url, f"/?step=10&lang={lang}")
        page.get_by_role("button", name="Present" if lang == "en" else "Apresentar").click()
        page.locator('[data-testid="bpe-chart"]').wait_for(state="visible", timeout=30_000)
        page.wait_for_function("() => !document.querySelector('[data-testid=stSidebar]')?.offsetWidth", timeout=30_000)
        page.locator('[data-testid="bpe-counter"]').click()  # the page has the focus, not a text box
        page.keyboard.press("PageDown")  # the clicker
        page.wait_for_function("() => document.querySelector('[data-testid=bpe-counter]').innerText.startsWith('11 ')")
        shot(page, f"present-1024x768-{lang}")
        assert page.evaluate(ON_SCREEN) == [], page.evaluate(ON_SCREEN)
        assert page.evaluate(SPLIT_WORDS) == 0  # a pre-token's chips stay on one line
        page.get_by_role("button", name="Exit the presentation" if lang == "en" else "Sair da apresentação").click()
        page.locator('[data-testid="stSidebar"]').wait_for(state="visible", timeout=30_000)
    finally:
        context.close()


THEMED_PAGES = [("/?step=10", '[data-testid="bpe-counter"]'), ("/encode", '[data-testid="bpe-counter"]'),
                ("/charts", ".vega-embed svg .role-legend"), ("/rules", "h1")]
BACKGROUND = "getComputedStyle(document.querySelector('.stApp')).backgroundColor"


@pytest.mark.parametrize("big", [0, 1])
def test_a_dark_browser_gets_the_dark_theme_and_every_text_of_ours_reads(browser, app_url, big):
    """Issue 45 ("also build"): a dark room's browser asks for dark; the player, chips, tables and chart labels had
    black text and white buttons on it. The page follows the browser's preference, and back when it changes."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme="dark")
    page = context.new_page()
    try:
        for path, drawn in THEMED_PAGES:
            open_app(page, app_url, f"{path}{'&' if '?' in path else '?'}lang=pt&big={big}")
            page.locator(drawn).first.wait_for(state="attached", timeout=60_000)
            page.wait_for_function("() => document.documentElement.dataset.bpeTheme === 'dark'", timeout=10_000)
            assert sum(map(float, page.evaluate(BACKGROUND)[4:-1].split(",")[:3])) < 150, page.evaluate(BACKGROUND)
            page.wait_for_timeout(300)
            assert low_contrast(page) == [], (path, big)
            assert_no_errors(page)
            shot(page, f"dark-{'classroom-' if big else ''}{path.split('?')[0].strip('/') or 'train'}")
        page.emulate_media(color_scheme="light")  # the room's lights go on: the system switches back
        page.wait_for_function("() => document.documentElement.dataset.bpeTheme === 'light'", timeout=10_000)
        page.wait_for_timeout(300)
        assert low_contrast(page) == []
    finally:
        context.close()
