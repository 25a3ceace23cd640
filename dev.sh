#!/usr/bin/env bash
# One entry point: set everything up, then start the app or run the tests.
#   ./dev.sh app    install what is missing and start the app on the offline mock model (this machine only)
#   ./dev.sh app --lan   the same, served to the local network (a classroom)
#   ./dev.sh test   install what is missing, run the checks (ruff, eslint, lint-imports, mypy, mkdocs, node --test),
#                   then the test suite: every lane (tests/unit, tests/integration, tests/browser)
#   ./dev.sh test unit   install what is missing and run one lane's tests only, without the checks (the inner loop;
#                   also integration or browser); options after the lane go to pytest
#   ./dev.sh check  install what is missing and run only the checks
#   ./dev.sh docs   install what is missing and build the docs site (docs/ -> site/); docs-serve previews it
#   ./dev.sh setup  only install
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
VENV=.venv

# Each phase says what it starts and how long it took; a phase with nothing to do says so in one line.
begin() { PHASE_T0=$SECONDS; echo "==> $*" >&2; }
finish() { echo "    done in $((SECONDS - PHASE_T0)) s" >&2; }
skipped() { echo "==> $*" >&2; }

# System packages from Debian: graphviz draws the diagrams, a CJK font lets them hold Chinese,
# chromium drives the browser tests. Installed only when missing.
apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then sudo=sudo; else
      echo "please install these Debian packages: $*" >&2; return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q "$@" || { $sudo apt-get update -q && $sudo apt-get install -y -q "$@"; }
}

