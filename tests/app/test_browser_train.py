"""The training page in a real Chromium."""

from pathlib import Path

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
    page.get_by_role("button", name="Last »").click()
    page.wait_for_function("document.querySelectorAll('#merge-table tbody tr').length === 41")
    page.wait_for_function("[...document.querySelectorAll('.bpe-chip')].some(c => c.textContent === '␣gato')")
    wait_idle(page)
    last = merge_rows(page).last.inner_text()
    assert "␣su + b → ␣sub" in last and "2" in last
    chips = [c.inner_text() for c in page.locator(".bpe-chip").all()]
    assert "␣gato" in chips
    assert_no_errors(page)
    shot(page, "train-step-41")


def download_lesson(page) -> dict:
    import json

    if not page.get_by_role("button", name="Download lesson (JSON)").is_visible():
        page.get_by_text("Lesson snapshot").click()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download lesson (JSON)").click()
    return json.loads(open(info.value.path(), encoding="utf-8").read())["lesson"]


def counter(page) -> str:
    return page.locator('[data-testid="bpe-counter"]').inner_text()


def test_the_lesson_file_holds_the_step_on_screen(app_url, page):
    open_app(page, app_url)
    for _ in range(10):
        page.get_by_role("button", name="Next ▶").click()
    assert counter(page) == "10 / 41"
    # at once, without waiting for the server: a Download the server cannot answer yet waits for it (issue 27.10)
    assert download_lesson(page)["step"] == 10  # was 0: the file was written before the steps
    page.get_by_role("button", name="Last »").click()
    assert download_lesson(page)["step"] == 41
    page.wait_for_function("location.search.includes('step=41')")  # and the address bar holds it too


def test_a_download_right_after_a_step_waits_until_the_server_holds_it(app_url, page):
    """Issue 27.10: Download clicked before the server heard the step (here: the step's message held back) waits, busy."""
    import json
    import re

    held, hold, servers = [], [False], []

    def route(ws):
        server = ws.connect_to_server()
        servers.append(server)

        def up(message):
            if hold[0] and re.search(rb'"step":\d', message if isinstance(message, bytes) else message.encode()):
                held.append(message)  # a slow line: the step's message reaches the server late
                return
            server.send(message)

        ws.on_message(up)
        server.on_message(ws.send)

    page.route_web_socket("**/_stcore/stream", route)
    open_app(page, app_url)
    page.get_by_text("Lesson snapshot").click()
    button = page.get_by_role("button", name="Download lesson (JSON)")
    button.wait_for()
    hold[0] = True
    page.get_by_role("button", name="Next \u25b6").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"bpe-counter\"]').textContent === '1 / 41'")
    with page.expect_download() as info:
        button.click()
        page.wait_for_function("""() => document.querySelector('.st-key-snapshot_download button')
                                  ?.getAttribute('aria-busy') === 'true'""")  # the file waits for the server
        assert held
        hold[0] = False
        for message in held:
            servers[-1].send(message)
    with open(info.value.path(), encoding="utf-8") as file:
        assert json.loads(file.read())["lesson"]["step"] == 1  # was 0: the file was written before the server heard
    assert counter(page) == "1 / 41"


def test_the_play_speed_survives_stepping_and_changing_page(app_url, page):
    open_app(page, app_url)
    page.locator("select.bpe-speed").select_option("2")
    page.get_by_role("button", name="Next ▶").click()
    page.get_by_role("link", name="Encode").click()
    page.wait_for_selector("#trace-table")
    assert page.locator("select.bpe-speed").input_value() == "2"
    page.get_by_role("link", name="Train").click()
    page.wait_for_selector("#merge-table")
    assert page.locator("select.bpe-speed").input_value() == "2"


def test_a_tied_pair_is_a_right_guess(app_url, page):
    open_app(page, app_url, "/?step=2")
    page.get_by_text("Guess the next merge").click()
    page.get_by_role("radiogroup", name="Your guess").get_by_text("␣ + s", exact=True).click()
    page.get_by_role("button", name="Reveal").click()
    wait_text(page, "The next merge is t + o (6 times)")
    assert "Right too: your pair is just as frequent" in page.inner_text("body")


