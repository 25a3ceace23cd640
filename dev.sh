#!/usr/bin/env bash
# One entry point: set everything up, then start the app or run the tests.
#   ./dev.sh app    install what is missing and start the app on the offline mock model
#   ./dev.sh test   install what is missing and run the test suite
#   ./dev.sh setup  only install
set -euo pipefail
cd "$(dirname "$0")"

PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
VENV=.venv

# System packages from Debian: graphviz draws the diagrams, a CJK font lets them hold Chinese,
# chromium drives the browser tests. Installed only when missing.
apt_install() {
  [ $# -gt 0 ] || return 0
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then sudo=sudo; else
      echo "please install these Debian packages: $*" >&2; return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q "$@" >/dev/null || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q "$@" >/dev/null; }
}

system_packages() {
  local need=()
  command -v dot >/dev/null || need+=(graphviz)
  { command -v fc-list >/dev/null && fc-list :lang=zh | grep -q .; } || need+=(fonts-wqy-zenhei)
  if [ "${1:-}" = test ]; then
    command -v chromium >/dev/null || need+=(chromium)
    # Node runs the third-party MCP servers from npm that the tests start over stdio.
    command -v node >/dev/null || need+=(nodejs)
    command -v npm >/dev/null || need+=(npm)
  fi
  if [ ${#need[@]} -gt 0 ]; then
    echo "installing ${need[*]} ..." >&2
    apt_install "${need[@]}"
  fi
}

setup() {
  system_packages "${1:-}"
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
  if [ "${1:-}" = test ]; then third_party; fi
}

# MCP servers from npm, at the versions in third_party/package-lock.json, into third_party/node_modules.
# Reinstalled only when the lock file changed since the last install.
third_party() {
  local stamp=third_party/node_modules/.lock.sha256
  local want
  want=$(sha256sum third_party/package-lock.json | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "installing the third-party MCP servers from npm ..." >&2
    npm ci --prefix third_party --no-audit --no-fund --loglevel=error >/dev/null
    echo "$want" > "$stamp"
  fi
}

cmd=${1:-app}
shift || true
case "$cmd" in
  setup) setup test ;;
  app)
    setup
    exec "$VENV/bin/python" -m streamlit run app.py --server.headless true --browser.gatherUsageStats false "$@"
    ;;
  test)
    setup test
    exec "$VENV/bin/python" -m pytest -q "$@"
    ;;
  *) echo "usage: ./dev.sh [app|test|setup]" >&2; exit 2 ;;
esac
