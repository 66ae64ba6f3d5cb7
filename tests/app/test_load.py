"""A small concurrent load in the suite (bench/load.py runs the full 10 sessions)."""

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import load  # noqa: E402


def test_three_sessions_at_once_each_see_only_their_own(app_url):
    results, up, _ = load.load(3, app_url)
    assert up
    failures = [(r["session"], r.get("error"), r["leaked"]) for r in results if not r["ok"]]
    assert failures == []


def test_an_attack_from_one_session_leaves_memory_and_the_others_alone(app_server):
    # "before" is the warm server: its warm-up (real tokenizers, Inspect's defaults) starts after the first page is
    # drawn and runs in the background, so a page first, then memory that has stopped moving (read too early, alone
    # in a run of the suite, it was 524 MB, and the warm-up's own growth was charged to the attack: 827 MB after)
    load.load(1, app_server.url)
    before = load.settled_rss_mb(app_server.pid, window=8, at_most=120)
    result = load.in_thread(load.attack_run(app_server.url, clicks=4))
    after = app_server.rss_mb()
    print(f"server memory {before:.0f} -> {after:.0f} MB; teacher's steps alone {result['alone']}, "
          f"under attack {result['under_attack']}")
    assert len(result["refused"]) == len(load.BOMBS) + len(load.HOSTILE_UPLOADS)  # every attack got its message
    assert len(result["under_attack"]) == 4  # the teacher's session stepped through while it went on
    # what the attack added; the server's own holdings are bounded by design elsewhere (seven real tokenizers and
    # the compiled engine: about 720 MB warm; the run caches 600 MB, the mixes 200 MB), so a bound on the total
    # would measure the tests that ran before this one
    assert after - before < 300
