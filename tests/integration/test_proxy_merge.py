"""One trace from the proxies (`python -m flow record`, `python -m flow merge`): this project's own command line is
the app, the mock model over HTTP its provider, the demo server its MCP server. What the proxies recorded, merged,
is the trace the app records itself: the same wire, the same steps, rounds and tool_call_ids; the hops only the app
could see are inferred and say so."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from flow.backends.mock_http import make_server
from flow.backends.replay import Cursor
from flow.interop.merge import merge_recordings
from flow.interop.otlp import to_otlp_json
from flow.text.teaching import teaching_text
from flow.trace.files import TraceError, load_trace
from flow.trace.normalise import normalise
from flow.views.diagram import to_mermaid
from flow.views.html import to_html
from flow.views.labels import label_lines
from helpers import ROOT, flow_cli, unmapped

PY = sys.executable
KEY = "sk-test-record-KEY-13579bdf02468ace"
APP_ONLY = "client.result"  # what the MCP client hands the app: inferred too, compared with the rest


@pytest.fixture
def upstream() -> Iterator[str]:
    """The mock model over HTTP, requiring KEY as a provider would."""
    server = make_server(0, api_key=KEY)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def record(tmp_path: Path, upstream: str, *app_args: str) -> tuple:
    """The app run under `record`, its MCP server behind the stdio proxy; the app's trace, the merged one, and
    the folder of recordings."""
    app, merged, folder = tmp_path / "app.json", tmp_path / "merged.json", tmp_path / "recordings"
    server = shlex.join([PY, "-m", "flow", "proxy", "--", PY, "-m", "weather_demo"])
    proc = flow_cli(
        "record",
        "--upstream",
        upstream,
        "--keep",
        str(folder),
        "--out",
        str(merged),
        "--",
        PY,
        "-m",
        "flow",
        "run",
        "--model",
        "mock",
        "--server",
        server,
        "--server-env",
        "MCP_FLOW_RECORD_DIR",  # the app's SDK hands its servers only the variables it is told to
        *app_args,
        "--out",
        str(app),
        env={"SOME_SECRET_TOKEN": "tok-env-SECRET-24680", "OPENAI_API_KEY": KEY},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return load_trace(app), load_trace(merged), folder


def shape(trace) -> list[tuple]:
    return [(h.step, h.kind, h.source, h.target, h.round, h.tool_call_id, h.jsonrpc_id) for h in trace.hops]


def wire(trace) -> list[tuple]:
    """What crossed, without times and headers: the frames, the model's bodies and events."""
    out = []
    for h in trace.hops:
        if h.kind.startswith("mcp.") or h.kind == "llm.chunk":
            out.append((h.kind, normalise(h.payload)))
        elif h.kind in ("llm.request", "llm.response"):
            out.append((h.kind, normalise(h.payload["body"])))
    return out


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("北京今天天气怎么样？", []),
        ("北京今天天气怎么样？", ["--stream"]),
        ("北京今天天气怎么样？给我一个出行建议", []),  # two tool rounds
    ],
    ids=["one-call", "stream", "two-rounds"],
)
def test_the_merged_recording_is_the_trace_the_app_records(tmp_path, upstream, question, options):
    app, merged, folder = record(tmp_path, upstream, "-q", question, *options)
    assert shape(merged) == shape(app)
    assert wire(merged) == wire(app)
    assert merged.meta.question == app.meta.question and merged.meta.answer == app.meta.answer
    # One rule reads a stream in the engine, its tap and merge: the same labels, the same assembled message.
    for kind in ("llm.chunk", "llm.assembled"):
        said = [(h.summary.removesuffix(" (inferred)"), h.payload.get("data", h.payload)) for h in merged.hops if h.kind == kind]  # fmt: skip
        assert said == [(h.summary, h.payload.get("data", h.payload)) for h in app.hops if h.kind == kind]
    assert merged.meta.outcome == app.meta.outcome == "ok"
    assert merged.meta.stats["tool_calls"] == app.meta.stats["tool_calls"] >= 1
    assert merged.meta.imported and merged.meta.imported.format == "proxy-jsonl"
    inferred = {h.kind: h.inferred for h in merged.hops if h.inferred}
    assert set(inferred) >= {"user.message", "translate.forward", "translate.reverse", "tool.result", "app.answer"}
    assert "matched by name and arguments" in inferred["translate.reverse"]
    assert all("inferred)" in h.summary for h in merged.hops if h.inferred)
    assert not any(h.inferred for h in app.hops)
    # Every byte the proxies wrote, and the trace, hold no key: not the client's, not one in the environment.
    for path in [*folder.iterdir(), tmp_path / "merged.json"]:
        data = path.read_bytes()
        assert KEY.encode() not in data and b"tok-env-SECRET-24680" not in data, path


def test_parallel_calls_are_paired_by_name_and_arguments(tmp_path, upstream):
    app, merged, _ = record(tmp_path, upstream, "-q", "北京和上海今天天气怎么样？")
    # Two calls in flight: frames and model events may interleave differently at the pipe than in the app.
    assert sorted(map(repr, shape(merged))) == sorted(map(repr, shape(app)))
    reverse = {h.tool_call_id: h.payload["call_request"] for h in merged.hops if h.kind == "translate.reverse"}
    assert reverse == {h.tool_call_id: h.payload["call_request"] for h in app.hops if h.kind == "translate.reverse"}
    assert len(reverse) == 2


