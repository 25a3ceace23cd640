"""`mcp-flow run | tools | call`: the commands that talk to a model and an MCP server and write what crossed as a
trace. The engine (and with it the model SDK) is imported when one of them runs, not to print --help."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flow.cli.common import MAX_EXCHANGE_S, Subcommands, add_command, error, lines_to, save, say, where
from flow.cli.server_options import add_probe_options, add_server_access_options, env_pair, server_spec
from flow.proxy.options import UsageError, check_seconds
from flow.text.errors import EMPTY_ANSWER, PROVIDER_NOTES, SAMPLING_DENIED, FlowError, sending_line
from flow.text.mock import MOCK_BEHAVIOURS
from flow.trace.files import json_value_problem
from flow.trace.json_text import read_json_text
from flow.trace.model import as_dict
from flow.trace.payloads import ToolResult, is_a, typed
from flow.views.labels import clip
from flow.views.outcome import run_outcome
from flow.views.table import summary_line
from flow.wire import API

if TYPE_CHECKING:
    from flow.engine.host import Answerer
    from flow.engine.model import ModelConfig
    from flow.engine.options import HostChoices, RunOptions, RunResult


def add_parsers(sub: Subcommands) -> None:
    _add_run(sub)
    _add_tools(sub)
    _add_call(sub)


def _add_run(sub: Subcommands) -> None:
    r = add_command(sub, "run", what="run one question through the model and the tools, and write the trace", run=_run)
    r.add_argument("--question", "-q", default="北京今天天气怎么样？")
    r.add_argument(
        "--mode",
        choices=["mcp", "direct", "hosted"],
        default="mcp",
        help="mcp: the app is the MCP client; direct: the app calls its own functions; hosted: the model provider is "
        "the MCP client and runs the tool loop (--api responses or messages; the demo server is served on loopback "
        "for the offline mock, a real provider needs --server URL, one it can reach)",
    )
    r.add_argument(
        "--require-approval",
        choices=["never", "always"],
        default="never",
        help="hosted MCP (Responses): whether the provider must ask the app before each call",
    )
    r.add_argument(
        "--deny",
        action="store_true",
        help="hosted MCP with --require-approval always: the app answers no to every approval request",
    )
    r.add_argument(
        "--record-server",
        type=int,
        metavar="PORT",
        help="hosted MCP: put a recording proxy on 127.0.0.1:PORT (0: a free port) in front of --server URL and give "
        "the provider its URL, so the frames the provider's MCP client sends are observed beside its report",
    )
    r.add_argument(
        "--public-url",
        metavar="URL",
        help="with --record-server: the URL at which the provider reaches that proxy (a tunnel or reverse proxy you "
        "set up in front of it), when the provider does not run on this machine",
    )
    r.add_argument(
        "--out", "-o", help="trace file to write, - for standard output (default: traces/<time>-<mode>.json)"
    )
    _add_model_options(r)
    _add_mcp_options(r)
    _add_host_options(r)


def _add_host_options(r: argparse.ArgumentParser) -> None:
    """What the host answers when the MCP server asks it something."""
    r.add_argument(
        "--asks",
        action="store_true",
        help="the demo server with its tools that ask the client back: weather_here asks the user (elicitation), "
        "forecast_in_words asks the host's model (sampling), class_notes asks for the client's folders (roots)",
    )
    r.add_argument(
        "--host-capability",
        action="append",
        choices=["sampling", "elicitation", "roots"],
        help="what the host says it can answer (repeatable; default with --asks: all three, else none)",
    )
    r.add_argument(
        "--answer",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="the user's answer to a field of a server's form (elicitation); repeatable; open=yes or open=no "
        "answers a request to go to a page (URL mode). Without it (and without --decline or --cancel) a terminal "
        "asks you, and with no terminal the form is cancelled",
    )
    r.add_argument("--decline", action="store_true", help="the user declines every form a server sends")
    r.add_argument(
        "--approve-sampling",
        action="store_true",
        help="approve every sampling request a server sends for the run (they spend your model); without it a "
        "terminal asks you each time, and with no terminal each is denied (the offline mock model costs nothing "
        "and is always approved)",
    )
    r.add_argument("--cancel", action="store_true", help="the user dismisses every form a server sends")
    r.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the host shares with the server as a root (repeatable; default with --asks: the demo's "
        "class notes)",
    )
    r.add_argument(
        "--elicit-timeout",
        type=float,
        default=120.0,
        help="seconds a server's question waits for the user before it is cancelled",
    )
    _add_session_options(r)


def _add_session_options(r: argparse.ArgumentParser) -> None:
    """What the app's MCP client does with the session besides calling tools."""
    r.add_argument(
        "--listen",
        action="store_true",
        help="2026-07-28: open a subscriptions/listen stream, so the client hears when the server's tool list "
        "changes and lists the tools again. In 2025-11-25 the client always re-lists when the server's "
        "notification comes",
    )
    r.add_argument(
        "--subscribe",
        action="append",
        default=[],
        metavar="URI",
        help="subscribe to a resource (e.g. weather://alerts) before asking the model: resources/subscribe in "
        "2025-11-25, the subscriptions/listen stream in 2026-07-28; repeatable",
    )
    r.add_argument("--ping", action="store_true", help="send one ping after connecting (2025-11-25 only)")
    r.add_argument(
        "--backfill",
        choices=["text", "structured"],
        default="text",
        help='what the role "tool" message carries back to the model: the result\'s text content (default) or '
        "its structuredContent as JSON, after checking it against the tool's outputSchema",
    )
    r.add_argument(
        "--check-output",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="check each result's structuredContent against the tool's outputSchema and record what the check "
        "found (default: on with --asks or --backfill structured)",
    )


