#!/usr/bin/env bash
# The wheel, where a user meets it: build it, install it with its extras into a fresh virtual environment in a
# folder outside the checkout, and from there run the README's Python examples, every `bpeviz ...` line of its
# command-line block, `bpeviz app --help`, and the app itself until it answers its health check.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WORK="$(mktemp -d)"
trap 'kill "${APP:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
quiet() { grep -v "is ignored: it is neither" || true; }
echo "wheel check: building the wheel"
.venv/bin/python -m pip wheel --no-deps -q -w "$WORK/dist" . 2>&1 | quiet
python3 -m venv "$WORK/venv"
fast=""; [ -x .venv/bin/python ] && .venv/bin/python -c 'import numba' 2>/dev/null && fast="[fast]"
wheel="$(ls "$WORK"/dist/bpeviz-*.whl)"
echo "wheel check: installing $(basename "$wheel")$fast into a fresh venv in $WORK"
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel$fast" 2>&1 | quiet
export PATH="$WORK/venv/bin:$PATH"
cd "$WORK"  # outside the checkout: nothing of it is on the path
python -c 'import bpeviz, sys; assert "'"$ROOT"'" not in bpeviz.__file__, bpeviz.__file__; print("wheel check: bpeviz from", bpeviz.__file__)'
python "$ROOT/scripts/readme_examples.py" "$ROOT/README.md"
python - "$ROOT/README.md" <<'PY' > commands.sh
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0] + "/scripts")
from readme_examples import shell_commands
print("set -euo pipefail")
for command in shell_commands(__import__("pathlib").Path(sys.argv[1])):
    print(f"echo '$ {command}'")
    print(command + " > /dev/null")
PY
bash commands.sh
port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
bpeviz app --server.port "$port" > app.log 2>&1 &
APP=$!
for _ in $(seq 1 120); do
  if python -c "import urllib.request, sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:$port/_stcore/health', timeout=2).read().strip() != b'ok')" 2>/dev/null; then
    echo "wheel check: bpeviz app answers on port $port"
    exit 0
  fi
  kill -0 "$APP" 2>/dev/null || { cat app.log; echo "wheel check: bpeviz app stopped" >&2; exit 1; }
  sleep 0.5
done
cat app.log
echo "wheel check: bpeviz app did not answer within a minute" >&2
exit 1
