"""A stdio session kept open across runs: the same server process answers, and closing reaps it."""

from __future__ import annotations

import os
import subprocess

from flow import ModelConfig, RunOptions
from flow.servers.spec import ServerSpec
from flow.warm import WarmSession
from helpers import server_facts


def _demo_servers() -> int:
    """Demo server processes started by this test process (others on the machine are not ours to count)."""
    out = subprocess.run(["ps", "-eo", "pid=,ppid=,args="], capture_output=True, text=True).stdout
    parent: dict[int, int] = {}
    servers = []
    for line in out.splitlines():
        pid, ppid, *args = line.split(None, 2)
        parent[int(pid)] = int(ppid)
        if "weather_demo" in " ".join(args):
            servers.append(int(pid))

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parent.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return sum(ours(pid) for pid in servers)


def test_runs_share_one_server_process_and_close_reaps_it():
    before = _demo_servers()
    warm = WarmSession(ServerSpec(transport="stdio"), era="handshake")
    try:
        first = warm.run("北京今天天气怎么样？", options=RunOptions(transport="stdio"), model=ModelConfig())
        second = warm.run("北京和上海今天天气怎么样？", options=RunOptions(transport="stdio"), model=ModelConfig())
        assert first.ok and second.ok, (first.error, second.error)
        assert _demo_servers() == before + 1
        for result in (first, second):
            assert server_facts(result.trace)["reused_session"] is True
            methods = [h.payload.get("method") for h in result.trace.hops if h.kind == "mcp.request"]
            assert "initialize" not in methods and methods[0] == "tools/list"
        ids = [h.jsonrpc_id for r in (first, second) for h in r.trace.hops if h.kind == "mcp.request"]
        numbers = [i for i in ids if isinstance(i, int)]
        assert numbers == ids  # the SDK numbers its requests
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)  # one session: they keep counting up
    finally:
        warm.close()
    assert _demo_servers() == before


def test_a_dead_server_is_reported_and_the_next_run_gets_a_new_one():
    warm = WarmSession(ServerSpec(transport="stdio", fault="die"), era="handshake")
    try:
        result = warm.run("北京今天天气怎么样？", options=RunOptions(transport="stdio"), model=ModelConfig())
        assert result.error is not None and "closed the connection" in result.error

        assert not warm.open
    finally:
        warm.close()
