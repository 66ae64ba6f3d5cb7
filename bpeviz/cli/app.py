"""`bpeviz app`: serve the installed bpeviz app, with the flags of `streamlit run` and the classroom's settings.

The settings are bpeviz/app/config.toml (the same file as a checkout's .streamlit/config.toml): local only, no usage
statistics, no developer menu, no tracebacks. A flag given here wins over the file's value, e.g.
`bpeviz app --server.address 0.0.0.0` to let a class reach this computer.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator, Sequence
from importlib.resources import files

HELP = """usage: bpeviz app [streamlit run options]

Serve the bpeviz app (http://127.0.0.1:8501 unless --server.port / --server.address say otherwise).
Every option of `streamlit run` works here; bpeviz's classroom settings fill in the rest:
{defaults}
The options of `streamlit run` follow.
"""


def classroom_flags() -> list[str]:
    """The packaged config.toml as `streamlit run` flags: ["--server.headless=true", ...]."""
    config = tomllib.loads((files("bpeviz.app") / "config.toml").read_text(encoding="utf-8"))
    return list(_flags(config, ""))


def _flags(table: dict, prefix: str) -> Iterator[str]:
    """A TOML table's options as flags, nested tables ([theme.dark]) by their dotted names."""
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flags(value, f"{prefix}{key}.")
        elif prefix:
            yield f"--{prefix}{key}={str(value).lower() if isinstance(value, bool) else value}"


def _given(args: Sequence[str]) -> set[str]:
    """The option names a user gave, e.g. {"server.address"} for "--server.address 0.0.0.0"."""
    return {a[2:].split("=", 1)[0] for a in args if a.startswith("--") and "." in a}


def run_app(args: Sequence[str]) -> int:
    """Hand the app's script and the flags to Streamlit's own command line, in this process."""
    from streamlit.web import cli as streamlit_cli

    given = _given(args)
    defaults = [f for f in classroom_flags() if f[2:].split("=", 1)[0] not in given]
    if "--help" in args or "-h" in args:
        print(HELP.format(defaults="\n".join(f"  {f}" for f in defaults)))
        args = ["--help"]
    script = str(files("bpeviz.app") / "streamlit_app.py")
    try:
        streamlit_cli.main.main(args=["run", script, *defaults, *args], prog_name="bpeviz app", standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return 0


if __name__ == "__main__":
    sys.exit(run_app(sys.argv[1:]))
