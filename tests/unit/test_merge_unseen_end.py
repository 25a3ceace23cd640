"""A plain `merge` sees the wire, not the app: an app that crashed after the model's last reply looks the same as one
that showed the answer. Without the app's exit code (which `record` has) the trace draws no answer shown to the
user, its outcome is unknown, and its story says what was not recorded; with one, the answer or the failure."""

from __future__ import annotations

import json

from flow.interop.merge import merge_recordings
from flow.views.outcome import run_outcome

HEADER = {"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"}}
ASK = {"model": "m", "messages": [{"role": "user", "content": "天气？"}]}
ANSWER = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "晴天"}}]}


def _recording() -> str:
    """The model proxy's recording of one request and its answer (`flow.proxy.http.ModelRecording`)."""
    lines = [
        {**HEADER, "timestamp": 100.0},
        {"exchange": 1, "event": "request", "timestamp": 100.1, "method": "POST", "path": "/v1/chat/completions"}
        | {"headers": {"content-type": "application/json"}, "body": ASK},
        {"exchange": 1, "event": "response", "timestamp": 100.5, "status": 200}
        | {"headers": {"content-type": "application/json"}},
        {"exchange": 1, "event": "body", "timestamp": 100.6, "body": ANSWER},
        {"exchange": 1, "event": "end", "timestamp": 100.6},
    ]
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines)


def test_a_plain_merge_draws_no_answer_shown_and_says_the_end_is_unknown() -> None:
    trace = merge_recordings([("model.jsonl", _recording())])
    assert not any(h.kind == "app.answer" for h in trace.hops), [h.kind for h in trace.hops]
    assert trace.meta.outcome == "unknown" and trace.meta.answer == "晴天"  # the model's reply, as the wire has it
    told = run_outcome(trace)
    assert told.verdict == "unknown"
    assert "whether the app showed the user an answer, and how it ended, is not recorded" in told.text["en"]
    assert "没有退出码" in told.text["zh"]
    notes = trace.meta.imported.unmapped if trace.meta.imported else []
    assert any("no exit code (a plain merge)" in n for n in notes)


def test_with_the_exit_code_the_answer_or_the_failure() -> None:
    ended = merge_recordings([("model.jsonl", _recording())], app_exit_code=0)
    assert ended.meta.outcome == "ok" and ended.hops[-1].kind == "app.answer"
    crashed = merge_recordings([("model.jsonl", _recording())], app_exit_code=1)
    assert crashed.meta.outcome == "error" and crashed.hops[-1].kind == "error"
