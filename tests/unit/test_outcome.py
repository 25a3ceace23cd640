"""A run's one-line outcome (flow.views.outcome): over every sample and over runs that fail in each way the engine
knows (broken or wrong arguments, a tool that is not there, a tool that raises, an endpoint that refuses or is slow,
a server that dies or hangs, the round limit, an empty answer), every clause is checked against the hop it names,
the line names only hops the trace has, and the jump goes where the first thing went wrong."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest

import flow
from flow import Outcome, Trace, run_outcome
from flow.trace.model import Hop, as_dict, as_list
from helpers import ROOT, run_flow_sync

SAMPLES = sorted(p.stem for p in (ROOT / "sample_traces").glob("*.json"))
REPLIES = ("llm.response", "llm.assembled")


def _sample(name: str) -> Trace:
    return flow.load_trace(ROOT / "sample_traces" / f"{name}.json")


def _message(hop: Hop) -> dict[str, Any]:
    payload = as_dict(hop.payload)
    if hop.kind == "llm.assembled":
        return as_dict(payload.get("message"))
    choices = as_list(as_dict(payload.get("body")).get("choices"))
    return as_dict(as_dict(choices[0]).get("message")) if choices else {}


def _calls(hop: Hop) -> list[dict[str, Any]]:
    """The calls a reply asks for, as {name, arguments}: Chat's tool_calls, Responses' function_call output items,
    Messages' tool_use content blocks (in a response body, or in the turn the app assembled)."""
    payload = as_dict(hop.payload)
    body = as_dict(payload.get("message") if hop.kind == "llm.assembled" else payload.get("body"))
    items = [as_dict(i) for i in as_list(body.get("output")) + as_list(body.get("content"))]
    return [as_dict(as_dict(c).get("function")) for c in as_list(_message(hop).get("tool_calls"))] + [
        {"name": i.get("name"), "arguments": i.get("arguments", i.get("input"))}
        for i in items
        if i.get("type") in ("function_call", "tool_use")
    ]


def _offered(trace: Trace) -> set[str]:
    return {
        as_dict(t).get("function", t).get("name")  # nested in Chat Completions, flat in Responses and Messages
        for h in trace.hops
        if h.kind == "llm.request"
        for t in as_list(as_dict(as_dict(h.payload).get("body")).get("tools"))
    }


def _check_hosted(trace: Trace, key: str, first: Hop | None, values: dict[str, Any]) -> None:
    """Hosted MCP's clauses: the provider's report of a call, the frame seen of it, an approval asked and answered."""
    p = as_dict(first.payload) if first else {}
    if key in ("hosted_called", "hosted_error", "hosted_mismatch", "hosted_reported"):
        assert first is not None and first.kind == "mcp.reported"
        assert key == "hosted_mismatch" or p.get("method") == "tools/call"
    if key == "hosted_called":
        assert first is not None and first.direction == "request"
        assert values["calls"].startswith(f"{p.get('name')}(")
    elif key == "hosted_error":
        assert p.get("is_error") is True and values["call"].startswith(f"{p.get('name')}(")
    elif key in ("hosted_called_seen", "hosted_error_seen"):  # at the frame a recorder saw, which a report names
        assert first is not None and first.kind in ("mcp.request", "mcp.response", "mcp.error")
        assert any(as_dict(h.payload).get("observed") == first.seq for h in trace.hops if h.kind == "mcp.reported")
    elif key == "hosted_reported":
        assert isinstance(p.get("observed"), int)
    elif key == "hosted_mismatch":
        assert ", ".join(p["mismatch"]) == values["what"]
    elif key == "hosted_unseen":
        assert first is None
    elif key == "hosted_asked":
        items = as_list(as_dict(p.get("body")).get("output"))
        assert first is not None and first.kind in REPLIES
        assert any(as_dict(i).get("type") == "mcp_approval_request" for i in items)
    else:  # the app's answer to an approval request, and whether anything was called after a no
        items = [as_dict(i) for i in as_list(as_dict(p.get("body")).get("input"))]
        answers = [i.get("approve") for i in items if i.get("type") == "mcp_approval_response"]
        assert first is not None and first.kind == "llm.request"
        assert answers and all(a is (key == "hosted_approved") for a in answers), key
        if key == "hosted_denied_none":
            assert not any(
                h.seq > first.seq and as_dict(h.payload).get("method") == "tools/call" and h.direction == "request"
                for h in trace.hops
            )


