"""What the server says while it works: progress notifications grouped by their token, log messages."""

from __future__ import annotations

import pytest

from flow.views.diagram import rows, to_dot
from flow.views.table import hop_rows
from helpers import run_flow_sync

FORECAST = "上海未来三天天气预报"


def _call_and_notifications(trace):
    call = next(h for h in trace.hops if h.kind == "mcp.request" and h.payload.get("method") == "tools/call")
    progress = [
        h for h in trace.hops if h.kind == "mcp.notification" and h.payload["method"] == "notifications/progress"
    ]
    return call, progress


@pytest.mark.parametrize("transport", ["memory", "stdio"])
@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_progress_notifications_are_tied_to_their_request_by_token(era, transport):
    result = run_flow_sync(FORECAST, era=era, transport=transport)
    assert result.ok, result.error
    call, progress = _call_and_notifications(result.trace)
    token = call.payload["params"]["_meta"]["progressToken"]
    assert [h.payload["params"]["progress"] for h in progress] == [1, 2, 3]
    assert all(h.payload["params"]["progressToken"] == token for h in progress)
    assert all(h.progress_of == call.jsonrpc_id and h.step == call.step == 6 for h in progress)
    response = next(h for h in result.trace.hops if h.kind == "mcp.response" and h.jsonrpc_id == call.jsonrpc_id)
    assert call.seq < progress[0].seq and progress[-1].seq < response.seq
    assert progress[-1].summary == "progress 3/3 of tools/call get_forecast: day 3 of 3"


def test_a_log_message_is_recorded_in_the_step_it_arrived_in():
    result = run_flow_sync(FORECAST, era="handshake")
    log = next(
        h for h in result.trace.hops if h.kind == "mcp.notification" and h.payload["method"] == "notifications/message"
    )
    assert log.step == 6 and log.summary == "log info: forecast for Shanghai: 3 days"


def test_the_diagram_draws_one_requests_progress_as_one_arrow_and_the_table_keeps_each():
    trace = run_flow_sync(FORECAST).trace
    _, progress = _call_and_notifications(trace)
    grouped = [r for r in rows(trace) if r.first.seq == progress[0].seq]
    assert len(grouped) == 1 and [h.seq for h in grouped[0].hops] == [h.seq for h in progress]
    assert grouped[0].label.startswith("progress ×3") and grouped[0].number == "6c–6e"
    assert f"hop-{progress[0].seq}-{progress[-1].seq}" in to_dot(trace)
    assert sum(1 for r in hop_rows(trace) if "progress" in str(r)) == 3


def test_direct_mode_has_no_channel_for_progress():
    result = run_flow_sync(FORECAST, mode="direct")
    assert result.ok and result.answer is not None and "上海未来 3 天" in result.answer

    assert not any(h.kind == "mcp.notification" for h in result.trace.hops)
