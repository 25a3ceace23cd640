"""A tools/call answered with error -32042 (URL_ELICITATION_REQUIRED, 2025-11-25: "the user must visit these pages
first"): the error's data (the pages) is kept in the trace, each page is offered to the user as a URL-mode question
(never opened by the host), and the model is told the address and the user's answer."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server import Server
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import URL_ELICITATION_REQUIRED, ElicitRequestURLParams

from flow.backends import model_transport
from flow.backends.scripted import load_script
from flow.capture.recorder import Recorder
from flow.engine.host import GivenAnswers, Host
from flow.engine.loop import run_flow
from flow.engine.model import ModelConfig
from flow.engine.options import HostCapability, RunOptions
from flow.servers.connect import open_session
from flow.servers.spec import ServerSpec
from flow.trace.model import Trace

SIGN_IN = "https://files.example/oauth/authorize?state=abc"


def _gated_server() -> Server[Any]:
    """A server whose tool `files` needs the user to sign in on a page of its own first."""
    tool = {"name": "files", "inputSchema": {"type": "object", "properties": {}}}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": [tool]})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        page = ElicitRequestURLParams(message="Sign in to your files", url=SIGN_IN, elicitation_id="sign-in-1")
        raise UrlElicitationRequiredError([page])

    return Server("gated", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


def _run(capabilities: tuple[HostCapability, ...], answers: dict[str, str]) -> Trace:
    script = '[{"call": "files", "arguments": {}}, {"answer": "ok"}]'

    async def go() -> Any:
        rec = Recorder()
        host = Host(rec, GivenAnswers(answers), [], 5.0)
        spec = ServerSpec(transport="memory", server=_gated_server())
        callbacks = host.callbacks(capabilities)
        async with open_session(spec, era="handshake", recorder=rec, callbacks=callbacks) as session:
            return await run_flow(
                "list my files",
                options=RunOptions(transport="memory", host_capabilities=capabilities),
                model=(model := ModelConfig.scripted(load_script(script))),
                model_transport=model_transport(model),
                recorder=rec,
                session=session,
                session_host=host,
            )

    result = anyio.run(go)
    assert result.ok, result.error
    return result.trace


def _refused(trace: Trace) -> Any:
    [hop] = [h for h in trace.hops if h.kind == "tool.result"]
    return hop


@pytest.mark.parametrize(("said", "action"), [("yes", "accept"), ("no", "decline")])
def test_the_page_is_offered_to_the_user_and_its_data_kept(said, action):
    trace = _run(("elicitation",), {"open": said})
    error = _refused(trace).payload["error"]
    assert error["code"] == URL_ELICITATION_REQUIRED
    assert error["data"]["elicitations"][0]["url"] == SIGN_IN
    asked, answered = [h for h in trace.hops if h.kind == "user.input"]
    assert (asked.payload["mode"], asked.payload["url"], asked.payload["message"]) == (
        "url",
        SIGN_IN,
        "Sign in to your files",
    )
    assert asked.payload["asked"] == {"method": "elicitation/create", "key": "sign-in-1"}
    assert answered.payload["action"] == action and "content" not in answered.payload
    told = [h for h in trace.hops if h.kind == "llm.request"][-1].payload["body"]["messages"][-1]["content"]
    assert SIGN_IN in told and f"answered {action}" in told and "-32042" in told


def test_a_host_without_elicitation_keeps_the_data_and_asks_nobody():
    trace = _run(("sampling",), {"open": "yes"})
    assert _refused(trace).payload["error"]["data"]["elicitations"][0]["url"] == SIGN_IN
    assert not [h for h in trace.hops if h.kind == "user.input"]
    told = [h for h in trace.hops if h.kind == "llm.request"][-1].payload["body"]["messages"][-1]["content"]
    assert "declared no elicitation" in told