def test_merge_of_the_kept_recordings_and_the_trace_steps_renders_and_exports(tmp_path, upstream):
    _, merged, folder = record(tmp_path, upstream)
    again = tmp_path / "again.json"
    proc = flow_cli("merge", *sorted(str(p) for p in folder.iterdir()), "--out", str(again))
    assert proc.returncode == 0, proc.stderr
    *notes, summary = proc.stdout.splitlines()
    assert summary.endswith(f"→ {again}") and all(n.startswith("note: ") for n in notes)
    assert "note: the server exited with code 0" in notes and not any("no last line" in n for n in notes)
    # A plain merge has no exit code: it draws no answer shown to the user, and says the outcome is unknown
    plain = load_trace(again)
    assert shape(plain) == shape(merged)[:-1] and merged.hops[-1].kind == "app.answer"
    assert (plain.meta.outcome, merged.meta.outcome) == ("unknown", "ok")
    assert any("whether the app showed the user the answer" in n for n in notes)
    cursor = Cursor(merged)
    assert [h.kind for h in cursor.hops_of_step(5)] == ["translate.reverse"]
    assert "sequenceDiagram" in to_mermaid(merged) and "<html" in to_html(merged).lower()
    assert json.loads(to_otlp_json(merged))["resourceSpans"]
    assert flow_cli("validate", str(again)).returncode == 0


def _model_log(calls_args: dict) -> str:
    """A model recording of one decision (get_weather with `calls_args`) and one answer."""
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps(calls_args)},
    }
    lines = [
        {"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"}, "timestamp": 100.0},
        {"exchange": 1, "event": "request", "timestamp": 100.1, "method": "POST", "path": "/v1/chat/completions",
         "headers": {}, "body": {"model": "m", "messages": [{"role": "user", "content": "天气？"}]}},
        {"exchange": 1, "event": "response", "timestamp": 100.2, "status": 200, "stream": False, "headers": {}},
        {"exchange": 1, "event": "body", "timestamp": 100.2, "bytes": 1, "body": {"choices": [
            {"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]}, "finish_reason": "tool_calls"}]}},
        {"exchange": 1, "event": "end", "timestamp": 100.2},
        {"exchange": 2, "event": "request", "timestamp": 100.5, "method": "POST", "path": "/v1/chat/completions",
         "headers": {}, "body": {"model": "m", "messages": [{"role": "user", "content": "天气？"},
                                {"role": "assistant", "content": None, "tool_calls": [call]},
                                {"role": "tool", "tool_call_id": "call_1", "content": "晴"}]}},
        {"exchange": 2, "event": "response", "timestamp": 100.6, "status": 200, "stream": False, "headers": {}},
        {"exchange": 2, "event": "body", "timestamp": 100.6, "bytes": 1, "body": {"choices": [
            {"index": 0, "message": {"role": "assistant", "content": "晴天"}, "finish_reason": "stop"}]}},
    ]  # fmt: skip
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines)


def _mcp_log(name: str, arguments: dict) -> str:
    lines = [
        {"direction": "client_to_server", "timestamp": 100.3, "message": {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}}},
        {"direction": "server_to_client", "timestamp": 100.4, "message": {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "晴"}], "isError": False}}},
    ]  # fmt: skip
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines)


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("get_weather", {"city": "北京"}, "matched by name and arguments"),
        ("get_weather", {"city": "Beijing"}, "matched by name only (the arguments differ)"),
        ("other_tool", {}, None),
    ],
)
def test_which_tool_call_a_tools_call_carries_out_is_a_guess_that_says_so(name, arguments, said):
    trace = merge_recordings(
        [("mcp.jsonl", _mcp_log(name, arguments)), ("model.jsonl", _model_log({"city": "北京"}))], app_exit_code=0
    )
    steps = [(h.step, h.kind) for h in trace.hops]
    reverse = [h for h in trace.hops if h.kind == "translate.reverse"]
    if said is None:
        assert reverse == [] and any("no tool call of the model matches it" in n for n in unmapped(trace))
        return
    assert reverse[0].inferred and said in reverse[0].inferred and reverse[0].tool_call_id == "call_1"
    # The line is the reverse translation's, as the app records it; how the call was matched is in `inferred`.
    assert reverse[0].summary == f"call {name}({', '.join(f'{k}={v}' for k, v in arguments.items())}) (inferred)"
    assert label_lines(reverse[0], lang="zh")[-1] == "（推断）"
    assert f"not seen crossing a wire: the tools/call that carries out the model's call call_1: {said}" in (
        teaching_text(reverse[0], "en")
    )
    assert "推断" in teaching_text(reverse[0], "zh")
    assert steps == [
        (1, "user.message"), (3, "llm.request"), (4, "llm.response"), (5, "translate.reverse"), (6, "mcp.request"),
        (7, "mcp.response"), (7, "tool.result"), (8, "llm.request"), (9, "llm.response"), (10, "app.answer"),
    ]  # fmt: skip
    received = next(h for h in trace.hops if h.kind == "tool.result")
    assert received.payload["tool_message_content"] == "晴" and received.round == 1
    asked = [h.summary for h in trace.hops if h.kind == "llm.request"]
    assert asked == ["POST /v1/chat/completions: 1 message, 0 tools", "POST /v1/chat/completions: 3 messages, 0 tools"]


