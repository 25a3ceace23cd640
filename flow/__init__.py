"""See how a language model uses tools: run a question, record every hop, show the trace.

This is the public surface: the app's pages import only these names (a test checks it), and nothing
under `flow` imports Streamlit. The names are imported on first use, so a page or a command pays only
for what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flow.backends.replay import Cursor, replay
    from flow.backends.scripted import SCRIPTED_APIS, ScriptError, Turn, parse_script
    from flow.engine.host import MAX_SAMPLING_TOKENS, Answer, Question, field_choices, form_fields
    from flow.engine.loop import inspect_server
    from flow.engine.model import ModelConfig, check_base_url
    from flow.engine.options import RunOptions, RunResult
    from flow.interop.importers import import_bytes
    from flow.interop.otlp import to_otlp_json
    from flow.providers import (
        ASKING_QUESTIONS,
        EXAMPLE_QUESTIONS,
        MOCK_MODELS,
        PRESETS,
        KeyChoice,
        ServerChoice,
        key_env_for,
        key_for,
        notes_before_sending,
        server_for,
    )
    from flow.rooms import room_routes, room_store, rooms_served
    from flow.rooms.page import qr_svg
    from flow.rooms.store import RoomError, RoomKeys, RoomView
    from flow.runs import run, run_flow
    from flow.samples import SAMPLES, tool_cost_traces
    from flow.servers.config import DEMO, ServerConfigError, allow_typed_commands, built_in_servers, configured_servers
    from flow.servers.spec import Era, ServerSpec
    from flow.text.apis import api_words
    from flow.text.errors import PROVIDER_NOTES, FlowError, sending_line
    from flow.text.mock import mock_model_does, mock_model_label, mock_models_help
    from flow.text.names import ACTOR_NAMES, KIND_NAMES, PHASE_NAMES, Lang, actor_names
    from flow.trace.files import (
        MAX_TRACE_BYTES,
        UPLOAD_LIMIT_MB,
        TraceError,
        load_trace,
        parse_trace,
        read_trace_bytes,
        save_trace,
        trace_text,
    )
    from flow.trace.model import FORMAT_VERSION, PHASES, Hop, Trace, TraceMeta
    from flow.trace.questions import QuestionsError, bind_questions, questions_for, read_questions_bytes
    from flow.trace.route import message_of, route
    from flow.trace.shipped import SAMPLE_DIR
    from flow.views.compare import (
        aligned_dots,
        api_title,
        figures,
        message_name,
        own_dots,
        pair_names,
        per_phase_ms,
        per_step,
        point,
        side_by_side,
        summary_rows,
    )
    from flow.views.diagram import LABEL_SIZE, SMALL_SIZE, RenderError, overview_dot, render, to_dot
    from flow.views.html import to_html
    from flow.views.labels import short_label
    from flow.views.outcome import Outcome, run_outcome
    from flow.views.table import focus_view, hop_dataframe, hop_rows, hop_table, summary_line
    from flow.views.tool_cost import tool_cost_chart, tool_cost_points
    from flow.views.viewer import (
        bundle_json,
        page_keys_js,
        part_trace,
        trace_digest,
        viewer_bundle,
        viewer_css,
        viewer_js,
        viewer_parts,
    )
    from flow.views.ways import FOUR_WAYS, route_strips_html, ways_point, ways_table
    from flow.warm import WarmSession
    from flow.wire import API

_HOME = {
    **dict.fromkeys(("Cursor", "replay"), "flow.backends.replay"),
    **dict.fromkeys(("SCRIPTED_APIS", "ScriptError", "Turn", "parse_script"), "flow.backends.scripted"),
    "API": "flow.wire",
    **dict.fromkeys(("MAX_SAMPLING_TOKENS", "Answer", "Question", "field_choices", "form_fields"), "flow.engine.host"),
    "inspect_server": "flow.engine.loop",
    **dict.fromkeys(("ModelConfig", "check_base_url"), "flow.engine.model"),
    **dict.fromkeys(("RunOptions", "RunResult"), "flow.engine.options"),
    "import_bytes": "flow.interop.importers",
    "to_otlp_json": "flow.interop.otlp",
    **dict.fromkeys(
        (
            "ASKING_QUESTIONS",
            "EXAMPLE_QUESTIONS",
            "MOCK_MODELS",
            "PRESETS",
            "KeyChoice",
            "ServerChoice",
            "key_env_for",
            "key_for",
            "notes_before_sending",
            "server_for",
        ),
        "flow.providers",
    ),
    "api_words": "flow.text.apis",
    **dict.fromkeys(("PROVIDER_NOTES", "FlowError", "sending_line"), "flow.text.errors"),
    **dict.fromkeys(("mock_model_does", "mock_model_label", "mock_models_help"), "flow.text.mock"),
    **dict.fromkeys(("RoomError", "RoomKeys", "RoomView"), "flow.rooms.store"),
    "qr_svg": "flow.rooms.page",
    **dict.fromkeys(("room_routes", "room_store", "rooms_served"), "flow.rooms"),
    **dict.fromkeys(("run", "run_flow"), "flow.runs"),
    **dict.fromkeys(("SAMPLES", "tool_cost_traces"), "flow.samples"),
    "SAMPLE_DIR": "flow.trace.shipped",
    **dict.fromkeys(
        ("DEMO", "ServerConfigError", "allow_typed_commands", "built_in_servers", "configured_servers"),
        "flow.servers.config",
    ),
    **dict.fromkeys(("Era", "ServerSpec"), "flow.servers.spec"),
    **dict.fromkeys(("ACTOR_NAMES", "KIND_NAMES", "PHASE_NAMES", "Lang", "actor_names"), "flow.text.names"),
    **dict.fromkeys(
        (
            "MAX_TRACE_BYTES",
            "UPLOAD_LIMIT_MB",
            "TraceError",
            "load_trace",
            "parse_trace",
            "read_trace_bytes",
            "save_trace",
            "trace_text",
        ),
        "flow.trace.files",
    ),
    **dict.fromkeys(("FORMAT_VERSION", "PHASES", "Hop", "Trace", "TraceMeta"), "flow.trace.model"),
    **dict.fromkeys(
        ("QuestionsError", "bind_questions", "questions_for", "read_questions_bytes"), "flow.trace.questions"
    ),
    **dict.fromkeys(("message_of", "route"), "flow.trace.route"),
    **dict.fromkeys(
        (
            "aligned_dots",
            "api_title",
            "figures",
            "message_name",
            "own_dots",
            "pair_names",
            "per_phase_ms",
            "per_step",
            "point",
            "side_by_side",
            "summary_rows",
        ),
        "flow.views.compare",
    ),
    **dict.fromkeys(("FOUR_WAYS", "route_strips_html", "ways_point", "ways_table"), "flow.views.ways"),
    **dict.fromkeys(
        ("LABEL_SIZE", "SMALL_SIZE", "RenderError", "overview_dot", "render", "to_dot"), "flow.views.diagram"
    ),
    "to_html": "flow.views.html",
    "short_label": "flow.views.labels",
    **dict.fromkeys(("Outcome", "run_outcome"), "flow.views.outcome"),
    **dict.fromkeys(("focus_view", "hop_dataframe", "hop_rows", "hop_table", "summary_line"), "flow.views.table"),
    **dict.fromkeys(
        (
            "bundle_json",
            "page_keys_js",
            "part_trace",
            "trace_digest",
            "viewer_bundle",
            "viewer_css",
            "viewer_js",
            "viewer_parts",
        ),
        "flow.views.viewer",
    ),
    **dict.fromkeys(("tool_cost_chart", "tool_cost_points"), "flow.views.tool_cost"),
    "WarmSession": "flow.warm",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'flow' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "API",
    "ACTOR_NAMES",
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
    "parse_script",
    "parse_trace",
    "pair_names",
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