def _check(trace: Trace, outcome: Outcome) -> None:
    """Each clause's claim, read again from the hop it names."""
    at = {h.seq: h for h in trace.hops}
    for c in outcome.clauses:
        values = dict(c.values)
        hops = [at[s] for s in c.seqs]  # every hop a clause names is in the trace
        first = hops[0] if hops else None
        key = c.key
        if key in ("called", "retried"):
            assert first is not None and first.kind in REPLIES and _calls(first), c
        elif key == "kept_asking":
            assert int(str(values["n"])) == len(hops) and all(h.kind in REPLIES and _calls(h) for h in hops)
        elif key in ("not_json", "not_object", "off_schema"):
            assert first is not None
            args = [f.get("arguments") for f in _calls(first) if f.get("name") == values["name"]]
            parsed: Any = args[0]
            if isinstance(args[0], str):
                try:
                    parsed = json.loads(args[0])
                except ValueError:
                    parsed = ValueError
            expected = {"not_json": parsed is ValueError, "not_object": not isinstance(parsed, dict | type)}
            assert expected.get(key, isinstance(parsed, dict)), c
        elif key == "not_offered":
            assert first is not None and values["name"] in {f.get("name") for f in _calls(first)}
            assert values["name"] not in _offered(trace)
        elif key in ("refused", "refused_kept"):
            assert first is not None and first.kind == "error" and first.step == 5
            later = [h for h in trace.hops if h.kind == "llm.request" and h.seq > first.seq]
            backfilled = any(
                as_dict(m).get("role") == "tool" and as_dict(m).get("tool_call_id") == first.tool_call_id
                for h in later
                for m in as_list(as_dict(as_dict(h.payload).get("body")).get("messages"))
            )
            assert backfilled == (key == "refused"), c
        elif key.startswith(("ran_server", "ran_app")):
            side = "mcp_server" if key.startswith("ran_server") else "app"
            assert hops and all(h.kind == "tool.invoke" and h.source == side for h in hops), c
        elif key.startswith("answered_call"):
            assert hops and all(h.kind == "mcp.response" for h in hops), c
        elif key == "rpc_error":
            assert first is not None and first.kind == "mcp.error"
            assert str(as_dict(as_dict(first.payload).get("error")).get("code")) == values["code"]
        elif key == "app_error":
            assert first is not None and first.kind == "tool.result" and first.direction == "error"
        elif key == "raised_server":
            assert first is not None and as_dict(as_dict(first.payload).get("raised")).get("type") == values["error"]
            assert any(
                h.kind == "mcp.response" and h.seq > first.seq and "isError: true" in h.summary for h in trace.hops
            )
        elif key == "raised_app":
            payload = as_dict(first.payload) if first else {}
            assert payload.get("isError") is True and f"Error: {values['error']}" in payload["tool_message_content"]
        elif key == "error_result":
            assert first is not None and first.kind == "tool.result" and first.summary.startswith("isError")
        elif key in ("answered", "answered_after_error", "answered_no_tool", "answered_empty"):
            assert first is not None and first.kind in REPLIES and not _calls(first)
            assert any(h.kind == "app.answer" for h in trace.hops) and trace.meta.outcome == "ok"
            assert (key == "answered_empty") == (not (trace.meta.answer or "").strip())
            if key == "answered_no_tool":
                assert not any(_calls(h) for h in trace.hops if h.kind in REPLIES)
        elif key == "stopped":
            assert first is not None and first.kind in ("error", "llm.error") and trace.meta.outcome == "error"
            assert all(h.kind in ("error", "llm.error") for h in trace.hops if h.seq >= first.seq)
        elif key == "no_answer":
            assert not any(h.kind == "app.answer" for h in trace.hops)
        elif key.startswith("hosted_"):
            _check_hosted(trace, key, first, values)
        elif key.startswith(("asked_", "user_", "sampled_")):
            _check_asked(key, first, values)
        else:
            raise AssertionError(f"a clause this test does not check: {key}")
    # The line names the clauses' hops and no others, in both languages, on one line.
    seqs = {s for c in outcome.clauses for s in c.seqs}
    for lang, text in outcome.text.items():
        assert "\n" not in text and text.strip() == text and text.endswith("。" if lang == "zh" else ".")
        named = {int(n) for found in re.findall(r"(?:hops?|第) ([\d, 、]+)", text) for n in re.findall(r"\d+", found)}
        assert named == seqs, (lang, text)
    assert outcome.seq in at


