"""A second multilingual source for bench/mixture.py's `help` design: LibreOffice's help, translated into about
thirty languages by its community (MPL-2.0, Debian's libreoffice-help-* packages), a few MB of prose per language.

Fetched once, by hand, outside bpeviz (the product never downloads; this is bench data only):

    mkdir -p /tmp/lohelp && cd /tmp/lohelp
    apt-get download $(apt-cache search '^libreoffice-help-' | cut -d' ' -f1 | grep -v common)
    python bench/help_text.py /tmp/lohelp /tmp/help-text      # one <lang>.txt per language wordfreq also has

Every page's paragraphs and headings are kept; a paragraph whose text equals the English page's (left untranslated)
is dropped, and so are code blocks, so a language's text is that language's.
"""

from __future__ import annotations

import argparse
import html.parser
import subprocess
import sys
import tempfile
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("debs", type=Path, help="the folder apt-get download wrote the packages to")
    parser.add_argument("out", type=Path, help="the folder to write <lang>.txt to")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folders = unpack(args.debs, Path(tmp))
        english = {page.relative_to(folders["en-us"]): paragraphs(page) for page in folders["en-us"].rglob("*.html")}
        for code, folder in folders.items():
            kept = []
            for page in sorted(folder.rglob("*.html")):
                theirs = english.get(page.relative_to(folder), {})
                kept += [text for ident, text in paragraphs(page).items() if code == "en-us" or theirs.get(ident) != text]
            (args.out / f"{LANGUAGES[code]}.txt").write_text("\n".join(kept) + "\n", encoding="utf-8")
            print(f"{LANGUAGES[code]:>3} ({code}): {len(kept)} paragraphs, {sum(len(t.encode()) for t in kept) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