def test_what_a_proxy_noted_and_a_missing_last_line_are_said_as_they_are():
    noted = json.dumps(
        {"note": "POST /v1/chat/completions: the client left before its request was complete", "timestamp": 100.05}
    )
    model = _model_log({"city": "北京"}).replace("\n", f"\n{noted}\n", 1)
    header = json.dumps(
        {"mcp_flow_proxy": {"version": 1, "transport": "stdio", "command": ["srv"]}, "timestamp": 100.0}
    )
    mcp = f"{header}\n{_mcp_log('get_weather', {'city': '北京'})}"  # no last line: the proxy is still running
    notes = unmapped(merge_recordings([("mcp.jsonl", mcp), ("model.jsonl", model)]))
    assert "line 2: POST /v1/chat/completions: the client left before its request was complete" in notes
    assert "the recording has no last line: its proxy is still running, or was killed before it could end it" in notes


QUESTIONS = ["北京今天天气怎么样？", "上海今天天气怎么样？", "广州今天天气怎么样？"]


def test_several_conversations_in_one_model_recording_are_told_apart(tmp_path, upstream, monkeypatch, capsys):
    # One long-running model proxy, three runs of the app through it: one trace shows one run, and says which.
    from flow.cli import main
    from flow.proxy.http import model_proxy

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model = tmp_path / "model.jsonl"
    served = model_proxy(upstream, str(model)).start()
    try:
        for i, question in enumerate(QUESTIONS):
            args = ["run", "--transport", "memory", "--base-url", served.url, "--model", "mock", "-q", question]
            assert main([*args, "-o", str(tmp_path / f"app-{i}.json")]) == 0
    finally:
        served.stop()
    apps = [load_trace(tmp_path / f"app-{i}.json") for i in range(3)]
    capsys.readouterr()
    for chosen, app in [(None, apps[2]), (1, apps[0]), (2, apps[1])]:
        out = tmp_path / f"merged-{chosen}.json"
        assert main(["merge", str(model), "-o", str(out), *(["--conversation", str(chosen)] if chosen else [])]) == 0
        said = capsys.readouterr().out
        merged = load_trace(out)
        assert merged.meta.question == app.meta.question and merged.meta.answer == app.meta.answer
        assert wire(merged) == [w for w in wire(app) if not w[0].startswith("mcp.")]
        assert (
            f"this trace is {'the last' if chosen is None else ('the first' if chosen == 1 else 'number 2')}, " in said
        )
        assert said.count("note: the model recording holds 3 conversations") == 1
    assert main(["merge", str(model), "-o", str(tmp_path / "x.json"), "--conversation", "4"]) == 2
    assert capsys.readouterr().err.endswith("conversation 4: the model recording holds 3 conversations\n")


def test_of_several_conversations_the_mcp_frames_kept_are_the_set_up_and_those_of_the_one_shown():
    first = [json.loads(line) for line in _model_log({"city": "北京"}).splitlines()]
    second = [json.loads(line) for line in _model_log({"city": "上海"}).splitlines()]
    for line in second[1:]:  # the same app asking again ten seconds later, in exchanges 3 and 4
        line["timestamp"] += 10
        line["exchange"] += 2
        for m in line.get("body", {}).get("messages", []):
            m["content"] = "上海" if m.get("role") == "user" else m.get("content")
    model = "\n".join(json.dumps(line, ensure_ascii=False) for line in [*first, *second[1:]])
    set_up = {
        "direction": "client_to_server",
        "timestamp": 99.0,
        "message": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
    }
    later = [json.loads(line) for line in _mcp_log("get_weather", {"city": "上海"}).splitlines()]
    for line in later:
        line["timestamp"] += 10
        line["message"]["id"] = 8
    mcp = "\n".join(json.dumps(x, ensure_ascii=False) for x in [set_up, *[json.loads(line) for line in _mcp_log("get_weather", {"city": "北京"}).splitlines()], *later])  # fmt: skip
    for chosen, city, call_id in [(None, "上海", 8), (1, "北京", 7)]:
        trace = merge_recordings([("mcp.jsonl", mcp), ("model.jsonl", model)], conversation=chosen)
        frames = [(h.kind, h.jsonrpc_id) for h in trace.hops if h.kind.startswith("mcp.")]
        assert frames == [("mcp.request", 0), ("mcp.request", call_id), ("mcp.response", call_id)]
        reverse = next(h for h in trace.hops if h.kind == "translate.reverse")
        assert (
            reverse.payload["call_request"]["arguments"] == {"city": city}
            and reverse.summary == f"call get_weather(city={city}) (inferred)"
            and "by name and arguments" in (reverse.inferred or "")
        )
        assert not any("no tool call of the model matches" in n for n in unmapped(trace))


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (
            [("a.jsonl", '{"mcp_flow_proxy": {"transport": "model-http"}}\n{"exchange": "x"}')],
            "not a model proxy's line",
        ),
        ([("a.jsonl", '{"mcp_flow_proxy": {"transport": "model-http"}}')], "a.jsonl: nothing recorded"),
        ([("a.jsonl", _model_log({})), ("b.jsonl", _model_log({}))], "2 model recordings"),
        ([], "nothing to merge"),
    ],
)
def test_bad_recordings_are_one_line(files, said):
    with pytest.raises(TraceError, match=said) as caught:
        merge_recordings(files)
    assert "\n" not in str(caught.value)


def test_the_command_line_says_bad_input_in_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    for args in (["merge", str(bad), "-o", str(tmp_path / "x.json")], ["record", "-o", str(tmp_path / "y.json")]):
        proc = flow_cli(*args)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr


