"""Every Python example in the README and in docs/ runs as written, in order, and shows what its comments say.

The runner is scripts/readme_examples.py, which CI also runs against the installed wheel outside the checkout.
"""

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from readme_examples import python_blocks, run_page, shell_commands  # noqa: E402

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name == "library.md" else p  # the longest
                                  for p in PAGES if python_blocks(p)], ids=lambda p: p.name)
def test_the_examples_run_and_show_what_they_say(path):
    assert run_page(path) >= 2  # and every line ran: an example that fails raises


def test_the_readme_and_the_library_guide_have_examples():
    assert len(python_blocks(ROOT / "README.md")) >= 2 and len(python_blocks(ROOT / "docs" / "library.md")) >= 5
    commands = shell_commands(ROOT / "README.md")
    assert len(commands) >= 5 and "bpeviz app --help" in commands  # what the wheel check runs


def test_the_packaged_app_settings_are_a_checkouts_settings():
    """`bpeviz app` reads bpeviz/app/config.toml; `streamlit run app.py` in a checkout reads .streamlit/config.toml."""
    assert (ROOT / "bpeviz" / "app" / "config.toml").read_bytes() == (ROOT / ".streamlit" / "config.toml").read_bytes()
