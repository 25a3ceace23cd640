"""The step's focus: every path points into the JSON view the inspector shows, and each step opens at what it is about."""

from __future__ import annotations

import json
from typing import Any

import pytest

from flow.samples import SAMPLES
from flow.trace.files import load_trace
from flow.trace.model import Hop, Trace
from flow.views.focus import PAIR_PALETTE, focus, focus_json, view_and_focus
from flow.views.table import focus_view
from flow.wire.facts import PARSED_ARGUMENTS
from helpers import ROOT, odd_payload_hops

NAMES = [s.name for s in SAMPLES]
_MISSING = object()


def sample(name: str) -> Trace:
    return load_trace(ROOT / "sample_traces" / f"{name}.json")


def at(view: Any, path: list[Any] | tuple[Any, ...]) -> Any:
    """The value at `path`, or _MISSING: written here, not imported, so the test does not check the code with itself."""
    node = view
    for key in path:
        if isinstance(key, bool):
            return _MISSING
        if isinstance(node, dict) and isinstance(key, str) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            return _MISSING
    return node


def hops(trace: Trace, kind: str, step: int | None = None) -> list[Hop]:
    return [h for h in trace.hops if h.kind == kind and (step is None or h.step == step)]


def highlighted(hop: Hop) -> list[Any]:
    view = focus_view(hop)
    return [at(view, p) for p in focus(hop).highlight]


@pytest.mark.parametrize("name", NAMES)
def test_every_focus_path_points_at_something_in_the_view(name):
    for hop in sample(name).hops:
        view = focus_view(hop)
        f = focus(hop)
        assert f.highlight, f"hop {hop.seq} ({hop.kind}) has nothing in focus"
        for path in f.highlight + tuple(p for p, _ in f.colours):
            assert at(view, path) is not _MISSING, (hop.seq, hop.kind, path)
        for path in f.open:
            assert isinstance(at(view, path), (dict, list)), (hop.seq, hop.kind, path)
        # The JSON the viewer receives says the same, and survives a round trip through JSON.
        data = json.loads(json.dumps(focus_json(hop)))
        assert [tuple(p) for p in data["highlight"]] == list(f.highlight)
        assert [tuple(p) for p in data["open"]] == list(f.open)
        assert {c["colour"] for c in data["colours"]} <= set(data["pairs"].values())


def test_a_focus_follows_the_view_it_is_given():
    hop = hops(sample("beijing-mcp"), "llm.response", 4)[0]
    both = view_and_focus(hop)
    assert both["view"] == focus_view(hop) and both["focus"] == focus_json(hop)
    smaller = {k: v for k, v in focus_view(hop).items() if k != "tool_calls"}  # say a bounded view dropped a key
    f = focus(hop, smaller)
    assert f.highlight and all(at(smaller, p) is not _MISSING for p in f.highlight + f.open)


@pytest.mark.parametrize("name", ["beijing-mcp", "beijing-direct", "two-cities-parallel"])
def test_3_the_schema_beside_the_one_it_became(name):
    trace = sample(name)
    if trace.meta.mode == "direct":  # no translation: step 3 is the request with the hand-written tools
        assert not hops(trace, "translate.forward")
    else:
        hop = hops(trace, "translate.forward")[0]
        f, view = focus(hop), focus_view(hop)
        schema, params = (at(view, p) for p in f.highlight[:2])
        assert f.highlight[0][:2] == ("payload", "mcp") and f.highlight[0][-1] == "inputSchema"
        assert f.highlight[1][:2] == ("payload", "openai") and f.highlight[1][-1] == "parameters"
        assert set(schema["properties"]) == set(params["properties"])  # the same tool on both sides
        colour = dict(f.colours)
        assert colour[f.highlight[0]] == colour[f.highlight[1]]
        assert len(set(colour.values())) == len(hop.payload["mcp"])  # a colour per tool
    request = hops(trace, "llm.request", 3)[0]
    f, view = focus(request), focus_view(request)
    assert ("messages",) in f.highlight and ("payload", "body", "tools") in f.highlight
    assert ("payload", "body", "tools") in f.open
    assert len(at(view, ("payload", "body", "tools"))) == 4


