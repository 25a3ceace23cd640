#!/usr/bin/env bash
# One entry point: set everything up, then start the app or run the tests.
#   ./dev.sh app    install what is missing and start the app on the offline mock model
#   ./dev.sh test   install what is missing and run the test suite
#   ./dev.sh setup  only install
set -euo pipefail
cd "$(dirname "$0")"

PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
VENV=.venv

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  # Reinstall only when requirements.txt changed since the last install.
  local stamp="$VENV/.requirements.sha256"
  local want
  want=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt
    echo "$want" > "$stamp"
  fi
}

cmd=${1:-app}
shift || true
case "$cmd" in
  setup) setup ;;
  app)
    setup
    exec "$VENV/bin/python" -m streamlit run app.py --server.headless true --browser.gatherUsageStats false "$@"
    ;;
  test)
    setup
    exec "$VENV/bin/python" -m pytest -q "$@"
    ;;
  *) echo "usage: ./dev.sh [app|test|setup]" >&2; exit 2 ;;
esac
