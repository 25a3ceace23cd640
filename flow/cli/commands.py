"""The command line: `mcp-flow app | run | tools | call | show | validate | replay | samples | render | lesson | export |
import | schema | mock-server | demo-server | proxy | proxy-model | proxy-http | merge | record` (from a clone,
`python -m flow ...` is the same)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, get_args
from urllib.parse import urlsplit, urlunsplit

from flow.backends.replay import Cursor
from flow.backends.scripted import ScriptError, load_script
from flow.cli import app as web_app
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions, RunResult
from flow.providers import notes_before_sending
from flow.proxy import stdio as stdio_proxy
from flow.proxy.options import Parser, UsageError, check_port, check_seconds
from flow.runs import run
from flow.servers.spec import TOKEN_ENV, ServerSpec
from flow.text.errors import EMPTY_ANSWER, PROVIDER_NOTES, FlowError, sending_line
from flow.trace.files import (
    TraceError,
    json_schema,
    json_value_problem,
    load_trace,
    read_limited,
    save_trace,
    trace_text,
)
from flow.trace.model import Hop, ImportFormat, Trace
from flow.trace.redact import SecretLeakError, redact_url
from flow.trace.writes import unwritable
from flow.views.diagram import RenderError
from flow.views.labels import clip
from flow.views.outcome import run_outcome
from flow.views.table import ACTOR_LABEL, bounded_view, hop_table, summary_line, terminal_safe


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="mcp-flow", description="See how a language model uses tools, hop by hop.")
    sub = p.add_subparsers(dest="command", required=True)

    a = _command(sub, "app", what="start the web app (the offline mock model by default), on this machine only")
    a.add_argument("--port", type=int, default=8501, help="the port to serve on (default: 8501)")
    a.add_argument(
        "--lan",
        action="store_true",
        help="serve every network interface, for a classroom: anyone who can reach this machine can open the app",
    )
    a.add_argument(
        "--allow-server-commands",
        action="store_true",
        help="let the Run page start an MCP server from a command typed in the page (never with --lan)",
    )

    r = _command(sub, "run", what="run one question through the model and the tools, and write the trace")
    r.add_argument("--question", "-q", default="北京今天天气怎么样？")
    r.add_argument("--mode", choices=["mcp", "direct"], default="mcp")
    r.add_argument(
        "--out", "-o", help="trace file to write, - for standard output (default: traces/<time>-<mode>.json)"
    )
    r.add_argument(
        "--model",
        help="model name: mock, mock-bad-json, ... (a name starting with mock) for the offline mock; any other "
        "name goes to a provider, at --base-url, $OPENAI_BASE_URL, else https://api.openai.com/v1 (default: mock, "
        "or $OPENAI_MODEL when a base URL is given; the run says where it sends before it does)",
    )
    r.add_argument(
        "--base-url",
        help="an OpenAI-compatible endpoint (default: $OPENAI_BASE_URL; with neither, a mock model name stays "
        "offline and any other goes to https://api.openai.com/v1)",
    )
    r.add_argument(
        "--script",
        metavar="FILE|TEXT",
        help="a scripted model: the decisions it makes, as a JSON or "
        "YAML list of turns (call/arguments, calls, answer); offline, for any MCP server",
    )
    r.add_argument("--tool-choice", default="auto", help="auto | none | required | the name of one function")
    r.add_argument("--no-parallel", action="store_true", help="send parallel_tool_calls: false")
    r.add_argument("--strict", action="store_true", help="send strict schemas and check the arguments against them")
    r.add_argument("--stream", action="store_true", help="stream the model's responses")
    r.add_argument(
        "--no-adapt",
        action="store_true",
        help='send the conversation back exactly as the model wrote it (content null, not ""), to show what a '
        "provider refuses; by default the app sends a form every compatible server accepts and marks each change",
    )
    r.add_argument("--max-rounds", type=int, default=5)
    r.add_argument(
        "--era",
        choices=["handshake", "modern"],
        default="handshake",
        help="MCP protocol era: initialize handshake, or 2026-07-28 server/discover",
    )
    r.add_argument("--transport", choices=["stdio", "memory"], default="stdio")
    r.add_argument(
        "--server",
        metavar="COMMAND|URL",
        help="another MCP server: a stdio command line, e.g. "
        '"python -m weather_demo", or a Streamable HTTP URL, e.g. http://127.0.0.1:8000/mcp '
        "(default: the demo server)",
    )
    _server_access_options(r)
    r.add_argument(
        "--server-fault",
        choices=["none", "die", "hang"],
        default="none",
        help="make the demo server die or hang on tools/call",
    )
    r.add_argument("--mcp-timeout", type=float, default=10.0, help="seconds to wait for an MCP answer")
    r.add_argument("--model-timeout", type=float, default=60.0, help="seconds to wait for the model")
    r.add_argument(
        "--resource",
        action="append",
        default=[],
        metavar="URI",
        help="read an MCP resource (e.g. weather://cities) and give it to the model as context; repeatable",
    )
    r.add_argument("--prompt", metavar="NAME", help="fetch an MCP prompt (e.g. weather_report) and send its messages")
    r.add_argument("--prompt-arg", action="append", default=[], metavar="KEY=VALUE", help="an argument for --prompt")

    tl = _command(sub, "tools", what="connect to an MCP server and list its tools, resources and prompts")
    _probe_options(tl)
    tl.add_argument("--out", "-o", help="write the set-up and listing frames as a trace (- for standard output)")

    c = _command(
        sub,
        "call",
        what="connect to an MCP server and call one tool directly (no model), and write the "
        "trace; exit code 0 only for a result without isError",
    )
    c.add_argument("tool", help="the tool's name, as `tools` lists it")
    c.add_argument(
        "--args", "-a", default="{}", metavar="JSON", help='the arguments as a JSON object, e.g. \'{"city": "北京"}\''
    )
    _probe_options(c)
    c.add_argument("--out", "-o", help="trace file to write, - for standard output (default: traces/<time>-call.json)")

    s = _command(sub, "show", what="print a trace as a hop table, or one step's hops with their payloads")
    s.add_argument("file")
    s.add_argument("--step", type=int, help="print the hops of this step (0-10) and their payloads")
    s.add_argument("--hop", type=int, metavar="SEQ", help="print one hop and its payload")

    v = _command(sub, "validate", what="check trace files: OK, or the first problem with its JSON path")
    v.add_argument("files", nargs="+")

    rp = _command(
        sub,
        "replay",
        what="re-run a trace offline: recorded model answers, tools run again on the demo "
        "server or on --server (never on a server the file names)",
    )
    rp.add_argument("file")
    rp.add_argument("--out", "-o", required=True, help="trace file to write, - for standard output")
    rp.add_argument(
        "--transport",
        choices=["stdio", "memory"],
        help="run the demo server over stdio or in this process (default: as the recording did; "
        "run's default is stdio)",
    )
    rp.add_argument(
        "--server",
        metavar="COMMAND|URL",
        help="run the recorded tool calls on this MCP server instead: "
        "a stdio command line or a Streamable HTTP URL. It gets every call the recording's model made. "
        "Without it, a recording of another server replays the model side only (recorded results)",
    )
    _server_access_options(rp)

    sm = _command(sub, "samples", what="regenerate the sample library")
    sm.add_argument("--out", default="sample_traces", help="the directory to write them to")
    sm.add_argument("names", nargs="*", help="only these samples (default: all)")

    rd = _command(sub, "render", what="draw a trace: sequence diagram (dot, svg, png), mermaid, or one HTML file")
    rd.add_argument("file")
    rd.add_argument("--format", "-f", choices=["dot", "svg", "png", "mermaid", "html"], default="svg")
    rd.add_argument(
        "--out", "-o", help="output file, - for standard output (default: the trace's name with the format's extension)"
    )
    rd.add_argument("--hop", type=int, metavar="SEQ", help="highlight this hop: earlier ones normal, later ones faded")
    rd.add_argument("--step", type=int, help="highlight the first hop of this step")
    rd.add_argument("--window", type=int, default=0, help="draw only this many arrows around the highlight (0: all)")
    rd.add_argument("--lang", choices=["zh", "en"], default="en")

    ls = _command(
        sub, "lesson", what="write a lesson script: the ten messages at a glance, then every hop explained (Markdown)"
    )
    ls.add_argument("file")
    ls.add_argument("--lang", choices=["zh", "en"], default="zh")
    ls.add_argument("--out", "-o", default=STDOUT, help="Markdown file to write, - for standard output (the default)")
    ls.add_argument("--restaurant", action="store_true", help="add the restaurant metaphor's captions to the overview")

    ex = _command(sub, "export", what="write a trace as OpenTelemetry spans (OTLP/JSON), or send them to a collector")
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

    im = _command(sub, "import", what="turn another tool's recording (JSON-RPC log, OTLP/JSON) into a trace")
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

    sc = _command(sub, "schema", what="write the JSON Schema of the trace format")
    sc.add_argument("--out", "-o", default="schema/trace.schema.json", help="file to write, - for standard output")

    m = _command(sub, "mock-server", what="serve the offline mock model over HTTP (OpenAI-compatible)")
    m.add_argument("--port", type=int, default=8765)
    m.add_argument("--host", default="127.0.0.1")
    m.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="require the key held in this environment variable, so a wrong key gets 401 as from a real provider",
    )

    ds = _command(sub, "demo-server", what="run the demo MCP server: over stdio, or over Streamable HTTP with --http")
    ds.add_argument(
        "--http", action="store_true", help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio"
    )
    ds.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    ds.add_argument("--port", type=int, default=8000, help="port to bind; 0 picks a free one (default: 8000)")
    ds.add_argument(
        "--token",
        help=f"the bearer token clients must send (visible to other users in `ps`: prefer "
        f"--token-file or ${TOKEN_ENV}; default: ${TOKEN_ENV}, else a new one printed once)",
    )
    ds.add_argument("--token-file", metavar="FILE", help="read the bearer token from the first line of this file")
    ds.add_argument("--no-auth", action="store_true", help="accept requests without a bearer token")
    ds.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name or address clients may use in the Host header, beside this machine's own "
        "names and addresses and localhost; repeatable; '*' turns the DNS-rebinding check off",
    )
    ds.add_argument(
        "--fault",
        choices=["none", "die", "hang"],
        default="none",
        help="make every tools/call kill the server or never answer",
    )
    px = _command(sub, "proxy", what=stdio_proxy.DESCRIPTION)
    stdio_proxy.add_arguments(px)

    pm = _command(
        sub,
        "proxy-model",
        what="stand in for an OpenAI-compatible API on 127.0.0.1: forward every request, stream answers through, "
        "record the bodies (JSONL; never a key)",
    )
    pm.add_argument(
        "--upstream", required=True, metavar="URL", help="the real API's base URL, e.g. https://api.openai.com/v1"
    )
    _http_proxy_options(pm, 8766)

    ph = _command(
        sub,
        "proxy-http",
        what="stand in for an MCP server over Streamable HTTP on 127.0.0.1: forward POST/GET/DELETE, record the "
        "frames (JSONL; no header, so no token or session id)",
    )
    ph.add_argument(
        "--upstream", required=True, metavar="URL", help="the MCP server's URL, e.g. http://127.0.0.1:8000/mcp"
    )
    _http_proxy_options(ph, 8767)

    mg = _command(
        sub,
        "merge",
        what="merge what the proxies recorded of one run (an MCP recording, a model recording) into one trace",
    )
    mg.add_argument(
        "files", nargs="+", metavar="RECORDING", help="JSONL files written by proxy, proxy-http, proxy-model"
    )
    mg.add_argument("--out", "-o", required=True, help="trace file to write, - for standard output")
    mg.add_argument(
        "--conversation",
        type=int,
        metavar="N",
        help="of several conversations in the model recording (a long-running proxy-model), the Nth (default: the "
        "last; merge says how many it found)",
    )

    rc = _command(
        sub,
        "record",
        what="run an app with the model proxy in front of its provider (OPENAI_BASE_URL set for it), "
        "then merge what was recorded into one trace",
    )
    rc.add_argument("--out", "-o", required=True, help="trace file to write, - for standard output")
    rc.add_argument(
        "--upstream",
        metavar="URL",
        help="the real API's base URL (default: $OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    rc.add_argument("--port", type=int, default=0, help="the model proxy's port on 127.0.0.1 (default: a free one)")
    rc.add_argument(
        "--keep",
        metavar="DIR",
        help="keep the recordings in this folder (default: a temporary one, removed after the merge)",
    )
    rc.add_argument("--timeout", type=float, default=600.0, help="seconds one model exchange may take")
    rc.add_argument("app_command", nargs=argparse.REMAINDER, metavar="COMMAND", help="-- then the app's command line")
    return p


def _command(sub: argparse._SubParsersAction[Parser], name: str, *, what: str) -> Parser:
    """A subcommand, saying what it does both in the list of commands and on its own --help."""
    return sub.add_parser(name, help=what, description=what)


def _http_proxy_options(parser: argparse.ArgumentParser, port: int) -> None:
    parser.add_argument(
        "--port", type=int, default=port, help=f"port on 127.0.0.1; 0 picks a free one (default: {port})"
    )
    parser.add_argument("--out", "-o", required=True, help="the JSON Lines recording to write")
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds one exchange may take, from its request's first byte to its answer's last",
    )


def _server_access_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="extra environment for a --server command; NAME alone copies NAME's value from this "
        "environment (NAME=VALUE shows the value to other users in `ps`); the value is redacted in "
        "the trace; repeatable",
    )
    parser.add_argument(
        "--server-env-file",
        action="append",
        default=[],
        metavar="FILE",
        help="more --server-env, as NAME=VALUE lines (# comments); values redacted in the trace",
    )
    parser.add_argument(
        "--server-env-public",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="like --server-env, but the value is no secret and the trace shows it; repeatable",
    )
    parser.add_argument(
        "--bearer-token-env",
        default=TOKEN_ENV,
        metavar="NAME",
        help=f"for a --server URL: the environment variable holding its bearer token "
        f"(default: {TOKEN_ENV}; unset: no token is sent)",
    )


def _probe_options(parser: argparse.ArgumentParser) -> None:
    """What `tools` and `call` need to reach a server."""
    parser.add_argument(
        "--server",
        metavar="COMMAND|URL",
        help="a stdio MCP server's command line, or a Streamable HTTP URL (default: the demo server)",
    )
    _server_access_options(parser)
    parser.add_argument("--era", choices=["handshake", "modern"], default="handshake")
    parser.add_argument("--timeout", type=float, default=10.0)


def _error(line: object) -> None:
    """The one way the command line reports a failure: `error: ...` on one line of standard error."""
    print(f"error: {' '.join(str(line).splitlines())}", file=sys.stderr, flush=True)  # whatever a tool said


MAX_EXCHANGE_S = 86400.0  # the longest any --timeout may give one exchange: a model's, an MCP server's

STDOUT = "-"  # an output named "-" is standard output, as in other Unix tools


def _lines_to(out: str | Path | None) -> TextIO:
    """Where a command prints its own lines: standard output, unless its result goes there (a file named - is
    written as ./-)."""
    return sys.stderr if out is not None and str(out) == STDOUT else sys.stdout


def _write(out: str | Path, data: str | bytes) -> None:
    """`data` into the file `out` (its folder made if need be), or onto standard output for "-": the same bytes."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if str(out) != STDOUT:
        try:  # written in place, not through a temporary file: `-o /dev/null` and a named pipe work as ever
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_bytes(raw)
        except OSError as exc:
            raise unwritable(out, exc) from None
        return
    sys.stdout.flush()  # what the command printed before comes first
    sys.stdout.buffer.write(raw)
    sys.stdout.buffer.flush()


