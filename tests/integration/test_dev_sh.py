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

[UV_VERSION] = re.findall(r"^UV_VERSION=(\S+)$", (ROOT / "dev.sh").read_text(encoding="utf-8"), re.M)
SKIPS = [
    "==> System packages: graphviz fonts-wqy-zenhei chromium nodejs npm redis-server nginx are there, skipped",
    f"==> uv: {UV_VERSION} is there, skipped",
    "==> Python packages: pyproject.toml and uv.lock unchanged since the last install, skipped",
    "==> MCP servers from npm: third_party/package-lock.json unchanged since the last install, skipped",
    "==> JavaScript checks from npm: tests/js/package-lock.json unchanged since the last install, skipped",
    "==> Arize Phoenix: tests/phoenix/uv.lock unchanged since the last install, skipped",
]
PY = "python-for-dev-sh"  # the Python dev.sh is told to use (PYTHON)
SYNC = f"uv sync --locked --python {PY} -> .venv"
PHOENIX_SYNC = f"uv sync --locked --project tests/phoenix --python {PY} -> .venv-phoenix"
# uv says its version when asked, and otherwise logs its arguments and the venv it was pointed at.
UV_STAND_IN = (
    f'if [ "$1" = --version ]; then echo "uv {UV_VERSION} (x86_64-unknown-linux-gnu)"; exit 0; fi; '
    'echo "uv $* -> ${UV_PROJECT_ENVIRONMENT#"$PWD"/}" >> "$DEV_SH_LOG"'
)
DONE = re.compile(r"    done in \d+ s")


def _stand_in(path: Path, body: str = 'echo "$(basename "$0") $*" >> "$DEV_SH_LOG"') -> None:
    """An executable that runs BODY (by default: logs its name and arguments to $DEV_SH_LOG) and fails only when
    its name is $FAIL_ON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/usr/bin/env bash\n{body}\n[ "$(basename "$0")" != "${{FAIL_ON:-}}" ]\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _sha256(*paths: Path) -> str:
    return hashlib.sha256(b"".join(path.read_bytes() for path in paths)).hexdigest()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A set-up tree: every stamp matches, every program is there."""
    shutil.copy(ROOT / "dev.sh", tmp_path / "dev.sh")
    for project in (tmp_path, tmp_path / "tests" / "phoenix"):
        project.mkdir(parents=True, exist_ok=True)
        (project / "pyproject.toml").write_text(f'[project]\nname = "{project.name}"\n', encoding="utf-8")
        (project / "uv.lock").write_text("version = 1\n", encoding="utf-8")
    for folder in ("third_party", "tests/js"):
        (tmp_path / folder / "node_modules").mkdir(parents=True)
        (tmp_path / folder / "package-lock.json").write_text("{}\n", encoding="utf-8")
        lock = _sha256(tmp_path / folder / "package-lock.json")
        (tmp_path / folder / "node_modules" / ".lock.sha256").write_text(lock + "\n")
    _stand_in(tmp_path / "tests" / "js" / "node_modules" / ".bin" / "eslint")
    _stand_in(tmp_path / ".uv" / "bin" / "uv", UV_STAND_IN)
    for name in ("python", "ruff", "lint-imports", "mypy", "mkdocs"):
        _stand_in(tmp_path / ".venv" / "bin" / name)
    (tmp_path / ".venv" / ".uv-sync").write_text(_sha256(tmp_path / "pyproject.toml", tmp_path / "uv.lock") + " dev\n")
    _stand_in(tmp_path / ".venv-phoenix" / "bin" / "phoenix")
    phoenix = tmp_path / "tests" / "phoenix"
    (tmp_path / ".venv-phoenix" / ".uv-sync").write_text(
        _sha256(phoenix / "pyproject.toml", phoenix / "uv.lock") + "\n"
    )
    for name in ("dot", "chromium", "redis-server", "nginx"):  # only looked for
        _stand_in(tmp_path / "fakebin" / name, "true")
    for name in ("node", "npm", PY):  # node runs the viewer's JavaScript tests, npm installs packages, PY installs uv
        _stand_in(tmp_path / "fakebin" / name)
    _stand_in(tmp_path / "fakebin" / "fc-list", 'echo "/usr/share/fonts/wqy-zenhei.ttc: WenQuanYi Zen Hei"')
    return tmp_path


