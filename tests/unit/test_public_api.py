"""The public surface is pinned: `flow.__all__` is the list below, and the app (flow_ui/, flow_ui/app_pages/) uses only
those names, through `flow` itself, never a submodule. A change to either is a decision, made here on purpose."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import flow
from helpers import ROOT

EXPORTED = [
    "ACTOR_NAMES",
    "API",
    "ASKING_QUESTIONS",
    "Answer",
    "Cursor",
    "DEMO",
    "EXAMPLE_QUESTIONS",
    "Era",
    "FORMAT_VERSION",
    "FOUR_WAYS",
    "FlowError",
    "Hop",
    "KIND_NAMES",
    "KeyChoice",
    "LABEL_SIZE",
    "Lang",
    "MAX_SAMPLING_TOKENS",
    "MAX_TRACE_BYTES",
    "MOCK_MODELS",
    "ModelConfig",
    "Outcome",
    "PHASES",
    "PHASE_NAMES",
    "PRESETS",
    "PROVIDER_NOTES",
    "Question",
    "QuestionsError",
    "RenderError",
    "RoomError",
    "RoomKeys",
    "RoomView",
    "RunOptions",
    "RunResult",
    "SAMPLES",
    "SAMPLE_DIR",
    "SCRIPTED_APIS",
    "SMALL_SIZE",
    "ScriptError",
    "ServerChoice",
    "ServerConfigError",
    "ServerSpec",
    "Trace",
    "TraceError",
    "TraceMeta",
    "Turn",
    "UPLOAD_LIMIT_MB",
    "WarmSession",
    "actor_names",
    "aligned_dots",
    "allow_typed_commands",
    "api_title",
    "api_words",
    "bind_questions",
    "built_in_servers",
    "bundle_json",
    "check_base_url",
    "configured_servers",
    "field_choices",
    "figures",
    "focus_view",
    "form_fields",
    "hop_dataframe",
    "hop_rows",
    "hop_table",
    "import_bytes",
    "inspect_server",
    "key_env_for",
    "key_for",
    "load_trace",
    "message_name",
    "message_of",
    "mock_model_does",
    "mock_model_label",
    "mock_models_help",
    "notes_before_sending",
    "overview_dot",
    "own_dots",
    "page_keys_js",
    "pair_names",
    "parse_script",
    "parse_trace",
    "part_trace",
    "per_phase_ms",
    "per_step",
    "point",
    "qr_svg",
    "questions_for",
    "read_questions_bytes",
    "read_trace_bytes",
    "render",
    "replay",
    "room_routes",
    "room_store",
    "rooms_served",
    "route",
    "route_strips_html",
    "run",
    "run_flow",
    "run_outcome",
    "save_trace",
    "sending_line",
    "server_for",
    "short_label",
    "side_by_side",
    "summary_line",
    "summary_rows",
    "to_dot",
    "to_html",
    "to_otlp_json",
    "tool_cost_chart",
    "tool_cost_points",
    "tool_cost_traces",
    "trace_digest",
    "trace_text",
    "viewer_bundle",
    "viewer_css",
    "viewer_js",
    "viewer_parts",
    "ways_point",
    "ways_table",
]

APP_FILES = sorted([*(ROOT / "flow_ui").glob("*.py"), *(ROOT / "flow_ui" / "app_pages").glob("*.py")])


def test_all_is_the_pinned_list_and_every_name_resolves():
    assert sorted(flow.__all__) == EXPORTED
    namespace: dict[str, object] = {}
    exec("from flow import *", namespace)  # each name is imported on first use: this uses every one
    assert sorted(k for k in namespace if k != "__builtins__") == EXPORTED


def _uses_of_flow(path: Path) -> list[tuple[int, str]]:
    """Every import of flow or a flow submodule in PATH, and every `flow.NAME`, as (line, text)."""
    uses: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            uses += [(node.lineno, f"import {a.name}") for a in node.names if a.name.split(".")[0] == "flow"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "flow":
            uses += [(node.lineno, f"from {node.module} import {a.name}") for a in node.names]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "flow":
            uses.append((node.lineno, f"flow.{node.attr}"))
    return sorted(uses)


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_app_uses_only_flows_public_names(path):
    allowed = {"import flow"} | {f"from flow import {n}" for n in EXPORTED} | {f"flow.{n}" for n in EXPORTED}
    wrong = [f"{path.relative_to(ROOT)}:{line}: {text}" for line, text in _uses_of_flow(path) if text not in allowed]
    assert wrong == []


def test_the_check_sees_a_submodule_import(tmp_path):
    page = tmp_path / "page.py"
    page.write_text("import flow\nfrom flow.trace.model import Hop\nimport flow.views\nflow._HOME\nflow.run\n")
    assert _uses_of_flow(page) == [
        (1, "import flow"),
        (2, "from flow.trace.model import Hop"),
        (3, "import flow.views"),
        (4, "flow._HOME"),
        (5, "flow.run"),
    ]


def _packages() -> list[str]:
    """Every package of the project, by its folder: a new one is checked without being listed here."""
    found = []
    for top in ("flow", "flow_ui", "weather_demo"):
        for init in sorted((ROOT / top).rglob("__init__.py")):
            found.append(".".join(init.parent.relative_to(ROOT).parts))
    return found


@pytest.mark.parametrize("package", _packages())
def test_every_package_can_be_star_imported(package):
    """`__all__` names only what the package has: `from package import *` raises AttributeError otherwise."""
    namespace: dict[str, object] = {}
    exec(f"from {package} import *", namespace)
    declared = getattr(__import__(package, fromlist=["__all__"]), "__all__", None)
    if declared is not None:
        assert set(declared) <= set(namespace)