EMPTY = {  # what a proxy writes when it is started and stopped with nothing crossing it
    "mcp": [{"mcp_flow_proxy": {"version": 1, "transport": "stdio", "command": ["srv"]}, "timestamp": 10.0},
            {"mcp_flow_proxy_end": {"exit_code": 0, "ended_by": "client", "frames": 0}, "timestamp": 10.5}],
    "model": [{"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"},
               "timestamp": 10.0},
              {"mcp_flow_proxy_end": {"exchanges": 0}, "timestamp": 10.5}],
}  # fmt: skip


@pytest.mark.parametrize("which", ["mcp", "model"])
def test_an_empty_recording_is_said_in_one_wording_by_import_and_merge(tmp_path, which):
    empty = tmp_path / f"{which}.jsonl"
    empty.write_text("\n".join(json.dumps(line) for line in EMPTY[which]) + "\n", encoding="utf-8")
    said = f"error: {empty}: nothing recorded (no MCP message and no model exchange)\n"
    for command in (["import", str(empty)], ["merge", str(empty)]):
        proc = flow_cli(*command, "-o", str(tmp_path / "t.json"))
        assert (proc.returncode, proc.stderr) == (2, said)
    assert not (tmp_path / "t.json").exists()


def test_an_empty_mcp_recording_beside_a_model_one_is_a_note_not_a_failure():
    empty = "\n".join(json.dumps(line) for line in EMPTY["mcp"])
    trace = merge_recordings([("mcp.jsonl", empty), ("model.jsonl", _model_log({"city": "北京"}))])
    assert [h.kind for h in trace.hops if h.kind.startswith("llm.")] == ["llm.request", "llm.response"] * 2
    assert "mcp.jsonl: nothing recorded (no MCP message and no model exchange)" in unmapped(trace)


def test_merge_never_writes_over_a_recording_or_into_a_folder(tmp_path):
    recording = tmp_path / "c.jsonl"
    recording.write_text(_model_log({"city": "北京"}), encoding="utf-8")
    before = recording.read_bytes()
    proc = flow_cli("merge", str(recording), "--out", str(recording))
    assert proc.returncode == 2 and proc.stderr == (
        f"error: --out {recording} is one of the recordings to merge: name another file for the trace\n"
    )
    assert recording.read_bytes() == before
    folder = tmp_path / "b1"
    folder.mkdir()
    proc = flow_cli("merge", str(recording), "--out", str(folder))
    assert (proc.returncode, proc.stderr) == (2, f"error: {folder}: is a folder: name a file to write\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b1", "c.jsonl"] and not any(folder.iterdir())


def test_record_passes_the_apps_exit_code_through_and_leaves_no_folder_behind(tmp_path):
    temp = tmp_path / "temp"  # where `record` makes its folder of recordings (TMPDIR)
    temp.mkdir()
    out = tmp_path / "trace.json"
    proc = flow_cli("record", "--out", str(out), "--", "sh", "-c", "exit 5", env={"TMPDIR": str(temp)})
    assert proc.returncode == 5  # the app's, though nothing was recorded
    notes = [line for line in proc.stderr.splitlines() if not line.startswith("recording: ")]
    assert len(notes) == 1 and notes[0].startswith("note: nothing was recorded, so no trace was written")
    assert "--server-env MCP_FLOW_RECORD_DIR" in notes[0]
    assert not out.exists()
    proc = flow_cli("record", "--out", str(out), "--", "no-such-app-xyz", env={"TMPDIR": str(temp)})
    assert (
        proc.returncode == 2
        and proc.stderr.splitlines()[-1] == "error: cannot start 'no-such-app-xyz': No such file or directory"
    )
    assert list(temp.iterdir()) == []  # on every way out


