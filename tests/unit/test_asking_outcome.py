"""The one-line outcome of a run on a server that asks back: what it asked, who answered, in order, in both eras."""

from __future__ import annotations

import pytest

from flow.engine.options import RunOptions
from flow.runs import run
from flow.servers.spec import ServerSpec
from flow.views.outcome import run_outcome


def _asked(question: str, era: str, **chosen: object) -> tuple[str, str, dict[str, int]]:
    options = RunOptions.build(server=ServerSpec(), asks=True, transport="memory", era=era, **chosen)  # type: ignore[arg-type]
    result = run(question, options=options)
    assert result.ok, result.error
    outcome = run_outcome(result.trace)
    keys = {c.key: c.seqs[0] for c in outcome.clauses if c.seqs}
    return outcome.text["en"], outcome.text["zh"], keys


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_the_users_answer_comes_between_the_call_and_the_servers_answer(era: str) -> None:
    en, zh, at = _asked("我这里今天天气怎么样？", era, answers={"city": "上海"})
    assert at["called"] < at["asked_user"] < at["user_accept"] < at["answered_call"] < at["answered"]
    assert "the user answered city=上海" in en
    assert "用户回答了 city=上海" in zh


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_a_sampling_run_says_the_server_asked_the_hosts_model(era: str) -> None:
    en, _, at = _asked("用一句话说说北京未来三天的天气", era)
    assert at["called"] < at["asked_model"] < at["answered_call"]
    assert "the server asked the host's model" in en


def test_a_declined_form_is_said_and_no_weather_is_invented() -> None:
    en, zh, at = _asked("What's the weather where I am?", "handshake", elicit_action="decline")
    assert "the user declined" in en and "用户拒绝回答" in zh
    assert "user_accept" not in at


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_roots_asked_in_either_era(era: str) -> None:
    en, _, at = _asked("北京有什么课堂笔记？", era)
    assert at["asked_roots"] < at["answered_call"]
    assert "(roots)" in en