@pytest.mark.parametrize("name", ["beijing-mcp", "beijing-direct", "two-cities-parallel", "streaming"])
def test_4_content_null_and_the_arguments_string_beside_its_parsed_object(name):
    trace = sample(name)
    decision = [h for h in trace.hops if h.step == 4 and h.kind in ("llm.response", "llm.assembled")][0]
    f, view = focus(decision), focus_view(decision)
    # The mock's stream sends content "" beside its tool calls, and the assembled message keeps it as streamed.
    assert ("content",) in f.highlight and view["content"] == ("" if decision.kind == "llm.assembled" else None)
    calls = decision.payload["message" if decision.kind == "llm.assembled" else "body"]
    calls = (calls if decision.kind == "llm.assembled" else calls["choices"][0]["message"])["tool_calls"]
    for k, call in enumerate(calls):
        raw, parsed = ("tool_calls", k, "function", "arguments"), ("tool_calls", k, "function", PARSED_ARGUMENTS)
        assert raw in f.highlight and parsed in f.highlight and parsed in f.open
        assert at(view, raw) == call["function"]["arguments"] and isinstance(at(view, raw), str)
        assert at(view, parsed) == json.loads(call["function"]["arguments"])
        keys = list(at(view, ("tool_calls", k, "function")))
        assert keys.index(PARSED_ARGUMENTS) == keys.index("arguments") + 1  # right beside the string
    # The wire payload below the view is untouched: no such field was ever sent.
    assert PARSED_ARGUMENTS not in json.dumps(decision.payload)


def test_4_arguments_that_are_not_json_say_so_beside_the_string():
    decision = hops(sample("bad-json-arguments"), "llm.response", 4)[0]
    view = focus_view(decision)
    assert view["tool_calls"][0]["function"][PARSED_ARGUMENTS].startswith("not JSON: ")
    refused = hops(sample("bad-json-arguments"), "error", 5)[0]
    f = focus(refused)
    assert ("error",) in f.highlight and ("tool_call", "function", "arguments") in f.highlight


@pytest.mark.parametrize("name", ["beijing-mcp", "beijing-direct", "two-cities-parallel"])
def test_5_6_the_name_and_the_arguments(name):
    trace = sample(name)
    for reverse in hops(trace, "translate.reverse"):
        name_, args = highlighted(reverse)
        assert name_ == reverse.payload["call_request"]["name"] and args == reverse.payload["call_request"]["arguments"]
        assert isinstance(args, dict) and args["city"] in ("北京", "上海")
    calls = hops(trace, "mcp.request", 6) or hops(trace, "tool.invoke", 6)
    assert len(calls) == len(hops(trace, "translate.reverse"))
    for call in calls:
        f = focus(call)
        if call.kind == "mcp.request":
            assert f.highlight == (("params", "name"), ("params", "arguments"))
        else:
            assert f.highlight == (("payload", "function"), ("payload", "kwargs"))
        assert highlighted(call)[0] == "get_weather" and set(highlighted(call)[1]) == {"city"}


@pytest.mark.parametrize("name", ["beijing-mcp", "beijing-direct", "two-cities-parallel", "tool-error"])
def test_7_the_content_and_is_error(name):
    trace = sample(name)
    expected = name == "tool-error"
    results = hops(trace, "mcp.response", 7) + hops(trace, "tool.result", 7)
    assert results
    for hop in results:
        f, view = focus(hop), focus_view(hop)
        flags = [p for p in f.highlight if p[-1] == "isError"]
        # A server's report of its function (tool → MCP server) holds what it returned, or raised.
        contents = [p for p in f.highlight if p[-1] in ("content", "tool_message_content", "return", "raised")]
        assert len(flags) == 1 and at(view, flags[0]) is expected
        assert len(contents) == 1 and at(view, contents[0])
        if contents[0][-1] == "content":  # MCP: the content blocks, opened so their text shows
            assert contents[0] in f.open and contents[0] + (0,) in f.open


