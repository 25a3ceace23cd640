"""`mcp-flow show | validate | replay | samples | render | lesson`: the commands that read a saved trace (and the
one that writes the sample library) to print, check, re-run or draw it."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from flow.cli.common import STDOUT, Subcommands, add_command, error, lines_to, save, say, where, write
from flow.cli.server_options import add_server_access_options, server_spec
from flow.proxy.options import UsageError
from flow.text.errors import EMPTY_ANSWER
from flow.trace.files import TraceError, load_trace, read_limited
from flow.trace.model import Hop, Trace
from flow.views.diagram import RenderError
from flow.views.labels import clip
from flow.views.table import ACTOR_LABEL, bounded_view, hop_table, summary_line, terminal_safe


def add_parsers(sub: Subcommands) -> None:
    _add_show(sub)
    _add_validate(sub)
    _add_replay(sub)
    _add_samples(sub)
    _add_render(sub)
    _add_lesson(sub)


def _add_show(sub: Subcommands) -> None:
    s = add_command(sub, "show", what="print a trace as a hop table, or one step's hops with their payloads", run=_show)
    s.add_argument("file")
    s.add_argument("--step", type=int, help="print the hops of this step (0-10) and their payloads")
    s.add_argument("--hop", type=int, metavar="SEQ", help="print one hop and its payload")


def _add_validate(sub: Subcommands) -> None:
    v = add_command(
        sub, "validate", what="check trace files: OK, or the first problem with its JSON path", run=_validate
    )
    v.add_argument("files", nargs="+")


def _add_replay(sub: Subcommands) -> None:
    rp = add_command(
        sub,
        "replay",
        what="re-run a trace offline: recorded model answers, tools run again on the demo "
        "server or on --server (never on a server the file names)",
        run=_replay,
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
    add_server_access_options(rp)


def _add_samples(sub: Subcommands) -> None:
    sm = add_command(sub, "samples", what="regenerate the sample library", run=_samples)
    sm.add_argument("--out", default="sample_traces", help="the directory to write them to")
    sm.add_argument("names", nargs="*", help="only these samples (default: all)")


def _add_render(sub: Subcommands) -> None:
    rd = add_command(
        sub, "render", what="draw a trace: sequence diagram (dot, svg, png), mermaid, or one HTML file", run=_render
    )
    rd.add_argument("file")
    rd.add_argument("--format", "-f", choices=["dot", "svg", "png", "mermaid", "html"], default="svg")
    rd.add_argument(
        "--out", "-o", help="output file, - for standard output (default: the trace's name with the format's extension)"
    )
    rd.add_argument("--hop", type=int, metavar="SEQ", help="highlight this hop: earlier ones normal, later ones faded")
    rd.add_argument("--step", type=int, help="highlight the first hop of this step")
    rd.add_argument("--window", type=int, default=0, help="draw only this many arrows around the highlight (0: all)")
    rd.add_argument("--lang", choices=["zh", "en"], default="en")


def _add_lesson(sub: Subcommands) -> None:
    ls = add_command(
        sub,
        "lesson",
        what="write a lesson script: the ten messages at a glance, then every hop explained (Markdown)",
        run=_lesson,
    )
    ls.add_argument(
        "file", nargs="*", help="the trace; with --ways, the traces side by side (default: the four samples)"
    )
    ls.add_argument("--lang", choices=["zh", "en"], default="zh")
    ls.add_argument(
        "--ways",
        action="store_true",
        help="the ways to give a model a tool side by side: function calling, app-side MCP, hosted MCP",
    )
    ls.add_argument("--out", "-o", default=STDOUT, help="Markdown file to write, - for standard output (the default)")
    ls.add_argument("--restaurant", action="store_true", help="add the restaurant metaphor's captions to the overview")


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


def _show(args: argparse.Namespace) -> int:
    trace = load_trace(args.file)
    seq: int | None = args.hop
    step: int | None = args.step
    if seq is not None or step is not None:
        from flow.backends.replay import Cursor

        cursor = Cursor(trace)
        if seq is not None:
            hops = [cursor.goto_seq(seq)]
        else:
            assert step is not None  # one of the two was given
            hops = cursor.hops_of_step(step)
            if not hops:
                cursor.goto_step(step)  # raises with the steps the trace does have
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
            "provider": "hosted MCP: the provider's reports served from the recording, no MCP server contacted",
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


def _validate(args: argparse.Namespace) -> int:
    bad = 0
    for name in args.files:
        try:
            trace = load_trace(name)
        except TraceError as exc:
            bad += 1
            print(f"{name}: {_recording_hint(name) or str(exc).removeprefix(name + ': ')}")
        else:
            named = _names_a_server(trace)
            say(
                f"{name}: OK ({len(trace.hops)} hops, format {trace.format_version})"
                + (f"; it names {named}, which replay never runs or contacts" if named else ""),
                sys.stdout,
            )
    return 1 if bad else 0


def _replay(args: argparse.Namespace) -> int:
    from flow.backends.replay import ReplayError, recorded_server, replay

    trace = load_trace(args.file)
    server = server_spec(args) if args.server is not None else None
    if server is None and (args.server_env or args.server_env_file or args.server_env_public):
        raise UsageError("--server-env needs --server COMMAND (the demo server gets its own environment)")
    other = recorded_server(trace.meta)
    if server is None and other is not None and trace.meta.mode != "hosted":
        say(
            f"note: the recording came from {other}, not the demo server: replaying the model side only "
            "(recorded tool results served back, no server contacted; name one with --server)",
            sys.stderr,
        )
    try:
        result = replay(trace, source=args.file, transport=args.transport, server=server)
    except ReplayError as exc:
        raise UsageError(str(exc)) from None
    save(result.trace, args.out)
    info = result.trace.meta.replay or {}
    to = lines_to(args.out)
    if result.ok:
        say(result.answer if result.answer and result.answer.strip() else EMPTY_ANSWER["en"], to)
    else:
        error(result.error)
    if info.get("diverged"):
        say(f"replay diverged from the recording: {info['divergences'][0]}", sys.stderr)
    else:
        results = {
            "recorded": "tool results served from the recording",
            "provider": "the provider's reports of its MCP calls served from the recording",
        }.get(str(info.get("tools")), "tool results identical")
        print(f"replay matched the recording: {info.get('served')} model exchanges served, {results}", file=to)
    print(f"{summary_line(result.trace)} → {where(args.out)}", file=to)
    return 1 if info.get("diverged") or not result.ok else 0


def _samples(args: argparse.Namespace) -> int:
    from flow.samples import write_samples

    if args.out == STDOUT:
        raise UsageError("--out -: the samples are a folder of files, and standard output holds one; name a folder")
    for path in write_samples(Path(args.out), names=args.names or None):
        print(path)
    return 0


_EXT = {"dot": "dot", "svg": "svg", "png": "png", "mermaid": "mmd", "html": "html"}


def _render(args: argparse.Namespace) -> int:
    from flow.backends.replay import Cursor
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
        write(out, to_mermaid(trace, lang=args.lang))
    elif args.format == "html":  # with the questions file beside the trace, if there is one
        write(out, to_html(trace, lang=args.lang, questions=questions_for(args.file)))
    else:
        dot = to_dot(trace, current=current, window=args.window or None, lang=args.lang)
        write(out, dot if args.format == "dot" else render(dot, args.format))
    if out != STDOUT:
        print(out)
    return 0


def _lesson(args: argparse.Namespace) -> int:
    from flow.trace.questions import questions_for
    from flow.views.lesson import LessonQuestion, lesson_markdown

    if args.ways:
        return _ways_lesson(args)
    if len(args.file) != 1:
        raise UsageError("lesson: give one trace file (or --ways and the traces to compare)")
    file = args.file[0]
    trace = load_trace(file)
    lang = args.lang
    questions = {  # the trace's questions file (beside it, or a sample's), in the lesson's language
        seq: LessonQuestion(
            q.ask[lang], tuple(c[lang] for c in q.choices), q.answer - 1, q.why[lang] if q.why else None
        )
        for seq, q in questions_for(file).items()
    }
    write(args.out, lesson_markdown(trace, lang=lang, restaurant=args.restaurant, questions=questions))
    if args.out != STDOUT:
        print(args.out)
    return 0


def _ways_lesson(args: argparse.Namespace) -> int:
    """The ways to give a model a tool side by side, as a lesson section: the traces given, or the four samples."""
    from flow.trace.shipped import SAMPLE_DIR
    from flow.views.lesson import four_ways_markdown
    from flow.views.ways import FOUR_WAYS

    files = args.file or [str(SAMPLE_DIR / f"{name}.json") for name in FOUR_WAYS]
    write(args.out, four_ways_markdown([load_trace(f) for f in files], lang=args.lang))
    if args.out != STDOUT:
        print(args.out)
    return 0
