"""Other multilingual sources for bench/mixture.py's `help` design: software manuals, translated by their
communities, fetched once, by hand, outside bpeviz (the product never downloads; this is bench data only). Each writes
one <lang>.txt per language wordfreq also has; bench/mixture.py sums the folders it is given.

- libreoffice: LibreOffice's help (MPL-2.0, Debian's libreoffice-help-* packages), 24 languages, 0.6-7.8 MB each;
- gnome: GNOME's desktop help (CC-BY-SA-3.0, gnome-user-docs), 42 languages, of which 27 are translated enough
  (MIN_BYTES) and 5 are not in LibreOffice's help (Persian, Croatian, Latvian, Ukrainian, Tamil);
- gimp: GIMP's manual (GFDL, gimp-help-*), 26 languages; Lithuanian and Romanian (0.36 and 0.58 MB) are in neither
  other.

    mkdir -p /tmp/lohelp && cd /tmp/lohelp
    apt-get download $(apt-cache search '^libreoffice-help-' | cut -d' ' -f1 | grep -v common)
    mkdir -p /tmp/gnomehelp && cd /tmp/gnomehelp && apt-get download gnome-user-docs
    mkdir -p /tmp/gimphelp && cd /tmp/gimphelp && apt-get download gimp-help-en gimp-help-lt gimp-help-ro
    python bench/help_text.py /tmp/lohelp /tmp/help-text                          # LibreOffice (the default)
    python bench/help_text.py --source gnome /tmp/gnomehelp /tmp/gnome-text
    python bench/help_text.py --source gimp /tmp/gimphelp /tmp/gimp-text

Every page's paragraphs and headings are kept, without code blocks (and, in GNOME's, inline commands and file
names); a paragraph whose text equals one of the English page's (left untranslated) is dropped, and so is one that
reads as English (`english`, for English edited since it was translated), so a language's text is that language's.
"""

from __future__ import annotations

import argparse
import html.parser
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

# LibreOffice's language codes -> wordfreq's (the languages both have; Slovak's package holds no help)
LANGUAGES = {"ca": "ca", "cs": "cs", "da": "da", "de": "de", "el": "el", "en-us": "en", "es": "es", "fi": "fi",
             "fr": "fr", "hi": "hi", "hu": "hu", "id": "id", "it": "it", "ja": "ja", "ko": "ko", "nl": "nl", "pl": "pl",
             "pt-br": "pt", "ru": "ru", "sl": "sl", "sv": "sv", "tr": "tr", "vi": "vi", "zh-cn": "zh"}
SKIPPED = {"code", "bascode", "pycode", "debug", "bug"}  # classes of code blocks and the page's debug footer


class Paragraphs(html.parser.HTMLParser):
    """The text of each element with an id in a help page's display area (paragraphs, headings, table cells)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, str] = {}
        self.open: list[tuple[str, str | None, bool]] = []  # (tag, id, skipped)
        self.parts: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        if tag in {"br", "img", "meta", "link", "input", "base"}:
            return
        got = dict(attrs)
        skipped = bool(SKIPPED & set((got.get("class") or "").split())) or (bool(self.open) and self.open[-1][2])
        ident = got.get("id") if tag in {"p", "h1", "h2", "h3", "h4", "h5", "h6", "td"} else None
        if ident and not skipped:
            self.parts[ident] = []
        self.open.append((tag, ident, skipped))

    def handle_endtag(self, tag):
        while self.open:
            was, ident, _ = self.open.pop()
            if ident in self.parts:
                text = " ".join("".join(self.parts.pop(ident)).split())
                if text:
                    self.found[ident] = text
            if was == tag:
                break

    def handle_data(self, data):
        if self.open and not self.open[-1][2]:
            for _, ident, _ in self.open:
                if ident in self.parts:
                    self.parts[ident].append(data)
                    break


def paragraphs(page: Path) -> dict[str, str]:
    parser = Paragraphs()
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    return parser.found


def unpack(debs: Path, into: Path) -> dict[str, Path]:
    """Each language's help folder, unpacked from its .deb."""
    found = {}
    for code in LANGUAGES:
        deb = next(debs.glob(f"libreoffice-help-{code}_*.deb"), None)
        if deb is None:
            print(f"  no package for {code}", file=sys.stderr)
            continue
        subprocess.run(["dpkg-deb", "-x", str(deb), str(into / code)], check=True)
        found[code] = next(p for p in (into / code / "usr/share/libreoffice/help").iterdir() if p.name.lower() == code)
    return found


