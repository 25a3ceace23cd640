"""The two translations the app performs between MCP and function calling.

Forward: an MCP tool (name, description, inputSchema) becomes a tool definition (`ToolSpec`, which each model API
writes in its own form: `flow.wire`). Reverse: a tool call (arguments as a JSON string) becomes a call request
(name + parsed arguments), checked against the schema.
"""

from __future__ import annotations

import base64
import binascii
import copy
from dataclasses import dataclass
from typing import Any

from flow.trace.json_text import read_json_text
from flow.wire.base import ToolSpec

_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """What `strict: true` requires: every property required, no additional properties."""
    out = copy.deepcopy(schema)
    if out.get("type") == "object":
        props = out.get("properties") or {}
        out["properties"] = {k: strict_schema(v) if isinstance(v, dict) else v for k, v in props.items()}
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def tool_spec(tool: dict[str, Any], *, strict: bool = False) -> ToolSpec:
    """Forward translation of one MCP tool (as listed on the wire): what a model API's tool definition is made of.
    The `title` keys pydantic writes into a schema go (providers ignore them, and they only add tokens)."""
    params = copy.deepcopy(tool.get("inputSchema") or {"type": "object", "properties": {}})
    params.pop("title", None)
    for prop in (params.get("properties") or {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return ToolSpec(
        tool["name"], tool.get("description") or "", strict_schema(params) if strict else params, strict=strict
    )


def function_spec(tool: dict[str, Any], *, strict: bool = False) -> ToolSpec:
    """A hand-written function schema (direct mode's, in Chat Completions' form) as a tool definition's parts."""
    fn = tool["function"]
    params = fn.get("parameters") or {}
    return ToolSpec(fn["name"], fn.get("description") or "", strict_schema(params) if strict else params, strict=strict)


class ArgumentError(ValueError):
    """The model's arguments cannot be used: not JSON, not an object, or not what the schema asks."""


@dataclass(frozen=True)
class CallRequest:
    name: str
    arguments: dict[str, Any]


def parse_arguments(
    name: str, arguments: str, schema: dict[str, Any] | None, *, check_schema: bool = False
) -> CallRequest:
    """Reverse translation: a tool_call's JSON string into a call request with parsed arguments."""
    ok, args = read_json_text(arguments or "{}")
    if not ok:
        raise ArgumentError(f"arguments for {name} are not valid JSON ({args})")
    if not isinstance(args, dict):
        raise ArgumentError(f"arguments for {name} must be a JSON object, got {type(args).__name__}")
    if check_schema and schema is not None:
        problems = schema_problems(args, schema)
        if problems:
            raise ArgumentError(f"arguments for {name} do not match its schema: " + "; ".join(problems))
    return CallRequest(name, args)


def schema_problems(args: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The checks `strict` mode promises: required fields, known fields only, and basic types."""
    problems = []
    props = schema.get("properties") or {}
    for field in schema.get("required") or []:
        if field not in args:
            problems.append(f"missing required field {field!r}")
    if schema.get("additionalProperties") is False:
        problems += [f"unexpected field {k!r}" for k in args if k not in props]
    for key, value in args.items():
        expected = (props.get(key) or {}).get("type")
        types = expected if isinstance(expected, list) else [expected] if expected else []
        if types and not any(
            isinstance(value, _JSON_TYPES[t]) and not (t in ("integer", "number") and isinstance(value, bool))
            for t in types
            if t in _JSON_TYPES
        ):
            problems.append(f"field {key!r} should be {expected}, got {type(value).__name__}")
    return problems


# MCP content → what the Chat Completions API can take. A user message takes text, image and audio parts; a
# system, assistant or tool message takes text only. What cannot go as itself goes as a line that says what it was,
# never as nothing: the model should know something was there.
AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


@dataclass(frozen=True)
class Mapped:
    """One MCP content block as a chat content part, and how it was mapped (a code `flow.text` words)."""

    part: dict[str, Any]  # {"type": "text", "text": ...}, {"type": "image_url", ...} or {"type": "input_audio", ...}
    how: str  # text | image_url | input_audio | resource_text | blob_as_text | described

    @property
    def text(self) -> str:
        return str(self.part.get("text", "")) if self.part.get("type") == "text" else ""


def _size(data: Any) -> str:
    """A base64 payload's decoded size, for a line that describes it."""
    n = len(data) * 3 // 4 - (len(data) - len(data.rstrip("="))) if isinstance(data, str) else 0
    return f"{n} bytes"


_TEXT_MIMES = ("application/json", "application/xml", "application/yaml", "application/javascript")


def _blob_text(blob: Any, mime: str) -> str | None:
    """A blob whose type says it is text, decoded (base64, then UTF-8); None for anything else."""
    if not (mime.startswith("text/") or mime in _TEXT_MIMES) or not isinstance(blob, str):
        return None
    try:
        return base64.b64decode(blob, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def _described(line: str) -> Mapped:
    return Mapped({"type": "text", "text": f"[{line}]"}, "described")


def map_content(block: Any, *, role: str) -> Mapped:
    """An MCP content block (text, image, audio, an embedded resource with text or a blob, a resource link) as a
    part a message of `role` can carry."""
    b: dict[str, Any] = block if isinstance(block, dict) else {"type": "text", "text": str(block)}
    kind, mime = b.get("type"), str(b.get("mimeType") or "")
    user = role == "user"
    if kind == "text":
        return Mapped({"type": "text", "text": str(b.get("text", ""))}, "text")
    if kind == "image":
        if user:
            return Mapped(
                {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{b.get('data', '')}"}}, "image_url"
            )
        return _described(f"image {mime}, {_size(b.get('data'))}: a {role} message carries text only")
    if kind == "audio":
        if user and mime in AUDIO_FORMATS:
            audio = {"data": str(b.get("data", "")), "format": AUDIO_FORMATS[mime]}
            return Mapped({"type": "input_audio", "input_audio": audio}, "input_audio")
        why = f"a {role} message carries text only" if not user else "the API takes wav or mp3 audio only"
        return _described(f"audio {mime}, {_size(b.get('data'))}: {why}")
    if kind == "resource":
        res: dict[str, Any] = b["resource"] if isinstance(b.get("resource"), dict) else {}
        uri, res_mime = res.get("uri", ""), str(res.get("mimeType") or "")
        if "text" in res:
            return Mapped({"type": "text", "text": f"Resource {uri}:\n{res['text']}"}, "resource_text")
        if (decoded := _blob_text(res.get("blob"), res_mime)) is not None:
            return Mapped({"type": "text", "text": f"Resource {uri}:\n{decoded}"}, "blob_as_text")
        if user and res_mime.startswith("image/"):
            url = f"data:{res_mime};base64,{res.get('blob', '')}"
            return Mapped({"type": "image_url", "image_url": {"url": url}}, "image_url")
        return _described(f"resource {uri} ({res_mime or 'binary'}), {_size(res.get('blob'))} of binary data: not sent")
    if kind == "resource_link":
        about = f" ({b['description']})" if b.get("description") else ""
        return _described(f"resource link {b.get('name') or ''} {b.get('uri', '')}{about}: the model cannot open it")
    return _described(f"{kind} content: not something a chat message carries")


def resource_text(contents: Any) -> tuple[str, list[str]]:
    """A resources/read result's contents as context text, and how each was mapped: text as it is, a blob as a line
    that says what it was."""
    lines, hows = [], []
    for c in contents if isinstance(contents, list) else []:
        c = c if isinstance(c, dict) else {}
        if "text" in c:
            lines.append(str(c["text"]))
            hows.append("text")
        elif (decoded := _blob_text(c.get("blob"), str(c.get("mimeType") or ""))) is not None:
            lines.append(decoded)
            hows.append("blob_as_text")
        else:
            mime = c.get("mimeType") or "binary"
            lines.append(f"[resource {c.get('uri', '')} ({mime}), {_size(c.get('blob'))} of binary data: not sent]")
            hows.append("described")
    return "\n".join(lines), hows


MAX_SCHEMA_ERRORS = 10  # a check of structured content names at most this many problems


def output_problems(structured: Any, schema: dict[str, Any]) -> list[str]:
    """Where a result's `structuredContent` departs from the tool's `outputSchema`, checked by jsonschema (the
    validator the schema's `$schema` names, draft 2020-12 when it names none, as MCP says); empty when it matches.
    A schema that is not one is a problem too."""
    from jsonschema import Draft202012Validator, SchemaError
    from jsonschema.validators import validator_for
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    validator_cls = validator_for(schema, default=Draft202012Validator)
    try:
        validator_cls.check_schema(schema)
    except SchemaError as exc:
        return [f"the outputSchema is not a JSON Schema: {exc.message}"]
    # An empty registry: a `$ref` resolves inside the schema, never by fetching anything.
    validator = validator_cls(schema, registry=Registry())
    try:
        errors = list(validator.iter_errors(structured))
    except Unresolvable as exc:
        return [f"the outputSchema has a $ref that does not resolve inside it: {exc}"]
    problems = []
    for error in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        where = "/".join(str(p) for p in error.absolute_path)
        problems.append(f"{where or '(top)'}: {error.message}")
    return problems[:MAX_SCHEMA_ERRORS]