@pytest.mark.parametrize("name", ["beijing-mcp", "beijing-direct", "two-cities-parallel", "two-rounds"])
def test_8_each_tool_message_has_the_colour_of_the_call_it_answers(name):
    trace = sample(name)
    for backfill in hops(trace, "llm.request", 8):
        f, view = focus(backfill), focus_view(backfill)
        messages = view["messages"]
        marked = [messages[p[1]] for p in f.highlight if len(p) == 2 and p[0] == "messages"]
        assistant = [m for m in marked if m["role"] == "assistant"]
        answers = [m for m in marked if m["role"] == "tool"]
        assert len(assistant) == 1 and assistant[0]["tool_calls"]
        ids = [c["id"] for c in assistant[0]["tool_calls"]]
        assert [m["tool_call_id"] for m in answers] == ids  # this round's answers, one per call
        assert messages[-len(ids) :] == answers  # ... at the end of the request
        pairs = dict(f.pairs)
        assert set(pairs) == set(ids) and len(set(pairs.values())) == len(ids)
        painted = {at(view, p): k for p, k in f.colours}  # each painted value is an id
        for call_id in ids:
            assert painted[call_id] == pairs[call_id]
        for path, k in f.colours:
            assert path[-1] in ("id", "tool_call_id") and at(view, path) in ids and pairs[at(view, path)] == k
        assert len(f.colours) == 2 * len(ids)  # the call's id and the answer's tool_call_id
    assert all(k < len(PAIR_PALETTE) for b in hops(trace, "llm.request", 8) for _, k in focus(b).pairs)


def test_8_the_colours_of_a_round_match_its_decision():
    trace = sample("two-cities-parallel")
    decision, backfill = hops(trace, "llm.response", 4)[0], hops(trace, "llm.request", 8)[0]
    assert dict(focus(decision).pairs) == dict(focus(backfill).pairs)
    assert len(focus(decision).pairs) == 2


@pytest.mark.parametrize("name", ["beijing-mcp", "beijing-direct", "two-cities-parallel", "streaming"])
def test_9_the_answer_text(name):
    trace = sample(name)
    answer = [h for h in trace.hops if h.step == 9 and h.kind in ("llm.response", "llm.assembled")][-1]
    assert focus(answer).highlight[0] == ("content",)
    assert highlighted(answer)[0] == trace.meta.answer


def test_errors_open_at_the_error_object():
    trace = sample("unknown-tool")
    frame = hops(trace, "mcp.error")[0]
    assert focus(frame).highlight[0] == ("error",) and highlighted(frame)[0]["code"] == -32602
    handed_on = [h for h in hops(trace, "tool.result") if "error" in h.payload][0]
    assert highlighted(handed_on)[0] == {"code": -32602, "message": "Unknown tool: get_current_weather"}


def test_stream_chunks_open_at_their_delta():
    chunks = hops(sample("streaming"), "llm.chunk")
    deltas = [c for c in chunks if c.payload["data"] != "[DONE]" and c.payload["data"]["choices"]]
    assert deltas
    for chunk in deltas:
        assert focus(chunk).highlight == (("payload", "data", "choices", 0, "delta"),)
        assert highlighted(chunk)[0] == chunk.payload["data"]["choices"][0]["delta"]


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "text",
        [],
        {},
        {"body": "x"},
        {"body": {"choices": [{"message": "x"}]}},
        {"body": {"choices": [{"message": {"tool_calls": [1, {"function": "f"}]}}]}},
        {"body": {"messages": [{"role": "tool"}, 3, {"role": "tool", "tool_call_id": 7}]}},
        {"mcp": [{"name": 1}], "openai": "x"},
        {"params": {"name": "n"}, "result": []},
        {"message": {"tool_calls": [{"function": {"arguments": "[" * 100000}}]}},
    ],
)
def test_a_focus_of_an_odd_payload_is_empty_or_valid_or_the_file_is_refused(payload):
    """A payload not of its kind's type never loads; for any that loads, or that the recorder cut, every path of the
    focus is in the view."""
    for kind, hop in odd_payload_hops(payload):
        view = focus_view(hop)
        f = focus(hop)
        for path in f.open + f.highlight + tuple(p for p, _ in f.colours):
            assert at(view, path) is not _MISSING, (kind, path)
