"""What several test modules share besides fixtures (those are in conftest.py): the repository root, the
command line in its own process, the demo HTTP server as a child process, and small readers of hops."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flow import ModelConfig, RunOptions, RunResult, run
from flow.samples import DemoServerProcess, spawn_demo_server
from flow.trace.model import Hop, Trace

if TYPE_CHECKING:
    from playwright.sync_api import Page  # only the browser tests import playwright

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"  # screenshots from the browser tests


@dataclass
class Ran:
    """What a command-line call gave: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def flow_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`python -m flow ARGS` in its own process, from the repository root, with no OPENAI_* variables."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "flow", *args], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=timeout
    )


def run_flow_sync(
    question: str = "北京今天天气怎么样？", *, model: str = "mock", timeout_s: float = 30.0, **options: Any
) -> RunResult:
    options.setdefault("transport", "memory")
    return run(question, options=RunOptions(**options), model=ModelConfig(model=model, timeout_s=timeout_s))


def numbered_steps(hops: list[Hop]) -> list[int]:
    """The steps in the order they first appear."""
    seen: list[int] = []
    for h in hops:
        if h.step is not None and h.step not in seen:
            seen.append(h.step)
    return seen


def model_requests(hops: list[Hop]) -> list[dict[str, Any]]:
    return [h.payload["body"] for h in hops if h.kind == "llm.request"]


def kinds(hops: list[Hop]) -> list[str]:
    return [h.kind for h in hops]


def must_search(pattern: str, text: str, flags: int = 0) -> re.Match[str]:
    """`re.search` for what the test expects to find: no match fails the test, naming the pattern."""
    found = re.search(pattern, text, flags)
    assert found is not None, f"nothing matches {pattern!r}"
    return found


def replay_report(trace: Trace) -> dict[str, Any]:
    """What a re-run replayed and where it diverged (`TraceMeta.replay`), which every replayed trace has."""
    assert trace.meta.replay is not None, "the trace has no replay report"
    return trace.meta.replay


def server_facts(trace: Trace) -> dict[str, Any]:
    """What the run knew of its MCP server (`TraceMeta.server`), which every run in MCP mode has."""
    assert trace.meta.server is not None, "the trace names no MCP server"
    return trace.meta.server


def unmapped(trace: Trace) -> list[str]:
    """What an imported recording held that did not become hops (`ImportInfo.unmapped`)."""
    assert trace.meta.imported is not None, "the trace was not imported"
    return trace.meta.imported.unmapped


# A browser test ends by checking that the page raised no script error on the way.
_PAGE_ERRORS: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()


def watch_page_errors(page: Page) -> None:
    """Keep the page's uncaught script errors from now on, for `page_errors`."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _PAGE_ERRORS[page] = errors


def page_errors(page: Page) -> list[str]:
    """The uncaught script errors of a page given to `watch_page_errors`, in the order they came."""
    return _PAGE_ERRORS[page]


# The demo server over Streamable HTTP, as its own process, behind a bearer token.
TOKEN = "test-token-9f8e7d6c5b4a"


DemoServer = DemoServerProcess  # `python -m flow demo-server --http` as a child process (flow.samples)


def start_demo_server(*args: str, env: dict[str, str] | None = None) -> DemoServer:
    full_env = {k: v for k, v in os.environ.items() if k != "MCP_BEARER_TOKEN"}
    full_env.update(env or {})
    try:
        return spawn_demo_server("--port", "0", *args, env=full_env)
    except RuntimeError as exc:
        raise AssertionError(str(exc)) from None


def stop_demo_server(server: DemoServer) -> None:
    server.stop()


def odd_payload_hops(payload: Any) -> Iterator[tuple[str, Any]]:
    """For one hop of each kind in the samples, the hop loaded with `payload` in place of its own (and, for a
    payload that is not an object, once more marked as cut by the recorder): yields (kind, hop) for each that
    loads; one that does not must be refused in one line naming the payload's path."""
    import json

    from flow.trace.files import TraceError, read_trace_bytes

    for kind, (data, i) in _one_hop_of_each_kind().items():
        for clipped in [None, "cut"] if not isinstance(payload, dict) else [None]:
            odd = json.loads(json.dumps(data))
            odd["hops"][i].update(payload=payload, **({"clipped": clipped} if clipped else {}))
            try:
                hop = read_trace_bytes(json.dumps(odd).encode(), name="odd.json").hops[i]
            except TraceError as exc:
                assert not clipped and str(exc).startswith(f"odd.json: hops[{i}].payload") and "\n" not in str(exc)
                continue
            yield kind, hop


def _one_hop_of_each_kind() -> dict[str, tuple[dict[str, Any], int]]:
    """kind -> (a sample's data, the index of a hop of that kind in it)."""
    import json

    found: dict[str, tuple[dict[str, Any], int]] = {}
    for path in sorted((ROOT / "sample_traces").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for i, hop in enumerate(data["hops"]):
            found.setdefault(hop["kind"], (data, i))
    return found
