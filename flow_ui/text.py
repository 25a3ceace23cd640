"""Text from a trace, an upload or a server, made safe to show and to export. No Streamlit here.

Streamlit renders every body, caption, alert and widget label as Markdown; a trace is shared
between people, so what it holds must show as the characters it holds, never as an image the
viewer's browser fetches, a link, a heading or a formula in a spreadsheet.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

# Characters that start Markdown anywhere in a line: code, emphasis, strikethrough, links and
# images (with Streamlit's `:color[…]` directives), autolinks and HTML, entities, maths, tables.
_INLINE = re.compile(r"([\\`*~\[\]<>&$|])")
# `_` between letters or digits never opens emphasis (CommonMark), so `get_weather` stays as it is.
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# What starts a block at the beginning of a line: headings, lists, setext underlines.
_LINE_START = re.compile(r"^([ \t]*)(#|\+|-|=|\d+(?=[.)]))", re.MULTILINE)


def plain(text: object) -> str:
    """`text` escaped for Markdown, so Streamlit shows exactly its characters and nothing else."""
    escaped = _INLINE.sub(r"\\\1", str(text))
    escaped = _UNDERSCORE.sub(r"\\_", escaped)
    return _LINE_START.sub(lambda m: m[1] + (m[2] + "\\" if m[2][0].isdigit() else "\\" + m[2]), escaped)


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")


def plain_cell(text: object) -> str:
    """`plain`, with each URL a code span: a table cell shows an address a trace holds as text, never as a link
    (Markdown makes a link of a bare URL, escaped or not; it never looks inside code)."""
    text, out, last = str(text), [], 0
    for url in _URL.finditer(text):
        out += [plain(text[last : url.start()]), _code(url[0])]
        last = url.end()
    return "".join([*out, plain(text[last:])])


def _code(text: str) -> str:
    """`text` as a code span, fenced by more backticks than any run it holds."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# A cell a spreadsheet would read as a formula (OWASP's list: = + - @, tab, carriage return).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula gets a leading apostrophe; other cells stay."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def table_csv(frame: pd.DataFrame) -> bytes:
    """The table as CSV for a spreadsheet: no cell is a formula; a BOM so Chinese text opens as UTF-8."""
    return frame.map(spreadsheet_safe).to_csv(index=False, lineterminator="\r\n").encode("utf-8-sig")
