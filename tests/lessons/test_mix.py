"""Who pays: merges attributed to languages add up, and the training mix decides who pays on held-out articles."""

from __future__ import annotations

import pytest

from bpeviz.data import corpora
from bpeviz.lessons import mix


@pytest.fixture(scope="module")
def equal():
    return mix.train_mix(mix.PRESETS["equal"], 4096)


def test_attribution_adds_up_to_every_merges_count(equal):
    assert len(equal.tok.merges) == 4096 - 256
    assert set(equal.attribution) == set(corpora.UDHR_LANGUAGES)
    for k, m in enumerate(equal.tok.merges):
        assert sum(parts[k] for parts in equal.attribution.values()) == m.count
    wins = equal.wins()
    assert sum(v[-1] for v in wins.values()) == sum(1 for k in range(len(equal.tok.merges)) if equal.winner(k) is not None)
    assert all(a <= b for v in wins.values() for a, b in zip(v, v[1:]))
    assert all(len(v) == len(equal.tok.merges) for v in wins.values())


def test_weights_multiply_a_languages_counts():
    single = mix.train_mix({"en": 1, "pt": 1}, 600)
    heavy = mix.train_mix({"en": 3, "pt": 1}, 600)
    assert sum(heavy.attribution["en"]) > sum(single.attribution["en"])
    assert heavy.tok.merges[0].count == heavy.attribution["en"][0] + heavy.attribution["pt"][0]
    assert sum(1 for k in range(100) if heavy.winner(k) == "en") > sum(1 for k in range(100) if single.winner(k) == "en")


def premium(run: mix.MixRun) -> dict[str, float]:
    return {r["language"]: r["premium"] for r in mix.premiums({"mix": run.tok.encode_ordinary})}


def test_english_only_gives_english_the_lowest_premium():
    paid = premium(mix.train_mix(mix.PRESETS["english"], 4096))
    assert min(paid, key=paid.get) == "en" and all(v > 1.3 for lang, v in paid.items() if lang != "en")


def test_portuguese_only_makes_english_pay_more_than_portuguese():
    paid = premium(mix.train_mix(mix.PRESETS["portuguese"], 4096))
    assert paid["en"] == 1.0 and paid["pt"] < 0.8 and min(paid, key=paid.get) == "pt"


def test_held_out_articles_are_not_trained_on_and_are_the_same_in_every_language():
    for lang in corpora.UDHR_LANGUAGES:
        train, held = mix.training_documents(lang), mix.heldout_text(lang)
        assert len(train) == mix.HELDOUT_FROM and held and not any(doc in held for doc in train if len(doc) > 40)
    assert len({len(corpora.documents(f"udhr-{lang}")) for lang in corpora.UDHR_LANGUAGES}) == 1  # aligned


def test_bad_mixes_say_so():
    with pytest.raises(ValueError, match="at least one language"):
        mix.train_mix({"en": 0}, 512)
    with pytest.raises(ValueError, match="Unknown UDHR language 'xx'"):
        mix.train_mix({"xx": 1}, 512)