def test_a_proxy_with_no_out_under_record_says_how_to_pass_the_folder_on(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "MCP_FLOW_RECORD_DIR"}
    proc = subprocess.run(
        [PY, "-m", "flow", "proxy", "--", PY, "-m", "weather_demo"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "--server-env MCP_FLOW_RECORD_DIR" in proc.stderr


ODD_VALUES = [None, 1, -1.5, True, "text", [], {}, [1, "a"], {"x": [None]}, "\u2028", 2**70]


def _paths(value, path=()):
    """Every place in a JSON value, as a path of keys and indexes."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _replaced(value, path, new):
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = new
    return copy


def test_any_odd_value_in_a_recording_is_merged_or_refused_in_one_line():
    """Lenient at the wire: a recording is whatever a client, a provider and a server sent."""
    model = [json.loads(line) for line in _model_log({"city": "北京"}).splitlines()]
    mcp = [json.loads(line) for line in _mcp_log("get_weather", {"city": "北京"}).splitlines()]
    tried = merged = 0
    for which, lines in (("model", model), ("mcp", mcp)):
        for i, line in enumerate(lines):
            for path in list(_paths(line))[1:]:
                for odd in ODD_VALUES[(tried % 4) :: 4]:  # a different few at each place, all of them over the run
                    tried += 1
                    changed = [*lines[:i], _replaced(line, path, odd), *lines[i + 1 :]]
                    text = "\n".join(json.dumps(x, ensure_ascii=False) for x in changed)
                    files = [("model.jsonl", text), ("mcp.jsonl", _mcp_log("get_weather", {"city": "北京"}))]
                    if which == "mcp":
                        files = [("model.jsonl", _model_log({"city": "北京"})), ("mcp.jsonl", text)]
                    try:
                        merge_recordings(files)
                        merged += 1
                    except TraceError as exc:
                        assert "\n" not in str(exc)
    assert tried > 250 and merged > tried / 2


APP = """
import sys
from openai import OpenAI

client = OpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment, as `record` leaves them
tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for one city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
messages = [{"role": "user", "content": "北京今天天气怎么样？"}]
first = client.chat.completions.create(model="mock", messages=messages, tools=tools)
call = first.choices[0].message.tool_calls[0]
messages += [first.choices[0].message.model_dump(exclude_none=True),
             {"role": "tool", "tool_call_id": call.id, "content": '{"condition": "晴"}'}]
print(client.chat.completions.create(model="mock", messages=messages, tools=tools).choices[0].message.content)
sys.exit(5)
"""


def test_record_an_app_of_your_own_that_uses_the_openai_sdk(tmp_path, upstream):
    app, out = tmp_path / "app.py", tmp_path / "trace.json"
    app.write_text(APP, encoding="utf-8")
    proc = flow_cli(
        "record", "--upstream", upstream, "--out", str(out), "--", PY, str(app), env={"OPENAI_API_KEY": KEY}
    )
    assert proc.returncode == 5, proc.stderr  # the app's own exit code
    assert "晴" in proc.stdout
    trace = load_trace(out)
    assert [(h.step, h.kind) for h in trace.hops] == [
        (1, "user.message"), (3, "llm.request"), (4, "llm.response"), (8, "llm.request"), (9, "llm.response"),
        (10, "app.answer"), (10, "error"),
    ]  # fmt: skip
    # The wire went well, the app said it failed: the trace says what the app's exit code says.
    assert (trace.meta.outcome, trace.meta.error) == ("error", "the app exited with code 5")
    assert trace.meta.mode == "direct" and trace.meta.model["name"] == "mock"
    assert KEY not in out.read_text(encoding="utf-8")


# Issue 23: what a merge says of a run, as the app would have said it.

HEADER = {"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"}, "timestamp": 100.0}  # fmt: skip
ASK = {"model": "m", "messages": [{"role": "user", "content": "天气？"}]}
DECISION = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}]}}]}  # fmt: skip
ANSWER = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "晴天"}}]}


def _exchange(n: int, t: float, body: dict, *, status: int = 200, answer: object = ANSWER, retry: int | None = None,
              chunks: list | None = None) -> list[dict]:  # fmt: skip
    """One model exchange as the model proxy records it: its request, response, body (or streamed events) and end."""
    headers = {} if retry is None else {"X-Stainless-Retry-Count": str(retry)}
    lines: list[dict] = [
        {"exchange": n, "event": "request", "timestamp": t, "method": "POST", "path": "/v1/chat/completions",
         "headers": headers, "body": body},
        {"exchange": n, "event": "response", "timestamp": t + 0.01, "status": status, "stream": chunks is not None,
         "headers": {}},
    ]  # fmt: skip
    if chunks is None:
        lines.append({"exchange": n, "event": "body", "timestamp": t + 0.02, "bytes": 1, "body": answer})
    else:
        lines += [{"exchange": n, "event": "chunk", "timestamp": t + 0.02 + i / 1e4, "data": c} for i, c in enumerate(chunks)]  # fmt: skip
    lines.append({"exchange": n, "event": "end", "timestamp": t + 0.05})
    return lines


def _log(*exchanges: list[dict]) -> str:
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in [HEADER, *(x for e in exchanges for x in e)])


ERROR_500 = {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}


def test_a_merged_failed_run_says_error_as_the_apps_own_trace_does(tmp_path):
    """Issue 23 item 2, as reported: `record` of `run --model mock-error-500`, the mock model on a loopback port."""
    server = make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        app, merged = tmp_path / "app.json", tmp_path / "m.json"
        proxy = shlex.join([PY, "-m", "flow", "proxy", "--", PY, "-m", "weather_demo"])
        upstream = f"http://127.0.0.1:{server.server_address[1]}/v1"
        proc = flow_cli(
            "record", "--upstream", upstream, "--out", str(merged), "--",
            PY, "-m", "flow", "run", "--model", "mock-error-500", "--server", proxy,
            "--server-env", "MCP_FLOW_RECORD_DIR", "--out", str(app),
            timeout=120,
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert proc.returncode == 1, proc.stderr  # the app's own code
    mine, theirs = load_trace(app), load_trace(merged)
    assert theirs.meta.outcome == mine.meta.outcome == "error"
    assert theirs.meta.error == mine.meta.error and "HTTP 500: The server had an error" in str(theirs.meta.error)
    assert theirs.meta.error_zh == mine.meta.error_zh
    last = theirs.hops[-1]
    assert (last.kind, last.step, last.source, last.target) == ("error", 10, "app", "user") and last.inferred
    assert "note: the app exited with code 1" in proc.stdout
    shown = flow_cli("show", str(merged)).stdout
    assert shown.rstrip().endswith(f"· error: {theirs.meta.error}")
    spans = [s for rs in json.loads(to_otlp_json(theirs))["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]  # fmt: skip
    root = next(s for s in spans if not s.get("parentSpanId"))
    assert root["status"]["code"] == 2 and root["status"]["message"] == theirs.meta.error


def test_a_failure_the_run_went_on_from_is_not_its_outcome_and_the_exit_code_counts():
    failed_then_ok = _log(_exchange(1, 100.1, ASK, status=500, answer=ERROR_500), _exchange(2, 101.0, ASK))
    trace = merge_recordings([("model.jsonl", failed_then_ok)], app_exit_code=0)
    assert trace.meta.outcome == "ok" and trace.meta.error is None and trace.hops[-1].kind == "app.answer"
    assert merge_recordings([("model.jsonl", failed_then_ok)]).meta.outcome == "unknown"  # no exit code: cannot say
    exited = merge_recordings([("model.jsonl", failed_then_ok)], app_exit_code=3)
    assert (exited.meta.outcome, exited.meta.error, exited.meta.error_zh) == (
        "error", "the app exited with code 3", "应用以退出码 3 结束"
    )  # fmt: skip
    failed = merge_recordings([("model.jsonl", _log(_exchange(1, 100.1, ASK, status=500, answer=ERROR_500)))])
    assert failed.meta.outcome == "error" and failed.meta.error == (
        "the model endpoint answered HTTP 500: The server had an error while processing your request."
    )
    assert failed.meta.answer is None and [h.kind for h in failed.hops][-2:] == ["llm.error", "error"]


def test_a_jsonrpc_error_the_model_never_answered_after_is_the_outcome():
    mcp = "\n".join(json.dumps(line, ensure_ascii=False) for line in [
        {"direction": "client_to_server", "timestamp": 100.3, "message": {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": "北京"}}}},
        {"direction": "server_to_client", "timestamp": 100.4, "message": {"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "boom"}}},
    ])  # fmt: skip
    only_the_decision = _log(_exchange(1, 100.1, ASK, answer=DECISION))
    trace = merge_recordings([("mcp.jsonl", mcp), ("model.jsonl", only_the_decision)])
    assert trace.meta.error == "the MCP server answered with error -32603: boom" and trace.meta.outcome == "error"
    answered = merge_recordings([("mcp.jsonl", mcp), ("model.jsonl", _model_log({"city": "北京"}))], app_exit_code=0)
    assert answered.meta.outcome == "ok"  # the error went back to the model, which answered
    received = next(h for h in answered.hops if h.kind == "tool.result")
    assert received.direction == "error" and received.payload["error"] == {"code": -32603, "message": "boom"}
    assert received.summary == "protocol error -32603: boom (inferred)"  # worded as the app's own trace words it


def test_an_empty_answer_is_shown_as_the_app_shows_one():
    empty = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ""}}]}
    trace = merge_recordings([("model.jsonl", _log(_exchange(1, 100.1, ASK, answer=empty)))], app_exit_code=0)
    shown = trace.hops[-1]
    assert (shown.kind, shown.payload, trace.meta.answer) == ("app.answer", {"content": ""}, "")
    assert shown.summary == "(the model returned an empty answer) (inferred)"


def test_a_stream_cut_short_is_a_failed_run_not_an_answer():
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
              {"choices": [{"index": 0, "delta": {"content": "晴"}}]}]  # fmt: skip
    trace = merge_recordings([("model.jsonl", _log(_exchange(1, 100.1, {**ASK, "stream": True}, chunks=chunks)))])
    assert trace.meta.outcome == "error" and "no finish_reason after 2 chunks" in str(trace.meta.error)
    assert [h.kind for h in trace.hops][-2:] == ["llm.error", "error"] and "llm.assembled" not in {h.kind for h in trace.hops}  # fmt: skip
    lines = [
        json.loads(line) for line in _log(_exchange(1, 100.1, {**ASK, "stream": True}, chunks=chunks)).splitlines()
    ]
    lines.insert(-1, {"exchange": 1, "event": "chunk", "timestamp": 100.14, "data_too_large": {"bytes": 2_000_000}})
    unseen = merge_recordings(
        [("model.jsonl", "\n".join(json.dumps(line, ensure_ascii=False) for line in lines))], app_exit_code=0
    )
    assert unseen.meta.outcome == "ok"  # its finish_reason may be in the event the proxy could not keep
    assert "1 event too large to keep" in str(next(h for h in unseen.hops if h.kind == "llm.assembled").inferred)


def test_sdk_retries_are_retries_of_one_call_in_its_round():
    """Issue 23 item 3: the openai SDK numbers its attempts in x-stainless-retry-count and resends the same body."""
    backfill = {**ASK, "messages": [*ASK["messages"], DECISION["choices"][0]["message"],
                                    {"role": "tool", "tool_call_id": "call_1", "content": "晴"}]}  # fmt: skip
    log = _log(
        _exchange(1, 100.1, ASK, status=500, answer=ERROR_500, retry=0),
        _exchange(2, 100.6, ASK, status=500, answer=ERROR_500, retry=1),
        _exchange(3, 101.5, ASK, answer=DECISION, retry=2),
        _exchange(4, 102.0, backfill, retry=0),
    )
    trace = merge_recordings([("model.jsonl", log)], app_exit_code=0)
    asked = [(h.round, h.step, h.summary) for h in trace.hops if h.kind == "llm.request"]
    assert [(r, s) for r, s, _ in asked] == [(1, 3), (1, 3), (1, 3), (2, 8)]
    again = [s.endswith(f"retry {n} of the same call") for n, (_, _, s) in enumerate(asked)]
    assert again == [False, True, True, False]
    assert trace.meta.stats.get("model_calls") == 2 and trace.meta.outcome == "ok"
    assert next(h for h in trace.hops if h.kind == "app.answer").round == 2
    # Without the header (another SDK): the same body again after a failed attempt is a retry too.
    bare = _log(_exchange(1, 100.1, ASK, status=500, answer=ERROR_500), _exchange(2, 100.6, ASK))
    assert [
        h.round for h in merge_recordings([("model.jsonl", bare)], app_exit_code=0).hops if h.kind == "llm.request"
    ] == [1, 1]


def test_a_tool_message_sent_as_text_parts_keeps_its_parts():
    """Issue 23 item 4: openai-agents sends a tool message's content as a list of text parts."""
    parts = [{"type": "text", "text": "晴"}, {"type": "text", "text": "25°C"}]
    model = _model_log({"city": "北京"}).replace('"content": "晴"}', json.dumps({"content": parts}, ensure_ascii=False)[1:])  # fmt: skip
    assert json.dumps(parts, ensure_ascii=False) in model
    trace = merge_recordings([("mcp.jsonl", _mcp_log("get_weather", {"city": "北京"})), ("model.jsonl", model)])
    received = next(h for h in trace.hops if h.kind == "tool.result" and h.source == "mcp_client")
    assert received.payload["tool_message_content"] == "晴\n25°C"
    assert received.payload["tool_message_parts"] == parts
    assert not any('"type"' in line for line in label_lines(received))


STREAMED_CALL = [  # a llama.cpp-family server: the whole name and id in every delta
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
    *({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": piece}}]}}]} for piece in ['{"ci', 'ty": ', '"北京"}']),
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]  # fmt: skip


def test_stream_chunks_are_labelled_by_the_engines_rule_and_the_assembled_hop_names_the_call():
    """Issue 23 item 5: one rule (flow.wire.chat.ChatStream) for the engine, the HTTP tap and merge."""
    trace = merge_recordings([("model.jsonl", _log(_exchange(1, 100.1, {**ASK, "stream": True}, chunks=STREAMED_CALL)))])  # fmt: skip
    said = [h.summary for h in trace.hops if h.kind == "llm.chunk"]
    assert said == [
        "chunk 1: role assistant",
        "chunk 2: tool_call get_weather starts, arguments += '{\"ci'",
        "chunk 3: arguments += 'ty\": ' (its name and id sent again)",
        "chunk 4: arguments += '\"北京\"}' (its name and id sent again)",
        "chunk 5: finish_reason: tool_calls",
    ]
    chunks = [h for h in trace.hops if h.kind == "llm.chunk"]
    assert [any("开始" in line for line in label_lines(h, 80, lang="zh")) for h in chunks] == [
        False,
        True,
        False,
        False,
        False,
    ]
    assembled = next(h for h in trace.hops if h.kind == "llm.assembled")
    assert assembled.summary == "assembled tool_calls: get_weather(city=北京) (inferred)"
    assert assembled.payload["message"]["content"] == ""  # as streamed, not null
    assert assembled.payload["message"]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "北京"}'}  # fmt: skip


def test_an_empty_content_delta_is_labelled_as_content_not_as_a_role():
    chunks = [{"choices": [{"index": 0, "delta": {"content": ""}}]},
              {"choices": [{"index": 0, "delta": {"content": "晴"}, "finish_reason": None}]},
              {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]  # fmt: skip
    trace = merge_recordings([("model.jsonl", _log(_exchange(1, 100.1, {**ASK, "stream": True}, chunks=chunks)))])
    assert [h.summary for h in trace.hops if h.kind == "llm.chunk"][:2] == [
        "chunk 1: content += ''", "chunk 2: content += '晴'"
    ]  # fmt: skip


def test_a_delta_whose_tool_calls_is_not_a_list_is_a_label_not_a_traceback():
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}}]},
              {"choices": [{"index": 0, "delta": {"content": "晴"}, "finish_reason": "stop"}]}]  # fmt: skip
    text = _log(_exchange(1, 100.1, {**ASK, "stream": True}, chunks=chunks))
    trace = merge_recordings([("model.jsonl", text)])
    assert [h.summary for h in trace.hops if h.kind == "llm.chunk"][0] == "chunk 1: tool_calls is not a list (dict)"
    from flow.interop.importers import import_bytes

    assert import_bytes(text.encode(), name="model.jsonl").meta.answer == "晴"