# GNOME's language folders -> wordfreq's. wordfreq's Serbo-Croatian ("sh") is written in Latin letters: Croatian's
# folder stands for it.
GNOME = {"C": "en", "ca": "ca", "cs": "cs", "da": "da", "de": "de", "el": "el", "es": "es", "fa": "fa", "fi": "fi",
         "fr": "fr", "he": "he", "hi": "hi", "hr": "sh", "hu": "hu", "id": "id", "it": "it", "ja": "ja", "ko": "ko",
         "lt": "lt", "lv": "lv", "nl": "nl", "pl": "pl", "pt_BR": "pt", "ro": "ro", "ru": "ru", "sl": "sl", "sv": "sv",
         "ta": "ta", "tr": "tr", "uk": "uk", "vi": "vi", "zh_CN": "zh"}
GIMP = {"ca": "ca", "cs": "cs", "da": "da", "de": "de", "el": "el", "en": "en", "es": "es", "fa": "fa", "fi": "fi",
        "fr": "fr", "hr": "sh", "hu": "hu", "it": "it", "ja": "ja", "ko": "ko", "lt": "lt", "nl": "nl", "pt_BR": "pt",
        "ro": "ro", "ru": "ru", "sl": "sl", "sv": "sv", "uk": "uk", "zh_CN": "zh"}
MIN_BYTES = 50_000  # a language with less translated text is left out (GNOME's Hebrew has two paragraphs)


class Markup:
    """The prose of an XML page: the innermost `kept` elements outside any skipped element, each as one line.
    Skipped: the tags in `tags` and the elements whose class is in `classes` (their tails are kept)."""

    def __init__(self, kept: set[str], tags: set[str], classes: set[str]) -> None:
        self.kept, self.tags, self.classes = kept, tags, classes

    def _skipped(self, element: ET.Element) -> bool:
        return _bare(element.tag) in self.tags or bool(self.classes & set(element.get("class", "").split()))

    def _text(self, element: ET.Element) -> str:
        parts = [element.text or ""]
        for child in element:
            if not self._skipped(child):
                parts.append(self._text(child))
            parts.append(child.tail or "")
        return " ".join("".join(parts).split())

    def paragraphs(self, page: Path) -> list[str]:
        found: list[str] = []

        def walk(element: ET.Element) -> None:
            for child in element:
                if self._skipped(child):
                    continue
                inner = any(_bare(c.tag) in self.kept for c in child.iter() if c is not child)
                if _bare(child.tag) in self.kept and not inner:
                    if text := self._text(child):
                        found.append(text)
                else:
                    walk(child)

        walk(ET.parse(page).getroot())
        return found