def _dev_sh(tree: Path, *args: str, **env: str) -> tuple[int, list[str], list[str]]:
    """Run dev.sh ARGS in TREE: its exit code, its lines on stderr, and the stand-ins' calls in order."""
    log = tree / "calls.log"
    log.unlink(missing_ok=True)
    full_env = {k: v for k, v in os.environ.items() if k not in ("FAIL_ON", "UV_PROJECT_ENVIRONMENT")}
    full_env.update(PATH=f"{tree / 'fakebin'}:{os.environ['PATH']}", DEV_SH_LOG=str(log), PYTHON=PY, **env)
    proc = subprocess.run(["bash", "dev.sh", *args], cwd=tree, env=full_env, capture_output=True, text=True, timeout=60)
    calls = [line.rstrip() for line in log.read_text().splitlines()] if log.exists() else []
    return proc.returncode, proc.stderr.splitlines(), calls


def test_setup_on_a_set_up_tree_says_each_phase_was_skipped_and_runs_nothing(tree):
    code, lines, calls = _dev_sh(tree, "setup")
    assert code == 0
    assert lines == SKIPS
    assert calls == []


def test_a_changed_lock_is_synced_with_uv_into_the_venv_with_its_progress_and_a_time(tree):
    (tree / "uv.lock").write_text("version = 1\nrevision = 3\n", encoding="utf-8")
    code, lines, calls = _dev_sh(tree, "setup")
    assert code == 0
    assert lines[:2] == SKIPS[:2] and lines[-3:] == SKIPS[-3:]
    assert lines[2] == f"==> Python packages (uv sync --locked --python {PY}: uv.lock into .venv) ..."
    assert DONE.fullmatch(lines[3]) and calls == [SYNC]  # the dev group too: uv's default
    assert _dev_sh(tree, "setup")[1] == SKIPS  # the stamp now matches


def test_the_app_syncs_without_the_dev_group_and_the_tests_then_add_it(tree):
    (tree / "pyproject.toml").write_text('[project]\nname = "changed"\n', encoding="utf-8")
    (tree / ".venv" / "bin" / "python").write_text("#!/usr/bin/env bash\nexit 0\n")  # `exec streamlit`: at once
    code, _, calls = _dev_sh(tree, "app")
    assert code == 0 and calls == [f"uv sync --locked --python {PY} --no-dev --inexact -> .venv"]
    assert _dev_sh(tree, "app")[2] == []  # the app's set is there now
    code, _, calls = _dev_sh(tree, "setup")
    assert code == 0 and calls == [SYNC]  # the tests' set is not: the dev group is added
    assert _dev_sh(tree, "app")[2] == []  # and the app is content with the tests' set


def test_a_changed_phoenix_lock_is_synced_into_its_own_venv_after_the_npm_servers(tree):
    (tree / "tests" / "phoenix" / "uv.lock").write_text("version = 1\nrevision = 3\n", encoding="utf-8")
    code, lines, calls = _dev_sh(tree, "test")
    assert code == 0
    assert lines[: len(SKIPS) - 1] == SKIPS[:-1]  # system packages, uv, Python packages, npm servers: skipped
    assert lines[len(SKIPS) - 1] == (
        "==> Arize Phoenix (uv sync --locked --project tests/phoenix: its uv.lock into .venv-phoenix) ..."
    )
    assert DONE.fullmatch(lines[len(SKIPS)]) and lines[len(SKIPS) + 1].startswith("==> ruff check")
    assert calls[0] == PHOENIX_SYNC and calls[1] == "ruff check ."  # installed before the checks, not into .venv
    assert _dev_sh(tree, "setup")[1] == SKIPS  # the stamp now matches


