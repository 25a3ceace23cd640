"""`mcp-flow export | import | schema`: a trace and other tools: OpenTelemetry spans out, other tools' recordings
in, and the JSON Schema they can check a trace against."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import get_args

from flow.cli.common import STDOUT, Subcommands, add_command, error, lines_to, save, where, write
from flow.proxy.options import UsageError
from flow.trace.files import json_schema, load_trace
from flow.trace.model import ImportFormat
from flow.views.table import summary_line, terminal_safe


def add_parsers(sub: Subcommands) -> None:
    _add_export(sub)
    _add_import(sub)
    _add_schema(sub)


def _add_export(sub: Subcommands) -> None:
    ex = add_command(
        sub,
        "export",
        what="write a trace as OpenTelemetry spans (OTLP/JSON), or send them to a collector",
        run=_export,
    )
    ex.add_argument("file")
    ex.add_argument(
        "--otlp-json", metavar="OUT", help="write OTLP/JSON (resourceSpans) to this file (- for standard output)"
    )
    ex.add_argument(
        "--otlp-endpoint", metavar="URL", help="send over OTLP/HTTP to a collector, e.g. http://localhost:4318"
    )
    ex.add_argument(
        "--otlp-header",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="an HTTP header for the collector, e.g. Authorization=Basic ... (repeatable; the value is never printed)",
    )
    ex.add_argument("--timeout", type=float, default=10.0, help="seconds to keep trying the collector")


def _add_import(sub: Subcommands) -> None:
    im = add_command(
        sub, "import", what="turn another tool's recording (JSON-RPC log, OTLP/JSON) into a trace", run=_import
    )
    im.add_argument("file")
    im.add_argument(
        "--out",
        "-o",
        help="trace file to write, - for standard output (default: beside the input, its extension "
        "replaced by .trace.json)",
    )
    im.add_argument(
        "--format",
        choices=["auto", *get_args(ImportFormat)],
        default="auto",
        help="jsonrpc-jsonl: one JSON-RPC message a line (an MCP proxy's recording too); otlp-json: OpenTelemetry "
        "spans; proxy-jsonl: the model proxy's recording (default: auto)",
    )


def _add_schema(sub: Subcommands) -> None:
    sc = add_command(
        sub, "schema", what="write the JSON Schema of the trace format (or of the viewer's bundle)", run=_schema
    )
    sc.add_argument(
        "--viewer-bundle",
        action="store_true",
        help="the data the trace viewer receives, not the trace format (default file: schema/viewer-bundle.schema.json)",
    )
    sc.add_argument("--out", "-o", help="file to write, - for standard output (default: schema/trace.schema.json)")


def _otlp_headers(args: argparse.Namespace) -> dict[str, str]:
    """--otlp-header NAME=VALUE as a dict; a header's value may be all a secret, so no message repeats one."""
    headers: dict[str, str] = {}
    for header in args.otlp_header:
        name, eq, value = header.partition("=")
        if not eq or not name.strip():
            raise UsageError("--otlp-header wants NAME=VALUE, e.g. Authorization=Basic ...")
        headers[name.strip()] = value
    if headers and not args.otlp_endpoint:
        raise UsageError("--otlp-header goes with --otlp-endpoint URL")
    return headers


def _export(args: argparse.Namespace) -> int:
    from flow.interop.otlp import OtlpExportError, send_otlp, to_otlp_json

    if not args.otlp_json and not args.otlp_endpoint:
        raise UsageError("say where the spans go: --otlp-json OUT and/or --otlp-endpoint URL")
    headers = _otlp_headers(args)
    trace = load_trace(args.file)
    say = lines_to(args.otlp_json)
    if args.otlp_json:
        write(args.otlp_json, to_otlp_json(trace))
        if args.otlp_json != STDOUT:
            print(args.otlp_json)
    if args.otlp_endpoint:
        try:
            sent = send_otlp(trace, args.otlp_endpoint, timeout_s=args.timeout, headers=headers)
        except OtlpExportError as exc:
            error(exc)
            return 1
        print(f"{sent} spans sent to {args.otlp_endpoint}", file=say)
    return 0


def _import(args: argparse.Namespace) -> int:
    from flow.interop.importers import import_file

    trace = import_file(args.file, fmt=args.format)
    out = args.out or Path(args.file).with_suffix(".trace.json")
    save(trace, out)
    say = lines_to(out)
    info = trace.meta.imported
    if info is not None:
        for line in info.unmapped:
            print(terminal_safe(f"note: {line}"), file=say)
    print(f"{summary_line(trace)} → {where(out)}", file=say)
    return 0


def _schema(args: argparse.Namespace) -> int:
    from flow.views.bundle_types import bundle_schema

    out = args.out or ("schema/viewer-bundle.schema.json" if args.viewer_bundle else "schema/trace.schema.json")
    write(
        out, json.dumps(bundle_schema() if args.viewer_bundle else json_schema(), ensure_ascii=False, indent=2) + "\n"
    )
    if out != STDOUT:
        print(out)
    return 0
