"""The project as a Python package: uv.lock was locked from pyproject.toml as it is, the wheel carries what
an installed program needs (the app, the demo server, the viewer's assets, the samples, their questions and the
schema), and installed into a fresh venv outside the repository, `mcp-flow run` works offline and `mcp-flow app`
answers on its health endpoint. `mcp-flow app`'s own rules (loopback, --lan never with typed commands, a one-line
note for a missing system program) are tested here too."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.error
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from flow.cli.app import AppRefused, app_command, missing_system_packages
from helpers import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _requirement(text: str) -> tuple[str, str]:
    """A requirement as uv.lock writes it down: its normalised name and its version specifier."""
    req = Requirement(text)
    return canonicalize_name(req.name), str(req.specifier)


def _locked(entries: list[dict[str, str]]) -> list[tuple[str, str]]:
    return sorted((e["name"], str(SpecifierSet(e.get("specifier", "")))) for e in entries)


def _locked_from(project_dir: Path, groups: dict[str, list[str]] | None = None) -> None:
    """PROJECT_DIR's uv.lock was made from its pyproject.toml as it is now: what the project and its dependency
    groups ask for is what the lock's resolution started from (`uv lock` after any change; ./dev.sh's
    `uv sync --locked` refuses a lock out of step)."""
    pyproject = tomllib.loads((project_dir / "pyproject.toml").read_text(encoding="utf-8"))
    lock = tomllib.loads((project_dir / "uv.lock").read_text(encoding="utf-8"))
    [root] = [p for p in lock["package"] if p["name"] == canonicalize_name(pyproject["project"]["name"])]
    metadata = root.get("metadata", {})
    asked = sorted(_requirement(r) for r in pyproject["project"]["dependencies"])
    assert _locked(metadata.get("requires-dist", [])) == asked
    for group, wanted in (groups or {}).items():
        assert _locked(metadata["requires-dev"][group]) == sorted(map(_requirement, wanted))


def test_the_lock_files_were_made_from_the_projects_as_they_are():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    _locked_from(ROOT, pyproject["dependency-groups"])
    _locked_from(ROOT / "tests" / "phoenix")  # Arize Phoenix, in .venv-phoenix
    # .venv/bin/mcp-flow, which ./dev.sh's editable install of the project puts there, is `python -m flow`.
    assert pyproject["project"]["scripts"] == {"mcp-flow": "flow.cli:main"}


def test_the_app_listens_on_loopback_unless_asked_and_never_lan_with_typed_commands():
    def address(command: list[str]) -> str:
        return command[command.index("--server.address") + 1]

    assert address(app_command(environ={})) == "127.0.0.1"
    assert address(app_command(lan=True, environ={})) == "0.0.0.0"
    assert app_command(allow_commands=True, environ={})[-2:] == ["--", "--allow-server-commands"]
    with pytest.raises(AppRefused, match="--lan with --allow-server-commands"):
        app_command(lan=True, allow_commands=True, environ={})
    with pytest.raises(AppRefused, match="MCP_FLOW_ALLOW_COMMANDS=1"):
        app_command(lan=True, environ={"MCP_FLOW_ALLOW_COMMANDS": "1"})


def test_the_app_runs_without_magic_and_no_page_needs_it():
    """`mcp-flow app` turns Streamlit's "magic" off (a faster first page); a bare expression in a page would then show
    nothing in the app while AppTest, which keeps magic on, still showed it."""
    import ast

    command = app_command(environ={})
    assert command[command.index("--runner.magicEnabled") + 1] == "false"
    pages = [ROOT / "flow_ui" / "app.py", *sorted((ROOT / "flow_ui" / "app_pages").glob("*.py"))]
    bare = [
        f"{page.name}:{node.lineno}"
        for page in pages
        for node in ast.walk(ast.parse(page.read_text(encoding="utf-8")))
        if isinstance(node, ast.Expr)
        and not isinstance(node.value, ast.Call | ast.Await | ast.Yield | ast.YieldFrom)
        and not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))  # docstrings
    ]
    assert len(pages) > 2 and bare == []


def test_the_cli_refuses_lan_with_typed_commands_in_one_line(capsys):
    from flow.cli import main

    assert main(["app", "--lan", "--allow-server-commands"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "would let anyone on the network run commands here" in err


def test_a_missing_system_program_is_one_line_saying_what_to_install(tmp_path):
    no_fonts = tmp_path / "fc-list"
    no_fonts.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    no_fonts.chmod(0o755)
    lines = missing_system_packages(lambda name: str(no_fonts) if name == "fc-list" else None)
    assert len(lines) == 2 and all("\n" not in line for line in lines)
    assert "apt install graphviz" in lines[0] and "apt install fonts-wqy-zenhei" in lines[1]
    assert missing_system_packages() == []  # this machine has both (./dev.sh installs them)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            out,
            ROOT,
        ],
        check=True,
        timeout=300,
    )
    [built] = out.glob("mcp_flow-*.whl")
    return built


def test_the_wheel_carries_the_app_the_demo_server_and_the_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    samples = sorted(p.name for p in (ROOT / "sample_traces").glob("*.json"))
    questions = sorted(p.name for p in (ROOT / "sample_traces" / "questions").iterdir())
    assert {f"flow/_data/sample_traces/{name}" for name in samples} <= names
    assert {f"flow/_data/sample_traces/questions/{name}" for name in questions} <= names
    assert "flow/_data/schema/trace.schema.json" in names
    assert {"flow_ui/serve.py", "flow_ui/app.py", "flow_ui/app_pages/step.py", "weather_demo/server.py"} <= names
    assert {"flow/views/viewer_assets/main.mjs", "flow/views/viewer_assets/viewer.css"} <= names
    assert "flow/_data/schema/viewer-bundle.schema.json" in names
    assert not any(name.startswith(("tests/", "bench/", "docs/")) or "__pycache__" in name for name in names)


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The wheel installed into a fresh venv outside the repository. No index is reached: the venv sees this
    environment's packages through a .pth file, so pip checks the wheel's dependencies against them and installs
    only the wheel."""
    home = tmp_path_factory.mktemp("fresh")
    env_dir = home / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "-q", "--disable-pip-version-check", wheel],
        check=True,
        timeout=300,
        cwd=home,
        env=_clean_env(),
    )
    return env_dir