def _lowered(name: str) -> str:
    """A name that begins a label, to stand inside a sentence: "Slow" is "slow", "HTTP 401: …" stays."""
    first = name.split(" ", 1)[0]
    return name if len(first) > 1 and first.isupper() else name[:1].lower() + name[1:]


def _add_model_options(r: argparse.ArgumentParser) -> None:
    """`run`'s model, and what the app asks of it."""
    r.add_argument(
        "--api",
        choices=list(API),
        default="chat",
        help="the model API: OpenAI Chat Completions, OpenAI Responses, or Anthropic Messages (sent with the "
        "anthropic SDK: $ANTHROPIC_BASE_URL, else https://api.anthropic.com, and $ANTHROPIC_API_KEY, which goes only "
        "to that base URL; $ANTHROPIC_MODEL names the model)",
    )
    r.add_argument(
        "--previous-response-id",
        action="store_true",
        help="Responses: send a follow-up as the new items beside previous_response_id, not the whole input again",
    )
    r.add_argument(
        "--model",
        help="model name: a name starting with mock is the offline mock, whose behaviours are "
        + ", ".join(f"{model} ({_lowered(b.name['en'])})" for model, b in MOCK_BEHAVIOURS.items())
        + "; the Run page and the docs' Providers page say what each does. Any other "
        "name goes to a provider, at --base-url, $OPENAI_BASE_URL, else https://api.openai.com/v1 (default: mock, "
        "or $OPENAI_MODEL when a base URL is given; the run says where it sends before it does)",
    )
    r.add_argument(
        "--base-url",
        help="the model API's endpoint (default: $OPENAI_BASE_URL; with neither, a mock model name stays "
        "offline and any other goes to https://api.openai.com/v1); with --api messages, an endpoint as the anthropic "
        "SDK takes it, without /v1 (default: $ANTHROPIC_BASE_URL, else https://api.anthropic.com; a key from "
        "$ANTHROPIC_API_KEY goes only to that one)",
    )
    r.add_argument(
        "--script",
        metavar="FILE|TEXT",
        help="a scripted model: the decisions it makes, as a JSON or "
        "YAML list of turns (call/arguments, calls, answer); offline, for any MCP server",
    )
    r.add_argument("--tool-choice", default="auto", help="auto | none | required | the name of one function")
    r.add_argument(
        "--no-parallel",
        action="store_true",
        help="ask for one call at a time (parallel_tool_calls: false; Messages: disable_parallel_tool_use)",
    )
    r.add_argument("--strict", action="store_true", help="send strict schemas and check the arguments against them")
    r.add_argument("--stream", action="store_true", help="stream the model's responses")
    r.add_argument(
        "--no-adapt",
        action="store_true",
        help='send the conversation back exactly as the model wrote it (content null, not ""), to show what a '
        "provider refuses; by default the app sends a form every compatible server accepts and marks each change",
    )
    r.add_argument("--max-rounds", type=int, default=5)