system_packages() {
  local want=(graphviz fonts-wqy-zenhei) need=()
  command -v dot >/dev/null || need+=(graphviz)
  { command -v fc-list >/dev/null && fc-list :lang=zh | grep -q .; } || need+=(fonts-wqy-zenhei)
  if [ "${1:-}" = test ]; then
    want+=(chromium nodejs npm redis-server nginx)
    command -v chromium >/dev/null || need+=(chromium)
    # The rooms' Redis store is tested against a real redis-server (tests/integration/test_rooms_redis.py).
    command -v redis-server >/dev/null || need+=(redis-server)
    # The school deployment recipe (deploy/nginx.conf) is tested behind a real nginx (tests/integration/test_deploy.py).
    { command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; } || need+=(nginx)
    # Node runs the third-party MCP servers from npm that the tests start over stdio.
    command -v node >/dev/null || need+=(nodejs)
    command -v npm >/dev/null || need+=(npm)
  fi
  if [ ${#need[@]} = 0 ]; then
    skipped "System packages: ${want[*]} are there, skipped"
    return
  fi
  begin "System packages (apt-get install ${need[*]}) ..."
  apt_install "${need[@]}"
  finish
}

# uv installs the Python packages from the lock files. It comes from PyPI, at the release named here, into .uv/ (with
# the pip of the Python dev.sh picked; a Python without pip makes .uv a venv, which has one): installed again only
# when that release is not the one there.
UV_VERSION=0.13.10
UV=.uv/bin/uv
# uv uses the Python dev.sh picked and never downloads one of its own; the project's venv is .venv, whatever the
# caller's environment says.
export UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT=$PWD/$VENV
uv_tool() {
  # `uv --version` says "uv 0.13.10 (x86_64-unknown-linux-gnu)".
  if [ "$("$UV" --version 2>/dev/null | cut -d' ' -f1,2)" = "uv $UV_VERSION" ]; then
    skipped "uv: $UV_VERSION is there, skipped"
    return
  fi
  begin "uv (pip install uv==$UV_VERSION into .uv/) ..."
  rm -rf .uv
  if "$PY" -m pip --version >/dev/null 2>&1; then
    "$PY" -m pip install --disable-pip-version-check --quiet --target .uv "uv==$UV_VERSION"
  else
    "$PY" -m venv .uv
    .uv/bin/python -m pip install --disable-pip-version-check --quiet "uv==$UV_VERSION"
  fi
  finish
}

# The Python packages, at the versions in uv.lock, into .venv, with the project itself installed editable (so
# .venv/bin/mcp-flow runs the working tree): the app's dependencies, and for the tests, the checks and the docs the
# dev group too (pyproject.toml). `--locked` refuses a uv.lock that is out of step with pyproject.toml. The app leaves
# the dev group in place (--inexact) when the tests installed it. Installed again only when pyproject.toml or uv.lock
# changed since the last install, or the tests need the dev group that the app did not install.
python_packages() {
  local set=app args=(--locked --python "$PY") want have
  if [ "${1:-}" = test ] || [ "${1:-}" = docs ]; then set=dev; else args+=(--no-dev --inexact); fi
  want=$(cat pyproject.toml uv.lock | sha256sum | cut -d' ' -f1)
  have=$(cat "$VENV/.uv-sync" 2>/dev/null || true)
  if [ -x "$VENV/bin/python" ] && { [ "$have" = "$want dev" ] || [ "$have" = "$want $set" ]; }; then
    skipped "Python packages: pyproject.toml and uv.lock unchanged since the last install, skipped"
    return
  fi
  begin "Python packages (uv sync ${args[*]}: uv.lock into $VENV) ..."
  "$UV" sync "${args[@]}"
  echo "$want $set" > "$VENV/.uv-sync"
  finish
}

setup() {
  system_packages "${1:-}"
  uv_tool
  python_packages "${1:-}"
  if [ "${1:-}" = test ]; then
    npm_packages third_party "MCP servers from npm"
    npm_packages tests/js "JavaScript checks from npm"
    phoenix_env
  fi
}

# Packages from npm, at the versions in DIR/package-lock.json, into DIR/node_modules: the MCP servers the tests
# start (third_party/), and the viewer's JavaScript checks (tests/js/: ESLint, and Ajv for the node tests).
# Each is installed again only when its lock file changed since its last install.
npm_packages() {
  local dir=$1 what=$2
  local stamp=$dir/node_modules/.lock.sha256
  local want
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    skipped "$what: $dir/package-lock.json unchanged since the last install, skipped"
    return
  fi
  begin "$what (npm ci in $dir/) ..."
  npm ci --prefix "$dir" --no-audit --no-fund
  echo "$want" > "$stamp"
  finish
}

# Arize Phoenix, which tests/integration/test_phoenix.py starts and sends spans to, in a venv of its own: its many
# dependencies stay out of .venv. Its own project, tests/phoenix/ (pyproject.toml and uv.lock), installed the same
# way as .venv, and again only when its pyproject.toml or uv.lock changed since the last install.
PHOENIX_VENV=.venv-phoenix
PHOENIX_PROJECT=tests/phoenix
phoenix_env() {
  local want
  want=$(cat "$PHOENIX_PROJECT/pyproject.toml" "$PHOENIX_PROJECT/uv.lock" | sha256sum | cut -d' ' -f1)
  if [ -x "$PHOENIX_VENV/bin/phoenix" ] && [ "$(cat "$PHOENIX_VENV/.uv-sync" 2>/dev/null)" = "$want" ]; then
    skipped "Arize Phoenix: $PHOENIX_PROJECT/uv.lock unchanged since the last install, skipped"
    return
  fi
  begin "Arize Phoenix (uv sync --locked --project $PHOENIX_PROJECT: its uv.lock into $PHOENIX_VENV) ..."
  UV_PROJECT_ENVIRONMENT=$PWD/$PHOENIX_VENV "$UV" sync --locked --project "$PHOENIX_PROJECT" --python "$PY"
  echo "$want" > "$PHOENIX_VENV/.uv-sync"
  finish
}

# The checks before the tests, each a phase; any finding stops the run.
checks() {
  begin "ruff check (lint rules in pyproject.toml)"
  "$VENV/bin/ruff" check .
  finish
  begin "ruff format --check (the layout ruff format writes)"
  "$VENV/bin/ruff" format --check .
  finish
  begin "eslint (the viewer's JavaScript: flow/views/viewer_assets/, tests/js/; rules in tests/js/eslint.config.mjs)"
  tests/js/node_modules/.bin/eslint --config tests/js/eslint.config.mjs flow/views/viewer_assets tests/js
  finish
  begin "lint-imports (the import contracts in pyproject.toml: flow's layers)"
  "$VENV/bin/lint-imports" --no-logo
  finish
  # The one type checker. Its cache lives in the machine's cache folder, shared by every clone (a fresh clone checks
  # only what differs from what was checked there before); pyproject.toml says why pyright is not run as well.
  begin "mypy (standard everywhere, strict for flow.trace, flow.wire, flow.views, flow.interop, flow.rooms, flow.proxy)"
  MYPY_CACHE_DIR=${MYPY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-flow/mypy} "$VENV/bin/mypy"
  finish
  begin "mkdocs build --strict (the docs site: a broken link or a missing page fails)"
  NO_MKDOCS_2_WARNING=1 "$VENV/bin/mkdocs" build --strict --quiet --site-dir "${TMPDIR:-/tmp}/mcp-flow-site.$$"
  rm -rf "${TMPDIR:-/tmp}/mcp-flow-site.$$"
  finish
  begin "node --test (the viewer's JavaScript modules, tests/js/*.test.mjs)"
  node --test tests/js/*.test.mjs
  finish
}

main() {
  local cmd=${1:-app}
  shift || true
  case "$cmd" in
    setup) setup test ;;
    app)
      setup
      begin "App (mcp-flow app $*: the pages and the rooms' routes; Ctrl-C stops it)"
      exec "$VENV/bin/python" -m flow app "$@"
      ;;
    docs)
      setup docs
      begin "Docs (mkdocs build --strict: docs/ in Chinese and English, into site/)"
      NO_MKDOCS_2_WARNING=1 "$VENV/bin/mkdocs" build --strict --quiet
      finish
      echo "open site/index.html (中文) or site/en/index.html (English); ./dev.sh docs-serve previews while you edit" >&2
      ;;
    docs-serve) setup docs; NO_MKDOCS_2_WARNING=1 exec "$VENV/bin/mkdocs" serve --dev-addr 127.0.0.1:8000 ;;
    test)
      setup test
      case "${1:-}" in
        unit | integration | browser)
          local lane=$1
          shift
          begin "pytest tests/$lane (one lane, without the checks)"
          exec "$VENV/bin/python" -m pytest -q "tests/$lane" "$@"
          ;;
      esac
      checks
      begin "pytest (every lane: unit, integration, browser)"
      exec "$VENV/bin/python" -m pytest -q "$@"
      ;;
    check) setup test; checks ;;
    *) echo "usage: ./dev.sh [app [--lan]|test [unit|integration|browser]|check|docs|docs-serve|setup]" >&2; exit 2 ;;
  esac
}

# Sourced (the tests read app_command), it only defines; run, it does what it was asked.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