def _bare(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


# Mallard: machine text, names, and the page's metadata ("link" elements without text are cross-references)
MALLARD = Markup({"p", "title", "desc"}, {"code", "screen", "cmd", "sys", "file", "input", "output", "var", "key",
                                          "keyseq", "media", "credit", "license", "revision", "link"}, set())
# DocBook's XHTML: code, and the navigation bars on every page
DOCBOOK = Markup({"p", "h1", "h2", "h3", "h4", "dt"}, {"pre", "code", "script", "style", "head"},
                 {"navheader", "navfooter", "programlisting", "screen"})


def translated(folders: dict[str, Path], english: str, markup: Markup, pattern: str) -> dict[str, list[str]]:
    """Each language's paragraphs, less those equal to one of the same page's in English."""
    theirs = {page.relative_to(folders[english]): set(markup.paragraphs(page))
              for page in folders[english].rglob(pattern)}
    out = {}
    for code, folder in folders.items():
        kept = []
        for page in sorted(folder.rglob(pattern)):
            same = theirs.get(page.relative_to(folder), set())
            kept += [text for text in markup.paragraphs(page) if code == english or text not in same]
        out[code] = kept
    return out


def libreoffice(debs: Path, tmp: Path) -> dict[str, list[str]]:
    folders = unpack(debs, tmp)
    english = {page.relative_to(folders["en-us"]): paragraphs(page) for page in folders["en-us"].rglob("*.html")}
    out = {}
    for code, folder in folders.items():
        kept = []
        for page in sorted(folder.rglob("*.html")):
            theirs = english.get(page.relative_to(folder), {})
            kept += [text for ident, text in paragraphs(page).items() if code == "en-us" or theirs.get(ident) != text]
        out[LANGUAGES[code]] = kept
    return out


def gnome(debs: Path, tmp: Path) -> dict[str, list[str]]:
    subprocess.run(["dpkg-deb", "-x", str(next(debs.glob("gnome-user-docs_*.deb"))), str(tmp)], check=True)
    root = tmp / "usr/share/help"
    found = translated({code: root / code for code in GNOME if (root / code).is_dir()}, "C", MALLARD, "*.page")
    return {GNOME[code]: kept for code, kept in found.items()}


def gimp(debs: Path, tmp: Path) -> dict[str, list[str]]:
    for deb in debs.glob("gimp-help-*.deb"):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp)], check=True)
    root = tmp / "usr/share/gimp/2.0/help"
    found = translated({code: root / code for code in GIMP if (root / code).is_dir()}, "en", DOCBOOK, "*.html")
    return {GIMP[code]: kept for code, kept in found.items()}


SOURCES = {"libreoffice": libreoffice, "gnome": gnome, "gimp": gimp}
NON_LATIN = {"el", "fa", "he", "hi", "ja", "ko", "ru", "ta", "uk", "zh"}  # the languages not written in Latin letters


def english(text: str, lang: str) -> bool:
    """Whether a paragraph of lang's help is English left untranslated, though not equal to the English page's (the
    English was edited since): mostly ASCII letters and, in a Latin-letter language, its words more frequent in
    English than in lang (wordfreq). GIMP's Lithuanian help is 46 % such paragraphs, LibreOffice's Vietnamese 11 %."""
    import wordfreq

    letters = [c for c in text if c.isalpha()]
    if not letters or 2 * sum(c.isascii() for c in letters) < len(letters):
        return False
    if lang in NON_LATIN:
        return True
    words = re.findall(r"[a-z]+", text.lower())
    return sum(wordfreq.zipf_frequency(w, "en") for w in words) > sum(wordfreq.zipf_frequency(w, lang) for w in words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", choices=sorted(SOURCES), default="libreoffice")
    parser.add_argument("debs", type=Path, help="the folder apt-get download wrote the packages to")
    parser.add_argument("out", type=Path, help="the folder to write <lang>.txt to")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        found = SOURCES[args.source](args.debs, Path(tmp))
    for lang, paragraphs_ in sorted(found.items()):
        kept = [text for text in paragraphs_ if lang == "en" or not english(text, lang)]
        size = sum(len(text.encode()) for text in kept)
        if size < MIN_BYTES:
            print(f"{lang:>3}: {size / 1e6:.2f} MB translated, left out", file=sys.stderr)
            continue
        (args.out / f"{lang}.txt").write_text("\n".join(kept) + "\n", encoding="utf-8")
        print(f"{lang:>3}: {len(kept)} paragraphs, {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