def test_streamed_arguments_are_joined_once_and_cut_at_the_limit_of_one_value():
    from bench.merge_stream import streamed_recording
    from flow.trace.files import MAX_STRING_CHARS

    trace = merge_recordings([("model.jsonl", streamed_recording(3 * MAX_STRING_CHARS, 3000, per_event=3))])
    assembled = next(h for h in trace.hops if h.kind == "llm.assembled")
    arguments = assembled.payload["message"]["tool_calls"][0]["function"]["arguments"]
    assert len(arguments) == MAX_STRING_CHARS and set(arguments) == {"x"}
    assert "cut to the limit of one value: tool_calls[0].function.arguments: " in str(assembled.inferred)


def test_a_response_frame_with_a_null_id_loads():
    """A server that cannot read a request's id answers with "id": null: one such frame must not sink the trace."""
    null = {
        "direction": "server_to_client",
        "timestamp": 100.45,
        "message": {"jsonrpc": "2.0", "id": None, "result": {}},
    }
    mcp = _mcp_log("get_weather", {"city": "北京"}) + "\n" + json.dumps(null)
    trace = merge_recordings([("mcp.jsonl", mcp), ("model.jsonl", _model_log({"city": "北京"}))], app_exit_code=0)
    nulls = [h for h in trace.hops if h.kind == "mcp.response" and h.jsonrpc_id is None]
    assert len(nulls) == 1 and trace.meta.outcome == "ok"
    assert load_trace_text(trace.to_json()).hops[nulls[0].seq - 1].payload["id"] is None


