#!/usr/bin/env bash
# Create .venv and install bpeviz into it. `setup.sh test` also installs the test tools and
# Debian's chromium for the browser tests. Safe to run again: when pyproject.toml has not
# changed since the last install, it installs nothing and takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "bpeviz needs Python 3.11 or newer" >&2; exit 1; }
mode="${1:-app}"
# numba (the compiled engine, the `fast` extra) where it ships a wheel: glibc Linux on x86_64/aarch64, macOS arm64, Windows
fast=""
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64|Linux-aarch64) ldd --version 2>&1 | grep -qi musl || fast="fast" ;;
  Darwin-arm64|MINGW*|MSYS*|CYGWIN*) fast="fast" ;;
esac
extra="${fast:+[$fast]}"
[ "$mode" = "test" ] && extra="[test,cluster${fast:+,$fast}]"  # the cluster test starts a Dask LocalCluster
wanted="$(sha256sum pyproject.toml | cut -d' ' -f1)"
installed() { [ -x .venv/bin/python ] && [ -f ".venv/.bpeviz-installed-$1" ] && [ "$(cat ".venv/.bpeviz-installed-$1")" = "$wanted" ]; }
quiet() { grep -v "is ignored: it is neither" || true; }  # pip's notes about find-links folders this machine lacks
if installed "$mode" || { [ "$mode" = app ] && installed test; }; then
  echo "bpeviz: already set up ($mode); nothing to install"
else
  [ -x .venv/bin/python ] || { echo "bpeviz: creating .venv"; "$PYTHON" -m venv .venv; }
  echo "bpeviz: installing ($mode) into .venv; the first time takes a few minutes"
  .venv/bin/python -m pip install --upgrade pip --progress-bar on --disable-pip-version-check 2>&1 | quiet
  .venv/bin/python -m pip install -e ".$extra" --progress-bar on --disable-pip-version-check 2>&1 | quiet
  echo "$wanted" > ".venv/.bpeviz-installed-$mode"
fi
if [ -n "$fast" ] && [ "$mode" = "test" ]; then  # the tests use the compiled engine at once: compile it now, once
  .venv/bin/python -m bpeviz.engine.build bpe unigram encode \
    || echo "bpeviz: the compiled engine is not available here; everything runs on the Python engine" >&2
elif [ -n "$fast" ]; then  # the app serves at once; numba compiles in the background, once per install
  .venv/bin/python -c 'from bpeviz import engine; started = engine.start_background(); started and print("bpeviz: compiling the fast engine in the background (" + ", ".join(started) + "), once; the Python engine serves meanwhile")'
fi
if [ "$mode" = "test" ] && [ ! -x /usr/bin/chromium ]; then
  echo "bpeviz: installing Debian's chromium for the browser tests"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
