"""The viewer's two contracts with Python: the bundle's shape (schema/viewer-bundle.schema.json, from
flow.views.bundle_types), which real bundles of every sample satisfy and the JavaScript reads, and the one module
the viewer's ES modules are joined into (flow.views.js_modules) for hosts that cannot resolve imports."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from flow.trace.files import load_trace
from flow.trace.questions import questions_for
from flow.views.bundle_types import bundle_schema
from flow.views.js_modules import ModuleError, join_modules
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


# ---- the modules joined into one ----


def _modules(folder: Path, **files: str) -> Path:
    for name, text in files.items():
        (folder / f"{name}.mjs").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"main": "import { x } from './a.mjs';\n", "a": "export const y = 1;\n"}, "main.mjs: a.mjs does not export x"),
        ({"main": "import { x as y } from './a.mjs';\n", "a": "export const x = 1;\n"}, "rename at the source"),
        (
            {"main": "import { a } from './a.mjs';\n", "a": "import { m } from './main.mjs';\nexport const a = 1;\n"},
            "import cycle: main.mjs -> a.mjs -> main.mjs",
        ),
        (
            {"main": "import { a } from './a.mjs';\nconst h = 2;\n", "a": "const h = 1;\nexport const a = h;\n"},
            "main.mjs and a.mjs both declare 'h'",
        ),
        ({"main": "import { a } from './gone.mjs';\n"}, "no module 'gone.mjs'"),
        ({"main": "import { a } from './a.mjs';\n", "a": "export default 1;\nexport const a = 1;\n"}, "cannot join"),
        ({"main": "import * as a from './a.mjs';\n", "a": "export const a = 1;\n"}, "cannot join"),
        ({"main": "const t = `one\n// two`;\n"}, "main.mjs:1: keep a string on one line"),
        ({"main": "const s = 'one \\\n// two';\n"}, "main.mjs:1: keep a string on one line"),
    ],
)
def test_a_module_the_join_cannot_take_says_which_and_why(tmp_path, files, message):
    with pytest.raises(ModuleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        join_modules(_modules(tmp_path, **files), "main.mjs")
