"""How long `merge` takes on a big streamed model recording inside every limit (the file's size, its line count, a
recorded frame's size, one value's length): tool calls whose arguments arrive in many small pieces, many to an
event. Figures are printed, never asserted.

    python -m bench.merge_stream [--mb 40] [--calls 1] [--piece 1] [--per-event 256]
"""

from __future__ import annotations

import argparse
import json
import time

from flow.trace.files import TraceError


def streamed_recording(total_chars: int, pieces: int, *, calls: int = 1, per_event: int = 1) -> str:
    """A model proxy's recording of one streamed answer: `calls` get_weather calls whose arguments (about
    `total_chars` in all) come in `pieces` pieces, `per_event` of them (for one call) in each streamed event."""
    piece = "x" * max(1, total_chars // pieces)
    lines: list[dict[str, object]] = [
        {"mcp_flow_proxy": {"version": 1, "transport": "model-http", "upstream": "https://p.example/v1"}, "timestamp": 1.0},
        {"exchange": 1, "event": "request", "timestamp": 1.1, "method": "POST", "path": "/v1/chat/completions",
         "headers": {}, "body": {"model": "m", "stream": True, "messages": [{"role": "user", "content": "天气？"}]}},
        {"exchange": 1, "event": "response", "timestamp": 1.2, "status": 200, "stream": True, "headers": {}},
    ]  # fmt: skip
    for i in range(calls):
        head = {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
        lines.append({"exchange": 1, "event": "chunk", "timestamp": 1.2, "data": {"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}})  # fmt: skip
    events = max(1, pieces // per_event)
    for n in range(events):
        parts = [{"index": n % calls, "function": {"arguments": piece}}] * per_event
        lines.append({"exchange": 1, "event": "chunk", "timestamp": 1.2 + n * 1e-6, "data": {"choices": [{"index": 0, "delta": {"tool_calls": parts}}]}})  # fmt: skip
    lines.append({"exchange": 1, "event": "chunk", "timestamp": 1.3, "data": {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}})  # fmt: skip
    lines.append({"exchange": 1, "event": "end", "timestamp": 1.3})
    return "\n".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in lines)


def main(argv: list[str] | None = None) -> int:
    from flow.interop.merge import merge_recordings

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=float, default=40.0, help="the recording's size, about")
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--piece", type=int, default=1, help="characters of arguments in one piece")
    parser.add_argument("--per-event", type=int, default=256, help="pieces in one streamed event")
    args = parser.parse_args(argv)
    per_piece = args.piece + 40  # a piece's own JSON around it
    pieces = int(args.mb * 2**20) // per_piece
    text = streamed_recording(pieces * args.piece, pieces, calls=args.calls, per_event=args.per_event)
    print(
        f"recording: {len(text.encode()) / 2**20:.1f} MiB, {len(text.splitlines()):,} lines, {pieces:,} pieces "
        f"of {args.piece} characters for {args.calls} calls"
    )
    started = time.perf_counter()
    try:
        trace = merge_recordings([("model.jsonl", text)], name="bench")
        outcome = f"{len(trace.hops):,} hops"
    except TraceError as exc:
        outcome = f"refused: {exc}"
    print(f"merge: {time.perf_counter() - started:.2f} s, {outcome}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