def _check_asked(key: str, hop: Hop | None, values: Mapping[str, object]) -> None:
    """What a server asked the host, and the user's answer, each at the hop that shows it."""
    assert hop is not None
    p = hop.payload or {}
    if key == "asked_user":
        assert (hop.kind, hop.direction, hop.target) == ("user.input", "request", "user")
    elif key.startswith("user_"):
        assert (hop.kind, hop.direction, hop.source) == ("user.input", "response", "user")
        plain = "_plain" if p["action"] == "accept" and not p.get("content") else ""
        assert key == ("user_timed_out" if "timed_out" in p else f"user_{p['action']}{plain}")
        if key == "user_accept":
            assert values["values"] == ", ".join(f"{k}={v}" for k, v in p["content"].items())
    elif key in ("asked_model", "asked_model_again"):
        assert hop.kind == "llm.request" and "for_server" in p and hop.source == "mcp_client"
    elif key == "sampled_calls":  # the host's model's reply for the server, naming the server's own tools
        assert hop.kind == "llm.response" and "for_server" in p and hop.target == "mcp_client"
        named = [c["function"]["name"] for c in p["body"]["choices"][0]["message"]["tool_calls"]]
        assert str(values["calls"]).split("(")[0] == named[0]
    elif key == "asked_roots":
        asked = (p.get("result") or {}).get("inputRequests") or {}
        assert p.get("method") == "roots/list" or any(r.get("method") == "roots/list" for r in asked.values())
    else:
        raise AssertionError(f"a clause this test does not check: {key}")


@pytest.mark.parametrize("name", SAMPLES)
def test_every_samples_outcome_is_true_of_its_hops(name):
    trace = _sample(name)
    outcome = run_outcome(trace)
    _check(trace, outcome)
    problem = next((c for c in outcome.clauses if c.problem), None)
    if problem is None:  # a clean run opens at the model's first decision, or its answer if it made none
        assert outcome.verdict == "clean" and outcome.seq == outcome.clauses[0].seqs[0]
    else:
        assert outcome.seq == problem.seqs[0]


@pytest.mark.parametrize(
    ("name", "keys", "seq_kind"),
    [
        ("bad-json-arguments", ["not_json", "refused", "retried", "ran_server", "answered"], "llm.response"),
        ("unknown-tool", ["not_offered", "rpc_error", "retried", "ran_server", "answered"], "llm.response"),
        ("tool-error", ["called", "raised_server", "answered_after_error"], "tool.result"),
        ("round-limit", ["kept_asking", "stopped"], "error"),
        ("beijing-mcp", ["called", "ran_server", "answered"], "llm.response"),
        ("beijing-direct", ["called", "ran_app", "answered"], "llm.response"),
        ("two-cities-parallel", ["called", "ran_server_many", "answered"], "llm.response"),
        ("tool-choice-none", ["answered_no_tool"], "llm.response"),
    ],
)
def test_a_samples_outcome_says_what_happened_and_points_where(name, keys, seq_kind):
    trace = _sample(name)
    outcome = run_outcome(trace)
    assert [c.key for c in outcome.clauses] == keys
    assert next(h for h in trace.hops if h.seq == outcome.seq).kind == seq_kind


