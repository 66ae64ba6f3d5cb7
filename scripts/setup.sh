#!/usr/bin/env bash
# Create .venv and install bpeviz into it. `setup.sh test` also installs the test tools and
# Debian's chromium for the browser tests. Safe to run again: it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "bpeviz needs Python 3.10 or newer" >&2; exit 1; }
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "test" ]; then
  .venv/bin/python -m pip install --quiet -e ".[test]"
  if [ ! -x /usr/bin/chromium ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  fi
else
  .venv/bin/python -m pip install --quiet -e .
fi
