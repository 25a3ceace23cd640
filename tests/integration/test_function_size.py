"""No function in the project's code (flow/, flow_ui/, weather_demo/, bench/) is over 60 lines or over a cyclomatic
complexity of 15, outside the short allowlist below, where each exception says why it is one.

A function's length runs from its `def` line to its last line, docstring and nested functions included, except that
a dict, list, set or tuple display spread over several lines counts as one line: its entries are data (a table, the
fields of a record it returns), not steps, and a table grows with what it lists without the function getting
harder to follow. Complexity is ruff's C901 (mccabe), which pyproject.toml runs in `ruff check` with the same limit;
this test asks ruff again without the config's per-file exception, so that the exception covers the listed
functions only."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

PACKAGES = ("flow", "flow_ui", "weather_demo", "bench")
MAX_LINES = 60
MAX_COMPLEXITY = 15

# "path:qualified name" -> why it may be longer or more complex than the rest.
ALLOWED: dict[str, str] = {}


def lengths_in(source: str) -> dict[tuple[int, str], int]:
    """Each function's length as this module counts it, by its `def` line and qualified name."""
    out: dict[tuple[int, str], int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                table_lines: set[int] = set()
                for sub in ast.walk(child):
                    if isinstance(sub, ast.Dict | ast.List | ast.Set | ast.Tuple) and sub.end_lineno:
                        table_lines.update(range(sub.lineno + 1, sub.end_lineno + 1))
                span = (child.end_lineno or child.lineno) - child.lineno + 1
                out[(child.lineno, prefix + child.name)] = span - len(table_lines)
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def functions() -> dict[tuple[str, int], tuple[str, int]]:
    """Every function in the packages: (path, def line) -> ("path:qualified name", length)."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for (line, name), length in lengths_in(path.read_text(encoding="utf-8")).items():
                out[(rel, line)] = (f"{rel}:{name}", length)
    return out


def test_no_function_is_over_60_lines_outside_the_allowlist() -> None:
    over = {name: n for name, n in functions().values() if n > MAX_LINES and name not in ALLOWED}
    assert not over, f"over {MAX_LINES} lines (cut it along its seams): {over}"


def test_no_function_is_over_complexity_15_outside_the_allowlist() -> None:
    # --isolated: pyproject.toml's per-file exception for the allowlisted functions' file is not applied here.
    found = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "C901", "--output-format", "json"]
        + ["--config", f"lint.mccabe.max-complexity={MAX_COMPLEXITY}", *PACKAGES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert found.returncode in (0, 1), found.stderr
    named = functions()
    complex_ = {
        named[(Path(d["filename"]).resolve().relative_to(ROOT).as_posix(), d["location"]["row"])][0]: d["message"]
        for d in json.loads(found.stdout)
    }
    assert {name: why for name, why in complex_.items() if name not in ALLOWED} == {}


def test_the_allowlist_names_only_functions_that_need_it() -> None:
    lengths = dict(functions().values())
    assert set(ALLOWED) <= set(lengths), "an allowlisted function is gone: take it off the list"
    assert [name for name in ALLOWED if lengths[name] <= MAX_LINES] == [], "short enough now: take it off the list"


def test_a_table_counts_as_one_line_and_a_long_body_does_not() -> None:
    table = "def table():\n    return {\n" + "".join(f"        'k{i}': {i},\n" for i in range(100)) + "    }\n"
    steps = "def steps():\n" + "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES)) + "    return x0\n"
    method = "class C:\n    def m(self):\n        return [\n            1,\n            2,\n        ]\n"
    assert lengths_in(table) == {(1, "table"): 2}
    assert lengths_in(steps) == {(1, "steps"): MAX_LINES + 2}
    assert lengths_in(method) == {(2, "C.m"): 2}
