"""Encode, charts, quirks, classroom mode, lesson links, quiz, hostile text and isolation, in Chromium."""

from browser_helpers import assert_no_errors, chart_marks, open_app, set_text_input, set_textarea, wait_idle, wait_text
from conftest import shot

HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "javascript:alert(3)"]


def test_encode_trace_and_four_tokenizers(app_url, page):
    open_app(page, app_url, "/encode")
    set_textarea(page, "Sentence to encode", "o gato subiu no muro")
    wait_text(page, "o ␣gato ␣sub iu ␣no ␣muro")
    rows = page.locator("#trace-table tbody tr")
    assert rows.first.inner_text().split("\t")[-1].strip() == "20"
    assert "o ␣gato ␣sub iu ␣no ␣muro" in rows.last.inner_text()
    body = page.inner_text("body")
    for label in ("trained here ·", "GPT-2 ·", "cl100k_base (GPT-4) ·", "o200k_base (GPT-4o) ·"):
        assert label in body
    assert page.locator(".bpe-chip").count() > 20
    assert_no_errors(page)
    shot(page, "encode")


def test_keyboard_steps_the_trace(app_url, page):
    open_app(page, app_url, "/encode")
    page.get_by_role("button", name="First").click()
    page.wait_for_function("document.querySelectorAll('#trace-table tbody tr').length === 1")
    wait_idle(page)
    page.locator("h1").click()  # focus on the page, not in a text box
    page.keyboard.press("n")
    page.wait_for_function("document.querySelectorAll('#trace-table tbody tr').length === 2")


def test_charts_render_with_marks(app_url, page):
    open_app(page, app_url, "/charts")
    page.wait_for_function("document.querySelectorAll('.vega-embed').length >= 2", timeout=60_000)
    wait_idle(page, 60)
    page.wait_for_timeout(1500)
    assert chart_marks(page, 0) >= 2 + 5 + 3  # two curves, held-out points, three real tokenizers
    assert chart_marks(page, 1) >= 26 * 5  # 26 languages x 5 tokenizers
    assert_no_errors(page)
    shot(page, "charts-vocab")
    page.locator(".vega-embed").nth(1).scroll_into_view_if_needed()
    shot(page, "charts-languages")


def test_chart_axes_write_numbers_as_portuguese_does(app_url, page):
    open_app(page, app_url, "/charts?lang=pt")
    page.wait_for_function("document.querySelectorAll('.vega-embed svg .role-axis-label text').length > 10", timeout=60_000)
    ticks = page.evaluate("() => [...document.querySelectorAll('.vega-embed')[0]"
                          ".querySelectorAll('.role-axis-label text')].map(t => t.textContent)")
    assert "1.024" in ticks and "262.144" in ticks and "0,5" in ticks, ticks  # was 1,024 and 0.5
    assert "1,024" not in ticks
    body = page.inner_text('[data-testid="stMain"]')
    assert "1.00 →" not in body  # the doubling table: 1,00 → 2,19


def test_quirk_numbers_match_the_real_encodings(app_url, page):
    open_app(page, app_url, "/quirks")
    set_text_input(page, "Numbers", "12345")
    wait_text(page, "cl100k_base (GPT-4) · 2 tokens")
    body = page.inner_text("body")
    assert "cl100k_base (GPT-4) · 2 tokens" in body and "o200k_base (GPT-4o) · 2 tokens" in body and "GPT-2 · 2 tokens" in body
    labels = page.evaluate("""() => [...document.querySelectorAll('.bpe-chips')].map(
        row => [...row.querySelectorAll('.bpe-chip')].map(chip => chip.firstChild.textContent))""")
    assert labels[2] == ["123", "45"]  # rows: trained here, GPT-2, cl100k_base, o200k_base
    for title in ("Spelling: how many r's in strawberry?", "Glitch tokens: learned but never used", "A character cut in half"):
        page.get_by_text(title).click()
        wait_idle(page)
    wait_text(page, "GPT-2: 7 of 13 tokens end mid-character")
    body = page.inner_text("body")
    assert "What the model sees (cl100k_base): 3 tokens" in body  # str|aw|berry
    assert "GPT-2 · 1 token\n" in body  # " SolidGoldMagikarp" is one GPT-2 token
    assert "GPT-2: 7 of 13 tokens end mid-character" in body
    assert_no_errors(page)
    shot(page, "quirks")


