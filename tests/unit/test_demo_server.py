"""The demo MCP server as a protocol peer sees it (the official Inspector's checks, issue 16): the capabilities it
declares match what it sends, and bad requests get the spec's error codes."""

from __future__ import annotations

import warnings

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import INVALID_PARAMS, LoggingMessageNotificationParams

from flow.engine.translate import ArgumentError, parse_arguments
from flow.trace.summaries import arguments_text, frame_summary
from weather_demo.server import build_server


def _session(body):
    """Run BODY(client, logs) against a new demo server in memory, in the handshake era; logs collects the log
    messages the server sent."""
    logs: list[LoggingMessageNotificationParams] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def main():
        async with Client(build_server(), mode="legacy", logging_callback=on_log) as client:
            return await body(client, logs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)  # logging is deprecated from 2026-07-28 on
        return anyio.run(main)


def test_the_server_that_sends_log_messages_declares_logging_and_honours_set_level():
    async def body(client, logs):
        assert client.server_capabilities.logging is not None
        await client.call_tool("get_forecast", {"city": "上海", "days": 2})
        sent_at_debug = len(logs)
        await client.set_logging_level("error")
        await client.call_tool("get_forecast", {"city": "上海", "days": 2})
        return sent_at_debug, len(logs)

    sent_at_debug, sent_in_all = _session(body)
    assert sent_at_debug == 1  # the info message, at the default level
    assert sent_in_all == 1  # none more once the client asked for errors only


@pytest.mark.parametrize(
    ("name", "arguments", "words"),
    [
        ("weather_report", {}, "Missing required arguments for prompt weather_report: ['city']"),
        ("no_such_prompt", {"city": "北京"}, "Unknown prompt: no_such_prompt"),
    ],
)
def test_a_bad_prompts_get_is_invalid_params(name, arguments, words):
    async def body(client, logs):
        with pytest.raises(MCPError) as info:
            await client.get_prompt(name, arguments)
        return info.value

    error = _session(body)
    assert error.code == INVALID_PARAMS and words in error.message


def test_a_good_prompts_get_still_answers():
    async def body(client, logs):
        return await client.get_prompt("weather_report", {"city": "北京"})

    assert "北京" in _session(body).messages[0].content.text


def test_summaries_write_argument_values_as_json_does():
    assert arguments_text({"city": "北京", "days": 3, "strict": False, "tags": ["a"], "x": None}) == (
        'city=北京, days=3, strict=false, tags=["a"], x=null'
    )
    frame = {"method": "tools/call", "params": {"name": "t", "arguments": {"dry_run": True}}}
    assert frame_summary(frame, None) == "tools/call t(dry_run=true)"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"city": "北京', "Unterminated string starting at position 9"),
        ('{"city": "北京"', "Expecting ',' delimiter at position 13"),
    ],
)
def test_a_bad_json_message_names_its_position_once(text, words):
    with pytest.raises(ArgumentError) as info:
        parse_arguments("get_weather", text, None)
    assert words in str(info.value) and "at at" not in str(info.value)
