"""Trace files that last: schema, versions, validation, and bad input that never crashes."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flow.trace import hops
from flow.trace.files import MAX_TRACE_BYTES, TraceError, json_schema, load_trace, parse_trace, read_trace_bytes
from flow.trace.model import FORMAT_VERSION, KINDS, Hop, Trace
from flow.trace.payloads import PAYLOAD_TYPES, payload_of, payload_problem
from flow.trace.steps import STEPS, Step, answer_step
from helpers import ROOT

SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))
SAMPLE = json.loads((ROOT / "sample_traces" / "beijing-mcp.json").read_text(encoding="utf-8"))


def test_committed_schema_is_the_one_the_code_generates():
    committed = json.loads((ROOT / "schema" / "trace.schema.json").read_text(encoding="utf-8"))
    assert committed == json_schema(), "run: python -m flow schema"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_sample_satisfies_the_json_schema(path):
    jsonschema.Draft202012Validator(json_schema()).validate(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "data").glob("trace-format-v*.json")), ids=lambda p: p.stem)
def test_every_past_format_version_still_loads(path):
    version = int(path.stem.rsplit("v", 1)[1])
    assert json.loads(path.read_text(encoding="utf-8"))["format_version"] == version <= FORMAT_VERSION
    trace = load_trace(path)
    assert trace.hops and trace.meta.question


def test_a_file_from_a_newer_version_gets_a_clear_message():
    newer = dict(SAMPLE, format_version=FORMAT_VERSION + 1)
    with pytest.raises(TraceError, match="written by a newer version"):
        read_trace_bytes(json.dumps(newer).encode(), name="new.json")


def test_unknown_extra_fields_are_tolerated_and_kept():
    data = json.loads(json.dumps(SAMPLE))
    data["from_the_future"] = {"x": 1}
    data["meta"]["colour"] = "blue"
    data["hops"][0]["annotation"] = "hello"
    trace = read_trace_bytes(json.dumps(data).encode())
    assert trace.model_dump()["hops"][0]["annotation"] == "hello"


def _mutate(path_to_value, value):
    data = json.loads(json.dumps(SAMPLE))
    *parents, last = path_to_value
    target = data
    for key in parents:
        target = target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "the file is empty"),
        (b"   \n", "the file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a text file"),
        (b'{"format_version": 1, "meta": {"mode": "mcp"', "ends too early (truncated?)"),
        (b"not json at all", "not valid JSON"),
        (b"[1, 2, 3]", "a trace is a JSON object, got an array"),
        (b'"a string"', "got a string"),
        (b"[" * 50_000, "nested too deeply"),
        (b'{"meta": {}}', "format_version: missing"),
        (_mutate(["hops", 3, "seq"], 99), "hops[3].seq: out of order (expected 4, got 99)"),
        (_mutate(["hops", 2, "source"], "database"), "hops[2].source: unknown actor 'database'"),
        (_mutate(["hops", 11, "tool_call_id"], None), "hops[11].tool_call_id: missing"),
        (_mutate(["hops", 4, "kind"], "telepathy"), "hops[4].kind: unknown kind 'telepathy'"),
        (_mutate(["meta", "question"], KeyError), "meta.question: missing"),
        (_mutate(["hops"], {"a": 1}), "hops: Input should be a valid list"),
        (_mutate(["meta", "note"], {"\n": None}), "meta.note.\\n: Input should be a valid string"),
    ],
)
def test_bad_input_is_one_clear_line(raw, message):
    with pytest.raises(TraceError) as caught:
        read_trace_bytes(raw, name="upload.json")
    text = str(caught.value)
    assert text.startswith("upload.json: ") and message in text and "\n" not in text


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "huge.json"
    with open(big, "wb") as f:
        f.truncate(200 * 1024 * 1024)  # sparse: costs no disk and would cost 200 MB to read
    with pytest.raises(TraceError, match=f"over the {MAX_TRACE_BYTES // 2**20} MiB limit"):
        load_trace(big)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_random_input_only_ever_raises_trace_error(raw):
    try:
        assert isinstance(read_trace_bytes(raw), Trace)
    except TraceError:
        pass


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            yield from _paths(v, (*prefix, i))


SAMPLE_PATHS = [p for p in _paths(SAMPLE) if p]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLE_PATHS), json_values | st.just(KeyError), st.integers(min_value=0, max_value=40))
def test_mutated_samples_only_ever_raise_trace_error(path, value, cut):
    raw = _mutate(list(path), value)
    for candidate in (raw, raw[: len(raw) * cut // 40]):
        try:
            assert isinstance(read_trace_bytes(candidate), Trace)
        except TraceError as exc:
            assert "\n" not in str(exc)


def test_a_recorded_hop_is_the_hop_validation_would_build():
    from flow.capture.recorder import Recorder

    rec = Recorder()
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather"}}
    hop = rec.add(hops.frame(call, source="mcp_client", target="mcp_server", step=Step.CALL_TOOL))
    again = Hop.model_validate(hop.model_dump())
    assert hop == again and hop.model_fields_set == again.model_fields_set
    assert hop.model_extra == again.model_extra == {}
    assert list(hop.model_dump()) == [f for f in Hop.model_fields if f not in OPTIONAL_HOP_FIELDS]
    rec.restep(hop, Step.TOOL_RESULT)
    assert (hop.step, hop.phase) == (7, "execute")


OPTIONAL_HOP_FIELDS = ("clipped", "scripted", "progress_of", "inferred", "session")


# --- the Step table -------------------------------------------------------------------------------------------


def test_the_step_table_covers_every_step_0_to_10_and_its_wording_too():
    from flow.text.names import STEP_NAMES
    from flow.text.teaching import STEP_TEXTS

    assert [int(s) for s in Step] == list(range(11))
    assert set(STEPS) == set(STEP_NAMES) == set(STEP_TEXTS) == set(Step)
    assert [STEPS[s].phase for s in Step] == [
        "prepare",
        "request",
        "request",
        "request",
        "decision",
        "execute",
        "execute",
        "execute",
        "backfill",
        "answer",
        "answer",
    ]
    assert answer_step(6) is Step.TOOL_RESULT and answer_step(Step.LIST_TOOLS) is Step.LIST_TOOLS
    assert answer_step(None) is None
    assert [s for s in Step if STEPS[s].asks_model] == [Step.ASK_MODEL, Step.BACKFILL]


def test_a_step_is_a_number_in_the_file_and_a_step_in_memory(tmp_path):
    trace = load_trace(SAMPLES[0])
    assert all(h.step is None or type(h.step) is Step for h in trace.hops)
    assert json.loads(trace.to_json())["hops"][1]["step"] == 1
    with pytest.raises(TraceError, match=r"^upload.json: hops\[3\].step: 11 is not a step of the flow \(0-10\)$"):
        read_trace_bytes(_mutate(["hops", 3, "step"], 11), name="upload.json")


# --- typed payloads -------------------------------------------------------------------------------------------


def test_every_kind_has_a_payload_type_and_every_hop_field_is_in_the_schema():
    schema = json_schema()
    hop_schema = schema["$defs"]["Hop"]
    assert set(PAYLOAD_TYPES) == set(KINDS)
    assert set(Hop.model_fields) <= set(hop_schema["properties"])
    by_kind = {
        rule["if"]["properties"]["kind"]["const"]: rule["then"]["properties"]["payload"]["$ref"]
        for rule in hop_schema["allOf"]
    }
    assert set(by_kind) == set(KINDS)
    for kind, ref in by_kind.items():
        assert ref.removeprefix("#/$defs/") == PAYLOAD_TYPES[kind].__name__ in schema["$defs"]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ["hops", 9, "payload", "body", "messages"],
            5,
            "hops[9].payload.body.messages: Input should be a valid list (a payload of llm.request)",
        ),
        (["hops", 9, "payload", "body"], KeyError, "hops[9].payload.body: missing (a payload of llm.request)"),
        (
            ["hops", 10, "payload", "status"],
            "200",
            "hops[10].payload.status: Input should be a valid integer (a payload of llm.response)",
        ),
        (
            ["hops", 11, "payload", "tool_call", "function", "arguments"],
            {"city": "北京"},
            "hops[11].payload.tool_call.function.arguments: Input should be a valid string (a payload of translate.rev",
        ),
        (
            ["hops", 11, "payload", "call_request"],
            KeyError,
            "hops[11].payload.call_request: missing (a payload of translate.reverse)",
        ),
        (
            ["hops", 12, "payload", "params"],
            "not an object",
            "hops[12].payload.params: Input should be a valid dictionary (a payload of mcp.request)",
        ),
        (["hops", 15, "payload", "result"], [1], "hops[15].payload.result: Input should be a valid dictionary"),
        (["hops", 16, "payload", "tool_message_content"], None, "hops[16].payload.tool_message_content: "),
        (["hops", 19, "payload"], "the answer", "hops[19].payload: Input should be a valid dictionary"),
        (["hops", 19, "payload"], None, "hops[19].payload: Input should be a valid dictionary"),
        (["hops", 15, "progress_of"], [1], "hops[15].progress_of: Input should be a valid integer"),
        (["hops", 15, "scripted"], "maybe", "hops[15].scripted: Input should be a valid boolean"),
    ],
)
def test_a_payload_of_the_wrong_shape_for_its_kind_is_refused_with_its_path(path, value, message):
    raw = _mutate(path, value)
    with pytest.raises(TraceError) as caught:
        read_trace_bytes(raw, name="upload.json")
    text = str(caught.value)
    assert text.startswith("upload.json: " + message) and "\n" not in text, text
    with pytest.raises(jsonschema.ValidationError):  # the committed schema says the same
        jsonschema.Draft202012Validator(json_schema()).validate(json.loads(raw))


def test_what_a_peer_sent_loads_as_it_came():
    """A wire body or a frame's params hold what the provider or server chose: any JSON there loads."""
    data = json.loads(_mutate(["hops", 10, "payload", "body"], {"choices": 5, "odd": [None, {"x": "y"}]}))
    data["hops"][12]["payload"]["params"]["arguments"] = [1, "two"]
    data["hops"][0]["payload"]["tools"] = [{"function": "x"}, {}]
    data["hops"][9]["payload"]["body"]["messages"] = [{"role": 5}]
    data["hops"][3]["payload"]["future_field"] = {"kept": True}
    trace = read_trace_bytes(json.dumps(data).encode())
    assert trace.hops[10].payload["body"]["choices"] == 5 and trace.hops[3].payload["future_field"] == {"kept": True}


