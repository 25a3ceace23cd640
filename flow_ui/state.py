"""The one typed state object the pages share, kept in `st.session_state["app"]`."""

from __future__ import annotations

import hashlib
import uuid
import weakref
from dataclasses import dataclass, field
from typing import Any

import anyio
import streamlit as st

import flow
from flow import Era, Lang, ServerSpec, WarmSession, import_bytes
from flow_ui.live import LiveRun

SAMPLE_DIR = flow.SAMPLE_DIR

# The upload widget's limit (`mcp-flow app` gives Streamlit's server the same one).
UPLOAD_LIMIT_MB = flow.UPLOAD_LIMIT_MB


@dataclass
class Loaded:
    """A trace the app holds, with the key that names it in caches."""

    key: str
    label: str
    trace: flow.Trace


@dataclass
class AppState:
    lang: Lang = "zh"
    loaded: dict[str, Loaded] = field(default_factory=dict)  # uploads and runs; samples come from the cache
    step_key: str = "sample:beijing-mcp"
    index: int = 0  # the cursor's position on the step page
    last_run: str | None = None
    runs: int = 0
    compare_a: str = "sample:beijing-direct"
    compare_b: str = "sample:beijing-mcp"
    ways: list[str] = field(default_factory=lambda: [f"sample:{name}" for name in flow.FOUR_WAYS])  # Compare's four
    hops_key: str = "sample:beijing-mcp"
    upload_error: str | None = None
    questions: dict[str, dict[int, Any]] = field(default_factory=dict)  # an uploaded questions file, by trace key
    questions_error: str | None = None
    quiz: bool = False  # the Step page's questions are on
    captions: bool = False  # the Step page's restaurant captions are on
    # What the last run did (flow.run_outcome): {"key", "verdict", "seq", "text": {lang: line}}, shown on the Run page.
    last_outcome: dict[str, Any] | None = None
    choices: dict[str, object] = field(default_factory=dict)  # widget values that must survive a language switch
    warm: dict[str, WarmSession] = field(default_factory=dict)  # open stdio sessions, by era
    room: object | None = None  # the classroom room this session presents (flow_ui.rooms.Presenting)
    room_error: str | None = None
    live: LiveRun | None = (
        None  # the run under way on the Run page, followed across its script runs  # why the last "Present to a room" failed, in the page's language
    )


def warm_session(app: AppState, era: Era) -> WarmSession:
    """This browser session's kept-open stdio server for an era; closed when the session goes away."""
    if era not in app.warm:
        warm = WarmSession(ServerSpec(transport="stdio"), era=era)
        app.warm[era] = warm
        weakref.finalize(app, warm.close)
    return app.warm[era]


@st.cache_resource(show_spinner=False, max_entries=16)
def server_listing(spec: ServerSpec, era: Era) -> tuple[dict[str, list[dict[str, Any]]], str | None]:
    """What a server offers (tools, resources, prompts), asked once per server and era per app process;
    with the error line when it could not be asked."""
    from flow import inspect_server

    result, listing = anyio.run(lambda: inspect_server(spec, era=era, timeout_s=10.0))
    return listing, result.error


def state() -> AppState:
    if "app" not in st.session_state:
        locale = (st.context.locale or "") if hasattr(st, "context") else ""
        st.session_state["app"] = AppState(lang="en" if locale.lower().startswith("en") else "zh")
    app: AppState = st.session_state["app"]
    return app


@st.cache_resource
def sample_library() -> dict[str, Loaded]:
    """The committed samples, parsed once per server: immutable, so shared by every session."""
    out: dict[str, Loaded] = {}
    for sample in flow.SAMPLES:
        trace = flow.load_trace(SAMPLE_DIR / f"{sample.name}.json")
        out[f"sample:{sample.name}"] = Loaded(f"sample:{sample.name}", sample.name, trace)
    return out


def all_traces(app: AppState) -> dict[str, Loaded]:
    return {**sample_library(), **app.loaded}


def trace_title(item: Loaded, lang: Lang) -> str:
    meta = item.trace.meta
    if meta.title:
        return meta.title.get(lang) or item.label
    return item.label


def add_upload(app: AppState, name: str, data: bytes) -> Loaded:
    """Parse an upload, or import another tool's recording; raises `flow.TraceError` with one line for the page."""
    trace = import_bytes(data, name=name)
    key = "upload:" + hashlib.sha256(data).hexdigest()[:12]
    item = Loaded(key, f"{name}", trace)
    app.loaded[key] = item
    return item


def add_run(app: AppState, trace: flow.Trace) -> Loaded:
    app.runs += 1
    key = f"run:{uuid.uuid4().hex[:12]}"  # unique across sessions: caches shared by all sessions use it
    mode = {"mcp": "MCP", "direct": "direct", "hosted": "hosted MCP"}[trace.meta.mode]
    item = Loaded(key, f"#{app.runs} {mode} · {trace.meta.question}", trace)
    app.loaded[key] = item
    app.last_run = key
    return item
