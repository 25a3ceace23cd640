"""One self-contained HTML file per trace: the trace viewer with everything inlined.

The page holds the viewer's own script and styles (flow/viewer_assets, the same files the Step
through page mounts) and the trace's bundle, so it works in any browser with no server and no
network; a teacher can hand a trace to students as one file.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from flow.text.names import Lang
from flow.trace.model import Trace
from flow.trace.questions import Question
from flow.views.diagram import RenderError, too_many_arrows
from flow.views.viewer import PART_BYTES, script_json, viewer_bundle, viewer_css, viewer_js, viewer_parts

_PAGE_CSS = """
html,body{margin:0;height:100%;background:#fff}
#flow-viewer{height:100vh;padding:10px 16px;box-sizing:border-box}
"""


def to_html(trace: Trace, *, lang: Lang = "zh", questions: Mapping[int, Question] | None = None) -> str:
    """The whole trace as one HTML page stepped in the browser (the diagram needs the graphviz program).

    `questions` (by hop `seq`, from flow.questions_for) travel in the page: the viewer's Questions button turns
    them on."""
    problem = too_many_arrows(trace)
    if problem:  # the page steps through one whole picture
        raise RenderError(
            f"too long for one HTML page: {problem}; draw part of it as SVG (render --format svg --window N --hop SEQ)"
        )
    if len(viewer_parts(trace)) > 1:  # hops few enough to draw, but too much data for one page to hold
        raise RenderError(
            f"too much for one HTML page: its {len(trace.hops):,} hops hold more than the "
            f"{PART_BYTES // 2**20} MiB of data one viewer takes; draw part of it as SVG "
            "(render --format svg --window N --hop SEQ)"
        )
    bundle = viewer_bundle(trace, lang=lang, questions=questions)
    title = bundle["title"][lang]
    # The module script is inline, so it runs from a file:// URL; it ends by mounting the viewer on the bundle.
    script = viewer_js() + (
        "\nmountViewer(document.getElementById('flow-viewer'),"
        " JSON.parse(document.getElementById('flow-bundle').textContent), {standalone: true});\n"
    )
    script = script.replace("</script", "<\\/script")
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{_PAGE_CSS}{viewer_css()}</style>
</head>
<body>
<div id="flow-viewer"></div>
<script type="application/json" id="flow-bundle">{script_json(bundle)}</script>
<script type="module">{script}</script>
</body>
</html>
"""