def load_trace_text(text: str):
    from flow.trace.files import read_trace_bytes

    return read_trace_bytes(text.encode(), name="t.json")


def test_record_keeps_the_recordings_and_the_apps_exit_code_when_the_merge_refuses_them(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    out = tmp_path / "trace.json"
    bad = 'printf "not json\\n" > "$MCP_FLOW_RECORD_DIR/mcp-1.jsonl"; exit 3'
    proc = flow_cli("record", "--out", str(out), "--", "sh", "-c", bad, env={"TMPDIR": str(temp)})
    assert proc.returncode == 3, proc.stderr
    [folder] = list(temp.iterdir())
    assert sorted(p.name for p in folder.iterdir()) == ["mcp-1.jsonl", "model.jsonl"]
    lines = proc.stderr.splitlines()
    assert lines[-2].startswith("error: ") and "line 1: not JSON" in lines[-2]
    assert lines[-1].startswith(
        f"note: no trace was written; the recordings are kept in {folder} (python -m flow merge "
    )
    assert not out.exists()


def test_merge_conversation_0_is_refused_not_taken_for_the_last(tmp_path):
    model = tmp_path / "model.jsonl"
    model.write_text(_model_log({"city": "北京"}), encoding="utf-8")
    proc = flow_cli("merge", str(model), "-o", str(tmp_path / "t.json"), "--conversation", "0")
    assert proc.returncode == 2
    assert proc.stderr.endswith("conversation 0: the model recording holds 1 conversation (numbered from 1)\n")


def test_import_says_notes_and_validate_points_a_recording_to_import_or_merge(tmp_path):
    mcp, model = tmp_path / "mcp.jsonl", tmp_path / "model.jsonl"
    mcp.write_text(_mcp_log("get_weather", {"city": "北京"}), encoding="utf-8")
    model.write_text(_model_log({"city": "北京"}), encoding="utf-8")
    proc = flow_cli("import", str(mcp), "-o", str(tmp_path / "t.json"))
    assert proc.returncode == 0 and "not mapped" not in proc.stdout
    assert all(line.startswith("note: ") for line in proc.stdout.splitlines()[:-1])
    otlp = tmp_path / "spans.json"
    otlp.write_text(to_otlp_json(load_trace(tmp_path / "t.json")), encoding="utf-8")
    proc = flow_cli("validate", str(otlp), str(mcp), str(model))
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        f"{otlp}: not a trace but OpenTelemetry spans (OTLP/JSON): turn it into one with python -m flow import {otlp}",
        f"{mcp}: not a trace but a JSON-RPC log (an MCP proxy's recording, or another tool's): turn it into one with "
        f"python -m flow import {mcp}",
        f"{model}: not a trace but a recording of python -m flow proxy-model: turn it into one with python -m flow "
        f"merge {model}",
    ]


