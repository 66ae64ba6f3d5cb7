"""The interface in Portuguese: every page rendered in PT shows none of the English strings of the table."""

import re

import pytest
from app_helpers import new_app
from streamlit.testing.v1 import AppTest

from bpeviz.app.i18n import STRINGS, corpus_label, t

PAGES = [f"bpeviz/app/pages/{name}.py" for name in ("train", "encode", "rules", "algorithms", "charts", "languages", "quirks",
                                                     "inspect", "beyond", "files")]


def english_fragments() -> dict[str, str]:
    """Runs of three or more words from each English string that its Portuguese string does not share -> the key."""
    fragments = {}
    for key, entry in STRINGS.items():
        english = entry["en"] if isinstance(entry["en"], tuple) else (entry["en"],)
        portuguese = " ".join(entry["pt"] if isinstance(entry["pt"], tuple) else (entry["pt"],))
        for text in english:
            for chunk in re.split(r"\{[^}]*\}|[*`()“”:;,.!?…—–]", text):
                chunk = chunk.strip()
                if len(re.findall(r"[A-Za-z]+", chunk)) >= 3 and chunk not in portuguese:
                    fragments[chunk] = key
    return fragments


def page_text(at: AppTest) -> str:
    """Every string the page's elements carry (labels, options, help, bodies), Markdown escapes removed."""
    out = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return re.sub(r"\\+(.)", r"\1", "\n".join(out))


def test_there_are_fragments_to_look_for():
    fragments = english_fragments()
    assert len(fragments) > 150 and "Guess the next merge" in fragments


@pytest.mark.parametrize("page", PAGES)
def test_a_page_in_portuguese_shows_no_english_string_of_the_table(page):
    at = new_app(lang="pt")
    at.switch_page(page).run()
    assert not at.exception
    text = page_text(at)
    assert "Idioma da interface" in text  # the page really is in Portuguese
    found = {fragment: key for fragment, key in english_fragments().items() if fragment in text}
    assert found == {}


def test_plurals_and_corpus_names():
    assert t("n_tied", "pt", n=1, more="") == "1 empatado" and t("n_tied", "pt", n=3, more="") == "3 empatados"
    assert t("n_tokens_short", "en", n=1) == "1 token" and t("n_tokens_short", "en", n=2) == "2 tokens"
    assert corpus_label("udhr-fr", "pt") == "DUDH: Francês" and corpus_label("toy_pt", "pt") == "Oito frases de brinquedo"


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_singular_follows_the_number_shown(lang):
    """Issue 27.8: "1 different segmentations" / "1 rounds": the form was chosen by another number than the one shown."""
    assert t("dropout_distinct", lang, k=1) == ("1 segmentation" if lang == "en" else "1 segmentação")
    assert "2 " in t("dropout_distinct", lang, k=2) and t("dropout_distinct", lang, k=2) != t("dropout_distinct", lang, k=1)
    one = t("alg_tab_unigram", lang, rounds=1, vocab=30)
    assert ("1 round," if lang == "en" else "1 rodada,") in one
    for key, entry in STRINGS.items():  # every plural shows the number that picks its form
        if isinstance(entry.get(lang), tuple):
            assert re.search(r"\{\w+", entry[lang][1]), key


def test_portuguese_writes_numbers_its_own_way():
    """Issue 27.7: "4,096" and "3,840 fusões" in Portuguese; it writes 4.096 and 3,05."""
    from bpeviz.app.i18n import num

    assert t("n_tokens_short", "pt", n=4096) == "4.096 tokens" and t("n_tokens_short", "en", n=4096) == "4,096 tokens"
    assert num(4096, ",", "pt") == "4.096" and num(3.05, ".2f", "pt") == "3,05" and num(3.05, ".2f", "en") == "3.05"
    at = new_app()
    at.query_params["lang"] = "pt"
    at.query_params["vocab"] = "1500"
    at.query_params["corpus"] = "english"
    at.run()
    text = page_text(at)
    assert "1.500" in text or "1.244" in text, text[:500]
    assert not re.search(r"\b\d{1,3},\d{3}\b", text), re.search(r"\b\d{1,3},\d{3}\b", text)  # no English thousands


# the command line and the notebook speak English; the app reads its lesson file itself (app/state.py)
APP_UNREACHABLE = ("bpeviz/cli/", "bpeviz/counting/", "bpeviz/widgets/", "bpeviz/lessons/check_merges.py",
                   "bpeviz/lessons/lesson_file.py")


def raised_codes() -> dict[str, set[str]]:
    """Each BpevizError code raised in the package's modules the app runs -> the values some raise gives it."""
    import ast
    from pathlib import Path

    import bpeviz

    found: dict[str, set[str]] = {}
    root = Path(bpeviz.__file__).parent
    for path in root.rglob("*.py"):
        if str(path.relative_to(root.parent)).startswith(APP_UNREACHABLE):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "BpevizError" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                found.setdefault(node.args[0].value, set()).update(k.arg for k in node.keywords if k.arg)
    return found


def test_every_error_the_app_can_show_reads_in_portuguese_with_the_values_it_is_given():
    codes = raised_codes()
    assert len(codes) > 40
    dynamic = {"import_failed"}  # carries the message of the error beneath it
    missing = sorted(code for code in codes if code not in dynamic and f"err_{code}" not in STRINGS)
    assert missing == []
    for code, given in codes.items():
        if code in dynamic:
            continue
        wanted = set(re.findall(r"\{(\w+)", " ".join(str(v) for v in STRINGS[f"err_{code}"].values())))
        assert wanted <= given | {"format"}, (code, wanted - given)