def _add_mcp_options(r: argparse.ArgumentParser) -> None:
    """`run`'s MCP server, how it is reached, and what the app takes from it besides tools."""
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
    add_server_access_options(r)
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


def _add_tools(sub: Subcommands) -> None:
    tl = add_command(
        sub, "tools", what="connect to an MCP server and list its tools, resources and prompts", run=_tools
    )
    add_probe_options(tl)
    tl.add_argument("--out", "-o", help="write the set-up and listing frames as a trace (- for standard output)")


def _add_call(sub: Subcommands) -> None:
    c = add_command(
        sub,
        "call",
        what="connect to an MCP server and call one tool directly (no model), and write the "
        "trace; exit code 0 only for a result without isError",
        run=_call,
    )
    c.add_argument("tool", help="the tool's name, as `tools` lists it")
    c.add_argument(
        "--args", "-a", default="{}", metavar="JSON", help='the arguments as a JSON object, e.g. \'{"city": "北京"}\''
    )
    add_probe_options(c)
    c.add_argument("--out", "-o", help="trace file to write, - for standard output (default: traces/<time>-call.json)")


def _run_options(args: argparse.Namespace) -> RunOptions:
    """`run`'s arguments as the engine's options, or one line saying which of them do not go together."""
    from flow.backends.scripted import SCRIPTED_APIS
    from flow.engine.options import RunOptions

    if args.max_rounds < 1:
        raise UsageError("--max-rounds must be at least 1")
    check_seconds(args.mcp_timeout, "--mcp-timeout", at_most=MAX_EXCHANGE_S)
    check_seconds(args.model_timeout, "--model-timeout", at_most=MAX_EXCHANGE_S)
    if args.mode == "direct" and (args.server_fault != "none" or args.resource or args.prompt or args.server):
        raise UsageError("--server, --server-fault, --resource and --prompt need an MCP server: use --mode mcp")
    if args.script and (args.model or args.base_url):
        raise UsageError("--script is the model; leave out --model and --base-url")
    if args.script and args.api not in SCRIPTED_APIS:
        raise UsageError("--script answers Chat Completions only; leave out --api")
    if args.previous_response_id and not API[args.api].keeps_responses:
        raise UsageError("--previous-response-id is a Responses option: use --api responses")
    if args.mode == "hosted" and not API[args.api].hosted_mcp:
        raise UsageError("--mode hosted needs --api responses or --api messages: Chat Completions has no hosted MCP")
    if args.mode == "hosted" and (args.resource or args.prompt or args.server_fault != "none"):
        raise UsageError("--mode hosted: the provider's MCP client uses only tools, and the server does not fault")
    if args.mode == "hosted" and args.server is not None and not server_spec(args).is_http:
        raise UsageError("--mode hosted: the provider reaches the server over the network: give --server a URL")
    if args.record_server is not None and (args.mode != "hosted" or args.server is None):
        raise UsageError("--record-server puts a recording proxy in front of --server URL for --mode hosted")
    if args.public_url and args.record_server is None:
        raise UsageError("--public-url is where the provider reaches the recording proxy: use it with --record-server")
    if args.mode != "hosted" and (args.require_approval != "never" or args.deny):
        raise UsageError("--require-approval and --deny are hosted MCP options: use --mode hosted")
    _check_session_options(args)
    return RunOptions.build(
        server=server_spec(args),
        mode=args.mode,
        api=args.api,
        previous_response=args.previous_response_id,
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
        prompt_args=[env_pair(a, "--prompt-arg", from_environment=False) for a in args.prompt_arg],
        require_approval=args.require_approval,
        approve=not args.deny,
        **_host_choices(args),
    )


def _host_choices(args: argparse.Namespace) -> HostChoices:
    """What the host answers a server that asks, and does with the session besides calling tools."""
    return {
        "asks": args.asks,
        "host_capabilities": args.host_capability,
        "answers": [env_pair(a, "--answer", from_environment=False) for a in args.answer],
        "elicit_action": "decline" if args.decline else "cancel" if args.cancel else "accept",
        "elicit_timeout_s": args.elicit_timeout,
        "approve_sampling": args.approve_sampling,
        "roots": [_root(d) for d in args.root],
        "listen": args.listen,
        "subscribe": args.subscribe,
        "ping": args.ping,
        "backfill": args.backfill,
        "check_output": args.check_output,
    }