def _save(trace: Trace, out: str | Path) -> None:
    """A trace into the file `out` (atomically, see `save_trace`), or onto standard output for "-"."""
    if str(out) == STDOUT:
        _write(out, trace_text(trace))
    else:
        save_trace(trace, out)


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is not there (yet): not the same file
        return False


def _where(out: str | Path) -> str:
    return "standard output" if str(out) == STDOUT else str(out)


_SMALL_FILE = 1 << 16  # an env or token file is a few lines; anything bigger is a mistake


def _read_small_file(path: str, option: str) -> str:
    """A short text file named on the command line, read as trace files are (`read_limited`: never a FIFO or
    a device, bounded), or one line saying why not."""
    try:
        data = read_limited(path, limit=_SMALL_FILE, what="file for " + option)
    except TraceError as exc:
        raise UsageError(f"{option} {exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{option} {path}: not UTF-8 text") from None


def _env_pair(text: str, option: str, *, from_environment: bool) -> tuple[str, str]:
    """NAME=VALUE, or (when allowed) NAME alone, whose value is copied from this process's environment."""
    name, eq, value = text.partition("=")
    if not name or "\0" in text or (not eq and not from_environment):
        raise UsageError(f"{option} wants NAME=VALUE" + (" or NAME" if from_environment else "") + f", got {text!r}")
    if not eq:
        if name not in os.environ:
            raise UsageError(f"{option} {name}: {name} is not set in this environment")
        value = os.environ[name]
    return name, value


