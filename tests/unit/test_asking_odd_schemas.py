"""A form's `requestedSchema` is any object as far as the SDK goes; the spec allows a flat object of primitive
fields. Each odd schema is answered (where a reading is plain: no type is text, choices that are numbers) or refused
in one line, recorded as an error hop and sent to the server as -32602, never a crash in an answerer."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from flow.backends import model_transport
from flow.backends.scripted import load_script
from flow.capture.recorder import Recorder
from flow.cli.asking import TerminalAnswerer
from flow.engine.host import MAX_CHOICES, MAX_FIELDS, GivenAnswers, Host, Question, form_fields, form_values
from flow.engine.loop import run_flow
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec

ODD: dict[str, tuple[dict[str, Any], str]] = {
    "properties a list": ({"type": "object", "properties": ["city"]}, "properties are not an object"),
    "a field not a schema": ({"properties": {"city": "string"}}, "'city' is not a schema"),
    "required a string": ({"properties": {"city": {"type": "string"}}, "required": "city"}, "required is not a list"),
    "required of lists": ({"properties": {}, "required": [["city"]]}, "required is not a list"),
    "a nested object": (
        {"type": "object", "properties": {"place": {"type": "object", "properties": {"city": {"type": "string"}}}}},
        "'place' is of type object",
    ),
    "a type list": ({"properties": {"n": {"type": ["string", "null"]}}}, "'n' is of type"),
    "an enum of objects": (
        {"type": "object", "properties": {"c": {"type": "string", "enum": [{"a": 1}, {"b": 2}]}}},
        "not a text, a number or yes/no",
    ),
    "a oneOf const of lists": (
        {"properties": {"c": {"oneOf": [{"const": [1], "title": "one"}]}}},
        "not a text, a number or yes/no",
    ),
    "an empty enum": ({"properties": {"c": {"type": "string", "enum": []}}}, "offers no choice"),
    "a huge enum": (
        {"properties": {"c": {"type": "string", "enum": [str(i) for i in range(MAX_CHOICES + 1)]}}},
        f"offers {MAX_CHOICES + 1} choices",
    ),
    "too many fields": (
        {"properties": {f"f{i}": {"type": "string"} for i in range(MAX_FIELDS + 1)}},
        f"{MAX_FIELDS + 1} fields",
    ),
    "a list of free text": ({"properties": {"tags": {"type": "array", "items": {"type": "string"}}}}, "not of choices"),
    "a range upside down": (
        {"type": "object", "properties": {"n": {"type": "integer", "minimum": 9, "maximum": 1}}},
        "from 9 to 1",
    ),
}


@pytest.mark.parametrize("name", list(ODD))
def test_each_odd_schema_is_refused_in_one_line_and_no_answerer_crashes(name, monkeypatch):
    schema, said = ODD[name]
    reason = form_fields(schema)
    assert isinstance(reason, str) and said in reason and "\n" not in reason
    question = Question("Which city?", "form", schema)
    assert anyio.run(GivenAnswers({"city": "北京"}).__call__, question).action == "cancel"
    assert form_values(schema, {"city": "北京"})[0] == {}
    monkeypatch.setattr("builtins.input", lambda prompt="": pytest.fail("the terminal asked a form no one can fill"))
    assert anyio.run(TerminalAnswerer().__call__, question).action == "decline"


def test_odd_but_plain_schemas_are_answered():
    no_type = {"properties": {"city": {}}, "required": ["city", "not a field"]}
    assert form_values(no_type, {"city": "北京"}) == ({"city": "北京"}, [])
    numbers = {"properties": {"days": {"enum": [1, 2, 3]}}}
    assert form_values(numbers, {"days": "2"}) == ({"days": 2}, [])
    assert form_fields({"type": "object"}) == []  # a form of no fields: an accept with nothing in it


def _asking_server(schema: dict[str, Any]) -> Server[Any]:
    """A server whose tool `where` asks the user with `schema` (2025-11-25), and says what came back."""
    tool = {"name": "where", "inputSchema": {"type": "object", "properties": {}}}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": [tool]})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            said = str((await ctx.session.elicit_form("Where are you?", schema)).action)
        except MCPError as exc:
            said = f"refused {exc.code}: {exc.message}"
        return types.CallToolResult.model_validate({"content": [{"type": "text", "text": said}]})

    return Server("odd", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


# The SDK's client refuses most odd forms itself (-32602, "Invalid request parameters"); these it lets through.
PASSED_BY_THE_SDK = ["a nested object", "an enum of objects", "a range upside down"]


@pytest.mark.parametrize("name", PASSED_BY_THE_SDK)
def test_a_server_sending_an_odd_form_gets_an_error_and_the_trace_has_the_hop(name):
    schema, said = ODD[name]
    script = '[{"call": "where", "arguments": {}}, {"answer": "ok"}]'

    async def go() -> Any:
        rec = Recorder()
        host = Host(rec, GivenAnswers({}), [], 5.0)
        spec = ServerSpec(transport="memory", server=_asking_server(schema))
        callbacks = host.callbacks(("elicitation",))
        async with open_session(spec, era="handshake", recorder=rec, callbacks=callbacks) as session:
            return await run_flow(
                "where?",
                options=RunOptions(transport="memory", host_capabilities=("elicitation",)),
                model=(model := ModelConfig.scripted(load_script(script))),
                model_transport=model_transport(model),
                recorder=rec,
                session=session,
                session_host=host,
            )

    result = anyio.run(go)
    assert result.ok, result.error
    hops = result.trace.hops
    assert not [h for h in hops if h.kind == "user.input"], "a form no one can fill was put to the user"
    [refused] = [h for h in hops if h.kind == "error" and h.source == "mcp_client"]
    assert refused.summary.startswith("the server's form cannot be filled in: field ") and said in refused.summary
    [frame] = [h for h in hops if h.kind == "mcp.error" and h.source == "mcp_client"]
    assert frame.payload["error"]["code"] == -32602
    assert "refused -32602" in str([h.payload for h in hops if h.kind == "tool.result"])