def test_the_broken_arguments_line_reads_as_the_story_in_both_languages():
    outcome = run_outcome(_sample("bad-json-arguments"))
    assert outcome.verdict == "answered_after_problem" and outcome.seq == 11
    assert outcome.text["en"].startswith(
        "The model sent arguments for get_weather that are not valid JSON (hop 11); the app called nothing and sent "
        "the error back to the model as the tool message (hop 12); the model tried again with get_weather(city=北京)"
    )
    assert outcome.text["zh"].startswith("模型给 get_weather 的参数不是合法的 JSON（第 11 跳）；应用没有调用工具")


FAILURES: dict[str, tuple[dict[str, Any], list[str], str]] = {
    # name: (run arguments, clause keys, verdict)
    "wrong argument names": (
        {"model": "mock-bad-args"},
        ["called", "error_result", "retried", "ran_server", "answered"],
        "answered_after_problem",
    ),
    "endpoint refuses": ({"model": "mock-error-401"}, ["stopped"], "stopped"),
    "endpoint fails": ({"model": "mock-error-500"}, ["stopped"], "stopped"),
    "endpoint too slow": ({"model": "mock-slow", "timeout_s": 0.3}, ["stopped"], "stopped"),
    "empty answer": ({"model": "mock-empty"}, ["called", "ran_server", "answered_empty"], "answered_after_problem"),
    "server dies": ({"server_fault": "die"}, ["called", "stopped"], "stopped"),
    "server hangs": ({"server_fault": "hang", "mcp_timeout_s": 0.3}, ["called", "stopped"], "stopped"),
    "direct: no such function": (
        {"mode": "direct", "model": "mock-wrong-tool"},
        ["not_offered", "app_error", "retried", "ran_app", "answered"],
        "answered_after_problem",
    ),
    "direct: broken arguments": (
        {"mode": "direct", "model": "mock-bad-json"},
        ["not_json", "refused", "retried", "ran_app", "answered"],
        "answered_after_problem",
    ),
    "direct: unknown city": (
        {"mode": "direct", "question": "火星今天天气怎么样？"},
        ["called", "raised_app", "answered_after_error"],
        "answered_after_problem",
    ),
    "round limit": ({"model": "mock-loop", "max_rounds": 2}, ["kept_asking", "stopped"], "stopped"),
}


@pytest.mark.parametrize("case", list(FAILURES))
def test_a_failed_runs_outcome_is_true_of_its_hops(case):
    arguments, keys, verdict = FAILURES[case]
    arguments = dict(arguments)
    question = arguments.pop("question", "北京今天天气怎么样？")
    trace = run_flow_sync(question, **arguments).trace
    outcome = run_outcome(trace)
    _check(trace, outcome)
    assert [c.key for c in outcome.clauses] == keys and outcome.verdict == verdict
    problem = next(c for c in outcome.clauses if c.problem)
    assert outcome.seq == problem.seqs[0]
    if verdict == "stopped":  # the run's own error line ends the summary, in each language
        assert trace.meta.error and trace.meta.error.removeprefix("stopped: ").rstrip(".") in outcome.text["en"]
        assert trace.meta.error_zh and trace.meta.error_zh.removeprefix("已停止：").rstrip("。.") in outcome.text["zh"]


def test_a_trace_with_no_hops_or_no_answer_is_said_so():
    empty = run_outcome(Trace(meta=_sample("beijing-mcp").meta, hops=[]))
    assert empty.verdict == "no_answer" and empty.seq == 0 and empty.text["en"] == "this trace holds no hops"
    trace = _sample("beijing-mcp")
    cut = Trace(meta=trace.meta, hops=trace.hops[:12])  # a recording that ends before the answer
    outcome = run_outcome(cut)
    _check(cut, outcome)
    assert outcome.verdict == "no_answer" and outcome.clauses[-1].key == "no_answer"
