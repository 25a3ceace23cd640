#!/usr/bin/env bash
# One entry point: set everything up, then start the app or run the tests.
#   ./dev.sh app    install what is missing and start the app on the offline mock model (this machine only)
#   ./dev.sh app --lan   the same, served to the local network (a classroom)
#   ./dev.sh test   install what is missing and run the test suite
#   ./dev.sh setup  only install
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

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

LAN_NOTE="serving the local network: anyone who can reach this machine can open the app, run the offline mock, \
the scripted model and the configured MCP servers, and a provider with a key they type; \
keys in this environment go only to the base URLs they were set up for"

# The command `./dev.sh app [--lan] [streamlit options] [-- app options]` runs, into APP_CMD (LAN=1 with --lan).
# .streamlit/config.toml binds 127.0.0.1; --lan binds every interface, and never with typed server commands.
app_command() {
  LAN=0
  local rest=() arg
  for arg in "$@"; do
    if [ "$arg" = --lan ]; then LAN=1; else rest+=("$arg"); fi
  done
  APP_CMD=("$VENV/bin/python" -m streamlit run app.py --server.headless true --browser.gatherUsageStats false)
  if [ "$LAN" = 1 ]; then
    for arg in "${rest[@]}"; do
      if [ "$arg" = --allow-server-commands ]; then
        echo "error: --lan with --allow-server-commands would let anyone on the network run commands here" >&2
        return 2
      fi
    done
    if [ "${MCP_FLOW_ALLOW_COMMANDS:-}" = 1 ]; then
      echo "error: --lan with MCP_FLOW_ALLOW_COMMANDS=1 would let anyone on the network run commands here" >&2
      return 2
    fi
    APP_CMD+=(--server.address 0.0.0.0)
  fi
  APP_CMD+=("${rest[@]}")
}

main() {
  local cmd=${1:-app}
  shift || true
  case "$cmd" in
    setup) setup test ;;
    app)
      app_command "$@" || exit $?
      setup
      if [ "$LAN" = 1 ]; then echo "$LAN_NOTE" >&2; fi
      exec "${APP_CMD[@]}"
      ;;
    test)
      setup test
      exec "$VENV/bin/python" -m pytest -q "$@"
      ;;
    *) echo "usage: ./dev.sh [app [--lan]|test|setup]" >&2; exit 2 ;;
  esac
}

# Sourced (the tests read app_command), it only defines; run, it does what it was asked.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