def test_classroom_mode_enlarges_text(app_url, page):
    open_app(page, app_url)
    caption = "document.querySelector('[data-testid=\"stCaptionContainer\"] p')"
    size = f"parseFloat(getComputedStyle({caption} || document.querySelector('p')).fontSize)"
    before = page.evaluate(size)
    page.get_by_text("Classroom mode (big, high contrast)").click()
    page.wait_for_function(f"{size} > {before} * 1.3")
    after = page.evaluate(size)
    assert after > before * 1.3, (before, after)
    shot(page, "classroom")


def test_lesson_link_lands_on_the_step_in_a_new_browser(app_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    open_app(pg, app_url, "/?step=7&s=o+c%C3%A3o")
    pg.wait_for_selector("#merge-table tbody tr")
    wait_idle(pg)
    assert pg.locator("#merge-table tbody tr").count() == 7
    pg.get_by_text("7 / 41").wait_for()
    pg.get_by_role("button", name="Next ▶").click()
    pg.wait_for_function("document.querySelectorAll('#merge-table tbody tr').length === 8")
    pg.wait_for_function("location.search.includes('step=8')")
    context.close()


def test_quiz_hides_then_reveals(app_url, page):
    open_app(page, app_url)
    page.get_by_text("Guess the next merge").click()
    wait_text(page, "The next merge is hidden")
    assert page.locator('[data-testid="bpe-chart"]').count() == 0  # no counts before the reveal
    page.get_by_role("radiogroup", name="Your guess").get_by_text("␣ + n", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Reveal").click()
    wait_text(page, "(7 times)")
    body = page.inner_text("body")
    assert "The next merge is ␣ + n (7 times)" in body and "Right!" in body
    page.wait_for_selector('[data-testid="bpe-chart"]')  # the counts come back after the reveal
    assert page.locator('[data-testid="bpe-chart"]').count() == 1
    shot(page, "quiz")


def test_hostile_text_is_shown_not_run(app_url, page):
    open_app(page, app_url, "/encode")
    for text in HOSTILE:
        set_textarea(page, "Sentence to encode", text)
        assert page.locator("script:text('alert')").count() == 0
        assert page.locator("img[src=x]").count() == 0
    page.get_by_text("Paste text").click()
    wait_idle(page)
    set_textarea(page, "Text to train on", " ".join(HOSTILE) + " o gato")
    page.get_by_role("link", name="Train").click()
    wait_idle(page)
    page.get_by_role("button", name="Last »").click()
    wait_idle(page)
    wait_text(page, "script")  # the pasted text, drawn as chips
    assert page.locator("img[src=x]").count() == 0
    page.get_by_role("link", name="Quirks").click()
    wait_idle(page)
    for text in HOSTILE:
        set_text_input(page, "Numbers", text)
        assert page.locator("img[src=x]").count() == 0
    page.wait_for_timeout(500)
    assert page.dialogs == []
    assert_no_errors(page)


def test_hostile_custom_pattern_is_text(app_url, page):
    from urllib.parse import quote

    pattern = "<img src=x onerror=alert(4)>|\\w+"
    open_app(page, app_url, f"/?pre=custom&re={quote(pattern)}")
    page.wait_for_function("p => document.querySelector('input[aria-label=\"Custom split regex\"]')?.value === p", arg=pattern)
    page.get_by_text("How a sample is split").click()
    wait_idle(page)
    assert page.locator("img[src=x]").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []
    assert_no_errors(page)


def test_two_visitors_never_see_each_other(app_url, browser):
    a = browser.new_context().new_page()
    b = browser.new_context().new_page()
    open_app(a, app_url)
    a.get_by_text("Paste text").click()
    wait_idle(a)
    set_textarea(a, "Text to train on", "alfabeta alfabeta zeta zeta zeta")
    open_app(b, app_url)
    b.get_by_role("button", name="Last »").click()
    wait_text(b, "41 / 41")
    a.get_by_role("button", name="Last »").click()
    a.wait_for_function("document.querySelector('#merge-table') && !document.body.innerText.includes('Toy Portuguese')")
    wait_idle(a)
    text_a, text_b = a.inner_text("body"), b.inner_text("body")
    assert "alfabeta" in text_a.replace("␣", "") and "gato" not in text_a
    assert "alfabeta" not in text_b.replace("␣", "") and "zeta" not in text_b and "41 / 41" in text_b
    a.context.close()
    b.context.close()


def test_nothing_is_fetched_beyond_the_app_and_links_cannot_inject(app_url, page):
    from urllib.parse import quote

    image = "![p](http://127.0.0.1:9/x)"
    open_app(page, app_url, f"/?pre=custom&re={quote(image + '|' + chr(92) + 'w+|' + chr(92) + 's')}")
    wait_text(page, "Toy Portuguese (8 sentences)")
    page.get_by_role("button", name="Next ▶").click()
    page.wait_for_selector("#merge-table tbody tr")
    assert page.locator('img[src*="127.0.0.1:9"]').count() == 0 and page.locator('a[href*="127.0.0.1:9"]').count() == 0
    for path in ("/encode", "/charts", "/quirks", "/inspect", "/beyond", "/files"):
        open_app(page, app_url, path)
    page.wait_for_timeout(500)
    foreign = sorted({u for u in page.requests if not u.startswith((app_url, "data:", "blob:", "about:"))})
    assert foreign == []
    assert any(u.startswith(app_url) for u in page.requests)  # the recorder really records


def test_values_quoted_in_messages_are_never_links(app_url, page):
    """Issue 28 row 8: GFM autolinked http://..., www.... and a@b quoted in warnings, through render.md's escapes."""
    from urllib.parse import quote

    values = {"level": "http://127.0.0.1:9/x", "tie": "www.evil.example", "count": "someone@evil.example"}
    open_app(page, app_url, "/?" + "&".join(f"{k}={quote(v)}" for k, v in values.items()))
    wait_text(page, "someone@")
    shown = page.inner_text('[data-testid="stMain"]')
    assert all(v in shown.replace("\u2060", "") for v in values.values())  # quoted, and read as written
    assert page.locator('[data-testid="stMain"] a[href*="127.0.0.1:9"], [data-testid="stMain"] a[href*="evil"]').count() == 0


def test_the_paste_box_states_its_limit_and_the_browser_keeps_to_it(app_url, page):
    open_app(page, app_url)
    page.get_by_text("Paste text").click()
    wait_text(page, "At most 5,000,000 characters")
    box = page.get_by_label("Text to train on", exact=True)
    box.fill("o gato " * 714_300)  # 5 000 100 characters
    length = page.evaluate("() => document.querySelector('textarea[aria-label=\"Text to train on\"]').value.length")
    assert length <= 5_000_000  # the box keeps to the limit, so no paste can reach the 25 MB websocket limit
    assert "upload a file or use the command line" in page.inner_text("body")


def test_uploads_keep_to_the_cap_their_box_states(app_url, page):
    open_app(page, app_url)
    page.get_by_text("Replay a tokenizer file").click()
    wait_text(page, "A tokenizer file (at most 20 MB)")
    junk = b"not a tokenizer\n" * 400_000  # 6.4 MB: over the text cap, under the tokenizer cap
    page.locator('[data-testid="stSidebar"] input[type="file"]').first.set_input_files(
        {"name": "big.tiktoken", "mimeType": "text/plain", "buffer": junk})
    wait_text(page, "not a tokenizer file bpeviz reads")  # read and refused by bpeviz, not by the server (413)
    body = page.inner_text("body")
    assert "AxiosError" not in body and "413" not in body
    page.get_by_text("Upload .txt").click()
    wait_text(page, "A text file (at most 5 MB)")
    page.locator('[data-testid="stSidebar"] input[type="file"]').first.set_input_files(
        {"name": "big.txt", "mimeType": "text/plain", "buffer": junk})
    page.wait_for_timeout(1500)
    body = page.inner_text("body")
    assert "AxiosError" not in body and "413" not in body
    assert "5MB or smaller" in body.replace(".0MB", "MB") or "the limit here is 5 MB" in body


def test_streamlits_own_texts_speak_portuguese_and_english_again(app_url, page):
    # issue 27.7: Streamlit has no setting for its upload box, its errors or "Select all"; the page rewrites them
    open_app(page, app_url, "/?lang=pt")
    page.get_by_text("Enviar .txt").click()
    box = page.locator('[data-testid="stSidebar"] [data-testid="stFileUploader"]').first
    box.locator("text=por arquivo").wait_for(timeout=30_000)
    assert "5MB por arquivo" in box.inner_text().replace(".0MB", "MB") and "per file" not in box.inner_text()
    assert box.get_by_role("button", name="Enviar").count() == 1
    box.locator('input[type="file"]').set_input_files(
        {"name": "big.txt", "mimeType": "text/plain", "buffer": b"texto grande\n" * 500_000})  # 6.5 MB
    box.locator("text=O arquivo deve ter no máximo").wait_for(timeout=30_000)
    assert "File must be" not in box.inner_text()
    shot(page, "upload-refused-pt")
    page.locator('[data-testid="stSidebar"] label', has_text="English").click()
    box.locator("text=File must be").wait_for(timeout=30_000)  # back in English: the originals are restored
    assert "O arquivo deve" not in box.inner_text()


def test_the_menu_offers_the_themes_in_the_interface_language(app_url, page):
    """Issue 45: the dark theme is chosen in Streamlit's menu (System, Light, Dark); in Portuguese it says so."""
    open_app(page, app_url, "/?lang=pt")
    page.locator('[data-testid="stMainMenu"]').click()
    menu = page.locator('[data-testid="stMainMenuPopover"]')
    menu.locator("text=Escuro").wait_for(timeout=30_000)  # rewritten by the page: Streamlit says "Dark"
    assert all(word in menu.inner_text() for word in ("Sistema", "Claro", "Imprimir"))
    assert not any(word in menu.inner_text().split() for word in ("System", "Light", "Dark", "Print"))
    menu.locator("text=Escuro").click()  # a teacher in a dark room
    page.wait_for_function("() => document.documentElement.dataset.bpeTheme === 'dark'", timeout=10_000)


def test_the_rules_page_in_english_and_portuguese(app_url, page):
    for lang, example, verdict in (("en", "Example: a mistake at step 5", "Merge 5 (line 5) is wrong"),
                                   ("pt", "Exemplo: um erro no passo 5", "Fusão 5 (linha 5): errado")):
        open_app(page, app_url, f"/rules?lang={lang}")
        wait_text(page, "Merge 3:" if lang == "en" else "Fusão 3:")
        page.get_by_role("button", name=example).click()
        wait_text(page, verdict)
        assert_no_errors_but_the_verdict(page)
        shot(page, f"rules-{lang}")
        page.get_by_text(verdict).scroll_into_view_if_needed()
        shot(page, f"rules-checker-{lang}")


def assert_no_errors_but_the_verdict(pg):
    body = pg.inner_text("body")
    assert pg.locator('[data-testid="stException"]').count() == 0 and "Traceback" not in body


def test_algorithms_page_steps_wordpiece_and_unigram(app_url, page):
    open_app(page, app_url, "/algorithms")
    wait_text(page, "Where BPE and WordPiece part ways")
    assert "WordPiece takes f + á (count 2, score 0.333)" in page.inner_text("body").replace("`", "")
    page.get_by_role("tab", name="WordPiece").click()
    page.locator('[data-testid="stMain"] .bpe-player:visible').get_by_role("button", name="Next ▶").click()
    page.wait_for_function("document.querySelectorAll('#wordpiece-table tbody tr').length === 1")
    assert "##f + ##á → ##fá" in page.locator("#wordpiece-table tbody tr").first.inner_text()
    detail = page.locator('[data-testid="bpe-detail"]:visible').inner_text()
    assert "WordPiece takes ##f + ##á" in detail and "BPE would take ␣ + ##n (count 7" in detail
    page.keyboard.press("n")
    page.wait_for_function("document.querySelectorAll('#wordpiece-table tbody tr').length === 2")
    assert_no_errors(page)
    shot(page, "algorithms-wordpiece")
    open_app(page, app_url, "/algorithms?corpus=english&vocab=400&lang=pt")
    wait_text(page, "Onde BPE e WordPiece se separam")
    page.get_by_role("tab", name="Unigram").click()
    page.locator('[data-testid="stMain"] .bpe-player:visible').get_by_role("button", name="Fim »").click()
    page.wait_for_function("document.querySelectorAll('#unigram-table tbody tr').length >= 2")
    assert "Rodada" in page.locator('[data-testid="bpe-detail"]:visible').inner_text()
    assert_no_errors(page)
    shot(page, "algorithms-unigram-pt")
    page.get_by_text("Uma frase, três tokenizadores").scroll_into_view_if_needed()
    shot(page, "algorithms-sentence-pt")


def test_the_token_inspector_on_hover_and_keyboard_and_a_files_count(app_url, page, tmp_path):
    open_app(page, app_url, "/encode")
    set_textarea(page, "Sentence to encode", "o gato çã")
    wait_text(page, "DeepSeek V4 ·")
    chip = page.locator('[data-testid="stMain"] .bpe-chips').nth(2).locator(".bpe-chip").nth(1)  # GPT-2: ␣g
    chip.hover()
    tip = chip.evaluate("c => getComputedStyle(c, '::after').content")
    assert "bytes 20 67" in tip and "rank 308" in tip
    shot(page, "encode-inspector-hover")
    page.locator("h1").click()
    for _ in range(60):  # Tab along the page until a chip takes the focus: the keyboard reaches every token
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('bpe-chip')"):
            break
    focused = page.evaluate("getComputedStyle(document.activeElement, '::after').content")
    assert focused.startswith('"id ')
    page.get_by_text("Byte view").click()
    page.wait_for_selector(".bpe-bytes")
    assert "c3 a7" in page.inner_text('[data-testid="stMain"]')
    span = page.locator('[data-testid="stMain"] [data-testid="stSlider"]', has_text="Outline the tokens")
    end = span.locator('input[type="range"]').last  # the span's end handle
    wait_idle(page)
    end.focus()
    for _ in range(6):  # the handles move with the arrow keys: characters 0 to 6, "o gato"
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(150)
    wait_idle(page)
    page.wait_for_function("document.querySelectorAll('.bpe-marked').length >= 6", timeout=60_000)  # every row outlines
    page.locator(".bpe-marked").first.scroll_into_view_if_needed()
    shot(page, "encode-span")
    text = tmp_path / "notes.txt"
    text.write_text("olá mundo " * 500, encoding="utf-8")
    page.locator('[data-testid="stMain"] input[type="file"]').last.set_input_files(str(text))
    wait_text(page, "Tokens of notes.txt")
    wait_idle(page)
    body = page.inner_text('[data-testid="stMain"]')
    assert "Qwen3.5 / 3.6" in body and "5,000" in body  # characters
    assert_no_errors(page)
    page.get_by_text("Tokens of notes.txt").scroll_into_view_if_needed()
    shot(page, "encode-file-count")
    open_app(page, app_url, "/encode?lang=pt&s=o%20gato")
    wait_text(page, "Mostrar espaços e caracteres de controle")
    page.locator('[data-testid="stMain"] .bpe-chips').nth(2).locator(".bpe-chip").nth(1).hover()
    shot(page, "encode-inspector-pt")


def test_who_pays_charts_the_premium_and_the_merges_each_language_won(app_url, page):
    open_app(page, app_url, "/languages")
    page.wait_for_function("document.querySelectorAll('.vega-embed').length >= 2", timeout=60_000)
    wait_idle(page, 60)
    page.wait_for_timeout(1500)
    assert chart_marks(page, 0) >= 26 * 6  # 26 languages x (this mix + five real tokenizers)
    assert_no_errors(page)
    shot(page, "who-pays")
    page.locator(".vega-embed").nth(1).scroll_into_view_if_needed()
    shot(page, "who-pays-wins")
    open_app(page, app_url, "/languages?mix=portuguese&lang=pt")
    wait_text(page, "Quem paga mais tokens pelos mesmos artigos")
    wait_idle(page, 60)
    assert "ficou sem pares" in page.inner_text('[data-testid="stMain"]')
    shot(page, "who-pays-pt")


def test_dropout_in_the_browser(app_url, page):
    open_app(page, app_url, "/encode?drop=0.4&seed=2&s=o%20gato%20subiu%20no%20telhado")
    wait_text(page, "tokens with dropout")
    page.get_by_text("Many segmentations: BPE-dropout and Unigram sampling").scroll_into_view_if_needed()
    page.wait_for_function("document.querySelectorAll('.vega-embed').length >= 2", timeout=60_000)
    wait_idle(page)
    body = page.inner_text('[data-testid="stMain"]')
    assert "BPE-dropout ·" in body and "Unigram sampling" in body
    assert_no_errors(page)
    shot(page, "encode-dropout")
    open_app(page, app_url, "/encode?drop=0.4&seed=2&lang=pt&s=o%20gato%20subiu%20no%20telhado")
    wait_text(page, "tokens com dropout")
    page.get_by_text("Muitas segmentações: BPE-dropout e amostragem do Unigram").scroll_into_view_if_needed()
    wait_idle(page)
    assert "Amostragem do Unigram" in page.inner_text('[data-testid="stMain"]')
    shot(page, "encode-dropout-pt")


def _visit(page, name: str) -> None:
    page.get_by_role("link", name=name).click()
    wait_idle(page)


def test_pages_keep_what_was_chosen_on_them_after_a_visit_elsewhere(app_url, page):
    """Issue 27.1: Streamlit drops a widget's value when a run starts on a page without it; coming back restored defaults."""
    open_app(page, app_url, "/encode?s=o+c%C3%A3o+dormiu")
    set_textarea(page, "Sentence to encode", "o rato correu")
    seed = page.get_by_label("Seed", exact=True)
    seed.fill("7")
    seed.press("Enter")
    wait_idle(page)
    _visit(page, "Rules")
    assert "s=o+rato+correu" in page.url and "seed=7" in page.url  # the address bar still holds the lesson
    _visit(page, "Encode")
    assert page.get_by_label("Sentence to encode", exact=True).input_value() == "o rato correu"
    assert page.get_by_label("Seed", exact=True).input_value() == "7"
    assert "s=o+rato+correu" in page.url and "seed=7" in page.url
    _visit(page, "Who pays?")
    page.get_by_text("9 European", exact=True).click()
    page.wait_for_url("**mix=european**", timeout=60_000)  # the mix trains first: wait for it, not for a fixed time
    wait_idle(page)
    _visit(page, "Train")
    _visit(page, "Who pays?")
    page.wait_for_url("**/languages?**mix=european**", timeout=60_000)
    assert page.get_by_role("radio", name="9 European").is_checked()
    wait_idle(page)
    assert "mix=european" in page.url  # nothing set it back once the page had run
    assert_no_errors(page)


def test_beyond_greedy_in_the_browser(app_url, page):
    open_app(page, app_url, "/beyond?corpus=udhr-en&vocab=600&level=bytes")
    wait_text(page, "SuperBPE's merge table around the transition")
    page.wait_for_function("document.querySelectorAll('.vega-embed').length >= 1", timeout=60_000)
    wait_idle(page, 60)
    assert chart_marks(page, 0) >= 3  # three curves
    assert "stage 2 from token 497" in page.inner_text('[data-testid="stMain"]')
    page.locator('[data-testid="bpe-counter"]').first.wait_for(state="visible", timeout=30_000)  # SuperBPE's player
    assert_no_errors(page)
    shot(page, "beyond-superwords")
    open_app(page, app_url, "/beyond?part=parity&pvocab=1024&lang=pt")
    wait_text(page, "Fusões escolhidas para cada língua")
    wait_idle(page, 60)
    shot(page, "beyond-parity-pt")
    open_app(page, app_url, "/beyond?part=optimal&opt=toy")
    wait_text(page, "Find words where greedy loses")
    page.get_by_role("button", name="Find words where greedy loses").click()
    wait_text(page, "Greedy loses here")
    wait_idle(page, 60)
    assert "my own words" in page.inner_text('[data-testid="stMain"]')
    assert_no_errors(page)
    shot(page, "beyond-optimal")


def test_a_too_big_upload_says_why_in_words_not_only_a_red_chip(app_url, page, tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 21_000_000)  # over the Files page's 20 MB
    open_app(page, app_url, "/files?lang=pt")
    page.locator('[data-testid="stMain"] [data-testid="stFileUploader"] input[type=file]').first.set_input_files(big)
    reason = page.locator('[data-testid="stMain"] [data-testid="stFileChip"] [role="alert"]').first
    reason.wait_for(state="visible", timeout=30_000)
    box = reason.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 8  # drawn, not kept for screen readers only
    assert "O arquivo deve ter no máximo 20" in reason.inner_text()
