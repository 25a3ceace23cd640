"""The viewer's bundle read by its JavaScript in Node, in its own process (the bundle itself is checked in this
process: tests/unit/test_viewer_bundle.py)."""

from __future__ import annotations

import json
import subprocess

import pytest
from test_viewer_bundle import _modules, _sent  # the unit lane's helpers (tests/unit is on the path: pyproject.toml)

from flow.views.js_modules import join_modules
from flow.views.viewer import ASSETS, JS_ENTRY, PAGE_KEYS_ENTRY, page_keys_js, viewer_js
from helpers import ROOT


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


def test_the_viewer_is_one_module_with_its_hosts_names_at_the_top_level(tmp_path):
    js = viewer_js()
    module = tmp_path / "viewer.mjs"
    module.write_text(js, encoding="utf-8")
    subprocess.run(["node", "--check", str(module)], check=True, capture_output=True, timeout=60)
    # Every module once, each after the ones it imports; no import left; the entry's exports kept.
    names = [line[8:-5] for line in js.splitlines() if line.startswith("// ---- ")]
    assert sorted(names) == sorted(p.name for p in ASSETS.glob("*.mjs") if p.name != PAGE_KEYS_ENTRY)
    assert names.index("dom.mjs") < names.index("route.mjs") < names.index("viewer.mjs") < len(names) - 1
    assert names[-1] == JS_ENTRY
    assert "\nimport " not in js and "export function mountViewer" not in js
    assert "export { followRoom, mountViewer };" in js and "export default function" in js
    assert "\nexport async function followRoom" not in js and "\nasync function followRoom" in js


def test_the_pages_presenter_keys_are_one_module_on_the_viewers_keys(tmp_path):
    """Compare's and Hops's presenter mode listens with the viewer's own key module, joined into a module of its own
    whose default export is the component's entry."""
    js = page_keys_js()
    module = tmp_path / "page_keys.mjs"
    module.write_text(js, encoding="utf-8")
    subprocess.run(["node", "--check", str(module)], check=True, capture_output=True, timeout=60)
    names = [line[8:-5] for line in js.splitlines() if line.startswith("// ---- ")]
    assert names == ["keys.mjs", PAGE_KEYS_ENTRY]
    assert "\nimport " not in js and "export default function" in js


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