def _check_session_options(args: argparse.Namespace) -> None:
    """What the app's MCP client does with the session besides calling tools, and the answers to a server that asks:
    only in MCP mode, each in its era."""
    if args.asks and (args.mode != "mcp" or args.server is not None):
        raise UsageError("--asks is the demo MCP server with its asking tools: use --mode mcp without --server")
    if sum(map(bool, (args.answer, args.decline, args.cancel))) > 1:
        raise UsageError("--answer, --decline and --cancel are three different answers: give one")
    check_seconds(args.elicit_timeout, "--elicit-timeout", at_most=MAX_EXCHANGE_S)
    if args.mode != "mcp" and (args.listen or args.subscribe or args.ping or args.backfill != "text"):
        raise UsageError("--listen, --subscribe, --ping and --backfill are what the app's MCP client does: --mode mcp")
    if args.ping and args.era == "modern":
        raise UsageError("--ping: ping is a 2025-11-25 request, removed in 2026-07-28; use --era handshake")


def _root(folder: str) -> str:
    """A --root: an existing folder, as an absolute path."""
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise UsageError(f"--root {folder!r}: no such folder")
    return str(path.resolve())


def _model(args: argparse.Namespace, options: RunOptions) -> ModelConfig:
    """The scripted model, the offline mock or a provider; for a provider, its notes and where the run sends, said
    before anything is sent."""
    from flow.backends.scripted import load_script
    from flow.engine.model import ModelConfig
    from flow.providers import notes_before_sending

    if args.script:
        return ModelConfig.scripted(load_script(args.script), timeout_s=args.model_timeout)
    try:
        model = ModelConfig.from_env(
            model=args.model, base_url=args.base_url, api=options.api, timeout_s=args.model_timeout
        )
    except FlowError as exc:  # a base URL no request can go to
        raise UsageError(str(exc)) from None
    for note in notes_before_sending(model.base_url or "", options):
        print(f"note: {PROVIDER_NOTES[note]['en']}", file=sys.stderr)
    if model.backend == "openai":  # a name that is not a mock's goes to a provider
        print(sending_line(model.describe(options.api), "en"), file=lines_to(args.out), flush=True)
    return model


def _observed_run(args: argparse.Namespace, options: RunOptions, model: ModelConfig) -> RunResult:
    """A hosted run whose server the provider reaches through a recording proxy of the run's (`--record-server`)."""
    from dataclasses import replace

    from flow.engine.loop import new_recorder
    from flow.proxy.observe import observing
    from flow.runs import run
    from flow.trace.redact import redact_url

    recorder = new_recorder(options, model)
    try:
        with observing(options.server_url, recorder, port=args.record_server) as local:
            told = replace(options, server_url=args.public_url or local)
            result = run(args.question, options=told, model=model, recorder=recorder)
    except (OSError, ValueError) as exc:  # a port that cannot be had, an upstream URL the proxy cannot take
        raise UsageError(str(exc)) from None
    if result.trace.meta.server is not None:  # the server is the operator's; the provider reached it through the proxy
        result.trace.meta.server.update(url=redact_url(options.server_url), recorded_through=local)
    return result


def _terminal(args: argparse.Namespace, options: RunOptions) -> Answerer | None:
    """A prompt on the terminal for what a server asks, when there is one: each sampling request, and each form
    unless --answer, --decline or --cancel gave the answers."""
    if not options.host_capabilities or not sys.stdin.isatty():
        return None
    from flow.cli.asking import TerminalAnswerer
    from flow.engine.host import GivenAnswers

    given = args.answer or args.decline or args.cancel
    return TerminalAnswerer(GivenAnswers(dict(options.answers), options.elicit_action) if given else None)