def _server_env(args: argparse.Namespace) -> tuple[list[tuple[str, str]], list[str]]:
    """The environment for a --server command, and the names whose values the trace may show."""
    env = [_env_pair(pair, "--server-env", from_environment=True) for pair in args.server_env]
    for path in args.server_env_file:
        for n, line in enumerate(_read_small_file(path, "--server-env-file").splitlines(), 1):
            line = line.strip()
            if line and not line.startswith("#"):
                name, value = _env_pair(
                    line.removeprefix("export "), f"--server-env-file {path}:{n}:", from_environment=False
                )
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                    value = value[1:-1]
                env.append((name, value))
    public = [_env_pair(pair, "--server-env-public", from_environment=False) for pair in args.server_env_public]
    secret_names = {name for name, _ in env}
    return env + public, [name for name, _ in public if name not in secret_names]


def _server_spec(args: argparse.Namespace) -> ServerSpec:
    """--server as a URL (Streamable HTTP) or a command line (stdio), with its environment or token source."""
    env, public = _server_env(args)
    server = (args.server or "").strip()
    if server.startswith(("http://", "https://")):
        if env:
            raise UsageError("--server-env is for a server started from a command; an HTTP server runs on its own")
        return ServerSpec(transport="http", url=server, bearer_token_env=args.bearer_token_env)
    if server.split(":", 1)[0].lower() in ("ws", "wss", "sse", "tcp"):
        raise UsageError(f"--server {server!r}: only http:// and https:// URLs (Streamable HTTP) are supported")
    if args.server is not None and not server:
        raise UsageError(
            "--server is empty: give a command line or an http(s):// URL, or leave it out for the demo server"
        )
    try:
        command = tuple(shlex.split(server)) if server else ()
    except ValueError as exc:  # shlex: "No closing quotation", "No escaped character"
        raise UsageError(f"--server {server!r}: {exc}") from None
    if env and not command:
        raise UsageError("--server-env needs --server COMMAND (the demo server gets its own environment)")
    return ServerSpec(command=command, env=tuple(env), env_public=tuple(public), bearer_token_env=args.bearer_token_env)