def test_a_payload_the_recorder_cut_to_text_or_left_out_loads_and_reads_as_none():
    for payload in ('{"jsonrpc": "2.0", "id": 3, "res', None):
        data = json.loads(_mutate(["hops", 15, "payload"], payload))
        data["hops"][15]["clipped"] = "payload of 2,000,000 bytes: only the first 65,536 bytes of its JSON kept"
        hop = read_trace_bytes(json.dumps(data).encode()).hops[15]
        assert hop.clipped and payload_of(hop, "mcp.response") is None
        jsonschema.Draft202012Validator(json_schema()).validate(data)


def test_payload_of_gives_the_payload_of_its_kind_only():
    trace = load_trace(ROOT / "sample_traces" / "beijing-mcp.json")
    reverse = next(h for h in trace.hops if h.kind == "translate.reverse")
    p = payload_of(reverse, "translate.reverse")
    assert p is not None and p["call_request"]["name"] == "get_weather" and p is reverse.payload
    assert payload_of(reverse, "llm.request") is None


def test_optional_hop_fields_are_absent_unless_set_so_files_hold_no_null_for_them():
    trace = load_trace(ROOT / "sample_traces" / "progress-notifications.json")
    hops = json.loads(trace.to_json())["hops"]
    assert any("progress_of" in h for h in hops)
    assert all(field not in h for h in hops for field in OPTIONAL_HOP_FIELDS if h.get(field) is None)
    data = json.loads(json.dumps(SAMPLE))
    data["hops"][2].update(clipped=None, scripted=None, progress_of=None)  # null, as another writer may put it
    assert read_trace_bytes(json.dumps(data).encode()).hops[2].clipped is None


@pytest.mark.parametrize("mode", ["mcp", "direct"])
@pytest.mark.parametrize("stream", [False, True])
def test_what_a_run_records_is_of_its_kinds_types(mode, stream):
    """Building a hop in code cannot be wrong: a run's hops pass the check a file gets, kind by kind."""
    from flow.engine.options import RunOptions
    from flow.runs import run

    result = run("北京和上海今天天气怎么样", options=RunOptions(mode=mode, stream=stream))
    assert result.ok and payload_problem(result.trace.hops) is None
    assert parse_trace(result.trace.file_data()).hops == result.trace.hops
