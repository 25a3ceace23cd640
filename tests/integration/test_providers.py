"""An OpenAI-compatible endpoint over a real socket: the mock model served by `flow.mock_server`.

Every provider quirk and error status the app must survive is exercised through the real
openai SDK talking HTTP, the same path a real provider takes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from flow import ModelConfig, RunOptions, run
from flow.backends.mock_http import make_server
from flow.providers import notes_before_sending
from flow.text.errors import PROVIDER_NOTES
from flow.views.table import summary_line
from helpers import flow_cli

KEY = "sk-local-test-key-7f3a9c"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = make_server(0, api_key=KEY)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def over_http(
    endpoint: str,
    question: str = "北京和上海今天天气怎么样？",
    *,
    model: str = "mock",
    key: str = KEY,
    timeout_s: float = 20.0,
    **options,
):
    options.setdefault("transport", "memory")
    config = ModelConfig(backend="openai", model=model, base_url=endpoint, api_key=key, timeout_s=timeout_s)
    return run(question, options=RunOptions(**options), model=config)


@pytest.mark.parametrize("stream", [False, True])
def test_a_run_over_http_answers_and_keeps_the_key_out_of_the_trace(endpoint, stream):
    result = over_http(endpoint, stream=stream)
    assert result.ok, result.error
    assert result.answer is not None and "北京" in result.answer and "上海" in result.answer
    text = result.trace.to_json()
    assert KEY not in text
    request = next(h for h in result.trace.hops if h.kind == "llm.request")
    assert request.payload["url"] == endpoint + "/chat/completions"
    assert request.payload["headers"]["authorization"] != f"Bearer {KEY}"
    if stream:
        chunks = [h for h in result.trace.hops if h.kind == "llm.chunk"]
        assembled = [h for h in result.trace.hops if h.kind == "llm.assembled"]
        assert len(chunks) > 10 and len(assembled) == 2
        first_calls = assembled[0].payload["message"]["tool_calls"]
        assert [json.loads(c["function"]["arguments"]) for c in first_calls] == [{"city": "北京"}, {"city": "上海"}]


def test_a_quirky_provider_is_recorded_as_it_answered_and_still_works(endpoint):
    result = over_http(endpoint, model="mock-quirky")
    assert result.ok, result.error
    decision = next(h for h in result.trace.hops if h.kind == "llm.response" and h.step == 4)
    choice = decision.payload["body"]["choices"][0]
    # What came back, kept as it came: "" not null, finish_reason "stop" beside tool_calls, no usage.
    assert choice["message"]["content"] == "" and choice["finish_reason"] == "stop"
    assert "usage" not in decision.payload["body"] and decision.usage is None
    calls = choice["message"]["tool_calls"]
    assert all(not c["id"].startswith("call_") for c in calls)
    assert all("\n" in c["function"]["arguments"] for c in calls)
    # The short ids still tie each tool message to its call.
    tool_messages = [m for m in result.trace.hops if m.kind == "llm.request"][-1].payload["body"]["messages"]
    assert {m["tool_call_id"] for m in tool_messages if m["role"] == "tool"} == {c["id"] for c in calls}
    assert result.trace.meta.stats.get("prompt_tokens") == 0


def test_a_quirky_stream_with_whole_tool_calls_in_one_delta_is_assembled(endpoint):
    result = over_http(endpoint, model="mock-quirky", stream=True)
    assert result.ok, result.error
    assembled = next(h for h in result.trace.hops if h.kind == "llm.assembled")
    calls = assembled.payload["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "北京"}, {"city": "上海"}]
    assert assembled.payload["finish_reason"] == "stop" and assembled.step == 4


@pytest.mark.parametrize(
    ("model", "options", "option", "flag"),
    [
        ("mock-no-parallel", {"parallel": False}, "parallel_tool_calls", "--no-parallel"),
        ("mock-no-strict", {"strict": True}, "strict", "--strict"),
    ],
)
def test_a_rejected_option_says_which_option_to_drop(endpoint, model, options, option, flag):
    result = over_http(endpoint, model=model, **options)
    assert result.error is not None and result.trace.meta.error_zh is not None
    assert f"`{option}`" in result.error and flag in result.error and "HTTP 400" in result.error
    assert f"`{option}`" in result.trace.meta.error_zh
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert err.payload["status"] == 400 and err.payload["body"]["error"]["param"] == option
    # Without the option the same provider answers.
    assert over_http(endpoint, model=model).ok


@pytest.mark.parametrize(
    ("model", "key", "status", "words"),
    [
        ("mock", "sk-wrong-key-000000", 401, "check the API key"),
        ("gpt-unknown", KEY, 404, "check the model name"),
        ("mock-error-429", KEY, 429, "rate limited"),
    ],
)
def test_error_statuses_from_a_real_socket_are_one_line_and_a_hop(endpoint, model, key, status, words):
    result = over_http(endpoint, model=model, key=key)
    assert result.error is not None
    assert words in result.error and f"HTTP {status}" in result.error and "\n" not in result.error
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert err.payload["status"] == status and err.step == 3
    assert "sk-wrong-key-000000" not in result.trace.to_json()


def test_a_slow_endpoint_times_out_over_http(endpoint):
    result = over_http(endpoint, model="mock-slow", timeout_s=0.5)
    assert result.error is not None and "did not answer within 0.5 s" in result.error
    assert (
        next(h for h in result.trace.hops if h.kind == "llm.error").payload["error"] == "deadline"
    )  # the total time ran out first


# A llama.cpp-family server, as it was seen to behave (issue 16): it refuses `content: null`, repeats whole names and
# ids in every streamed delta beside a legacy `function_call`, and fails `tool_choice: "required"` with no message.


@pytest.mark.parametrize("stream", [False, True])
def test_the_backfill_sends_empty_content_not_null_and_its_hop_says_the_app_changed_it(endpoint, stream):
    result = over_http(endpoint, model="mock-llamacpp", stream=stream)
    assert result.ok, result.error
    backfill = [h for h in result.trace.hops if h.kind == "llm.request"][-1]
    assistant = next(m for m in backfill.payload["body"]["messages"] if m["role"] == "assistant")
    assert assistant["content"] == "" and assistant["tool_calls"]
    index = backfill.payload["body"]["messages"].index(assistant)
    if stream:  # its first delta streams content "": the message assembled from it has "", nothing to change
        assert "adapted" not in backfill.payload and "adapted" not in backfill.summary
    else:
        assert backfill.payload["adapted"] == [
            {"path": f"messages[{index}].content", "received": None, "sent": "", "why": "content_null"}
        ]
        assert "adapted by the app" in backfill.summary
    first = next(h for h in result.trace.hops if h.kind == "llm.request")
    assert "adapted" not in first.payload  # nothing to change in the first request
    assert result.trace.meta.settings["adapt"] is True


def test_with_adaptation_off_the_raw_refusal_is_one_line_naming_the_field(endpoint):
    result = over_http(endpoint, model="mock-llamacpp", adapt=False)
    assert result.error is not None and result.trace.meta.error_zh is not None
    assert "\n" not in result.error and "Traceback" not in result.error
    assert "HTTP 500" in result.error and "messages[2].content: expected a string" in result.error
    assert "more lines of the provider's message in the trace" in result.error
    assert "\n" not in result.trace.meta.error_zh and "messages[2].content" in result.trace.meta.error_zh
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert err.payload["body"]["error"]["message"].startswith("7 validation errors:\n")  # the whole text stays
    backfill = [h for h in result.trace.hops if h.kind == "llm.request"][-1]
    assert "adapted" not in backfill.payload
    assert next(m for m in backfill.payload["body"]["messages"] if m["role"] == "assistant")["content"] is None


def test_a_streamed_name_and_id_repeated_in_every_delta_is_one_call(endpoint):
    result = over_http(endpoint, model="mock-llamacpp", stream=True)
    assembled = next(h for h in result.trace.hops if h.kind == "llm.assembled")
    calls = assembled.payload["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_weather"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "北京"}, {"city": "上海"}]
    chunks = [h for h in result.trace.hops if h.kind == "llm.chunk" and h.step == 4]
    # Recorded exactly as it came: every tool-call delta carries the name, the id and the legacy function_call.
    events = [h.payload["data"] for h in chunks if isinstance(h.payload["data"], dict)]
    deltas = [e["choices"][0]["delta"] for e in events if e.get("choices")]
    with_calls = [d for d in deltas if d.get("tool_calls")]
    assert len(with_calls) >= 4 and all(d["tool_calls"][0]["function"]["name"] for d in with_calls)
    assert all("function_call" in d for d in with_calls)
    # Each call starts once; the deltas after it continue it.
    assert sum("starts" in h.summary for h in chunks) == 2
    assert sum("its name and id sent again" in h.summary for h in chunks) == len(with_calls) - 2


def test_a_refusal_with_no_message_names_the_options_that_were_sent(endpoint):
    result = over_http(endpoint, model="mock-llamacpp", tool_choice="required")
    assert result.error is not None and result.trace.meta.error_zh is not None
    assert "HTTP 500 and gave no reason" in result.error and "`tool_choice`" in result.error
    assert "--tool-choice auto" in result.error and "\n" not in result.error
    assert "`tool_choice`" in result.trace.meta.error_zh
    assert over_http(endpoint, model="mock-llamacpp").ok  # without the option the same server answers


def test_a_refusal_with_no_message_and_no_options_says_only_that(endpoint):
    result = over_http(endpoint, model="mock-error-500", stream=False)
    assert result.error is not None and "HTTP 500" in result.error and "likely cause" not in result.error


def test_an_empty_answer_is_said_in_the_hop_the_summary_line_and_the_cli(endpoint, capsys):
    result = over_http(endpoint, model="mock-empty")
    assert result.ok and result.answer == ""
    answer = next(h for h in result.trace.hops if h.kind == "app.answer")
    assert answer.payload == {"content": ""} and answer.summary == "(the model returned an empty answer)"
    assert summary_line(result.trace).endswith("empty answer")


@pytest.mark.parametrize(
    ("url", "options", "notes"),
    [
        ("http://localhost:8080/v1", {"tool_choice": "required"}, ["tool_choice_required_fails"]),
        ("http://localhost:8080/v1/", {"adapt": False}, ["null_content_refused"]),
        ("http://localhost:8080/v1", {}, []),  # the defaults: nothing to say
        ("http://localhost:11434/v1", {"tool_choice": "get_weather"}, ["tool_choice_ignored"]),
        ("https://api.deepseek.com/v1", {"strict": True}, ["strict_beta_only"]),
        ("http://localhost:8000/v1", {"tool_choice": "required"}, ["needs_tool_parser"]),
        ("https://api.openai.com/v1", {"tool_choice": "required", "strict": True}, []),
        ("http://127.0.0.1:9999/v1", {"tool_choice": "required"}, []),  # no preset: nothing known
    ],
)
def test_what_a_preset_is_known_to_do_with_the_chosen_options_is_said_before_sending(url, options, notes):
    assert notes_before_sending(url, RunOptions(**options)) == notes
    for note in notes:
        assert PROVIDER_NOTES[note]["en"] and any("\u4e00" <= c <= "\u9fff" for c in PROVIDER_NOTES[note]["zh"])


def test_the_cli_says_what_it_knows_before_it_sends(tmp_path):
    out = tmp_path / "t.json"
    url = "http://localhost:8080/v1"  # the llama.cpp preset's endpoint; nothing needs to answer there
    proc = flow_cli(
        "run",
        "--base-url",
        url,
        "--model",
        "local",
        "--tool-choice",
        "required",
        "--model-timeout",
        "3",
        "-o",
        str(out),
    )
    first = proc.stderr.splitlines()[0]
    assert first == f"note: {PROVIDER_NOTES['tool_choice_required_fails']['en']}"


LLAMACPP_PYTHON_500 = Path(__file__).parents[1] / "data" / "llamacpp-python-500.json"


def _backfill_with_null_content() -> list[dict]:
    """The conversation whose refusal tests/data/llamacpp-python-500.json holds: messages[2], the assistant's tool
    call, has content null."""
    call = {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}
    return [
        {"role": "system", "content": "You are a helpful assistant. Use the tools when they help answer the question."},
        {"role": "user", "content": "北京今天天气怎么样？"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_0", "content": '{"city": "北京", "condition": "晴"}'},
    ]


def test_the_llamacpp_mock_refuses_null_content_with_llamacpp_pythons_500_body():
    from flow.backends.mock import complete

    reply = complete({"model": "mock-llamacpp", "messages": _backfill_with_null_content()})
    assert reply.status == 500
    assert reply.body == json.loads(LLAMACPP_PYTHON_500.read_text(encoding="utf-8"))


def test_a_llamacpp_python_500_is_one_line_naming_the_field_of_the_branch_of_the_messages_own_role():
    from flow.text.provider import provider_detail, provider_line

    body = json.loads(LLAMACPP_PYTHON_500.read_text(encoding="utf-8"))
    message = body["error"]["message"]
    assert message.startswith("7 validation errors:\n  {'type': 'literal_error'")
    # Of the seven (one or two per branch of the union), the assistant branch's: messages[2] is role "assistant".
    assert provider_line(provider_detail(body)) == ("messages[2].content: expected a string, not null", 7)


@pytest.mark.parametrize(
    "line",
    [
        "  __import__('os').system('touch /tmp/flow-pwned')",  # code is never run: only literals are read
        "  {'type': 'x', 'loc': ('body', " + "(" * 5000 + "))}",  # nested past the parser's depth
        "  {'type': 'x', 'loc': ('body', 'a'), 'msg': '" + "y" * 100_000 + "'}",  # longer than a line is read
        "  {'loc': ('body', 'messages', 0), 'msg': 'Field required'",  # cut off
    ],
)
def test_a_validation_message_of_odd_lines_is_read_safely(line):
    from flow.text.provider import provider_line

    text, more = provider_line(
        "2 validation errors:\n" + line + "\n  {'type': 'missing', 'loc': ('body', 'model'), "
        "'msg': 'Field required', 'input': {}}\n"
    )
    assert text == "model: missing" and more == 2


def test_a_refused_backfill_says_sending_it_again_will_not_help_and_the_viewer_says_the_same(endpoint):
    from flow.text.teaching import teaching_text
    from flow.text.teaching.situations import situation

    result = over_http(endpoint, model="mock-llamacpp", adapt=False)
    assert result.error is not None
    assert "messages[2].content: expected a string, not null" in result.error
    assert "sent again unchanged, it fails the same way" in result.error
    err = next(h for h in result.trace.hops if h.kind == "llm.error")
    assert situation(err).key == "model.5xx.refused"
    text = teaching_text(err, "en")
    assert "refused this request" in text and "a little later" not in text
    # A 500 that names nothing of the request keeps the text of a failure on the provider's side.
    plain = over_http(endpoint, model="mock-error-500")
    assert situation(next(h for h in plain.trace.hops if h.kind == "llm.error")).key == "model.5xx"
    assert plain.error is not None and "sent again" not in plain.error