def _cmd_run(args: argparse.Namespace) -> int:
    if args.max_rounds < 1:
        raise UsageError("--max-rounds must be at least 1")
    check_seconds(args.mcp_timeout, "--mcp-timeout", at_most=MAX_EXCHANGE_S)
    check_seconds(args.model_timeout, "--model-timeout", at_most=MAX_EXCHANGE_S)
    if args.mode == "direct" and (args.server_fault != "none" or args.resource or args.prompt or args.server):
        raise UsageError("--server, --server-fault, --resource and --prompt need an MCP server: use --mode mcp")
    if args.script and (args.model or args.base_url):
        raise UsageError("--script is the model; leave out --model and --base-url")
    options = RunOptions.build(
        server=_server_spec(args),
        mode=args.mode,
        tool_choice=args.tool_choice,
        parallel=not args.no_parallel,
        strict=args.strict,
        stream=args.stream,
        adapt=not args.no_adapt,
        max_rounds=args.max_rounds,
        era=args.era,
        transport=args.transport,
        server_fault=args.server_fault,
        mcp_timeout_s=args.mcp_timeout,
        resources=args.resource,
        prompt=args.prompt,
        prompt_args=[_env_pair(a, "--prompt-arg", from_environment=False) for a in args.prompt_arg],
    )
    say = _lines_to(args.out)
    if args.script:
        model = ModelConfig.scripted(load_script(args.script), timeout_s=args.model_timeout)
    else:
        try:
            model = ModelConfig.from_env(model=args.model, base_url=args.base_url, timeout_s=args.model_timeout)
        except FlowError as exc:  # a base URL no request can go to: said before anything is sent
            raise UsageError(str(exc)) from None
        for note in notes_before_sending(model.base_url or "", options):
            print(f"note: {PROVIDER_NOTES[note]['en']}", file=sys.stderr)
        if model.backend == "openai":  # a name that is not a mock's goes to a provider: say where, first
            print(sending_line(model.describe(), "en"), file=say, flush=True)
    result = run(args.question, options=options, model=model)
    if result.ok:
        print(result.answer if (result.answer or "").strip() else EMPTY_ANSWER["en"], file=say, flush=True)
    else:
        _error(result.error)
    out = args.out or Path("traces") / f"{dt.datetime.now():%Y%m%d-%H%M%S}-{args.mode}.json"
    _save(result.trace, out)
    print(f"what happened: {run_outcome(result.trace).text['en']}", file=say)
    print(f"{summary_line(result.trace)} → {_where(out)}", file=say)
    return 0 if result.ok else 1


def _cmd_tools(args: argparse.Namespace) -> int:
    import anyio

    from flow.engine.loop import inspect_server

    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    spec = _server_spec(args)
    result, listing = anyio.run(lambda: inspect_server(spec, era=args.era, timeout_s=args.timeout))
    if args.out:
        _save(result.trace, args.out)
    _stderr_note(result)
    if not result.ok:
        _error(result.error)
        return 1
    say = _lines_to(args.out)
    server = result.trace.meta.server or {}
    over = ""
    if server.get("transport") == "http":
        over = f" · {server.get('url')} ({'bearer token' if server.get('auth') == 'bearer' else 'no token'})"
    print(f"{server.get('name')} · protocol {server.get('protocol_version')} ({server.get('era')} era){over}", file=say)
    for tool in listing["tools"]:
        params = ", ".join((tool.get("inputSchema") or {}).get("properties") or {})
        print(f"  tool     {tool['name']}({params}) — {clip(tool.get('description') or '', 70)}", file=say)
    for resource in listing["resources"]:
        print(f"  resource {resource.get('uri')} — {resource.get('description') or resource.get('name', '')}", file=say)
    for prompt in listing["prompts"]:
        print(f"  prompt   {prompt.get('name')} — {prompt.get('description') or ''}", file=say)
    print(summary_line(result.trace) + (f" → {_where(args.out)}" if args.out else ""), file=say)
    return 0