def _clean_env() -> dict[str, str]:
    """No PYTHONPATH (the repository must not leak in) and no provider settings (the run stays on the mock)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith(("OPENAI_", "MCP_FLOW_"))}


def test_the_installed_package_is_the_wheel_not_the_repository(installed):
    where = subprocess.run(
        [installed / "bin" / "python", "-c", "import flow, flow_ui, weather_demo; print(flow.SAMPLE_DIR)"],
        capture_output=True,
        text=True,
        cwd=installed.parent,
        env=_clean_env(),
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(installed) and Path(where, "beijing-mcp.json").is_file()


def test_mcp_flow_run_works_offline_from_the_wheel(installed):
    work = installed.parent / "work"
    work.mkdir(exist_ok=True)
    ran = subprocess.run(
        [installed / "bin" / "mcp-flow", "run", "--mode", "mcp", "--out", "run.json"],
        capture_output=True,
        text=True,
        cwd=work,
        env=_clean_env(),
        timeout=180,
    )
    assert ran.returncode == 0, ran.stderr
    trace = json.loads((work / "run.json").read_text(encoding="utf-8"))
    kinds = [hop["kind"] for hop in trace["hops"]]
    assert "mcp.request" in kinds and kinds[-1] == "app.answer"
    assert trace["meta"]["server"]["transport"] == "stdio"  # the demo server ran as a child process, from the wheel
    sample = next(installed.glob("lib/python*/site-packages/flow/_data/sample_traces/beijing-mcp.json"))
    shown = subprocess.run(
        [installed / "bin" / "mcp-flow", "show", sample], capture_output=True, text=True, cwd=work, env=_clean_env()
    )
    assert shown.returncode == 0 and "tools/call" in shown.stdout


def test_mcp_flow_on_the_venvs_path_answers_help(installed):
    """`mcp-flow` as the installer writes it from [project.scripts] into a venv's bin/ (./dev.sh's editable install
    writes .venv/bin/mcp-flow the same way)."""
    done = subprocess.run(
        [installed / "bin" / "mcp-flow", "--help"], capture_output=True, text=True, env=_clean_env(), timeout=60
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: mcp-flow"), done.stderr


def test_mcp_flow_app_from_the_wheel_answers_on_its_health_endpoint_and_serves_rooms(installed):
    port = free_port()
    proc = subprocess.Popen(
        [installed / "bin" / "mcp-flow", "app", "--port", str(port)],
        cwd=installed.parent,
        env=_clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("mcp-flow app from the wheel did not start")
                time.sleep(0.2)
        with pytest.raises(urllib.error.HTTPError) as missing:  # the rooms' routes are mounted beside the pages
            urllib.request.urlopen(f"{url}/room/NOSUCH", timeout=5)
        assert missing.value.code == 404
    finally:
        proc.terminate()
        proc.wait(timeout=20)
