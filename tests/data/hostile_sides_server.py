"""A stdio MCP server whose answer to `--on` is too big or too slow, written on raw stdin/stdout.

huge=N     answer with a valid JSON-RPC result whose text is N bytes long
trickle    answer correctly, but one byte every 0.05 s
"""

from __future__ import annotations

import argparse
import json
import sys
import time

TOOL = {
    "name": "echo",
    "description": "Echo the message back",
    "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
}


def result(request: dict) -> dict:
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile-sides", "version": "0.0.1"},
        }
    if method == "tools/list":
        return {"tools": [TOOL]}
    text = (request["params"].get("arguments") or {}).get("message", "")
    return {"content": [{"type": "text", "text": text}], "isError": False}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--behaviour", required=True)
    parser.add_argument("--on", default="tools/call")
    args = parser.parse_args()
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue
        if request.get("method") not in ("initialize", "tools/list", "tools/call"):
            sys.stdout.write(
                json.dumps(
                    {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}}
                )
                + "\n"
            )
            sys.stdout.flush()
            continue
        answer = {"jsonrpc": "2.0", "id": request["id"], "result": result(request)}
        if request.get("method") == args.on and args.behaviour.startswith("huge="):
            answer["result"] = {"content": [{"type": "text", "text": "x" * int(args.behaviour[5:])}], "isError": False}
        data = json.dumps(answer) + "\n"
        if request.get("method") == args.on and args.behaviour == "trickle":
            for ch in data:
                sys.stdout.write(ch)
                sys.stdout.flush()
                time.sleep(0.05)
        else:
            sys.stdout.write(data)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