def _stderr_note(result: RunResult) -> None:
    written = (result.trace.meta.server or {}).get("stderr_bytes") or 0
    if written > 1 << 20:
        print(f"note: the MCP server wrote {written / (1 << 20):.1f} MB to stderr", file=sys.stderr)


def _cmd_call(args: argparse.Namespace) -> int:
    import anyio

    from flow.engine.loop import call_server_tool

    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        arguments, problem = None, f"not valid JSON ({exc})"
    else:
        bad = json_value_problem(arguments)
        problem = f"not usable ({bad})" if bad else "not a JSON object"
    if not isinstance(arguments, dict) or json_value_problem(arguments):
        raise UsageError(f"--args is {problem}: {args.args}")
    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    spec = _server_spec(args)
    result, called = anyio.run(
        lambda: call_server_tool(spec, args.tool, arguments, era=args.era, timeout_s=args.timeout)
    )
    out = args.out or Path("traces") / f"{dt.datetime.now():%Y%m%d-%H%M%S}-call.json"
    _save(result.trace, out)
    _stderr_note(result)
    if not result.ok or called is None:
        _error(result.error)
        return 1
    say = _lines_to(out)
    tool_result = next(h for h in reversed(result.trace.hops) if h.kind == "tool.result")
    print(("isError: " if called.get("isError") else "") + tool_result.payload["tool_message_content"], file=say)
    print(f"{summary_line(result.trace)} → {_where(out)}", file=say)
    return 1 if called.get("isError") else 0


def _cmd_demo_server(args: argparse.Namespace) -> int:
    from weather_demo.server import ANY_ADDRESS, LOCAL_HOSTS, allowed_hosts, new_token, serve_http
    from weather_demo.server import main as serve_stdio

    if not args.http:
        if (
            args.token
            or args.token_file
            or args.no_auth
            or args.allow_host
            or args.port != 8000
            or args.host != "127.0.0.1"
        ):
            raise UsageError("--token, --token-file, --no-auth, --allow-host, --host and --port are for --http")
        serve_stdio(["--fault", args.fault])
        return 0
    if args.token and args.token_file:
        raise UsageError("--token and --token-file: give one")
    if args.no_auth and (args.token or args.token_file):
        raise UsageError("--no-auth and a token contradict each other")
    token = args.token
    if args.token_file:
        token = next(
            (line.strip() for line in _read_small_file(args.token_file, "--token-file").splitlines() if line.strip()),
            "",
        )
        if not token:
            raise UsageError(f"--token-file {args.token_file}: the file is empty")
    token = None if args.no_auth else (token or os.environ.get(TOKEN_ENV) or None)
    generated = token is None and not args.no_auth
    if generated:
        token = new_token()
    if args.no_auth and args.host not in LOCAL_HOSTS:
        print(
            f"warning: anyone who can reach {args.host}:{args.port} can call these tools (--no-auth)", file=sys.stderr
        )
    hosts = allowed_hosts(args.host, args.allow_host)
    if hosts is None:
        print(
            "warning: DNS-rebinding protection is OFF (--allow-host '*'): any web page a visitor opens can send "
            "requests to this server under any host name",
            file=sys.stderr,
        )
    elif args.host not in LOCAL_HOSTS:
        print(
            f"Host/Origin checked: clients must reach it as {', '.join(hosts)} (add names with --allow-host)",
            file=sys.stderr,
        )

    def listening(url: str) -> None:
        how = "bearer token required" if token else "no auth"
        print(f"weather-demo MCP server listening on {url} ({how})", file=sys.stderr, flush=True)
        if args.host in ANY_ADDRESS:  # no client reaches "0.0.0.0": name it as this machine does, an allowed host
            parts = urlsplit(url)
            url = urlunsplit(parts._replace(netloc=f"127.0.0.1:{parts.port}"))
        if generated:
            # Shown once, here, so a class can connect; it is never written anywhere else.
            print(
                f"bearer token (shown only now): {token}\nconnect with:  {TOKEN_ENV}={token} "
                f"python -m flow tools --server {url}",
                file=sys.stderr,
                flush=True,
            )
        elif token:
            print(
                f"connect with:  {TOKEN_ENV}=<the token> python -m flow tools --server {url}",
                file=sys.stderr,
                flush=True,
            )
        else:
            print(f"connect with:  python -m flow tools --server {url}", file=sys.stderr, flush=True)

    serve_http(host=args.host, port=args.port, token=token, fault=args.fault, on_listening=listening, allowed=hosts)
    return 0


def _print_hop(hop: Hop) -> None:
    """The hop's line and its payload, bounded however much the hop holds (see `bounded_view`)."""
    step = "-" if hop.step is None else hop.step
    print(
        terminal_safe(
            f"#{hop.seq} step {step} ({hop.phase or 'wire'}) · {ACTOR_LABEL[hop.source]} → "
            f"{ACTOR_LABEL[hop.target]} · {hop.kind} · {clip(hop.summary, 200)}"
        )
    )
    clipped = getattr(hop, "clipped", None)
    if clipped:
        print(terminal_safe(f"(clipped when recorded: {clipped})"))
    if hop.inferred:
        print(terminal_safe(f"(inferred from the proxies' recordings: {hop.inferred})"))
    print(terminal_safe(json.dumps(bounded_view(hop.payload), ensure_ascii=False, indent=2)))


