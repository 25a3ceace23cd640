"""A server's sampling request spends the operator's model, so a person sees each one and approves, edits or denies
it before anything is sent (the spec's "human in the loop"). A model that costs nothing (the offline mock) is approved
without asking, and the trace's settings say so; `--approve-sampling` approves a whole run, and the settings name it;
with nobody to ask, the request is denied with the spec's error -1, recorded where it happened."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp_types import CreateMessageRequestParams, ImageContent, SamplingMessage, TextContent

from flow.backends.mock import MockModelTransport
from flow.engine.host import MAX_SAMPLING_TOKENS, Answer, GivenAnswers, Question, edited_request, sampling_request
from flow.engine.loop import run_flow
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.servers.spec import ServerSpec
from flow.trace.model import Trace
from flow.views.outcome import run_outcome

WORDS = "用一句话说说北京未来三天的天气"  # forecast_in_words asks the host's model once
PAID = ModelConfig(backend="openai", model="mock", base_url="http://provider.invalid/v1", api_key="sk-test")


def _run(question: str = WORDS, *, model: ModelConfig = PAID, answerer: Any = None, **chosen: Any) -> Trace:
    """A run on the demo server that asks back, its model a provider (answered offline by the mock's transport)."""
    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory", **chosen)

    async def go() -> Any:
        return await run_flow(
            question, options=options, model=model, model_transport=MockModelTransport(), answerer=answerer
        )

    result = anyio.run(go)
    assert result.ok, result.error
    return result.trace


def _for_server(trace: Trace) -> list[Any]:
    return [h for h in trace.hops if h.kind == "llm.request" and "for_server" in h.payload]


def _sampling_asks(trace: Trace) -> list[Any]:
    return [h for h in trace.hops if h.kind == "user.input" and h.payload.get("mode") == "sampling"]


def test_the_mock_model_costs_nothing_so_it_is_approved_without_asking_and_the_settings_say_so():
    trace = _run(model=ModelConfig())
    assert len(_for_server(trace)) == 1 and not _sampling_asks(trace)
    assert trace.meta.settings["sampling_approval"] == "free"


def test_with_nobody_to_ask_a_paid_request_is_denied_with_the_specs_error_and_the_model_is_not_called():
    trace = _run()
    assert not _for_server(trace), "the model was called for the server without anyone's approval"
    assert trace.meta.settings["sampling_approval"] == "asked"
    asked = [h for h in trace.hops if h.kind == "user.input"]
    assert [h.direction for h in asked] == ["request", "response"]
    shown = asked[0].payload["sampling"]
    assert shown["maxTokens"] == 120 and "Beijing" in shown["messages"][0]["text"] and shown["systemPrompt"]
    assert asked[1].payload["action"] == "decline" and asked[1].payload["answered_by"] == "nobody"
    [refused] = [h for h in trace.hops if h.kind == "error" and h.source == "mcp_client"]
    assert "--approve-sampling" in refused.summary
    [frame] = [h for h in trace.hops if h.kind == "mcp.error" and h.source == "mcp_client"]
    assert frame.payload["error"]["code"] == -1
    assert frame.payload["error"]["message"].startswith("User rejected sampling request")
    told = run_outcome(trace).text["en"]
    assert "the host asked the user whether the server's sampling request may go to the model" in told
    assert "the user denied it, and no model was called" in told


def test_the_operator_approves_a_whole_run_and_the_trace_names_it():
    trace = _run(approve_sampling=True)
    assert len(_for_server(trace)) == 1 and not _sampling_asks(trace)
    assert trace.meta.settings["approve_sampling"] is True
    assert trace.meta.settings["sampling_approval"] == "operator"


def test_a_person_edits_the_text_and_max_tokens_and_what_is_sent_is_the_edit():
    seen: list[Question] = []

    async def person(question: Question) -> Answer:
        seen.append(question)
        return Answer("accept", {"texts": ["只说明天"], "max_tokens": 50}, answered_by="form")

    trace = _run(answerer=person)
    [question] = seen
    assert question.mode == "sampling" and question.sampling is not None
    assert question.sampling.max_tokens == 120 and question.sampling.messages[0].editable
    [sent] = _for_server(trace)
    body = sent.payload["body"]
    assert body["max_tokens"] == 50 and body["messages"][-1]["content"] == "只说明天"
    answered = [h for h in trace.hops if h.kind == "user.input"][-1]
    assert answered.payload["action"] == "accept" and answered.payload["answered_by"] == "form"
    assert answered.payload["content"] == {"message 1": "只说明天", "maxTokens": 50}


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_person_who_denies_sends_nothing_and_the_server_gets_the_error(action):
    async def person(question: Question) -> Answer:
        return Answer(action, answered_by="prompt")

    trace = _run(answerer=person)
    assert not _for_server(trace)
    [frame] = [h for h in trace.hops if h.kind == "mcp.error" and h.source == "mcp_client"]
    assert frame.payload["error"] == {"code": -1, "message": "User rejected sampling request"}


def test_sampling_with_tools_shows_the_tools_offered_and_keeps_a_tool_message_as_it_is():
    seen: list[Question] = []

    async def person(question: Question) -> Answer:
        seen.append(question)
        return Answer("accept", answered_by="form")

    _run("明天适合带全班去北京郊游吗？", answerer=person)
    assert [q.sampling.tools for q in seen if q.sampling] == [("get_forecast",), ("get_forecast",)]
    second = seen[1].sampling
    assert second is not None and not all(m.editable for m in second.messages)  # the tool's use and its result


def test_an_edit_keeps_within_the_hosts_bounds_and_never_rewrites_a_message_that_is_not_text():
    params = CreateMessageRequestParams(
        messages=[
            SamplingMessage(role="user", content=TextContent(type="text", text="hello")),
            SamplingMessage(role="user", content=ImageContent(type="image", data="AA==", mime_type="image/png")),
        ],
        max_tokens=100,
    )
    shown = sampling_request(params)
    assert [m.editable for m in shown.messages] == [True, False]
    edited = edited_request(params, {"texts": ["bye", "not an image"], "max_tokens": 10**9})
    assert edited.messages[0].content == TextContent(type="text", text="bye")
    assert edited.messages[1] == params.messages[1] and edited.max_tokens == MAX_SAMPLING_TOKENS
    assert edited_request(params, {"max_tokens": True}).max_tokens == 100  # a yes is no number


def test_the_answers_a_run_was_started_with_deny_sampling_rather_than_guess():
    question = Question("sampling/createMessage", "sampling", {})
    answered = anyio.run(GivenAnswers({"city": "北京"}).__call__, question)
    assert (answered.action, answered.answered_by) == ("decline", "nobody")


def test_the_terminal_shows_the_request_and_an_edit_goes_with_the_approval(monkeypatch, capsys):
    from flow.cli.asking import TerminalAnswerer

    params = CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text="Forecast data"))],
        system_prompt="Say it in one sentence.",
        max_tokens=120,
    )
    question = Question("sampling/createMessage", "sampling", {}, sampling=sampling_request(params))
    said = iter(["e", "Only tomorrow", "60"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(said))
    answer = anyio.run(TerminalAnswerer(GivenAnswers({"city": "北京"})).__call__, question)
    assert (answer.action, answer.answered_by) == ("accept", "prompt")
    assert answer.content == {"texts": ["Only tomorrow"], "max_tokens": 60}
    shown = capsys.readouterr().err
    assert "Forecast data" in shown and "Say it in one sentence." in shown and "maxTokens: 120" in shown
    monkeypatch.setattr("builtins.input", lambda prompt="": "")
    assert anyio.run(TerminalAnswerer().__call__, question).action == "decline"  # Enter alone denies


def test_approve_sampling_from_the_command_line_is_in_the_traces_settings(tmp_path):
    from flow.trace.files import load_trace
    from helpers import flow_cli

    out = tmp_path / "run.json"
    proc = flow_cli("run", "--asks", "--approve-sampling", "-q", WORDS, "--out", str(out), timeout=60)
    assert proc.returncode == 0, proc.stderr
    settings = load_trace(out).meta.settings
    assert settings["approve_sampling"] is True and settings["sampling_approval"] == "free"


def test_with_no_terminal_the_command_line_denies_and_names_the_flag(tmp_path):
    """A provider (the mock model over HTTP) asked from a pipe: the request is denied, the run goes on, and one
    line says which flag approves."""
    import threading

    from flow.backends.mock_http import make_server
    from flow.trace.files import load_trace
    from helpers import flow_cli

    server = make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        out = tmp_path / "run.json"
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        proc = flow_cli(
            "run", "--asks", "--model", "mock", "--base-url", base, "-q", WORDS, "--out", str(out),
            env={"OPENAI_API_KEY": "sk-test"}, timeout=60,
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert proc.returncode == 0, proc.stderr
    assert "note: a server's sampling request was denied" in proc.stderr and "--approve-sampling" in proc.stderr
    trace = load_trace(out)
    assert trace.meta.settings["sampling_approval"] == "asked" and not _for_server(trace)


def _replayed(trace: Trace) -> Trace:
    from flow.backends.replay import replay

    result = replay(trace)
    assert result.ok, result.error
    assert not [h for h in result.trace.hops if h.kind == "replay.divergence"], "the replay went another way"
    return result.trace


def test_a_replay_denies_what_the_recordings_user_denied_and_sends_what_they_edited():
    """The replay's model costs nothing, yet each sampling request is answered as it was: a denial is denied again
    (the model not called, the same reason to the server), an edit is sent edited."""
    denied = _replayed(_run())
    assert not _for_server(denied)
    assert [h.payload.get("action") for h in _sampling_asks(denied)] == [None, "decline"]

    async def person(question: Question) -> Answer:
        return Answer("accept", {"texts": ["只说明天"], "max_tokens": 50}, answered_by="form")

    edited = _replayed(_run(answerer=person))
    [sent] = _for_server(edited)
    assert sent.payload["body"]["max_tokens"] == 50 and sent.payload["body"]["messages"][-1]["content"] == "只说明天"
