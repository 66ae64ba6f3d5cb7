"""A live class in Chromium: a teacher on a projector (1024×768, classroom mode) and three students on phones (390×844)."""

from __future__ import annotations

import contextlib
import re

import pytest
from browser_helpers import assert_no_errors, open_app, wait_idle, wait_text
from conftest import ARTIFACTS, shot
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = [pytest.mark.browser, pytest.mark.server]
PHONE = {"width": 390, "height": 844}
AT_STEP_3 = """() => { const c = document.querySelector('[data-testid="bpe-counter"]');
                      return c && c.innerText.startsWith('3 '); }"""
AT_STEP_4 = AT_STEP_3.replace("'3 '", "'4 '")


def counter(page) -> str:
    return page.locator('[data-testid="bpe-counter"]').first.inner_text()


def watched(page):
    """The page, keeping its script errors and console errors (written out if the test fails)."""
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: page.errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    return page


def test_a_teacher_and_three_students(browser, app_url):
    teacher_context = browser.new_context(viewport={"width": 1024, "height": 768})
    contexts = [teacher_context]
    try:
        teacher = watched(teacher_context.new_page())
        open_app(teacher, app_url, "/?big=1")
        start = teacher.get_by_role("button", name="Start a live class")
        for _ in range(3):  # the expander may be drawn again by a run still going: open it until the button shows
            teacher.locator('[data-testid="stSidebar"] summary', has_text="Live class").click()
            try:
                start.wait_for(state="visible", timeout=10_000)
                break
            except PlaywrightTimeout:
                continue
        for attempt in range(2):  # a click that lands as the page's first run ends can be dropped by Streamlit: click again
            start.click()
            try:
                wait_text(teacher, "Class code:", timeout=20_000 if attempt == 0 else 30_000)
                break
            except PlaywrightTimeout:
                if attempt == 1 or not start.is_visible():
                    raise
        code = re.search(r"Class code: ([A-Z0-9]{5})", teacher.inner_text("body")).group(1)
        teacher.wait_for_selector('[data-testid="stSidebar"] img', timeout=30_000)  # the QR code
        shot(teacher, "live-teacher-start")
        teacher.get_by_role("button", name="Show the join screen").click()  # full screen, for the back of the room
        big = teacher.get_by_test_id("bpe-join-code")
        big.wait_for(state="visible", timeout=30_000)
        assert big.inner_text() == code and float(big.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 100
        qr = teacher.locator('[data-testid="stDialog"] img').first
        assert qr.bounding_box()["width"] >= 300
        shot(teacher, "live-join-screen")
        teacher.keyboard.press("Escape")
        big.wait_for(state="hidden", timeout=30_000)

        students = []
        for k in range(3):
            context = browser.new_context(viewport=PHONE)
            contexts.append(context)
            student = watched(context.new_page())
            open_app(student, app_url, f"/?class={code}" + ("&lang=pt" if k == 2 else ""))
            students.append(student)
        wait_text(students[0], "3 students in live class")
        wait_text(students[2], "alunos na aula ao vivo")  # a student reads the class in their own language
        wait_text(teacher, "3 students have joined")
        banner = teacher.locator('[data-testid="stMain"]').get_by_text(f"3 students in live class {code}")
        banner.wait_for(state="visible", timeout=30_000)  # at the top of the projector's page, not only in the sidebar

        for _ in range(3):
            teacher.get_by_role("button", name="Next ▶").click()
        teacher.wait_for_function("() => document.querySelector('[data-testid=\"bpe-counter\"]').innerText.startsWith('3 ')")
        for student in students:  # they follow within about a second, without a reload
            student.wait_for_function(AT_STEP_3, timeout=30_000)
        shot(students[0], "live-student-following")

        teacher.get_by_role("button", name="Ask the class: which pair merges next?").click()
        questions = ["Which pair merges next?", "Which pair merges next?", "Qual par se funde agora?"]
        for student, question in zip(students, questions):
            wait_text(student, question, timeout=30_000)
        for k, student in enumerate(students):
            options = student.locator('[data-testid="stMain"] [role="radiogroup"]').first.locator("label")
            options.nth(k % options.count()).click()
            wait_text(student, "counted" if k < 2 else "contado", timeout=30_000)
        wait_text(teacher, "3 votes so far", timeout=30_000)
        students[1].reload()  # a student's F5 keeps their seat and their vote (the browser keeps their id)
        wait_text(students[1], "Your vote is counted", timeout=60_000)
        options = students[1].locator('[data-testid="stMain"] [role="radiogroup"]').first.locator("label")
        options.nth(3).click()  # and a change replaces it
        wait_text(students[1], "Your vote is counted", timeout=30_000)
        wait_text(teacher, "3 votes so far", timeout=30_000)
        wait_text(teacher, "3 students have joined", timeout=30_000)  # one seat each, not a fourth
        for page in (teacher, *students):  # the answer is hidden everywhere: no pair counts, no step past the question
            page.locator('[data-testid="bpe-held"]').first.wait_for(state="visible", timeout=30_000)
            assert page.locator('[data-testid="bpe-chart"]').count() == 0
            assert page.get_by_role("button", name=re.compile("Next ▶|Próximo ▶")).first.is_disabled()
        teacher.keyboard.press("n")  # nor by the keyboard
        assert counter(teacher).startswith("3 ")
        teacher.locator('[data-testid="bpe-held"]').first.scroll_into_view_if_needed()
        shot(teacher, "live-teacher-vote-held")
        shot(students[2], "live-student-vote-held-pt")
        shot(teacher, "live-teacher-votes")
        teacher.get_by_role("button", name="Reveal the answer").click()
        wait_text(teacher, "3 votes,", timeout=30_000)
        for student in students:
            student.wait_for_function("() => /You got it|The answer|Acertou|A resposta/.test(document.body.innerText)",
                                      timeout=60_000)  # three whole-page runs at once on a busy 2-core machine
        for page in (teacher, *students):  # the pair counts come back with the answer
            page.locator('[data-testid="bpe-chart"]').first.wait_for(state="visible", timeout=30_000)
        shot(students[0], "live-student-revealed")
        shot(students[2], "live-student-revealed-pt")
        for page in (teacher, *students):
            assert_no_errors(page)

        teacher.reload()  # F5 on the projector: the browser's kept key gives the class back
        wait_text(teacher, f"Welcome back: live class {code} goes on", timeout=60_000)
        wait_text(teacher, f"Class code: {code}")
        teacher.wait_for_function(AT_STEP_3, timeout=30_000)  # the step came back with the address
        wait_idle(teacher)
        teacher.get_by_role("button", name="Next ▶").click()
        for student in students:  # and the students, never moved, follow the next step
            student.wait_for_function(AT_STEP_4, timeout=30_000)
        shot(teacher, "live-teacher-reloaded")

        teacher.get_by_role("button", name="End the class").click()
        wait_text(teacher, "Start a live class")
        wait_text(students[0], f"The live class {code} has ended", timeout=30_000)
        wait_text(students[2], f"A aula ao vivo {code} terminou", timeout=30_000)
    except BaseException:  # what every page showed when it failed (kept by CI as artifacts)
        ARTIFACTS.mkdir(exist_ok=True)
        for k, context in enumerate(contexts):
            for pg in context.pages:
                with contextlib.suppress(Exception):
                    pg.screenshot(path=str(ARTIFACTS / f"failed-live-{k}.png"), full_page=True)
                with contextlib.suppress(Exception):  # the text, and the players' inner state, for what a picture hides
                    players = pg.eval_on_selector_all(".bpe-player", "ps => ps.map(p => p.outerHTML.slice(0, 400))")
                    running = pg.locator('[data-testid="stStatusWidget"]').count()
                    errors = "\n".join(getattr(pg, "errors", []))
                    (ARTIFACTS / f"failed-live-{k}.txt").write_text(
                        f"running: {running}\nplayers: {players}\nerrors:\n{errors}\n\n{pg.inner_text('body')}",
                        encoding="utf-8")
        raise
    finally:
        for context in contexts:
            context.close()
