#!/usr/bin/env bash
# Set up (first time only) and run the whole test suite, browser tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/ruff check bpeviz app.py tests bench scripts
.venv/bin/mypy  # the package, under pyproject.toml's [tool.mypy]: zero errors
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" = 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