def test_steps_redraw_in_the_browser_and_the_views_agree(app_url, page):
    open_app(page, app_url)
    page.wait_for_selector('[data-testid="bpe-counter"]')  # the player has its history: keys reach it
    page.locator("h1").click()
    # a presentation clicker's keys too: PageDown, Space, → forward; PageUp, ← back
    for key, step in (("End", 41), ("Home", 0), ("n", 1), ("n", 2), ("p", 1), ("PageDown", 2), ("Space", 3),
                      ("ArrowRight", 4), ("ArrowLeft", 3), ("PageUp", 2)):
        page.keyboard.press(key)
        assert counter(page) == f"{step} / 41"  # synchronous: no server round trip between key and redraw
        assert page.locator("#merge-table tbody tr").count() == step
        if step:
            newest = page.locator("#merge-table tbody tr.bpe-row-hl").inner_text()
            assert newest.startswith(f"{step}\t")
    page.locator(".bpe-slider").fill("10")
    assert counter(page) == "10 / 41" and page.locator(".bpe-chip.bpe-hl").count() == 4  # merge 10 made ␣gato: four cats
    page.locator("#merge-table tbody tr").nth(5).click()  # merge 6: ã + o
    assert [c.inner_text() for c in page.locator(".bpe-chip.bpe-hl").all()] == ["ão"] * 6
    page.locator("h1").click()
    page.keyboard.press("End")
    rows = page.locator("#merge-table tbody tr")
    cells = [row.locator("td").all_inner_texts() for row in rows.all()]
    rank = next(k for k, row in enumerate(cells) if row[1] == "␣ + c → ␣c")  # ␣c lives only inside ␣cão, ␣chão
    rows.nth(rank).click()
    assert page.locator(".bpe-chip.bpe-hl").count() == 0  # never on its own at the last step: issue 27.5
    inside = set(page.locator(".bpe-chip.bpe-hl-in").all_inner_texts())
    assert inside and all(token.startswith("␣c") for token in inside) and {"␣cão", "␣chão"} <= inside
    assert "lives inside longer tokens" in page.locator('[data-testid="bpe-corpus"]').inner_text()
    header = page.evaluate("getComputedStyle(document.querySelector('#merge-table th')).position")
    assert header == "sticky"


def test_a_replay_shows_counts_tokens_and_thousands(app_url, page):
    open_app(page, app_url, "/?src=gpt2&vocab=50256")
    page.wait_for_selector('[data-testid="bpe-counter"]', timeout=120_000)
    page.locator("h1").click()
    page.keyboard.press("End")
    assert counter(page) == "50,000 / 50,000"
    metrics = page.locator('[data-testid="bpe-metrics"]').inner_text()
    assert "Tokens now" in metrics and "Bytes per token" in metrics  # blank for replays before
    assert page.locator("#merge-table tbody tr").count() == 200  # the newest rows only
    assert_no_errors(page)



def test_a_slow_server_never_pulls_the_step_back(app_url, page):
    """The server's late answers to steps 1 and 2 must not undo the clicks the browser made since."""
    held, hold, sockets = [], [False], []

    def route(ws):
        server = ws.connect_to_server()
        sockets.append(ws)
        ws.on_message(server.send)
        server.on_message(lambda message: held.append(message) if hold[0] else ws.send(message))

    page.route_web_socket("**/_stcore/stream", route)
    open_app(page, app_url)
    page.wait_for_selector('[data-testid="bpe-counter"]')
    page.evaluate("""() => { window.__seen = [];
        const c = document.querySelector('[data-testid="bpe-counter"]');
        new MutationObserver(() => window.__seen.push(c.textContent))
            .observe(c, {childList: true, characterData: true, subtree: true}); }""")
    hold[0] = True  # from here the server's answers queue up, as on a busy server
    for _ in range(3):
        page.get_by_role("button", name="Next ▶").click()
        page.wait_for_timeout(500)  # past the browser's 400 ms throttle: every step is sent
    assert counter(page) == "3 / 41"
    page.wait_for_timeout(1500)  # the server has answered all three by now, into the queue
    assert held
    hold[0] = False
    for message in held:  # the answers arrive late, in the order the server sent them
        sockets[-1].send(message)
    wait_idle(page)
    page.wait_for_timeout(500)
    seen = [int(text.split("/")[0]) for text in page.evaluate("window.__seen")]
    assert seen[-1] == 3 and seen == sorted(seen), seen  # never back to 1 or 2
    page.wait_for_function("location.search.includes('step=3')")


