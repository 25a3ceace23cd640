"""The follower page and the join QR code: the viewer's own script and styles, in a page that joins a room.

The page carries only the room's code; the trace comes from the room (GET /room/{code}/bundle/{lang}), so a
follower page shows the room's trace and nothing else. The QR code is drawn here (segno, no network).
"""

from __future__ import annotations

import html
import io

import segno

from flow.rooms.events import Lang
from flow.rooms.store import LANGS, RoomError
from flow.views.viewer import viewer_css, viewer_js

_PAGE_CSS = """
html,body{margin:0;height:100%;background:#fff;font-family:system-ui,sans-serif}
#flow-viewer{height:100vh;height:100dvh;padding:8px 12px;box-sizing:border-box}
@media (max-width:700px){#flow-viewer{padding:4px 6px}}
"""


# The page's language is the room's, as the viewer shows it: the teacher's, and whatever the teacher switches to.
_FOLLOW = """
{
  const root = document.getElementById('flow-viewer');
  followRoom(root, {code: '%s'}).then((viewer) => {
    if (!viewer) return;
    const sync = () => {
      const lang = viewer.lang === 'en' ? 'en' : 'zh';
      if (document.documentElement.lang !== lang) document.documentElement.lang = lang;
    };
    sync();
    new MutationObserver(sync).observe(root, {childList: true, subtree: true});
  });
}
"""


def follower_html(code: str, lang: Lang = "zh") -> str:
    """The page a student opens: the viewer, following room `code` (a code the store checked), in `lang`, the
    language the room shows now."""
    script = viewer_js() + _FOLLOW % code
    script = script.replace("</script", "<\\/script")
    page_lang = lang if lang in LANGS else "zh"
    return f"""<!DOCTYPE html>
<html lang="{page_lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>MCP Flow · 课堂房间 · Room</title>
<style>{_PAGE_CSS}{viewer_css()}</style>
</head>
<body>
<div id="flow-viewer"></div>
<script type="module">{script}</script>
</body>
</html>
"""


def missing_html(exc: RoomError) -> str:
    """A refusal as a page (no such room): one line in each language."""
    return f"""<!DOCTYPE html>
<html lang="zh"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP Flow</title></head>
<body style="font-family:system-ui,sans-serif;font-size:20px;padding:24px">
<p>{html.escape(exc.message_zh)}</p><p>{html.escape(exc.message)}</p>
</body></html>
"""


def qr_svg(text: str) -> str:
    """`text` (a join link) as an SVG QR code, black on white, sized by its container."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", xmldecl=False, svgns=True, scale=8, border=2, omitsize=True)
    return out.getvalue().decode()
