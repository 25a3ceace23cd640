"""MkDocs hook: the reference pages' generated parts, written from the code at build time so they cannot go stale.

`<!-- generated: cli -->` becomes every subcommand's --help, from the command line's own parser;
`<!-- generated: trace-schema -->` becomes one table per object of the trace format, from schema/trace.schema.json;
`<!-- generated: mock-models -->` becomes the offline mock's behaviours in the page's language, from
`flow.text.mock`, the table the Run page and `run --model`'s help are written from.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[2]

CLI_MARK = "<!-- generated: cli -->"
SCHEMA_MARK = "<!-- generated: trace-schema -->"
MOCK_MARK = "<!-- generated: mock-models -->"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if CLI_MARK in markdown:
        markdown = markdown.replace(CLI_MARK, cli_reference())
    if SCHEMA_MARK in markdown:
        markdown = markdown.replace(SCHEMA_MARK, schema_reference())
    if MOCK_MARK in markdown:
        markdown = markdown.replace(MOCK_MARK, mock_models("en" if page.file.src_uri.endswith(".en.md") else "zh"))
    return markdown


def _repository_code() -> None:
    """The code documented is the repository's, whatever the working directory."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def cli_reference() -> str:
    """Every subcommand's help, as `mcp-flow COMMAND --help` prints it (at a fixed width)."""
    _repository_code()
    from flow.cli import parser, subcommands

    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width; the page has one width
    top = parser()
    parts = ["```text", top.format_usage().strip(), "```", ""]
    for name, sub in subcommands(top).items():
        parts += [f"### {name}", "", "```text", sub.format_help().strip(), "```", ""]
    return "\n".join(parts)


def _type(node: dict[str, Any]) -> str:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in node:
        return " or ".join(_type(n) for n in node["anyOf"])
    if "enum" in node:
        return " · ".join(f"`{json.dumps(v, ensure_ascii=False)}`" for v in node["enum"])
    if "const" in node:
        return f"`{json.dumps(node['const'], ensure_ascii=False)}`"
    kind = node.get("type", "any")
    if kind == "array":
        return f"list of {_type(node.get('items', {}))}"
    if kind == "object" and "additionalProperties" in node and isinstance(node["additionalProperties"], dict):
        return f"map to {_type(node['additionalProperties'])}"
    return f"`{kind}`"


def _table(title: str, node: dict[str, Any]) -> list[str]:
    required = set(node.get("required", []))
    lines = [f"### {title}", ""]
    if node.get("description"):
        lines += [" ".join(node["description"].split()), ""]
    props = node.get("properties", {})
    if props:
        lines += ["| field | type | required | description |", "|---|---|---|---|"]
        for name, prop in props.items():
            text = " ".join(prop.get("description", "").split()).replace("|", "\\|")
            kind = _type(prop).replace("|", "\\|")
            lines.append(f"| `{name}` | {kind} | {'yes' if name in required else ''} | {text} |")
        lines.append("")
    return lines


def schema_reference() -> str:
    schema = json.loads((ROOT / "schema" / "trace.schema.json").read_text(encoding="utf-8"))
    lines = _table("Trace", schema)
    for name, node in schema.get("$defs", {}).items():
        lines += _table(name, node)
    return "\n".join(lines)


def mock_models(lang: Literal["zh", "en"]) -> str:
    """The mock model's behaviours as a table, in the page's language."""
    _repository_code()
    from flow.text.mock import mock_models_table

    return mock_models_table(lang)
