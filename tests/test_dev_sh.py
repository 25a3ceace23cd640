"""dev.sh's phases, offline: a copy of the script in a tree whose venv, npm servers and system programs are
stand-ins that only write down how they were called."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from helpers import ROOT

SKIPS = [
    "==> System packages: graphviz fonts-wqy-zenhei chromium nodejs npm redis-server nginx are there, skipped",
    "==> Python environment: .venv is there, skipped",
    "==> Python packages: requirements.txt requirements-dev.txt unchanged since the last install, skipped",
    "==> MCP servers from npm: third_party/package-lock.json unchanged since the last install, skipped",
    "==> JavaScript checks from npm: tests/js/package-lock.json unchanged since the last install, skipped",
    "==> Arize Phoenix: requirements-phoenix.txt unchanged since the last install, skipped",
]
PHOENIX_PIP = "phoenix-venv/python -m pip install --disable-pip-version-check -r requirements-phoenix.txt"
# The Phoenix venv's programs log themselves apart from .venv's.
PHOENIX_STAND_IN = 'echo "phoenix-venv/$(basename "$0") $*" >> "$DEV_SH_LOG"'
DONE = re.compile(r"    done in \d+ s")


def _stand_in(path: Path, body: str = 'echo "$(basename "$0") $*" >> "$DEV_SH_LOG"') -> None:
    """An executable that runs BODY (by default: logs its name and arguments to $DEV_SH_LOG) and fails only when
    its name is $FAIL_ON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/usr/bin/env bash\n{body}\n[ "$(basename "$0")" != "${{FAIL_ON:-}}" ]\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A set-up tree: every stamp matches, every program is there."""
    shutil.copy(ROOT / "dev.sh", tmp_path / "dev.sh")
    (tmp_path / "requirements.txt").write_text("streamlit\n", encoding="utf-8")
    (tmp_path / "requirements-dev.txt").write_text("pytest\n", encoding="utf-8")
    for folder in ("third_party", "tests/js"):
        (tmp_path / folder / "node_modules").mkdir(parents=True)
        (tmp_path / folder / "package-lock.json").write_text("{}\n", encoding="utf-8")
        lock = _sha256(tmp_path / folder / "package-lock.json")
        (tmp_path / folder / "node_modules" / ".lock.sha256").write_text(lock + "\n")
    _stand_in(tmp_path / "tests" / "js" / "node_modules" / ".bin" / "eslint")
    for name in ("requirements", "requirements-dev"):
        (tmp_path / ".venv" / f".{name}.sha256").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / ".venv" / f".{name}.sha256").write_text(_sha256(tmp_path / f"{name}.txt") + "\n")
    for name in ("python", "ruff", "lint-imports", "mypy", "pyright", "mkdocs"):
        _stand_in(tmp_path / ".venv" / "bin" / name)
    (tmp_path / "requirements-phoenix.txt").write_text("arize-phoenix\n", encoding="utf-8")
    for name in ("python", "phoenix"):
        _stand_in(tmp_path / ".venv-phoenix" / "bin" / name, PHOENIX_STAND_IN)
    stamp = tmp_path / ".venv-phoenix" / ".requirements-phoenix.sha256"
    stamp.write_text(_sha256(tmp_path / "requirements-phoenix.txt") + "\n")
    for name in ("dot", "chromium", "redis-server", "nginx"):  # only looked for
        _stand_in(tmp_path / "fakebin" / name, "true")
    for name in ("node", "npm"):  # looked for; node runs the viewer's JavaScript tests, npm installs packages
        _stand_in(tmp_path / "fakebin" / name)
    _stand_in(tmp_path / "fakebin" / "fc-list", 'echo "/usr/share/fonts/wqy-zenhei.ttc: WenQuanYi Zen Hei"')
    return tmp_path


def _dev_sh(tree: Path, *args: str, **env: str) -> tuple[int, list[str], list[str]]:
    """Run dev.sh ARGS in TREE: its exit code, its lines on stderr, and the stand-ins' calls in order."""
    log = tree / "calls.log"
    log.unlink(missing_ok=True)
    full_env = {k: v for k, v in os.environ.items() if k != "FAIL_ON"}
    full_env.update(PATH=f"{tree / 'fakebin'}:{os.environ['PATH']}", DEV_SH_LOG=str(log), **env)
    proc = subprocess.run(["bash", "dev.sh", *args], cwd=tree, env=full_env, capture_output=True, text=True, timeout=60)
    calls = [line.rstrip() for line in log.read_text().splitlines()] if log.exists() else []
    return proc.returncode, proc.stderr.splitlines(), calls


def test_setup_on_a_set_up_tree_says_each_phase_was_skipped_and_runs_nothing(tree):
    code, lines, calls = _dev_sh(tree, "setup")
    assert code == 0
    assert lines == SKIPS
    assert calls == []


def test_a_changed_requirements_file_is_installed_again_with_pip_progress_and_a_time(tree):
    (tree / "requirements-dev.txt").write_text("pytest\nruff\n", encoding="utf-8")
    code, lines, calls = _dev_sh(tree, "setup")
    assert code == 0
    assert lines[:2] == SKIPS[:2] and lines[-2:] == SKIPS[-2:]
    assert lines[2] == "==> Python packages (pip install -r requirements-dev.txt) ..." and DONE.fullmatch(lines[3])
    assert calls == ["python -m pip install --disable-pip-version-check -r requirements-dev.txt"]  # no --quiet
    assert _dev_sh(tree, "setup")[1] == SKIPS  # the stamp now matches