def _cmd_show(args: argparse.Namespace) -> int:
    trace = load_trace(args.file)
    if args.step is not None or args.hop is not None:
        cursor = Cursor(trace)
        hops = [cursor.goto_seq(args.hop)] if args.hop is not None else cursor.hops_of_step(args.step)
        if not hops:
            cursor.goto_step(args.step)  # raises with the steps the trace does have
        for hop in hops:
            _print_hop(hop)
        return 0
    m = trace.meta
    print(
        terminal_safe(
            f"{m.mode} · {m.model.get('name') or '-'} · {json.dumps(clip(m.question, 200), ensure_ascii=False)}"
        )
    )
    if isinstance(m.replay, dict):
        tools = {
            "recorded": "model side only: tool results served from the recording",
            "server": "tools re-run on a server named on the command line",
            "demo": "tools re-run on the demo server",
        }.get(str(m.replay.get("tools")), "tools re-run")
        print(f"replay · {tools} · {'diverged' if m.replay.get('diverged') else 'matched the recording'}")
    print(hop_table(trace))
    print(summary_line(trace) + terminal_safe(f" · error: {clip(m.error, 200)}" if m.error else ""))
    return 0


def _names_a_server(trace: Trace) -> str:
    """What a trace's settings name as a way to reach a server (a command, a URL), for a note; "" for none."""
    settings = trace.meta.settings if isinstance(trace.meta.settings, dict) else {}
    named = [
        what
        for key, what in (
            ("server_command", "a server command"),
            ("server_url", "a server URL"),
            ("server_env", "server environment"),
        )
        if settings.get(key)
    ]
    return " and ".join(named)


_RECORDINGS = {
    "otlp-json": ("OpenTelemetry spans (OTLP/JSON)", "import"),
    "jsonrpc-jsonl": ("a JSON-RPC log (an MCP proxy's recording, or another tool's)", "import"),
    "proxy-jsonl": ("a recording of python -m flow proxy-model", "merge"),
}


def _recording_hint(name: str) -> str | None:
    """What a file that is not a trace is instead, when it is a recording `import` or `merge` turns into one."""
    from flow.interop.importers import detect_format

    try:
        text = read_limited(name).decode("utf-8-sig")
    except (TraceError, OSError, UnicodeDecodeError):
        return None
    found = _RECORDINGS.get(detect_format(text))
    if found is None:
        return None
    what, command = found
    return f"not a trace but {what}: turn it into one with python -m flow {command} {shlex.quote(name)}"


def _cmd_validate(args: argparse.Namespace) -> int:
    bad = 0
    for name in args.files:
        try:
            trace = load_trace(name)
        except TraceError as exc:
            bad += 1
            print(f"{name}: {_recording_hint(name) or str(exc).removeprefix(name + ': ')}")
        else:
            named = _names_a_server(trace)
            print(
                f"{name}: OK ({len(trace.hops)} hops, format {trace.format_version})"
                + (f"; it names {named}, which replay never runs or contacts" if named else "")
            )
    return 1 if bad else 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from flow.backends.replay import ReplayError, recorded_server, replay

    trace = load_trace(args.file)
    server = _server_spec(args) if args.server is not None else None
    if server is None and (args.server_env or args.server_env_file or args.server_env_public):
        raise UsageError("--server-env needs --server COMMAND (the demo server gets its own environment)")
    other = recorded_server(trace.meta)
    if server is None and other is not None:
        print(
            f"note: the recording came from {other}, not the demo server: replaying the model side only "
            "(recorded tool results served back, no server contacted; name one with --server)",
            file=sys.stderr,
        )
    try:
        result = replay(trace, source=args.file, transport=args.transport, server=server)
    except ReplayError as exc:
        raise UsageError(str(exc)) from None
    _save(result.trace, args.out)
    info = result.trace.meta.replay or {}
    say = _lines_to(args.out)
    if result.ok:
        print(result.answer if (result.answer or "").strip() else EMPTY_ANSWER["en"], file=say)
    else:
        _error(result.error)
    if info.get("diverged"):
        print(f"replay diverged from the recording: {info['divergences'][0]}", file=sys.stderr)
    else:
        results = (
            "tool results served from the recording" if info.get("tools") == "recorded" else "tool results identical"
        )
        print(f"replay matched the recording: {info.get('served')} model exchanges served, {results}", file=say)
    print(f"{summary_line(result.trace)} → {_where(args.out)}", file=say)
    return 1 if info.get("diverged") or not result.ok else 0


def _cmd_export(args: argparse.Namespace) -> int:
    from flow.interop.otlp import OtlpExportError, send_otlp, to_otlp_json

    if not args.otlp_json and not args.otlp_endpoint:
        raise UsageError("say where the spans go: --otlp-json OUT and/or --otlp-endpoint URL")
    headers: dict[str, str] = {}
    for header in args.otlp_header:
        name, eq, value = header.partition("=")
        if not eq or not name.strip():  # never the argument itself in the message: it may be all a secret
            raise UsageError("--otlp-header wants NAME=VALUE, e.g. Authorization=Basic ...")
        headers[name.strip()] = value
    if headers and not args.otlp_endpoint:
        raise UsageError("--otlp-header goes with --otlp-endpoint URL")
    trace = load_trace(args.file)
    say = _lines_to(args.otlp_json)
    if args.otlp_json:
        _write(args.otlp_json, to_otlp_json(trace))
        if args.otlp_json != STDOUT:
            print(args.otlp_json)
    if args.otlp_endpoint:
        try:
            sent = send_otlp(trace, args.otlp_endpoint, timeout_s=args.timeout, headers=headers)
        except OtlpExportError as exc:
            _error(exc)
            return 1
        print(f"{sent} spans sent to {args.otlp_endpoint}", file=say)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from flow.interop.importers import import_file

    trace = import_file(args.file, fmt=args.format)
    out = args.out or Path(args.file).with_suffix(".trace.json")
    _save(trace, out)
    say = _lines_to(out)
    info = trace.meta.imported
    if info is not None:
        for line in info.unmapped:
            print(terminal_safe(f"note: {line}"), file=say)
    print(f"{summary_line(trace)} → {_where(out)}", file=say)
    return 0


