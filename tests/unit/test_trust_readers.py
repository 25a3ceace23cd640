"""One line, never a traceback: each hostile trace, log or argument found on main, named so a reader finds it.

The property test (test_trust_property.py) searches for more; these pin the cases measured in issue 12.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import flow.cli
from flow.capture.recorder import Recorder
from flow.interop.importers import import_bytes
from flow.interop.otlp import to_otlp_json
from flow.trace import hops
from flow.trace.files import TraceError, parse_trace, read_trace_bytes, save_trace
from flow.trace.model import Trace
from flow.trace.steps import Step
from flow.views.compare import summary_rows
from flow.views.table import hop_table, terminal_safe
from flow.views.viewer import viewer_bundle
from helpers import ROOT

SAMPLE = json.loads((ROOT / "sample_traces" / "beijing-mcp.json").read_text(encoding="utf-8"))


def mutated(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(SAMPLE))
    *parents, last = path
    target = data
    for key in parents:
        target = target[key]
    target[last] = value
    return data


def write(tmp_path: Path, data: Any, name: str = "hostile.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="ascii")  # NaN as NaN, a lone surrogate as its \\u escape
    return str(path)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = flow.cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def one_line_error(result: tuple[int, str, str], *expected: str) -> str:
    code, _, err = result
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, result
    for text in expected:
        assert text in err, err
    return err


# --- times --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 1e300])
def test_nan_infinite_or_out_of_range_times_are_refused_with_their_path(tmp_path, value):
    file = write(tmp_path, mutated(("hops", 4, "t_start_ms"), value))
    code, out, _ = cli("validate", file)
    assert code == 1 and "hops[4].t_start_ms:" in out
    one_line_error(cli("export", file, "--otlp-json", str(tmp_path / "o.json")), "hops[4].t_start_ms")


@pytest.mark.parametrize("started_at", ["9999-12-31T23:59:59+00:00", "0001-01-01T00:00:00+14:00", "2026-13-45", ""])
def test_export_of_a_trace_that_loads_always_gives_spans_whatever_its_start_time(tmp_path, started_at):
    data = mutated(("meta", "started_at"), started_at)
    data["hops"][-1]["t_end_ms"] = 1e12  # the furthest a hop may lie from the start
    file = write(tmp_path, data)
    code, _, err = cli("export", file, "--otlp-json", str(tmp_path / "o.json"))
    assert code == 0 and err == "", err
    assert json.loads((tmp_path / "o.json").read_text())["resourceSpans"]
    to_otlp_json(read_trace_bytes(Path(file).read_bytes()))  # what the Step page's OTLP download calls


# --- lone surrogates ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        ("meta", "question"),
        ("hops", 3, "summary"),
        ("hops", 10, "payload", "body", "id"),
        ("meta", "settings", "\ud800key"),
    ],
    ids=str,
)
@pytest.mark.parametrize(
    "command",
    [
        ("validate",),
        ("show",),
        ("show", "--hop", "2"),
        ("render", "--format", "svg"),
        ("render", "--format", "html"),
        ("render", "--format", "mermaid"),
        ("export", "--otlp-json", "out.json"),
        ("import",),
        ("replay", "--out", "r.json"),
    ],
)
def test_a_lone_surrogate_is_refused_by_every_command_with_its_path(tmp_path, path, command):
    file = write(tmp_path, mutated(path, "bad \udfff text"))
    argv = [command[0], file, *command[1:]]
    if command[0] in ("render", "import"):
        argv += ["--out", str(tmp_path / "out")]
    result = cli(*argv)
    if command[0] == "validate":
        assert result[0] == 1 and "lone surrogate" in result[1]
    else:
        one_line_error(result, "lone surrogate")


def test_a_lone_surrogate_in_an_upload_is_one_line_for_the_page():
    data = json.dumps(mutated(("hops", 2, "payload", "params"), {"x": "\ud83d"})).encode()
    with pytest.raises(TraceError, match=r"hops\[2\]\.payload\.params\.x: text with a lone surrogate"):
        import_bytes(data, name="upload.json")


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--question", "\udcff北京"],
        ["show", "/tmp/\udcff.json"],
        ["call", "get_weather", "--args", '{"city": "\\ud800"}'],
        ["run", "--script", '[{"answer": "\\udfff"}]'],
    ],
)
def test_arguments_that_are_not_utf8_text_are_one_line(argv):
    one_line_error(cli(*argv))


def test_the_recorder_never_writes_a_lone_surrogate(tmp_path):
    rec = Recorder()
    # what json.loads makes of a model's "\ud800" escape: pydantic-core refuses it, the json module does not
    answered = hops.model_response({"body": {"content": "a\ud800b"}}, step=Step.MODEL_ANSWER, summary="a\ud800b")
    hop = rec.add(answered, wire_text=b'{"body": {"content": "a\\ud800b"}}')
    assert hop.payload == {"body": {"content": "a\ufffdb"}} and hop.summary == "a\ufffdb"
    hop = rec.add(hops.answer("\udc80", empty_line="(empty)"))
    assert hop.payload == {"content": "\ufffd"}
    trace = Trace.model_validate({**SAMPLE, "hops": [h.model_dump() for h in rec.hops]}, strict=False)
    trace.hops[0].seq, trace.hops[1].seq = 1, 2
    trace.meta.question = "built in code \udfff"
    loaded = read_trace_bytes(save_trace(trace, tmp_path / "t.json").read_bytes())
    assert loaded.meta.question == "built in code \ufffd"


# --- usage and stats ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        (("hops", 10, "usage", "prompt_tokens"), "x", "hops[10].usage.prompt_tokens"),
        (("hops", 10, "usage", "total_tokens"), -5, "hops[10].usage.total_tokens"),
        (("hops", 10, "usage"), [1, 2], "hops[10].usage"),
        (("meta", "stats", "elapsed_ms"), "slow", "meta.stats.elapsed_ms"),
        (("meta", "stats", "prompt_tokens"), {"n": 1}, "meta.stats.prompt_tokens"),
        (("meta", "stats", "elapsed_ms"), float("nan"), "meta.stats.elapsed_ms"),
    ],
)
def test_non_numeric_usage_or_stats_are_refused_with_their_path(tmp_path, path, value, where):
    assert SAMPLE["hops"][10]["usage"]  # the sample's first model response
    file = write(tmp_path, mutated(path, value))
    one_line_error(cli("show", file), where)
    one_line_error(cli("import", file, "--out", str(tmp_path / "t.json")), where)
    with pytest.raises(TraceError, match=re.escape(f"upload.json: {where}")):
        import_bytes(Path(file).read_bytes(), name="upload.json")  # what the Compare page's upload calls


def test_a_model_that_reports_odd_usage_still_records_a_trace_that_loads():
    rec = Recorder()
    usage = {
        "prompt_tokens": "12",
        "completion_tokens": 3.5,
        "total_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    hop = rec.add(hops.model_response({"body": {"usage": usage}}, step=Step.MODEL_ANSWER, summary="odd usage"))
    assert hop.usage == {"total_tokens": 7}
    assert parse_trace({**SAMPLE, "hops": [hop.model_dump()]}).hops[0].usage == {"total_tokens": 7}


def test_compare_figures_of_a_trace_with_extra_usage_fields():
    data = mutated(("hops", 10, "usage", "prompt_tokens_details"), {"cached_tokens": 3})
    trace = parse_trace(data)
    assert summary_rows(trace, trace)[0]["A"] == len(trace.hops)


# --- a trace without hops -----------------------------------------------------------------------------------


def _upload_empty_trace() -> AppTest:
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60).run()
    at.radio(key="lang_choice").set_value("en").run()
    at.radio(key="step_source_en").set_value("upload").run()
    data = json.dumps({**SAMPLE, "hops": []}).encode()
    at.file_uploader(key="step_upload").set_value(("empty.json", data, "application/json")).run()
    return at


def test_the_step_page_says_in_one_line_that_a_trace_has_no_hops():
    at = _upload_empty_trace()
    assert not at.exception and not at.error
    assert any("no hops" in i.value for i in at.info)


def test_the_hops_page_says_in_one_line_that_a_trace_has_no_hops():
    at = _upload_empty_trace()
    upload = next(k for k in at.session_state["app"].loaded if k.startswith("upload:"))
    at.switch_page("app_pages/hops.py").run()
    at.selectbox(key="hops_trace_en").set_value(upload).run()
    assert not at.exception and not at.error
    assert any("no hops" in i.value for i in at.info)


def test_commands_on_a_trace_without_hops(tmp_path):
    file = write(tmp_path, {**SAMPLE, "hops": []})
    assert cli("validate", file)[0] == 0
    assert cli("show", file)[0] == 0
    one_line_error(cli("show", file, "--hop", "1"), "no hops")
    for fmt in ("dot", "svg", "mermaid", "html"):
        assert cli("render", file, "--format", fmt, "--out", str(tmp_path / f"t.{fmt}"))[0] == 0
    assert cli("export", file, "--otlp-json", str(tmp_path / "o.json"))[0] == 0


# --- JSON-RPC logs ------------------------------------------------------------------------------------------


def _log(*frames: Any, **entry: Any) -> bytes:
    return "\n".join(json.dumps({"direction": "outgoing", **entry, "message": f}) for f in frames).encode()


@pytest.mark.parametrize(
    ("log", "message"),
    [
        (
            _log({"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}),
            "line 1: a JSON-RPC id is a string or an integer",
        ),
        (_log({"jsonrpc": "2.0", "id": [1], "result": {}}), "line 1: a JSON-RPC id is a string or an integer"),
        (_log({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}), "line 1: a JSON-RPC id"),
        (_log({"jsonrpc": "2.0", "id": 1, "method": {"name": "tools/list"}}), "line 1: a JSON-RPC method is a string"),
        (_log({"jsonrpc": "2.0", "method": ["x"]}), "line 1: a JSON-RPC method is a string"),
        (
            "\n".join(
                [
                    '{"direction": "outgoing", "timestamp": NaN, "message": {"jsonrpc": "2.0", "method": "ping", '
                    '"id": 1}}'
                ]
            ).encode(),
            "line 1: timestamp nan is neither",
        ),
        (
            _log({"jsonrpc": "2.0", "method": "ping", "id": 1}, timestamp=1e300),
            "line 1: timestamp 1e+300 is not between",
        ),
        (
            _log({"jsonrpc": "2.0", "method": "ping", "id": 1}, timestamp="9999-12-31T23:59:59-14:00"),
            "line 1: timestamp",
        ),
        (
            _log({"jsonrpc": "2.0", "method": "ping", "id": 1, "params": {"x": "\ud800"}}),
            "line 1: message.params.x: text with a lone surrogate",
        ),
    ],
)
def test_a_hostile_jsonrpc_log_is_one_line(log, message):
    with pytest.raises(TraceError, match="^" + re.escape(f"log.jsonl {message}")):
        import_bytes(log, name="log.jsonl", fmt="jsonrpc-jsonl")


def test_a_string_meta_or_an_object_progress_token_is_imported_as_it_is():
    log = _log(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "_meta": "not an object"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {"progressToken": {"a": 1}}}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": [1], "progress": "x"}},
    )
    trace = import_bytes(log, name="log.jsonl")
    assert [h.kind for h in trace.hops] == ["mcp.request", "mcp.request", "mcp.notification"]
    to_otlp_json(trace)


def test_two_timestamps_years_apart_are_one_line():
    log = (
        _log({"jsonrpc": "2.0", "id": 1, "method": "ping"}, timestamp="1970-01-02T00:00:00Z")
        + b"\n"
        + _log({"jsonrpc": "2.0", "id": 1, "result": {}}, timestamp="9000-01-01T00:00:00Z", direction="incoming")
    )
    with pytest.raises(TraceError, match=r"^log.jsonl: hop 2 \(mcp.response\) would have t_end_ms"):
        import_bytes(log, name="log.jsonl")


def test_an_otlp_file_with_odd_values_is_one_line_or_a_trace():
    spans = json.loads(to_otlp_json(parse_trace(SAMPLE)))
    span = spans["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["startTimeUnixNano"] = "1" * 5000
    with pytest.raises(TraceError, match="not a valid OTLP span"):
        import_bytes(json.dumps(spans).encode(), name="spans.json")
    span["startTimeUnixNano"] = 1e30
    with pytest.raises(TraceError, match="not a valid OTLP span"):
        import_bytes(json.dumps(spans).encode(), name="spans.json")
    spans["resourceSpans"][0]["resource"] = "not an object"
    spans["resourceSpans"][0]["scopeSpans"][0]["spans"] = [
        s for s in spans["resourceSpans"][0]["scopeSpans"][0]["spans"] if s is not span
    ]
    assert import_bytes(json.dumps(spans).encode(), name="spans.json").hops


# --- control characters -------------------------------------------------------------------------------------


def test_show_never_prints_escape_or_bell_from_a_trace(tmp_path):
    evil = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eexe.txt"
    data = mutated(("hops", 3, "summary"), evil)
    data["meta"]["question"] = evil
    data["meta"]["model"]["name"] = evil
    data["meta"]["error"] = evil
    data["hops"][3]["payload"]["params"] = {"x": evil}
    file = write(tmp_path, data)
    for argv in (("show", file), ("show", file, "--hop", "4"), ("show", file, "--step", "2")):
        code, out, err = cli(*argv)
        assert code == 0 and err == ""
        assert not any(c in out for c in "\x1b\x07\x9b\u202e"), out
        assert "\\x1b]0;pwned\\x07" in out
    assert "\x1b" not in hop_table(parse_trace(data))
    assert terminal_safe("a\tb\nc\x00") == "a\tb\nc\\x00"


def test_a_control_character_in_a_refused_file_is_escaped_in_the_error(tmp_path):
    file = write(tmp_path, mutated(("meta", "title"), {"\x1b[2J": 5}))
    code, out, _ = cli("validate", file)
    assert code == 1 and "\x1b" not in out and "\\x1b[2J" in out


def test_the_step_page_steps_through_a_trace_whose_wire_bodies_hold_anything():
    """What a provider or server sent is kept as it came, whatever it is: every view of it is total."""
    data = mutated(("hops", 10, "payload", "body", "choices"), {"0": {"message": 5}})
    data["hops"][9]["payload"]["body"]["messages"] = [{"role": 5}, {"role": "tool", "tool_call_id": [1]}]
    data["hops"][9]["payload"]["url"] = "http://[::1/v1"
    data["hops"][0]["payload"]["tools"] = [{}, {"function": "x"}, {"name": 3}]
    data["hops"][3]["summary"] = "\x1b[2J\x07 ![x](http://example.invalid/a.png)"
    data["hops"][12]["payload"]["params"] = {"name": None, "arguments": "not an object"}
    data["hops"][15]["payload"]["result"] = {"isError": "yes", "content": 5}
    data["hops"][18]["usage"]["completion_tokens_details"] = {"reasoning_tokens": "many"}
    data["hops"][8]["payload"]["mcp"][0]["inputSchema"] = json.loads("[" * 150 + "]" * 150)
    data["meta"]["started_at"] = "9999-12-31T23:59:59+00:00"
    to_otlp_json(parse_trace(data))  # the page's OTLP download
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60).run()
    at.radio(key="lang_choice").set_value("en").run()
    at.radio(key="step_source_en").set_value("upload").run()
    at.file_uploader(key="step_upload").set_value(("odd.json", json.dumps(data).encode(), "application/json")).run()
    assert not at.exception and not at.error, at.exception
    for lang in ("en", "zh"):  # what the page's client-side viewer is given: every hop, drawn and explained
        bundle = viewer_bundle(parse_trace(data), lang=lang)
        json.loads(json.dumps(bundle, allow_nan=False))


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        (("hops", 9, "payload", "body", "messages"), 5, "hops[9].payload.body.messages"),
        (("hops", 0, "payload", "tools"), [None, 3, {"function": "x"}], "hops[0].payload.tools[0]"),
        (("hops", 12, "payload", "params"), "not an object", "hops[12].payload.params"),
        (("hops", 13, "progress_of"), [1], "hops[13].progress_of"),
        (("hops", 8, "payload"), json.loads("[" * 150 + "]" * 150), "hops[8].payload"),
    ],
)
def test_a_payload_of_the_wrong_shape_for_its_kind_is_one_line_everywhere(tmp_path, path, value, where):
    data = mutated(path, value)
    one_line_error(cli("show", write(tmp_path, data)), where)
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60).run()
    at.radio(key="lang_choice").set_value("en").run()
    at.radio(key="step_source_en").set_value("upload").run()
    at.file_uploader(key="step_upload").set_value(("odd.json", json.dumps(data).encode(), "application/json")).run()
    assert not at.exception
    # The line is shown as text: its brackets escaped for Markdown, the characters the same.
    shown = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]
    assert any(where in line and "\n" not in line for line in shown), shown


# --- nesting ------------------------------------------------------------------------------------------------


def test_a_file_nested_too_deeply_is_refused_with_where_it_starts(tmp_path):
    file = write(tmp_path, mutated(("hops", 2, "payload", "params"), json.loads("[" * 300 + "]" * 300)))
    code, out, _ = cli("validate", file)
    assert code == 1 and "hops[2].payload.params…: nested more than 254 levels deep" in out and len(out) < 250


def test_what_the_recorder_or_an_import_holds_nested_too_deeply_is_cut_so_the_file_loads(tmp_path):
    deep = json.loads("[" * 400 + "]" * 400)
    rec = Recorder()
    rec.add(hops.question("q"))
    rec.add(hops.model_response({"body": deep}, step=Step.MODEL_ANSWER, summary="deep"), wire_text=json.dumps(deep))
    trace = parse_trace({**SAMPLE, "hops": []}).model_copy(update={"hops": rec.hops})
    loaded = read_trace_bytes(save_trace(trace, tmp_path / "deep.json").read_bytes())
    assert "left out" in json.dumps(loaded.hops[1].payload)
    built = parse_trace({**SAMPLE, "hops": []}).model_copy(
        update={"hops": [rec.hops[1].model_copy(update={"seq": 1, "payload": {"body": deep}})]}
    )  # built in code, past the recorder
    to_otlp_json(built)
    assert "left out" in json.dumps(read_trace_bytes(built.to_json().encode()).hops[0].payload)
    spans = json.loads(to_otlp_json(parse_trace(SAMPLE)))
    for span in spans["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.tool.call.arguments":
                attribute["value"] = {"stringValue": "[" * 400 + "]" * 400}
    assert import_bytes(json.dumps(spans).encode(), name="spans.json").hops
