"""The viewer's two contracts with Python: the bundle's shape (schema/viewer-bundle.schema.json, from
flow.views.bundle_types), which real bundles of every sample satisfy and the JavaScript reads, and the one module
the viewer's ES modules are joined into (flow.views.js_modules) for hosts that cannot resolve imports."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest

from flow.trace.files import load_trace
from flow.trace.questions import questions_for
from flow.views.bundle_types import bundle_schema
from flow.views.js_modules import ModuleError, join_modules
from flow.views.viewer import ASSETS, JS_ENTRY, bundle_json, part_trace, viewer_bundle, viewer_js, viewer_parts
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


@pytest.mark.parametrize("name", ["beijing-mcp", "hosted-responses", "beijing-direct", "asks-elicitation"])
def test_the_javascript_reads_real_bundles_as_python_meant_them(name):
    """The viewer's readers (tests/js/read_bundle.mjs), run by node on a real bundle: it satisfies the schema there
    too, every focused field Python names is found in the hop's view, each hop lights the message Python gave it
    and names who talks in it, and a band jumps to the first hop of its messages."""
    bundle = _sent(ROOT / "sample_traces" / f"{name}.json")
    run = subprocess.run(
        ["node", str(ROOT / "tests" / "js" / "read_bundle.mjs")],
        input=json.dumps(bundle, ensure_ascii=False),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = json.loads(run.stdout)
    assert "errors" not in found, found.get("errors")
    assert [h["message"] for h in found["hops"]] == [h["message"] for h in bundle["hops"]]
    assert [h["marks"] for h in found["hops"]] == [h["marked"] for h in found["hops"]]
    assert sum(h["marks"] for h in found["hops"]) > 0
    assert all(h["arrows"] >= 1 for h in found["hops"] if h["message"] is not None)  # the line below the strip
    firsts = [m["first"] for m in bundle["route"]["messages"]]
    expected = [
        next((f for f in firsts[a : b + 1] if f is not None), None) for _, a, b in bundle["route"]["spans"]["app"]
    ]
    assert found["bands"] == expected


# ---- the modules joined into one ----


def test_the_viewer_is_one_module_with_its_hosts_names_at_the_top_level(tmp_path):
    js = viewer_js()
    module = tmp_path / "viewer.mjs"
    module.write_text(js, encoding="utf-8")
    subprocess.run(["node", "--check", str(module)], check=True, capture_output=True, timeout=60)
    # Every module once, each after the ones it imports; no import left; the entry's exports kept.
    names = [line[8:-5] for line in js.splitlines() if line.startswith("// ---- ")]
    assert sorted(names) == sorted(p.name for p in ASSETS.glob("*.mjs"))
    assert names.index("dom.mjs") < names.index("route.mjs") < names.index("viewer.mjs") < len(names) - 1
    assert names[-1] == JS_ENTRY
    assert "\nimport " not in js and "export function mountViewer" not in js
    assert "export { followRoom, mountViewer };" in js and "export default function" in js
    assert "\nexport async function followRoom" not in js and "\nasync function followRoom" in js


def _modules(folder: Path, **files: str) -> Path:
    for name, text in files.items():
        (folder / f"{name}.mjs").write_text(text, encoding="utf-8")
    return folder


def test_modules_joined_in_import_order_with_their_exports_dropped_but_the_entrys(tmp_path):
    folder = _modules(
        tmp_path,
        a="// a's own note\nexport const A = 1;\nfunction helper() { return A; } // kept: code before it\n"
        "export function a() { return helper(); }\n",
        b="import { A, a } from './a.mjs';\n\nexport class B { get v() { return A + a(); } }\n",
        main="import { B } from './b.mjs';\nimport { a } from './a.mjs';\n\nexport { B };\nexport default () => new B().v + a();\n",
    )
    joined = join_modules(folder, "main.mjs")
    assert [line for line in joined.splitlines() if line.startswith("// ----")] == [
        "// ---- a.mjs ----",
        "// ---- b.mjs ----",
        "// ---- main.mjs ----",
    ]
    assert "const A = 1;" in joined and "class B {" in joined and "export { B };" in joined
    assert "a's own note" not in joined and "// kept: code before it" in joined  # whole comment lines go
    (tmp_path / "joined.mjs").write_text(joined, encoding="utf-8")
    run = tmp_path / "run.mjs"
    run.write_text("import f, { B } from './joined.mjs';\nconsole.log(f(), new B().v);\n", encoding="utf-8")
    assert subprocess.run(["node", str(run)], capture_output=True, text=True, timeout=60).stdout.strip() == "3 2"


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
