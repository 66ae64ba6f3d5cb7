"""The training page in a real Chromium."""

from browser_helpers import assert_no_errors, open_app, wait_idle, wait_text
from conftest import shot


def merge_rows(pg):
    return pg.locator("#merge-table tbody tr")


def test_first_click_shows_first_merge(app_url, page):
    open_app(page, app_url)
    wait_text(page, "Toy Portuguese (8 sentences)")
    assert merge_rows(page).count() == 0
    page.get_by_role("button", name="Next ▶").click()
    page.wait_for_selector("#merge-table tbody tr")
    wait_idle(page)
    row = merge_rows(page).first.inner_text()
    assert "␣ + n → ␣n" in row and "7" in row
    assert_no_errors(page)
    shot(page, "train-step-1")


def test_step_to_the_end(app_url, page):
    open_app(page, app_url, "/?step=10")
    page.wait_for_selector("#merge-table tbody tr")
    assert merge_rows(page).count() == 10
    shot(page, "train-step-10")
    page.get_by_role("button", name="Last ⏭").click()
    page.wait_for_function("document.querySelectorAll('#merge-table tbody tr').length === 41")
    page.wait_for_function("[...document.querySelectorAll('.bpe-chip')].some(c => c.textContent === '␣gato')")
    wait_idle(page)
    last = merge_rows(page).last.inner_text()
    assert "␣su + b → ␣sub" in last and "2" in last
    chips = [c.inner_text() for c in page.locator(".bpe-chip").all()]
    assert "␣gato" in chips
    assert_no_errors(page)
    shot(page, "train-step-41")
