"""The command line: `python -m flow run | show | mock-server`."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from flow.model_side import ModelConfig
from flow.orchestrator import RunOptions, run
from flow.redact import SecretLeakError
from flow.render_text import hop_table, summary_line
from flow.trace import TraceError, load_trace, save_trace


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m flow", description="See how a language model uses tools, hop by hop.")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one question through the model and the tools, and write the trace")
    r.add_argument("--question", "-q", default="北京今天天气怎么样？")
    r.add_argument("--mode", choices=["mcp", "direct"], default="mcp")
    r.add_argument("--out", "-o", help="trace file to write (default: traces/<time>-<mode>.json)")
    r.add_argument("--model", help="model name; mock, mock-bad-json, ... for the offline mock (default: mock, "
                   "or $OPENAI_MODEL when a provider is configured)")
    r.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: $OPENAI_BASE_URL; unset: the offline mock)")
    r.add_argument("--tool-choice", default="auto", help="auto | none | required | the name of one function")
    r.add_argument("--no-parallel", action="store_true", help="send parallel_tool_calls: false")
    r.add_argument("--strict", action="store_true", help="send strict schemas and check the arguments against them")
    r.add_argument("--stream", action="store_true", help="stream the model's responses")
    r.add_argument("--max-rounds", type=int, default=5)
    r.add_argument("--era", choices=["handshake", "modern"], default="handshake",
                   help="MCP protocol era: initialize handshake, or 2026-07-28 server/discover")
    r.add_argument("--transport", choices=["stdio", "memory"], default="stdio")
    r.add_argument("--server-fault", choices=["none", "die", "hang"], default="none",
                   help="make the demo server die or hang on tools/call")
    r.add_argument("--mcp-timeout", type=float, default=10.0, help="seconds to wait for an MCP answer")
    r.add_argument("--model-timeout", type=float, default=60.0, help="seconds to wait for the model")
    r.add_argument("--quiet", action="store_true", help="print only the answer and the summary")

    s = sub.add_parser("show", help="print a trace as a hop table")
    s.add_argument("file")

    m = sub.add_parser("mock-server", help="serve the offline mock model over HTTP (OpenAI-compatible)")
    m.add_argument("--port", type=int, default=8765)
    m.add_argument("--host", default="127.0.0.1")
    return p


def _cmd_run(args: argparse.Namespace) -> int:
    if args.max_rounds < 1:
        print("error: --max-rounds must be at least 1", file=sys.stderr)
        return 2
    options = RunOptions(
        mode=args.mode,
        tool_choice=args.tool_choice,
        parallel=not args.no_parallel,
        strict=args.strict,
        stream=args.stream,
        max_rounds=args.max_rounds,
        era=args.era,
        transport=args.transport,
        server_fault=args.server_fault,
        mcp_timeout_s=args.mcp_timeout,
    )
    model = ModelConfig.from_env(model=args.model, base_url=args.base_url, timeout_s=args.model_timeout)
    result = run(args.question, options=options, model=model)
    out = Path(args.out) if args.out else Path("traces") / f"{dt.datetime.now():%Y%m%d-%H%M%S}-{args.mode}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_trace(result.trace, out)
    if result.ok:
        print(result.answer)
    else:
        print(f"error: {result.error}", file=sys.stderr)
    print(f"{summary_line(result.trace)} → {out}")
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "show":
            trace = load_trace(args.file)
            m = trace.meta
            print(f"{m.mode} · {m.model.get('name')} · {json.dumps(m.question, ensure_ascii=False)}")
            print(hop_table(trace))
            print(summary_line(trace) + (f" · error: {m.error}" if m.error else ""))
            return 0
        if args.command == "mock-server":
            from flow.mock_server import serve

            serve(args.port, args.host)
            return 0
    except (TraceError, SecretLeakError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
