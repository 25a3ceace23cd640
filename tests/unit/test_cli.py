"""The command line: `flow.cli.main` called in this process with real files and sockets, and a separate process
where the process is the point (the real entry point's exit code, what importing loads, a served port)."""

from __future__ import annotations

import json
from pathlib import PurePath

import pytest

from flow.cli import main
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions
from flow.servers.spec import ServerSpec
from flow.trace.files import json_schema, load_trace, read_trace_bytes, save_trace
from helpers import ROOT, Ran, run_flow_sync


@pytest.mark.parametrize("mode", ["mcp", "direct"])
def test_run_prints_answer_and_summary_and_writes_the_trace(tmp_path, cli, mode):
    out = tmp_path / f"beijing-{mode}.json"
    ran = cli("run", "--mode", mode, "--question", "北京今天天气怎么样？", "--out", str(out))
    assert ran.returncode == 0, ran.stderr
    answer, happened, summary = ran.stdout.strip().splitlines()
    assert answer.startswith("北京今天晴")
    assert happened.startswith("what happened: The model called get_weather(city=北京)")
    assert summary.startswith("hops ") and "model calls 2" in summary and "tool calls 1" in summary and " ms" in summary
    assert summary.endswith(f"→ {out}")
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert trace["format_version"] == 1 and trace["meta"]["mode"] == mode
    assert trace["meta"]["question"] == "北京今天天气怎么样？"
    for hop in trace["hops"]:
        for key in (
            "seq",
            "step",
            "phase",
            "source",
            "target",
            "kind",
            "payload",
            "t_start_ms",
            "t_end_ms",
            "bytes",
            "jsonrpc_id",
            "tool_call_id",
        ):
            assert key in hop
    assert ran.stderr == ""


def test_show_prints_a_hop_table(tmp_path, cli):
    out = tmp_path / "t.json"
    assert cli("run", "--transport", "memory", "--out", str(out)).returncode == 0
    ran = cli("show", str(out))
    assert ran.returncode == 0
    lines = ran.stdout.splitlines()
    assert lines[1].split()[:4] == ["seq", "step", "phase", "from"]
    trace = json.loads(out.read_text(encoding="utf-8"))
    assert len([ln for ln in lines if ln[:4].strip().isdigit()]) == len(trace["hops"])
    assert any("tools/call get_weather(city=北京)" in ln for ln in lines)


def test_run_says_what_happened_when_the_model_sends_broken_arguments(tmp_path, cli):
    ran = cli("run", "--transport", "memory", "--model", "mock-bad-json", "--out", str(tmp_path / "t.json"))
    happened = next(line for line in ran.stdout.splitlines() if line.startswith("what happened: "))
    assert happened.startswith("what happened: The model sent arguments for get_weather that are not valid JSON")
    assert "the app called nothing and sent the error back" in happened and "the model tried again" in happened


def test_show_of_a_broken_file_is_one_line(tmp_path, cli):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format_version": 1, "hops": [', encoding="utf-8")
    ran = cli("show", str(bad))
    assert ran.returncode == 2 and ran.stderr.startswith("error: ") and "Traceback" not in ran.stderr
    ran = cli("show", str(tmp_path / "missing.json"))
    assert ran.returncode == 2 and "no such file" in ran.stderr


def test_an_out_that_cannot_be_written_is_one_plain_line_and_leaves_nothing_behind(tmp_path, cli, trace_file):
    folder = tmp_path / "b1"
    folder.mkdir()
    for args in (["run", "--transport", "memory"], ["render", str(trace_file), "-f", "mermaid"]):
        ran = cli(*args, "-o", str(folder))
        assert (ran.returncode, ran.stderr) == (2, f"error: {folder}: is a folder: name a file to write\n")
    ran = cli("run", "--transport", "memory", "-o", "/proc/t.json")
    assert ran.returncode == 2 and ran.stderr.startswith("error: /proc/t.json: cannot be written: ")
    assert ran.stderr.count("\n") == 1 and "Errno" not in ran.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b1", "t.json"] and not any(folder.iterdir())


def test_every_command_says_what_it_does_on_its_help_page_and_runs_a_handler(capsys):
    from flow.cli import parser, subcommands

    commands = subcommands(parser())
    assert len(commands) == 20 and all(callable(sub.get_default("run")) for sub in commands.values())
    for command in commands:
        with pytest.raises(SystemExit) as done:
            main([command, "--help"])
        page = capsys.readouterr().out
        assert done.value.code == 0
        said = page.split("\n\n")[1]  # after the usage block, before the arguments
        assert not said.startswith(("options:", "positional arguments:")) and len(said) > 20, command


@pytest.fixture
def trace_file(tmp_path):
    return save_trace(run_flow_sync().trace, tmp_path / "t.json")