def test_an_answer_the_app_cannot_read_is_a_failed_run_and_one_too_large_to_record_is_not():
    unread = merge_recordings([("model.jsonl", _log(_exchange(1, 100.1, ASK, answer={"object": "chat.completion"})))])
    assert unread.meta.outcome == "error"
    assert unread.meta.error == "the model endpoint's answer cannot be read: it has no choices (choices: None)"
    lines = [json.loads(line) for line in _log(_exchange(1, 100.1, ASK)).splitlines()]
    body = next(line for line in lines if line.get("event") == "body")
    del body["body"]
    body["body_too_large"] = {"bytes": 2_000_000, "limit_bytes": 1_048_576, "start": "{"}
    unseen = merge_recordings([("model.jsonl", "\n".join(json.dumps(line) for line in lines))], app_exit_code=0)
    assert unseen.meta.outcome == "ok"  # the proxy could not keep it; the app may well have read it


RETRYING_APP = """
from openai import OpenAI

client = OpenAI(max_retries=2)  # the SDK's own retries: the same body again, numbered in x-stainless-retry-count
client.chat.completions.create(model="mock-error-500", messages=[{"role": "user", "content": "北京今天天气怎么样？"}])
"""


def test_the_openai_sdks_retries_recorded_are_one_call(tmp_path, upstream):
    app, out = tmp_path / "app.py", tmp_path / "trace.json"
    app.write_text(RETRYING_APP, encoding="utf-8")
    proc = flow_cli(
        "record", "--upstream", upstream, "--out", str(out), "--", PY, str(app), env={"OPENAI_API_KEY": KEY}
    )
    assert proc.returncode == 1, proc.stderr  # the SDK gave up and raised
    trace = load_trace(out)
    asked = [h for h in trace.hops if h.kind == "llm.request"]
    assert [(h.round, h.summary.rsplit(", ", 1)[-1]) for h in asked] == [
        (1, "0 tools"), (1, "retry 1 of the same call"), (1, "retry 2 of the same call")
    ]  # fmt: skip
    assert trace.meta.stats.get("model_calls") == 1 and "model calls 1 " in proc.stdout
    assert trace.meta.outcome == "error" and "HTTP 500" in str(trace.meta.error)


def test_a_question_sent_as_a_list_of_text_blocks_is_still_the_question():
    """Issue 43: an app that writes the user's message as content blocks (Anthropic's style, which Chat Completions
    takes too) still asked its question."""
    blocks = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "北京今天天气怎么样？"}]}],
    }
    trace = merge_recordings([("model.jsonl", _log(_exchange(1, 100.1, blocks)))])
    assert trace.meta.question == "北京今天天气怎么样？"
    assert trace.hops[0].kind == "user.message" and "北京今天天气怎么样？" in trace.hops[0].summary
