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