def test_uv_of_another_release_is_installed_from_pypi_with_the_python_dev_sh_uses(tree):
    _stand_in(tree / ".uv" / "bin" / "uv", 'echo "uv 0.0.1 (x86_64-unknown-linux-gnu)"')
    code, lines, calls = _dev_sh(tree, "setup")
    assert code == 0 and lines[0] == SKIPS[0] and lines[3:] == SKIPS[2:], lines
    assert lines[1] == f"==> uv (pip install uv=={UV_VERSION} into .uv/) ..." and DONE.fullmatch(lines[2])
    assert calls == [
        f"{PY} -m pip --version",
        f"{PY} -m pip install --disable-pip-version-check --quiet --target .uv uv=={UV_VERSION}",
    ]
    assert not (tree / ".uv").exists()  # the old release is gone (the stand-in pip installs nothing)


def test_a_changed_lock_file_installs_those_npm_packages_again_and_only_those(tree):
    (tree / "tests" / "js" / "package-lock.json").write_text('{"lockfileVersion": 3}\n', encoding="utf-8")
    code, lines, calls = _dev_sh(tree, "setup")
    assert code == 0
    assert lines[:3] == SKIPS[:3] and lines[-1] == SKIPS[-1]
    assert lines[3] == SKIPS[3]  # the MCP servers: their lock file did not change
    assert lines[4] == "==> JavaScript checks from npm (npm ci in tests/js/) ..." and DONE.fullmatch(lines[5])
    assert calls == ["npm ci --prefix tests/js --no-audit --no-fund"]
    assert _dev_sh(tree, "setup")[1] == SKIPS  # the stamp now matches


def test_the_app_is_mcp_flow_app_with_the_options_given(tree):
    code, _, calls = _dev_sh(tree, "app", "--lan", "--port", "9000")
    assert code == 0 and calls[-1] == "python -m flow app --lan --port 9000"


def test_docs_builds_the_site_strictly_without_the_test_tools(tree):
    code, lines, calls = _dev_sh(tree, "docs")
    assert code == 0 and calls == ["mkdocs build --strict --quiet"]
    assert not any("chromium" in line or "Phoenix" in line or "npm" in line for line in lines)


def test_the_app_does_not_install_phoenix(tree):
    (tree / "tests" / "phoenix" / "uv.lock").write_text("version = 1\nrevision = 3\n", encoding="utf-8")
    (tree / ".venv" / "bin" / "python").write_text("#!/usr/bin/env bash\nexit 0\n")  # `exec streamlit`: at once
    code, lines, calls = _dev_sh(tree, "app")
    assert code == 0 and not any("Phoenix" in line for line in lines) and calls == []


def test_test_runs_the_checks_then_pytest_each_as_a_phase(tree):
    code, lines, calls = _dev_sh(tree, "test", "-k", "something")
    assert code == 0
    assert calls == [
        "ruff check .",
        "ruff format --check .",
        "eslint --config tests/js/eslint.config.mjs flow/views/viewer_assets tests/js",
        "lint-imports --no-logo",
        "mypy",
        "mkdocs build --strict --quiet --site-dir " + calls[5].rsplit(" ", 1)[-1],
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
        "==> mkdocs build --strict",
        "==> node --test",
        "==> pytest",
    ]


@pytest.mark.parametrize("lane", ["unit", "integration", "browser"])
def test_test_of_one_lane_runs_only_that_lanes_tests_without_the_checks(tree, lane):
    code, lines, calls = _dev_sh(tree, "test", lane, "-k", "something")
    assert code == 0
    assert calls == [f"python -m pytest -q tests/{lane} -k something"]
    phases = [line for line in lines[len(SKIPS) :] if not DONE.fullmatch(line)]
    assert phases == [f"==> pytest tests/{lane} (one lane, without the checks)"]


@pytest.mark.parametrize("failing", ["ruff", "eslint", "lint-imports", "mypy", "mkdocs", "node"])
def test_a_finding_stops_the_run_before_the_tests(tree, failing):
    code, _, calls = _dev_sh(tree, "test", FAIL_ON=failing)
    assert code == 1
    assert calls[-1].startswith(failing) and not any(c.startswith("python -m pytest") for c in calls)