def dropping(page, pattern: bytes) -> tuple[list, list[bool]]:
    """Route the app's websocket so that, while drop[0] is true, a message matching pattern never reaches the server."""
    import re

    dropped, drop = [], [False]

    def route(ws):
        server = ws.connect_to_server()

        def up(message):
            if drop[0] and re.search(pattern, message if isinstance(message, bytes) else message.encode()):
                dropped.append(message)  # as if it never arrived
                return
            server.send(message)

        ws.on_message(up)
        server.on_message(ws.send)

    page.route_web_socket("**/_stcore/stream", route)
    return dropped, drop


def test_a_step_whose_message_was_lost_survives_a_visit_to_another_page(app_url, page):
    """Next, then Encode at once on a busy server: the step's message can be lost; back on Train the step is kept."""
    dropped, drop = dropping(page, rb'"step":1[,}]')
    open_app(page, app_url)
    drop[0] = True
    page.get_by_role("button", name="Next \u25b6").click()
    page.wait_for_timeout(500)
    drop[0] = False
    assert dropped and counter(page) == "1 / 41"
    page.get_by_role("link", name="Encode").click()
    page.wait_for_selector("#trace-table")
    page.get_by_role("link", name="Train").click()
    page.wait_for_function("""() => document.querySelector('[data-testid="bpe-counter"]')?.textContent === '1 / 41'""")
    assert merge_rows(page).count() == 1
    page.wait_for_function("new URLSearchParams(location.search).get('step') === '1'")  # the server heard it this time


def test_a_speed_whose_message_was_lost_survives_a_visit_to_another_page(app_url, page):
    """The same for the play speed: chosen on Train, its message lost, still chosen on Encode and back."""
    dropped, drop = dropping(page, rb'"speed":2[,}]')
    open_app(page, app_url)
    drop[0] = True
    page.locator("select.bpe-speed").select_option("2")
    page.wait_for_timeout(500)
    drop[0] = False
    assert dropped
    page.get_by_role("link", name="Encode").click()
    page.wait_for_selector("#trace-table")
    assert page.locator("select.bpe-speed").input_value() == "2"
    wait_idle(page)
    page.get_by_role("link", name="Train").click()
    page.wait_for_selector("select.bpe-speed")
    wait_idle(page)
    assert page.locator("select.bpe-speed").input_value() == "2"
    assert download_lesson(page)["speed"] == 2  # and the server heard it this time


def test_the_player_writes_numbers_as_portuguese_does(app_url, page):
    """Issue 45.4: "Bytes por token 1.04" and "0 / 50,000" in Portuguese; the player now writes 3,05 and 50.000."""
    open_app(page, app_url, "/?lang=pt&step=41")
    page.wait_for_selector("[data-testid='bpe-metrics']")
    metrics = page.locator("[data-testid='bpe-metrics']").first.inner_text()
    assert "3,05" in metrics and "3.05" not in metrics
    open_app(page, app_url, "/?lang=pt&src=gpt2&vocab=50256&step=0")
    wait_text(page, "0 / 50.000", timeout=120_000)


def test_the_printable_handout_downloads_in_the_interface_language(app_url, page):
    open_app(page, app_url, "/?lang=pt&step=7")
    page.wait_for_selector('[data-testid="bpe-counter"]')
    with page.expect_download(timeout=60_000) as caught:
        page.get_by_role("button", name="Folha para imprimir").click()
    html = Path(caught.value.path()).read_text(encoding="utf-8")
    assert "A tabela de fusões" in html and "O corpus depois de 7 fusões" in html and "Codificando “o gato subiu no”" in html
    assert html.count("<tr><td>") >= 7 and "<script" not in html