_EXT = {"dot": "dot", "svg": "svg", "png": "png", "mermaid": "mmd", "html": "html"}


def _cmd_render(args: argparse.Namespace) -> int:
    from flow.trace.questions import questions_for
    from flow.views.diagram import MAX_ARROWS, render, to_dot, to_mermaid, too_many_arrows
    from flow.views.html import to_html

    trace = load_trace(args.file)
    if args.format in ("dot", "svg", "png"):
        problem = too_many_arrows(trace, window=args.window or None)
        if problem:
            raise RenderError(
                f"{args.file}: {problem}: draw part of it with --window N (up to {MAX_ARROWS:,}) "
                "and --hop SEQ or --step N"
            )
    current = None
    if args.hop is not None:
        current = Cursor(trace).goto_seq(args.hop).seq
    elif args.step is not None:
        current = Cursor(trace).goto_step(args.step).seq
    out = args.out or Path(args.file).with_suffix("." + _EXT[args.format])
    if args.format == "mermaid":
        _write(out, to_mermaid(trace, lang=args.lang))
    elif args.format == "html":  # with the questions file beside the trace, if there is one
        _write(out, to_html(trace, lang=args.lang, questions=questions_for(args.file)))
    else:
        dot = to_dot(trace, current=current, window=args.window or None, lang=args.lang)
        _write(out, dot if args.format == "dot" else render(dot, args.format))
    if out != STDOUT:
        print(out)
    return 0


def _cmd_lesson(args: argparse.Namespace) -> int:
    from flow.trace.questions import questions_for
    from flow.views.lesson import LessonQuestion, lesson_markdown

    trace = load_trace(args.file)
    lang = args.lang
    questions = {  # the trace's questions file (beside it, or a sample's), in the lesson's language
        seq: LessonQuestion(
            q.ask[lang], tuple(c[lang] for c in q.choices), q.answer - 1, q.why[lang] if q.why else None
        )
        for seq, q in questions_for(args.file).items()
    }
    _write(args.out, lesson_markdown(trace, lang=lang, restaurant=args.restaurant, questions=questions))
    if args.out != STDOUT:
        print(args.out)
    return 0


def _cmd_samples(args: argparse.Namespace) -> int:
    from flow.samples import write_samples

    if args.out == STDOUT:
        raise UsageError("--out -: the samples are a folder of files, and standard output holds one; name a folder")
    for path in write_samples(Path(args.out), names=args.names or None):
        print(path)
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    _write(args.out, json.dumps(json_schema(), ensure_ascii=False, indent=2) + "\n")
    if args.out != STDOUT:
        print(args.out)
    return 0


def _cmd_mock_server(args: argparse.Namespace) -> int:
    from flow.backends.mock_http import serve

    serve(args.port, args.host, os.environ.get(args.api_key_env) if args.api_key_env else None)
    return 0


