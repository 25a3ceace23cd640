"""Trace files that last: schema, versions, validation, and bad input that never crashes."""

from __future__ import annotations

import json
import os

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flow.trace.files import MAX_TRACE_BYTES, TraceError, json_schema, load_trace, read_trace_bytes
from flow.trace.model import FORMAT_VERSION, Trace
from helpers import ROOT, flow_cli

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
    with pytest.raises(TraceError, match=f"over the {MAX_TRACE_BYTES // 2**20} MB limit"):
        load_trace(big)


def test_validate_prints_ok_or_the_first_problem_with_its_path(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_bytes(_mutate(["hops", 11, "tool_call_id"], None))
    junk = tmp_path / "junk.json"
    junk.write_bytes(os.urandom(64))
    proc = flow_cli("validate", str(SAMPLES[0]), str(broken), str(junk))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    n_hops = len(json.loads(SAMPLES[0].read_text(encoding="utf-8"))["hops"])
    assert lines[0] == f"{SAMPLES[0]}: OK ({n_hops} hops, format 1)"
    assert lines[1] == f"{broken}: hops[11].tool_call_id: missing"
    assert lines[2].startswith(f"{junk}: ") and "Traceback" not in proc.stdout + proc.stderr


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
    from flow.trace.model import Hop

    rec = Recorder()
    hop = rec.record(kind="mcp.request", source="mcp_client", target="mcp_server", payload={"id": 1}, step=6,
                     direction="request", jsonrpc_id=1, summary="tools/call")
    again = Hop.model_validate(hop.model_dump())
    assert hop == again and hop.model_fields_set == again.model_fields_set and hop.model_extra == again.model_extra == {}
    assert list(hop.model_dump()) == list(Hop.model_fields)
    rec.restep(hop, 7)
    assert (hop.step, hop.phase, hop.explain) == (7, "execute", "step7.mcp.request")
