"""A stdio MCP server that misbehaves on purpose, written on raw stdin/stdout so it can break the rules.

It answers like a small, correct server (initialize, tools/list, tools/call of `echo`) until it
reaches the request named by `--on`, where it does what `--behaviour` says:

  flood-stdout    write endless lines that are not JSON-RPC
  long-line       write one 64 MB line with no newline, then wait
  flood-stderr    write 10 MB to stderr at start, then behave
  invalid-json    answer with a line that is not JSON
  never-answer    read the request and never answer it
  exit-mid-call   exit with code 3 without answering
  exit-at-start   print a reason to stderr and exit with code 2 before reading anything
  spawn-child     start a child process that sleeps (in the same session), then behave
  ping-flood      send ping requests without end, answering nothing
  task-result     answer with a task (a 2025-11-25 CreateTaskResult) instead of the result, unasked

Several can be combined with commas: `flood-stderr,never-answer` floods stderr, then goes quiet.
`--tag` is a token put on the command line of this process and any child, so a test can look for
leftovers in the process table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

TOOL = {
    "name": "echo",
    "description": "Echo the message back",
    "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
}


def send(frame: dict) -> None:
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def answer(request: dict) -> None:
    method, rid = request.get("method"), request.get("id")
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": request["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile", "version": "0.0.1"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        text = (request["params"].get("arguments") or {}).get("message", "")
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}], "isError": False}})
    elif rid is not None:  # server/discover and anything else: this server speaks only the handshake era
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


def misbehave(behaviour: str, rid: object) -> None:
    if behaviour == "task-result":
        task = {
            "taskId": "task-7",
            "status": "working",
            "statusMessage": "still thinking",
            "createdAt": "2025-11-25T00:00:00Z",
            "lastUpdatedAt": "2025-11-25T00:00:00Z",
            "ttl": 60000,
            "pollInterval": 500,
        }
        send({"jsonrpc": "2.0", "id": rid, "result": {"task": task}})
        return
    if behaviour == "flood-stdout":
        garbage = "this is not JSON-RPC " * 5000 + "\n"  # 105,000 characters a line
        while True:
            sys.stdout.write(garbage)
    if behaviour == "long-line":
        block = "x" * (1 << 20)
        for _ in range(64):
            sys.stdout.write(block)
        sys.stdout.flush()
        time.sleep(3600)
    if behaviour == "invalid-json":
        sys.stdout.write("{'result': not json at all\n")
        sys.stdout.flush()
        time.sleep(3600)
    if behaviour == "ping-flood":
        n = 0
        while True:
            n += 1
            send({"jsonrpc": "2.0", "id": f"ping-{n}", "method": "ping"})
    if behaviour == "never-answer":
        time.sleep(3600)
    if behaviour == "exit-mid-call":
        sys.stderr.write("hostile: giving up in the middle of a request\n")
        sys.stderr.flush()
        os._exit(3)
    raise AssertionError(behaviour)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--behaviour", required=True)
    parser.add_argument("--on", default="tools/call", help="the request at which to misbehave")
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    behaviours = args.behaviour.split(",")
    if "exit-at-start" in behaviours:
        sys.stderr.write("hostile: refusing to start (exit-at-start)\n")
        sys.exit(2)
    if "flood-stderr" in behaviours:
        line = "hostile: noisy log line " + "." * 100 + "\n"
        for _ in range((10 << 20) // len(line) + 1):
            sys.stderr.write(line)
        sys.stderr.write("hostile: last words of the flood\n")
        sys.stderr.flush()
    if "spawn-child" in behaviours:
        # Inherits this process's session and pipes, as a careless server's helper would.
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", args.tag])
    at_request = [b for b in behaviours if b not in ("flood-stderr", "spawn-child")]
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("method") == args.on and at_request:
            misbehave(at_request[0], request.get("id"))
            continue
        answer(request)


if __name__ == "__main__":
    main()