def _cmd_proxy(args: argparse.Namespace) -> int:
    try:
        return stdio_proxy.run_proxy(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _cmd_http_proxy(args: argparse.Namespace) -> int:
    from flow.proxy.http import mcp_http_proxy, model_proxy

    check_port(args.port)
    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    make = model_proxy if args.command == "proxy-model" else mcp_http_proxy
    try:
        served = make(args.upstream, args.out, port=args.port, timeout_s=args.timeout)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    what = "model API" if args.command == "proxy-model" else "MCP server"
    log = served.relay.recording.log

    def listening() -> None:
        if log.renamed:
            print(f"note: {log.renamed}", file=sys.stderr)
        print(
            f"{what} proxy listening on {served.url} → {redact_url(args.upstream)}, recording to {log.path}",
            file=sys.stderr,
            flush=True,
        )

    stopped_by = served.run(ready=listening)
    return 128 + stopped_by if stopped_by else 0


def _cmd_merge(args: argparse.Namespace) -> int:
    from flow.interop.importers import merge_files

    for recording in args.files:
        if str(args.out) != STDOUT and _same_file(args.out, recording):
            raise UsageError(f"--out {args.out} is one of the recordings to merge: name another file for the trace")
    trace = merge_files(args.files, name=str(args.out), conversation=args.conversation)
    _save(trace, args.out)
    _merged(trace, args.out)
    return 0


def _merged(trace: Trace, out: str | Path) -> None:
    """What `merge` and `record` say of the trace they wrote: its notes (what is inferred, what was left out, which
    conversation it is), then its summary."""
    say = _lines_to(out)
    for line in trace.meta.imported.unmapped if trace.meta.imported else []:
        print(terminal_safe(f"note: {line}"), file=say)
    print(f"{summary_line(trace)} → {_where(out)}", file=say)


def _cmd_record(args: argparse.Namespace) -> int:
    import shutil
    import tempfile

    command = args.app_command[1:] if args.app_command[:1] == ["--"] else args.app_command
    if not command:
        raise UsageError("give the app's command after --, e.g. record --out run.json -- python my_app.py")
    check_port(args.port)
    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    if str(args.out) != STDOUT and Path(args.out).is_dir():  # said before the app runs, not after
        raise unwritable(args.out, IsADirectoryError())
    upstream = args.upstream or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    if args.keep:
        folder = Path(args.keep)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--keep {folder}: cannot be made a folder ({exc.strerror or exc})") from None
    else:
        folder = Path(tempfile.mkdtemp(prefix="mcp-flow-record-"))
    kept = False
    try:
        code, kept = _record(args, command, upstream, folder)
        return code
    finally:
        if not args.keep and not kept:  # on every way out: a refused start, Ctrl-C; a failed merge keeps them
            shutil.rmtree(folder, ignore_errors=True)


def _record(args: argparse.Namespace, command: list[str], upstream: str, folder: Path) -> tuple[int, bool]:
    """`record`: the model proxy, the app, the merge of what was recorded in `folder`; the app's exit code, and
    whether the recordings must be kept (the merge refused them: they are all there is of the run)."""
    import subprocess

    from flow.interop.importers import NothingRecorded, merge_files
    from flow.proxy.http import model_proxy
    from flow.proxy.stdio import RECORD_DIR_ENV, exit_code

    before = set(folder.iterdir())  # a kept folder may hold an earlier run's recordings: never merged into this one
    try:
        served = model_proxy(upstream, str(folder / "model.jsonl"), port=args.port, timeout_s=args.timeout).start()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    model_log = served.relay.recording.log.path
    print(f"recording: OPENAI_BASE_URL={served.url} → {redact_url(upstream)}", file=sys.stderr, flush=True)
    # The app's MCP servers are recorded when its configuration starts them through `python -m flow proxy`
    # with no --out: each then writes into this folder.
    env = {**os.environ, "OPENAI_BASE_URL": served.url, RECORD_DIR_ENV: str(folder)}
    try:
        app = subprocess.Popen(command, env=env)
    except OSError as exc:
        served.stop()
        raise UsageError(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
    try:
        returncode = app.wait()
    except KeyboardInterrupt:  # the app got the Ctrl-C too: let it end, then merge what it did
        try:
            returncode = app.wait(timeout=10)
        except subprocess.TimeoutExpired:
            app.kill()
            returncode = app.wait()
    finally:
        served.stop()
    code = exit_code(returncode)
    found = [p for p in folder.glob("mcp-*.jsonl") if p not in before]
    mcp_logs = sorted(found, key=lambda p: p.stat().st_mtime)
    if len(mcp_logs) > 1:
        print(f"note: {len(mcp_logs)} MCP recordings; the trace merges the first, {mcp_logs[0]}", file=sys.stderr)
    try:
        trace = merge_files([model_log, *mcp_logs[:1]], name=str(args.out), app_exit_code=code)
    except NothingRecorded:
        # The app's own exit code stands; what it did is not for the recording to overrule.
        print(
            "note: nothing was recorded, so no trace was written: the app sent no model request to "
            f"$OPENAI_BASE_URL, and no MCP frame crossed a `python -m flow proxy` (one with no --out records only "
            f"if it gets ${RECORD_DIR_ENV}: an app that gives its servers a clean environment must pass it on, "
            f"e.g. --server-env {RECORD_DIR_ENV})",
            file=sys.stderr,
        )
        return code, False
    except TraceError as exc:
        # The app's own exit code stands, and what was recorded stays for a later `merge`.
        _error(exc)
        recorded = " ".join(shlex.quote(str(p)) for p in [model_log, *mcp_logs[:1]])
        print(
            f"note: no trace was written; the recordings are kept in {folder} (python -m flow merge {recorded} "
            f"--out {shlex.quote(str(args.out))})",
            file=sys.stderr,
        )
        return code, True
    _save(trace, args.out)
    _merged(trace, args.out)
    return code, False


def _cmd_app(args: argparse.Namespace) -> int:
    check_port(args.port)
    try:
        command = web_app.app_command(port=args.port, lan=args.lan, allow_commands=args.allow_server_commands)
    except web_app.AppRefused as exc:
        raise UsageError(str(exc)) from None
    for line in web_app.missing_system_packages():
        print(f"note: {line}", file=sys.stderr)
    if args.lan:
        print(f"note: {web_app.LAN_NOTE}", file=sys.stderr)
    where = "every interface" if args.lan else "this machine only"
    print(f"the app: http://127.0.0.1:{args.port} ({where}; Ctrl-C stops it)", file=sys.stderr)
    return web_app.serve(command)


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "app": _cmd_app,
    "run": _cmd_run,
    "show": _cmd_show,
    "tools": _cmd_tools,
    "call": _cmd_call,
    "validate": _cmd_validate,
    "replay": _cmd_replay,
    "samples": _cmd_samples,
    "render": _cmd_render,
    "lesson": _cmd_lesson,
    "export": _cmd_export,
    "import": _cmd_import,
    "schema": _cmd_schema,
    "mock-server": _cmd_mock_server,
    "demo-server": _cmd_demo_server,
    "proxy": _cmd_proxy,
    "proxy-model": _cmd_http_proxy,
    "proxy-http": _cmd_http_proxy,
    "merge": _cmd_merge,
    "record": _cmd_record,
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        # Bytes that are not UTF-8 reach Python as lone surrogates, which no trace, terminal or page can hold.
        for i, arg in enumerate(argv, 1):
            if json_value_problem(arg):
                shown = arg.encode("utf-8", "backslashreplace").decode()[:80]
                raise UsageError(f"argument {i} is not UTF-8 text: {shown}")
        args = _parser().parse_args(argv)
        # The MCP SDK logs what it retries or gives up on; the outcome reaches the user as one line and a hop.
        sdk_log = logging.getLogger("mcp")
        if not any(isinstance(h, logging.NullHandler) for h in sdk_log.handlers):
            sdk_log.addHandler(logging.NullHandler())
        return _COMMANDS[args.command](args)
    except (UsageError, TraceError, SecretLeakError, RenderError, ScriptError, OSError) as exc:
        _error(exc)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