def test_run_out_dash_writes_the_trace_to_stdout_and_its_own_lines_to_stderr(tmp_path, cli):
    ran = cli("run", "--transport", "memory", "-o", "-")
    assert ran.returncode == 0, ran.stderr
    trace = read_trace_bytes(ran.stdout.encode("utf-8"))  # stdout is the trace file, and nothing else
    assert trace.meta.outcome == "ok" and trace.meta.answer is not None and trace.meta.answer.startswith("北京今天晴")

    answer, happened, summary = ran.stderr.splitlines()
    assert answer == trace.meta.answer and summary.endswith("→ standard output")
    assert happened.startswith("what happened: ") and happened.endswith("the model answered (hop 19).")
    assert not (tmp_path / "-").exists() and not (ROOT / "-").exists()


@pytest.mark.parametrize("command", [["import", "--format", "jsonrpc-jsonl"], ["replay"]])
def test_commands_that_write_a_trace_write_it_to_stdout_for_dash(tmp_path, cli, trace_file, command):
    source = trace_file
    if command[0] == "import":
        source = tmp_path / "log.jsonl"
        source.write_text(
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n'
            '{"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}\n',
            encoding="utf-8",
        )
    ran = cli(command[0], str(source), *command[1:], "--out", "-")
    assert ran.returncode == 0, ran.stderr
    assert read_trace_bytes(ran.stdout.encode("utf-8")).hops
    assert ran.stderr.splitlines()[-1].endswith("→ standard output")


@pytest.mark.parametrize("url", ["https://[evil]/v1", "ftp://example.com/v1", "http://example.com:99999/v1"])
def test_a_base_url_no_request_can_go_to_is_one_usage_line_and_nothing_is_sent(tmp_path, cli, url):
    out = tmp_path / "t.json"
    ran = cli("run", "--base-url", url, "--out", str(out))
    assert ran.returncode == 2 and ran.stdout == "" and not out.exists()
    assert ran.stderr.startswith("error: the model endpoint's base URL ") and ran.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--mcp-timeout", "-1"],
        ["run", "--model-timeout", "0"],
        ["run", "--mcp-timeout", "nan"],
        ["call", "get_weather", "--timeout", "0"],
        ["tools", "--timeout", "inf"],
    ],
)
def test_a_timeout_that_is_no_time_is_a_usage_error_not_a_failed_run(tmp_path, cli, args):
    out = tmp_path / "t.json"
    ran = cli(*args, "--out", str(out))
    assert ran.returncode == 2 and not out.exists(), ran
    assert ran.stderr.startswith(f"error: {args[-2]} ") and "give seconds above 0" in ran.stderr


def test_the_check_of_a_base_url_lives_in_the_model_config_so_every_caller_gets_one_line():
    import flow

    with pytest.raises(flow.FlowError) as caught:  # what the Run page builds from what was typed
        flow.ModelConfig(backend="openai", model="m", base_url="https://user:sk-secret@[evil]/v1?api-key=k")
    assert str(caught.value) == (
        'the model endpoint\'s base URL "https://[redacted]@[evil]/v1" cannot be used: its host is in brackets '
        "but is not an IPv6 address"
    )
    assert "sk-secret" not in caught.value.line("zh") and "\n" not in caught.value.line("zh")
    assert flow.check_base_url(" http://[::1]:8080/v1 ") == "http://[::1]:8080/v1"
    assert flow.notes_before_sending("https://[evil]/v1", RunOptions()) == []  # no preset's, and no exception


def test_a_model_name_that_is_not_a_mocks_says_where_it_goes_before_it_is_sent(cli, monkeypatch):
    import flow

    # With no base URL anywhere, a name not starting with "mock" goes to OpenAI: the one line says so.
    config = ModelConfig.from_env(model="gpt-4o-mini")
    assert flow.sending_line(config.describe(), "en") == (
        "sending the model requests to https://api.openai.com/v1 (model gpt-4o-mini, with no API key)"
    )
    assert flow.sending_line(ModelConfig.from_env(model="mock").describe(), "en") == (
        "the offline mock model answers (model mock): no request leaves this machine"
    )
    # The run prints it first, before the request that fails (nothing listens on port 9).
    ran = cli("run", "--model", "gpt-x", "--base-url", "http://127.0.0.1:9/v1", "--transport", "memory", "-o", "-")
    assert ran.returncode == 1
    assert (
        ran.stderr.splitlines()[0]
        == "sending the model requests to http://127.0.0.1:9/v1 (model gpt-x, with no API key)"
    )
    assert ran.stderr.splitlines()[1].startswith("error: cannot reach the model endpoint")
    # A mock's name stays offline, and nothing more is said.
    mock = cli("run", "--transport", "memory", "-o", "-")
    assert mock.returncode == 0 and "sending" not in mock.stderr


