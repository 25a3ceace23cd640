"""A timeout in the sequence diagram (issue 24): nothing came from the server or the model, so the hop is drawn as
the waiting side's own event on its lifeline, never as an arrow from the side that sent nothing."""

from __future__ import annotations

import re

import pytest

from flow.views.diagram import drawn_ends, rows, to_dot, to_mermaid
from flow.views.lesson import lesson_markdown
from helpers import run_flow_sync


@pytest.fixture(scope="module")
def hung():
    result = run_flow_sync(server_fault="hang", mcp_timeout_s=0.5)
    assert not result.ok
    return result.trace


def _timeout(trace):
    return next(h for h in trace.hops if h.kind == "error" and h.payload.get("error") == "timeout")


def test_an_mcp_timeout_is_drawn_on_the_mcp_clients_lifeline(hung):
    hop = _timeout(hung)
    assert drawn_ends(hop) == ("mcp_client", "mcp_client")
    # In the DOT: the arrow that stands for the hop is a loop (its last leg, p2 → p3), not a line between columns.
    i = next(k for k, row in enumerate(rows(hung)) if row.hops[0].seq == hop.seq)
    dot = to_dot(hung, window=None)
    edge = next(line for line in dot.splitlines() if f'id="hop-{hop.seq}"' in line or f"id=hop-{hop.seq} " in line)
    assert re.match(rf"\s*r{i}p2 -> r{i}p3\b", edge), edge
    assert f"r{i}a -> r{i}b" not in dot
    # In Mermaid: from the client to itself; no line starts at the server for it.
    mermaid = to_mermaid(hung)
    line = next(line for line in mermaid.splitlines() if re.search(r"-x\w+: 7 ", line))
    client = re.search(r"participant (\w+) as MCP Client", mermaid)
    server = re.search(r"participant (\w+) as MCP Server", mermaid)
    assert client and server
    assert line.strip().startswith(f"{client[1]}-x{client[1]}:"), line
    # The lesson script names it the same way.
    heading = next(
        line for line in lesson_markdown(hung, lang="en").splitlines() if line.startswith(f"### Hop {hop.seq} ")
    )
    assert heading.endswith("MCP Client → MCP Client"), heading


def test_a_model_deadline_is_drawn_on_the_apps_lifeline():
    result = run_flow_sync(model="mock-slow", timeout_s=0.3)
    hop = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert hop.payload["error"] == "deadline"
    assert drawn_ends(hop) == ("app", "app")


def test_an_answer_and_a_refusal_are_still_arrows_from_the_side_that_sent_them(hung):
    for hop in hung.hops:
        if hop.kind in ("mcp.response", "llm.response", "mcp.error"):
            assert drawn_ends(hop) == (hop.source, hop.target)
