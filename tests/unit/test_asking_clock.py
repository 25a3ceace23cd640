"""A call's timeout counts the server's own time, not the time the host spends answering it: a person may take
longer to fill the server's form than the server may take to answer (2025-11-25 asks in the middle of tools/call)."""

from __future__ import annotations

import anyio
import pytest

from flow.engine.host import Answer, Question
from flow.engine.options import RunOptions
from flow.runs import run
from flow.servers.spec import Era, ServerSpec


class SlowPerson:
    """Answers the form after `seconds`, choosing 上海."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    async def __call__(self, question: Question) -> Answer:
        await anyio.sleep(self.seconds)
        return Answer("accept", {"city": "上海"}, answered_by="form")


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_form_filled_slower_than_the_mcp_timeout_does_not_time_the_call_out(era: Era) -> None:
    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory", era=era, mcp_timeout_s=0.5)
    result = run("我这里今天天气怎么样？", options=options, answerer=SlowPerson(1.2))
    assert result.ok, result.error
    assert "上海" in (result.answer or "")
    assert not [
        h
        for h in result.trace.hops
        if h.kind == "mcp.notification" and h.payload.get("method") == "notifications/cancelled"
    ]


def test_the_servers_own_time_still_runs_out() -> None:
    """slow_report takes about 30 s of the server's own time: past the timeout the call is cancelled and said so."""
    from flow.backends.scripted import load_script
    from flow.engine.model import ModelConfig

    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory", mcp_timeout_s=0.5)
    script = load_script('[{"call": "slow_report", "arguments": {"city": "北京"}}]')
    result = run("北京的详细天气报告", options=options, model=ModelConfig.scripted(script))
    assert not result.ok and "0.5" in (result.error or "")
    cancelled = [
        h
        for h in result.trace.hops
        if h.kind == "mcp.notification" and h.payload.get("method") == "notifications/cancelled"
    ]
    assert cancelled and cancelled[0].source == "mcp_client"
