"""The viewer's contract with Python: the bundle's shape (schema/viewer-bundle.schema.json, from
flow.views.bundle_types), which real bundles of every sample satisfy."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from flow.trace.files import load_trace
from flow.trace.questions import questions_for
from flow.views.bundle_types import bundle_schema
from flow.views.viewer import bundle_json, part_trace, viewer_bundle, viewer_parts
from helpers import ROOT

SAMPLES = sorted((ROOT / "sample_traces").glob("*.json"))
SCHEMA = json.loads((ROOT / "schema" / "viewer-bundle.schema.json").read_text(encoding="utf-8"))


def _sent(path: Path, lang: str = "en") -> dict:
    """The bundle of a sample with its questions, as the browser parses it."""
    trace = load_trace(path)
    return json.loads(bundle_json(viewer_bundle(trace, lang=lang, questions=questions_for(trace) or None)))  # type: ignore[arg-type]


def test_committed_schema_is_the_one_the_types_generate():
    assert SCHEMA == bundle_schema(), "run: python -m flow schema --viewer-bundle"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_samples_bundle_satisfies_the_schema(path):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for lang in ("zh", "en"):
        bundle = _sent(path, lang)
        problems = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(bundle)]
        assert not problems, f"{lang}: " + "\n".join(problems[:5])


def test_a_part_of_a_long_trace_and_a_bundle_with_a_field_undeclared_are_told_apart():
    trace = load_trace(ROOT / "sample_traces" / "two-rounds.json")
    part = part_trace(trace, viewer_parts(trace, max_hops=5)[1])
    bundle = json.loads(bundle_json(viewer_bundle(part, lang="en")))
    assert bundle["closing"] is None  # a part gets no closing view
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert not list(validator.iter_errors(bundle))
    bundle["hops"][0]["colour"] = "red"
    assert [e.message for e in validator.iter_errors(bundle)] == [
        "Additional properties are not allowed ('colour' was unexpected)"
    ]
