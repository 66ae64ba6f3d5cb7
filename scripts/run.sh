#!/usr/bin/env bash
# Set up (first time only) and start the app; it opens on the toy Portuguese corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/streamlit run app.py "$@"