def test_a_changed_phoenix_requirements_file_is_installed_into_its_own_venv_after_the_npm_servers(tree):
    (tree / "requirements-phoenix.txt").write_text("arize-phoenix>=20\n", encoding="utf-8")
    code, lines, calls = _dev_sh(tree, "test")
    assert code == 0
    assert lines[: len(SKIPS) - 1] == SKIPS[:-1]  # system packages, venv, Python packages, npm servers: skipped
    assert lines[len(SKIPS) - 1] == "==> Arize Phoenix (pip install -r requirements-phoenix.txt into .venv-phoenix) ..."
    assert DONE.fullmatch(lines[len(SKIPS)]) and lines[len(SKIPS) + 1].startswith("==> ruff check")
    assert calls[0] == PHOENIX_PIP and calls[1] == "ruff check ."  # installed before the checks, not into .venv
    assert _dev_sh(tree, "setup")[1] == SKIPS  # the stamp now matches


def test_a_changed_lock_file_installs_those_npm_packages_again_and_only_those(tree):
    (tree / "tests" / "js" / "package-lock.json").write_text('{"lockfileVersion": 3}\n', encoding="utf-8")
    code, lines, calls = _dev_sh(tree, "setup")
    assert code == 0
    assert lines[:3] == SKIPS[:3] and lines[-1] == SKIPS[-1]
    assert lines[3] == SKIPS[3]  # the MCP servers: their lock file did not change
    assert lines[4] == "==> JavaScript checks from npm (npm ci in tests/js/) ..." and DONE.fullmatch(lines[5])
    assert calls == ["npm ci --prefix tests/js --no-audit --no-fund"]
    assert _dev_sh(tree, "setup")[1] == SKIPS  # the stamp now matches


def test_a_missing_phoenix_venv_is_made_with_the_python_dev_sh_uses(tree):
    shutil.rmtree(tree / ".venv-phoenix")
    # A python that makes the venv: one whose own python is a stand-in.
    make_venv = (
        'echo "$(basename "$0") $*" >> "$DEV_SH_LOG"; mkdir -p "$3/bin"; '
        f"printf '#!/usr/bin/env bash\\n%s\\n' '{PHOENIX_STAND_IN}' > \"$3/bin/python\"; chmod +x \"$3/bin/python\""
    )
    _stand_in(tree / "fakebin" / "python-for-dev-sh", make_venv)
    code, lines, calls = _dev_sh(tree, "setup", PYTHON=str(tree / "fakebin" / "python-for-dev-sh"))
    assert code == 0 and lines[:-2] == SKIPS[:-1], lines
    assert calls == ["python-for-dev-sh -m venv .venv-phoenix", PHOENIX_PIP]
    assert (tree / ".venv-phoenix" / ".requirements-phoenix.sha256").read_text().strip() == _sha256(
        tree / "requirements-phoenix.txt"
    )


def test_the_app_is_mcp_flow_app_with_the_options_given(tree):
    code, _, calls = _dev_sh(tree, "app", "--lan", "--port", "9000")
    assert code == 0 and calls[-1] == "python -m flow app --lan --port 9000"


def test_docs_builds_the_site_strictly_without_the_test_tools(tree):
    code, lines, calls = _dev_sh(tree, "docs")
    assert code == 0 and calls == ["mkdocs build --strict --quiet"]
    assert not any("chromium" in line or "Phoenix" in line or "npm" in line for line in lines)


def test_the_app_does_not_install_phoenix(tree):
    (tree / "requirements-phoenix.txt").write_text("arize-phoenix>=20\n", encoding="utf-8")
    (tree / ".venv" / "bin" / "python").write_text("#!/usr/bin/env bash\nexit 0\n")  # `exec streamlit`: at once
    code, lines, calls = _dev_sh(tree, "app")
    assert code == 0 and not any("Phoenix" in line for line in lines) and PHOENIX_PIP not in calls


def test_test_runs_the_checks_then_pytest_each_as_a_phase(tree):
    code, lines, calls = _dev_sh(tree, "test", "-k", "something")
    assert code == 0
    assert calls == [
        "ruff check .",
        "ruff format --check .",
        "eslint --config tests/js/eslint.config.mjs flow/views/viewer_assets tests/js",
        "lint-imports --no-logo",
        "mypy",
        "pyright",
        "mkdocs build --strict --quiet --site-dir " + calls[6].rsplit(" ", 1)[-1],
        "node --test tests/js/*.test.mjs",
        "python -m pytest -q -k something",
    ]
    phases = [line for line in lines[len(SKIPS) :] if not DONE.fullmatch(line)]
    assert [p.split(" (")[0] for p in phases] == [
        "==> ruff check",
        "==> ruff format --check",
        "==> eslint",
        "==> lint-imports",
        "==> mypy",
        "==> pyright",
        "==> mkdocs build --strict",
        "==> node --test",
        "==> pytest",
    ]


@pytest.mark.parametrize("failing", ["ruff", "eslint", "lint-imports", "mypy", "pyright", "mkdocs", "node"])
def test_a_finding_stops_the_run_before_the_tests(tree, failing):
    code, _, calls = _dev_sh(tree, "test", FAIL_ON=failing)
    assert code == 1
    assert calls[-1].startswith(failing) and not any(c.startswith("python -m pytest") for c in calls)