def test_call_lists_the_tools_in_step_2_so_no_tools_list_of_the_sdks_lands_in_steps_6_and_7(cli):
    ran = cli("call", "get_weather", "--args", '{"city": "北京"}', "-o", "-")
    assert ran.returncode == 0, ran.stderr
    frames = [h for h in read_trace_bytes(ran.stdout.encode("utf-8")).hops if h.kind == "mcp.request"]
    assert [(h.payload["method"], h.step) for h in frames] == [
        ("initialize", 2),
        ("tools/list", 2),
        ("tools/call", 6),
    ]


@pytest.mark.parametrize("fmt", ["dot", "mermaid", "html"])
def test_render_to_stdout_is_the_file_it_would_write(tmp_path, cli, trace_file, fmt):
    out = tmp_path / f"t.{fmt}"
    assert cli("render", str(trace_file), "-f", fmt, "-o", str(out)) == Ran(0, f"{out}\n", "")
    ran = cli("render", str(trace_file), "-f", fmt, "-o", "-")
    assert ran == Ran(0, out.read_text(encoding="utf-8"), "")


def test_render_png_to_stdout_is_binary(tmp_path, capsysbinary, trace_file):
    assert main(["render", str(trace_file), "-f", "png", "-o", "-"]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.startswith(b"\x89PNG\r\n\x1a\n") and captured.err == b""


def test_export_and_schema_to_stdout(cli, trace_file):
    from flow.interop.otlp import to_otlp_json
    from flow.views.bundle_types import bundle_schema

    assert cli("export", str(trace_file), "--otlp-json", "-") == Ran(0, to_otlp_json(load_trace(trace_file)), "")
    assert cli("schema", "-o", "-") == Ran(0, json.dumps(json_schema(), ensure_ascii=False, indent=2) + "\n", "")
    bundle = json.dumps(bundle_schema(), ensure_ascii=False, indent=2) + "\n"
    assert cli("schema", "--viewer-bundle", "-o", "-") == Ran(0, bundle, "")


def test_the_cli_records_what_the_builder_builds(tmp_path, cli):
    out = tmp_path / "t.json"
    args = [
        "run",
        "--transport",
        "memory",
        "--no-parallel",
        "--max-rounds",
        "2",
        "--tool-choice",
        "required",
        "--mcp-timeout",
        "4",
        "--resource",
        "weather://cities",
        "--prompt",
        "weather_report",
        "--prompt-arg",
        "city=上海",
    ]
    assert cli(*args, "--out", str(out)).returncode == 0
    built = RunOptions.build(
        server=ServerSpec(),
        transport="memory",
        parallel=False,
        max_rounds=2,
        tool_choice="required",
        mcp_timeout_s=4,
        resources=["weather://cities"],
        prompt="weather_report",
        prompt_args={"city": "上海"},
    )
    assert load_trace(out).meta.settings == json.loads(json.dumps(built.settings()))


def test_public_surface_is_what_all_says():
    import flow

    # The names are imported on first use; each one named in __all__ must resolve, and only those do.
    assert sorted(flow.__all__) == sorted(flow._HOME)
    assert all(
        getattr(flow, name).__module__ == flow._HOME[name]
        for name in flow.__all__
        if getattr(getattr(flow, name), "__module__", "typing") != "typing"  # a Literal alias says typing
        and not isinstance(getattr(flow, name), (int, list, PurePath))  # values: no module of their own
    )
    assert not hasattr(flow, "no_such_name")


def test_run_says_so_when_the_model_answers_with_nothing(tmp_path, cli):
    out = tmp_path / "empty.json"
    ran = cli("run", "--model", "mock-empty", "--question", "北京今天天气怎么样？", "--out", str(out))
    assert ran.returncode == 0, ran.stderr
    answer, happened, summary = ran.stdout.strip().splitlines()
    assert answer == "(the model returned an empty answer)" and "empty answer" in summary
    assert happened.endswith("the model's answer was empty (hop 19).")


def test_no_adapt_sends_the_backfill_as_the_model_wrote_it(tmp_path, cli):
    out = tmp_path / "raw.json"
    assert cli("run", "--no-adapt", "--question", "北京今天天气怎么样？", "--out", str(out)).returncode == 0
    trace = load_trace(out)
    backfill = [h for h in trace.hops if h.kind == "llm.request"][-1]
    assistant = next(m for m in backfill.payload["body"]["messages"] if m["role"] == "assistant")
    assert assistant["content"] is None and "adapted" not in backfill.payload
    assert trace.meta.settings["adapt"] is False