def _run(args: argparse.Namespace) -> int:
    from flow.runs import run

    options = _run_options(args)
    model = _model(args, options)
    if args.record_server is not None:
        result = _observed_run(args, options, model)
    else:
        result = run(args.question, options=options, model=model, answerer=_terminal(args, options))
    to = lines_to(args.out)
    if any(h.kind == "user.input" and as_dict(h.payload).get("answered_by") == "nobody" for h in result.trace.hops):
        print(f"note: {SAMPLING_DENIED['en']}", file=sys.stderr)
    if result.ok:
        say(result.answer if result.answer and result.answer.strip() else EMPTY_ANSWER["en"], to)
    else:
        error(result.error)
    out = args.out or Path("traces") / f"{dt.datetime.now():%Y%m%d-%H%M%S}-{args.mode}.json"
    save(result.trace, out)
    say(f"what happened: {run_outcome(result.trace).text['en']}", to)
    say(f"{summary_line(result.trace)} → {where(out)}", to)
    return 0 if result.ok else 1


def _tools(args: argparse.Namespace) -> int:
    import anyio

    from flow.engine.loop import inspect_server

    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    spec = server_spec(args)
    result, listing = anyio.run(lambda: inspect_server(spec, era=args.era, timeout_s=args.timeout))
    if args.out:
        save(result.trace, args.out)
    _stderr_note(result)
    if not result.ok:
        error(result.error)
        return 1
    to = lines_to(args.out)
    server = result.trace.meta.server or {}
    over = ""
    if server.get("transport") == "http":
        over = f" · {server.get('url')} ({'bearer token' if server.get('auth') == 'bearer' else 'no token'})"
    say(f"{server.get('name')} · protocol {server.get('protocol_version')} ({server.get('era')} era){over}", to)
    for tool in listing["tools"]:
        params = ", ".join((tool.get("inputSchema") or {}).get("properties") or {})
        say(f"  tool     {tool['name']}({params}) — {clip(tool.get('description') or '', 70)}", to)
    for resource in listing["resources"]:
        say(f"  resource {resource.get('uri')} — {resource.get('description') or resource.get('name', '')}", to)
    for prompt in listing["prompts"]:
        say(f"  prompt   {prompt.get('name')} — {prompt.get('description') or ''}", to)
    say(summary_line(result.trace) + (f" → {where(args.out)}" if args.out else ""), to)
    return 0


def _stderr_note(result: RunResult) -> None:
    """A note when the server wrote more than a megabyte to stderr (the trace keeps only its count)."""
    written = (result.trace.meta.server or {}).get("stderr_bytes") or 0
    if written > 1 << 20:
        print(f"note: the MCP server wrote {written / (1 << 20):.1f} MB to stderr", file=sys.stderr)


def _tool_arguments(text: str) -> dict[str, object]:
    """--args: a JSON object a trace can hold, or one line saying what is wrong with it."""
    ok, arguments = read_json_text(text)
    if not ok:
        arguments, problem = None, f"not valid JSON ({arguments})"
    else:
        bad = json_value_problem(arguments)
        problem = f"not usable ({bad})" if bad else "not a JSON object"
    if not isinstance(arguments, dict) or json_value_problem(arguments):
        raise UsageError(f"--args is {problem}: {text}")
    return arguments


def _call(args: argparse.Namespace) -> int:
    import anyio

    from flow.engine.loop import call_server_tool

    arguments = _tool_arguments(args.args)
    check_seconds(args.timeout, "--timeout", at_most=MAX_EXCHANGE_S)
    spec = server_spec(args)
    result, called = anyio.run(
        lambda: call_server_tool(spec, args.tool, arguments, era=args.era, timeout_s=args.timeout)
    )
    out = args.out or Path("traces") / f"{dt.datetime.now():%Y%m%d-%H%M%S}-call.json"
    save(result.trace, out)
    _stderr_note(result)
    if not result.ok or called is None:
        error(result.error)
        return 1
    to = lines_to(out)
    answered = next(h for h in reversed(result.trace.hops) if is_a(h, ToolResult))
    match typed(answered):
        case ToolResult(payload=p):
            content = p.get("tool_message_content", "")
        case _:  # the recorder cut it: what was kept is in the trace
            content = f"({answered.clipped})"
    say(("isError: " if called.get("isError") else "") + content, to)
    say(f"{summary_line(result.trace)} → {where(out)}", to)
    return 1 if called.get("isError") else 0
