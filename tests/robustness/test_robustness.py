"""Bad, odd and hostile input: a clear message or a correct result, never a traceback or a lost character."""

import random
import re
import unicodedata
from pathlib import Path

import pytest
from app_helpers import new_app
from conftest import ROOT

import bpeviz
from bpeviz.data import corpora

ODD_TEXTS = {
    "zwj emoji and flags": "família 👩‍👩‍👧‍👦 e bandeiras 🇧🇷🇵🇹🏳️‍🌈",
    "right to left": "שלום עולם و مرحبا بالعالم",
    "combining marks": "e\u0301 a\u0303 Z\u0335\u0358a\u0336\u0349l\u0334go",
    "nul and controls": "a\x00b\x01c\x7f\x1bd\r\n\x0c",
    "one character": "x",
    "whitespace only": " \n\t  \n",
    "surrogate-free astral": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀 🜁",
}


@pytest.fixture(scope="module")
def tokenizers():
    docs = corpora.documents("udhr-pt")
    return [bpeviz.train(docs, vocab_size=(256 if level == "bytes" else 64) + 100, level=level, pretokenizer=pre)
            for level in bpeviz.LEVELS for pre in bpeviz.PRETOKENIZERS]


@pytest.mark.parametrize("name", ODD_TEXTS)
def test_odd_text_trains_and_round_trips(name, tokenizers):
    text = ODD_TEXTS[name]
    for level in bpeviz.LEVELS:
        tok = bpeviz.train(text, vocab_size=(256 if level == "bytes" else len(set(text))) + 20, level=level)
        assert tok.decode(tok.encode_ordinary(text)) == text
    for tok in tokenizers:
        assert tok.decode(tok.encode_ordinary(text)) == text


def test_ten_thousand_random_strings_round_trip(tokenizers):
    rng = random.Random(20261202)
    alphabets = [" \n\tabcé", "".join(map(chr, range(32, 0x250))), "日本語한국어ไทย🙂👍🏽\u200d\u0301"]
    for k in range(10_000):
        pool = alphabets[k % 3]
        if k % 4 == 3:  # any code point but surrogates
            points = [rng.choice([rng.randrange(0, 0xD800), rng.randrange(0xE000, 0x110000)]) for _ in range(rng.randrange(12))]
            text = "".join(map(chr, points))
        else:
            text = "".join(rng.choice(pool) for _ in range(rng.randrange(20)))
        tok = tokenizers[k % len(tokenizers)]
        assert tok.decode(tok.encode_ordinary(text)) == text, (text, tok)


def test_nfc_and_nfd_tokenize_differently():
    nfc = unicodedata.normalize("NFC", "ação café")
    nfd = unicodedata.normalize("NFD", "ação café")
    assert nfc != nfd
    enc = bpeviz.reference("cl100k_base")
    assert enc.encode(nfc) != enc.encode(nfd) and len(enc.encode(nfd)) > len(enc.encode(nfc))
    tok = bpeviz.train(corpora.documents("toy_pt"), vocab_size=64)
    assert tok.encode(nfc) != tok.encode(nfd)
    assert tok.decode(tok.encode(nfd)) == nfd  # nothing is normalised away


def test_a_ten_thousand_character_word():
    rng = random.Random(1)
    word = "".join(rng.choice("abcde") for _ in range(10_000))
    assert len(set(word)) == 5
    for pre in ("gpt2", "words", "none"):
        tok = bpeviz.train(word + " " + word[:50], vocab_size=300, level="bytes", pretokenizer=pre)
        assert tok.decode(tok.encode(word)) == word
    assert max(map(len, bpeviz.split_text(word, "words"))) == 64


def test_every_pair_once():
    tok = bpeviz.train("abcdefgh", vocab_size=100, level="chars")
    assert [m.count for m in tok.merges] == [1] * 7 and tok.merges[-1].token == "abcdefgh"


def test_vocab_size_edges():
    base = len(set("o gato"))
    assert bpeviz.train("o gato", vocab_size=base).merges == []
    with pytest.raises(ValueError, match=f"choose at least {base}"):
        bpeviz.train("o gato", vocab_size=base - 1)
    huge = bpeviz.train("o gato", vocab_size=900_000)
    assert len(huge.merges) == 4 and huge.vocab_size == base + 4  # "o" | " gato": stopped, no pair left


@pytest.mark.parametrize("pattern", ["x", "(?=a)", "", r"\s"])
def test_custom_patterns_that_match_nothing_or_empty(pattern):
    text = "banana nanica"
    if pattern == "":
        with pytest.raises(ValueError, match="Empty split pattern"):
            bpeviz.train(text, vocab_size=20, pretokenizer=pattern)
        return
    tok = bpeviz.train(text, vocab_size=20, pretokenizer=pattern)
    assert tok.decode(tok.encode(text)) == text


# The places that start a process, each with a fixed argv: the background compile (`python -m bpeviz.engine.build
# GROUP`) and a visitor's task (`python -m bpeviz.app.tasks`, its input on stdin)
STARTS_A_PROCESS = {
    Path(ROOT, "bpeviz", "engine", "background.py"): '[sys.executable, "-m", "bpeviz.engine.build", "--locked", group]',
    Path(ROOT, "bpeviz", "app", "box.py"): '[sys.executable, "-m", "bpeviz.app.tasks"]',
}


# The one place that pickles: what the server and a visitor's worker process hand each other, read back by an
# unpickler that builds only bpeviz's own classes (tests/app/test_box.py feeds it a hostile pickle)
PICKLES = Path(ROOT, "bpeviz", "app", "carry.py")


def test_no_eval_exec_pickle_or_shell_in_product_code():
    sources = [p for p in [*Path(ROOT, "bpeviz").rglob("*.py"), Path(ROOT, "app.py")] if p != PICKLES]
    forbidden = re.compile(r"\b(eval|exec|pickle|marshal|subprocess|os\.system|os\.popen|shelve)\b")
    hits = [f"{p.name}: {line.strip()}" for p in sources if p not in STARTS_A_PROCESS for line in p.read_text().splitlines()
            if forbidden.search(line) and not line.strip().startswith("#")]
    assert hits == []
    for path, argv in STARTS_A_PROCESS.items():
        text = path.read_text()
        assert "shell=" not in text and "os.system" not in text and text.count("subprocess.Popen(") == 1
        assert argv in text
    carried = PICKLES.read_text()
    assert "def find_class" in carried and "pickle.loads" not in carried and "pickle.load(" not in carried
    assert "subprocess" not in carried and "eval" not in carried




def test_app_caps_huge_paste_and_keeps_it(monkeypatch):
    text = "o gato " * 720_000  # 5 040 000 characters, past the 5 000 000 cap
    at = new_app(source="paste", pasted=text).run()
    assert not at.exception
    assert any("at most 5,000,000" in e.value for e in at.error)
    assert at.session_state["pasted"] == text


def test_app_trains_a_paste_with_odd_unicode():
    text = " ".join(ODD_TEXTS.values())
    at = new_app(source="paste", pasted=text, vocab_size=len(set(text)) + 30, lines_are_docs=False).run()
    assert not at.exception and not at.error
    from app_helpers import player_data

    assert player_data(at)["history"]["n"] == 30


def test_app_absurd_vocab_stops_and_says_so():
    at = new_app(vocab_size=50_000).run()
    assert not at.exception
    assert any("no pair was left" in i.value for i in at.info)
