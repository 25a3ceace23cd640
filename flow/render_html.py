"""One self-contained HTML file per trace: the diagram, the steps with their teaching text, each hop's JSON.

Everything is inlined (SVG, CSS, script, data), so the file works in any browser with no
server and no network; a teacher can hand a trace to students as one file.
"""

from __future__ import annotations

import html
import json
import re

from flow.labels import ACTOR_NAMES, PHASE_NAMES, Lang
from flow.render_diagram import RenderError, render, rows, to_dot, too_many_arrows
from flow.render_text import focus_view
from flow.teaching import teaching_text
from flow.trace import Trace

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;
margin:0;color:#222;background:#fafafa}
header{padding:12px 20px;background:#1f2937;color:#fff}header h1{font-size:20px;margin:0 0 4px}
header p{margin:0;font-size:14px;opacity:.85}
main{display:grid;grid-template-columns:minmax(0,1.35fr) minmax(0,1fr);gap:16px;padding:16px 20px}
#diagram{background:#fff;border:1px solid #ddd;border-radius:8px;overflow:auto;max-height:80vh}
#diagram svg{width:100%;height:auto}
.controls{display:flex;gap:8px;align-items:center;margin-bottom:10px;flex-wrap:wrap}
button{font-size:16px;padding:8px 16px;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}
button.primary{background:#1565c0;color:#fff;border-color:#1565c0}
#where{font-size:18px;font-weight:600}
#teach{background:#fffbe6;border-left:4px solid #f0b400;padding:10px 14px;font-size:17px;line-height:1.5;margin:10px 0}
#hopjson{background:#0f172a;color:#e2e8f0;padding:12px;border-radius:8px;font-size:13px;max-height:46vh;overflow:auto;
white-space:pre-wrap;word-break:break-word}
ol#steps{font-size:14px;max-height:30vh;overflow:auto;padding-left:0;list-style:none;border:1px solid #ddd;
border-radius:8px;background:#fff;margin:10px 0}
ol#steps li{padding:3px 10px;cursor:pointer;border-bottom:1px solid #f0f0f0}
ol#steps li.current{background:#e3f2fd;font-weight:600}ol#steps li.later{color:#999}
g.edge.later path,g.edge.later polygon{opacity:.25}g.node.later text{opacity:.3}
g.edge.current path{stroke:#1565c0;stroke-width:4}g.edge.current polygon{stroke:#1565c0;fill:#1565c0}
g.node.current polygon{fill:#fff59d;stroke:#fff59d}
"""

_SCRIPT = """
const hops = JSON.parse(document.getElementById('hops').textContent);
let i = 0, lang = document.documentElement.lang === 'en' ? 'en' : 'zh';
const text = {zh: {step: '步骤', of: '/', prev: '上一步', next: '下一步', lang: 'English'},
              en: {step: 'Step', of: '/', prev: 'Previous', next: 'Next', lang: '中文'}};
function show(k) {
  i = Math.max(0, Math.min(hops.length - 1, k));
  const h = hops[i];
  document.getElementById('where').textContent =
    `${text[lang].step} ${h.number} · ${h.from[lang]} → ${h.to[lang]} · ${h.label} (${i + 1}${text[lang].of}${hops.length})`;
  document.getElementById('teach').textContent = h.teach[lang];
  document.getElementById('hopjson').textContent = JSON.stringify(h.view, null, 2);
  document.querySelectorAll('ol#steps li').forEach((li, n) => {
    li.className = n === i ? 'current' : (n > i ? 'later' : '');
  });
  const current = document.querySelector('ol#steps li.current');
  if (current) current.scrollIntoView({block: 'nearest'});
  for (const el of document.querySelectorAll('g.edge, g.node')) {
    const m = (el.id || '').match(/^(?:label-)?hop-(\\d+)(?:-(\\d+))?$/);
    if (!m) continue;
    const first = +m[1], last = +(m[2] || m[1]);
    el.classList.toggle('current', first <= h.seq && h.seq <= last);
    el.classList.toggle('later', first > h.seq);
  }
  document.getElementById('prev').textContent = text[lang].prev;
  document.getElementById('next').textContent = text[lang].next;
  document.getElementById('lang').textContent = text[lang].lang;
}
document.getElementById('prev').onclick = () => show(i - 1);
document.getElementById('next').onclick = () => show(i + 1);
document.getElementById('lang').onclick = () => { lang = lang === 'zh' ? 'en' : 'zh'; show(i); };
document.querySelectorAll('ol#steps li').forEach((li, n) => li.onclick = () => show(n));
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowRight' || e.key === 'ArrowDown' || e.key === ' ') { show(i + 1); e.preventDefault(); }
  if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') { show(i - 1); e.preventDefault(); }
});
show(0);
"""


def _inline_svg(svg: bytes) -> str:
    text = svg.decode("utf-8")
    text = re.sub(r"<\?xml[^>]*\?>", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text)
    return re.sub(r"<!--.*?-->", "", text, flags=re.S).strip()


def _script_json(value: object) -> str:
    """JSON that cannot end the <script> element it sits in."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def to_html(trace: Trace, *, lang: Lang = "zh") -> str:
    """The whole trace as one HTML page with previous/next stepping (needs the graphviz program). A trace
    with more arrows than one picture draws is refused (`RenderError`): the page steps through the whole picture."""
    problem = too_many_arrows(trace)
    if problem:
        raise RenderError(f"too long for one HTML page: {problem}; draw part of it as SVG "
                          "(render --format svg --window N --hop SEQ)")
    svg = _inline_svg(render(to_dot(trace, window=None, lang=lang), "svg"))
    per_hop = {r.first.seq: r for r in rows(trace, collapse_chunks=False)}
    hops = [
        {
            "seq": h.seq,
            "number": per_hop[h.seq].number,
            "label": per_hop[h.seq].label,
            "from": ACTOR_NAMES[h.source],
            "to": ACTOR_NAMES[h.target],
            "phase": PHASE_NAMES[h.phase] if h.phase else None,
            "teach": {"zh": teaching_text(h, "zh"), "en": teaching_text(h, "en")},
            "view": focus_view(h),  # bounded: one huge hop cannot swell the page
        }
        for h in trace.hops
    ]
    meta = trace.meta
    title = (meta.title or {}).get(lang) or meta.question
    note = (meta.note or {}).get(lang, "")
    items = "\n".join(
        f'<li id="step-{h["seq"]}">{html.escape(h["number"])} · {html.escape(h["label"])}</li>' for h in hops
    )
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<header><h1>{html.escape(title)}</h1>
<p>{html.escape(meta.mode.upper())} · {html.escape(str(meta.model.get('name', '')))} · {html.escape(meta.question)}</p>
<p>{html.escape(note)}</p></header>
<main>
<section id="diagram">{svg}</section>
<section>
<div class="controls"><button id="prev">◀</button><button id="next" class="primary">▶</button>
<button id="lang"></button></div>
<div id="where"></div>
<div id="teach"></div>
<ol id="steps">
{items}
</ol>
<pre id="hopjson"></pre>
</section>
</main>
<script type="application/json" id="hops">{_script_json(hops)}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""
