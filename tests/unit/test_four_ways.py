"""The four ways to give a model a tool, side by side (flow.views.ways): the table's figures computed from real
traces, where each of the articles' messages happens in each way, and the lesson section."""

from __future__ import annotations

import base64
import copy
import json
import re
from typing import Any

import pytest

import flow
from flow.text.names import Lang
from flow.trace.files import parse_trace
from flow.trace.model import Trace
from flow.trace.steps import Step
from flow.views.lesson import four_ways_markdown
from flow.views.ways import FOUR_WAYS, facts, places, route_rows, route_strips_html, ways_point, ways_table

SERVER_URL = "http://127.0.0.1:8765/mcp"


def sample(name: str) -> Trace:
    return flow.load_trace(flow.SAMPLE_DIR / f"{name}.json")


def _hosted(*, observed: bool) -> Trace:
    """A hosted-MCP trace for the Beijing question, built from the Responses and MCP samples' own hops: one request
    naming the server, the provider's MCP client's frames (when a recorder saw them), one response reporting a
    tools/list and a tools/call, the reported hops, the answer."""
    direct = json.loads((flow.SAMPLE_DIR / "responses-direct.json").read_text(encoding="utf-8"))
    mcp = json.loads((flow.SAMPLE_DIR / "beijing-mcp.json").read_text(encoding="utf-8"))
    by_seq = {h["seq"]: h for h in direct["hops"]}
    frames = {h["seq"]: h for h in mcp["hops"]}
    request = copy.deepcopy(by_seq[4])
    mcp_tool = {"type": "mcp", "server_label": "weather", "server_url": SERVER_URL, "require_approval": "never"}
    request["payload"]["body"]["tools"] = [mcp_tool]
    request["bytes"] = len(json.dumps(request["payload"]["body"]).encode())
    weather = json.loads(by_seq[9]["payload"]["body"]["input"][2]["output"])
    listed = {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "weather", "tools": [{"name": "get_weather"}]}
    call = {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "weather",
        "name": "get_weather",
        "arguments": '{"city": "北京"}',
        "output": json.dumps(weather, ensure_ascii=False),
        "error": None,
    }
    response = copy.deepcopy(by_seq[10])
    response["payload"]["body"]["output"] = [listed, call, *response["payload"]["body"]["output"]]
    response["payload"]["body"]["tools"] = [mcp_tool]
    hops: list[dict[str, Any]] = [frames[1], by_seq[2], request]
    if observed:
        hops += [frames[6], frames[7], frames[13], frames[16]]
    hops.append(response)
    common = {"kind": "mcp.reported", "round": 1, "summary": "(reported by the provider)"}
    base = {"reported_by": "responses", "server": "weather", "response_seq": 0}
    for method, item, step, answer in (
        ("tools/list", listed, 2, False),
        ("tools/list", listed, 2, True),
        ("tools/call", call, 6, False),
        ("tools/call", call, 7, True),
    ):
        source, target = ("mcp_server", "mcp_client") if answer else ("mcp_client", "mcp_server")
        payload = {**base, "method": method, "item": item}
        hops.append(
            {
                **common,
                "step": step,
                "phase": "request" if step == 2 else "execute",
                "source": source,
                "target": target,
                "direction": "response" if answer else "request",
                "payload": payload,
            }
        )
    hops.append(by_seq[11])
    out = []
    for seq, hop in enumerate(hops, start=1):
        hop = copy.deepcopy(hop)
        hop["seq"] = seq
        out.append(hop)
    response_seq = next(h["seq"] for h in out if h["kind"] == "llm.response")
    for hop in out:
        if hop["kind"] == "mcp.reported":
            hop["payload"]["response_seq"] = response_seq
    meta = {**direct["meta"], "mode": "hosted", "title": None, "note": None, "sample": None}
    return parse_trace({"format_version": direct["format_version"], "meta": meta, "hops": out})


@pytest.fixture(scope="module")
def four() -> list[Trace]:
    return [sample(n) for n in FOUR_WAYS]


def test_the_table_is_computed_from_the_traces(four: list[Trace]) -> None:
    chat, responses, app_mcp, hosted = (facts(t) for t in four)
    assert [f.way for f in (chat, responses, app_mcp, hosted)] == ["functions", "functions", "app_mcp", "hosted"]
    assert (chat.api, responses.api, app_mcp.api, hosted.api) == ("chat", "responses", "chat", "responses")
    # hosted MCP: one request, no backfill; Chat function calling: the request and its backfill
    assert hosted.requests == 1 < chat.requests == 2
    assert (hosted.backfills, chat.backfills) == (0, 1)
    # the app's own MCP client: frames in app-side MCP, none in hosted even when the provider's were seen
    assert app_mcp.app_frames == 7 and hosted.app_frames == 0
    assert (hosted.provider_frames, hosted.reported) == (7, 2)  # initialize, initialized, tools/list, tools/call
    assert chat.app_frames == responses.app_frames == 0
    # what the app sends: four function definitions, or one entry naming the server
    assert chat.sent_tools == (("function", 4),) and hosted.sent_tools == (("mcp", 1),)
    assert hosted.bytes_sent < chat.bytes_sent  # no tool definitions, no second request
    assert chat.bytes_sent == sum(h.bytes for h in four[0].hops if h.kind == "llm.request")
    assert chat.prompt_tokens == sum(int((h.usage or {}).get("prompt_tokens") or 0) for h in four[0].hops)
    assert hosted.server_url.startswith("http://127.0.0.1:")  # the demo server the run served on loopback
    assert hosted.reported_items == ("mcp_list_tools", "mcp_call")


def test_approval_is_the_apps_one_further_request() -> None:
    approval = facts(sample("hosted-responses-approval"))
    assert (approval.requests, approval.approvals, approval.app_frames) == (2, 1, 0)
    [loop] = [r for r in ways_table([sample("hosted-responses-approval")], lang="en") if r[""].startswith("who runs")]
    assert "the app only answers the approval requests (1), in request 2" in loop["hosted MCP (Responses)"]
    where = {s.step: s.place for s in places(sample("hosted-responses-approval"))}
    assert where[Step.DECISION] == where[Step.BACKFILL] == "app"  # the approval request comes to the app, and back
    assert where[Step.CALL_TOOL] == "provider"
    messages = facts(sample("hosted-messages"))
    assert (messages.api, messages.sent_tools, messages.requests) == (
        "messages",
        (("mcp_toolset", 1), ("mcp_servers", 1)),
        1,
    )


def test_the_table_in_words(four: list[Trace]) -> None:
    for lang in ("en", "zh"):
        rows = ways_table(four, lang=lang)
        titles = list(rows[0])[1:]
        assert len(titles) == 4
        requests = next(r for r in rows if r[""] in ("requests the app makes to the model", "应用向模型发出的请求数"))
        assert [requests[t] for t in titles] == ["2", "2", "2", "1"]
        frames = rows[[r[""] for r in rows].index(rows[7][""])]
        assert [frames[t] for t in titles] == ["0", "0", "7", "0"]
    en = ways_table(four, lang="en")
    assert list(en[0])[1:] == [
        "Chat Completions function calling",
        "Responses function calling",
        "app-side MCP (Chat Completions)",
        "hosted MCP (Responses)",
    ]
    sees = next(r for r in en if r[""] == "what the app can see and log")
    assert "mcp_list_tools, mcp_call" in sees["hosted MCP (Responses)"]


def test_the_route_maps_the_ten_messages(four: list[Trace]) -> None:
    chat, _, app_mcp, hosted = (places(t) for t in four)
    where = {name: {s.step: s.place for s in stops} for name, stops in (("chat", chat), ("mcp", app_mcp))}
    where["hosted"] = {s.step: s.place for s in hosted}
    # hosted MCP: messages 2 and 4-8 happen at the provider; the app asks (3), reads the answer (9), shows it (10)
    at_provider = [s for s, p in where["hosted"].items() if p == "provider"]
    assert at_provider == [Step.LIST_TOOLS, *range(Step.DECISION, Step.BACKFILL + 1)]
    assert [where["hosted"][s] for s in (Step.QUESTION, Step.ASK_MODEL, Step.MODEL_ANSWER, Step.SHOW_ANSWER)] == [
        "app"
    ] * 4
    # the same messages run through the app in the others: in its process, or over its MCP client's wire
    assert [where["chat"][s] for s in (Step.LIST_TOOLS, Step.CALL_TOOL, Step.TOOL_RESULT)] == ["in_process"] * 3
    assert [where["mcp"][s] for s in (Step.LIST_TOOLS, Step.CALL_TOOL, Step.TOOL_RESULT)] == ["mcp"] * 3
    assert where["mcp"][Step.BACKFILL] == where["chat"][Step.BACKFILL] == "app"
    listed = next(s for s in hosted if s.step == Step.LIST_TOOLS)
    assert (listed.reported, listed.observed) == (2, 5)
    rows = route_rows(four, lang="en")
    assert rows[2]["hosted MCP (Responses)"] == "at the provider (2 reported · 5 seen)"
    strips = route_strips_html(four, lang="zh")
    assert strips.count('data-place="provider"') == 6 and "在服务商" in strips


def test_the_point_says_what_the_traces_show(four: list[Trace]) -> None:
    en = ways_point(four, lang="en")
    assert "Chat Completions function calling made 2 requests to the model and hosted MCP (Responses) 1" in en
    assert "the app's MCP client sent and received 7 frames; in hosted MCP (Responses), 0" in en
    assert "holds 7 frames of the provider's client" in en
    # a real provider's trace (built by hand from the samples' hops): the report only, the same figures
    report_only = _hosted(observed=False)
    assert "holds no frame, only the provider's report (2 exchanges)" in ways_point([four[0], report_only], lang="en")
    assert (facts(report_only).requests, facts(report_only).app_frames, facts(report_only).provider_frames) == (1, 0, 0)
    assert [s.place for s in places(report_only)] == [s.place for s in places(four[3])]
    # with approval the app asks twice: no sentence says the loop ran inside one request
    assert "made 2 requests" not in ways_point([four[0], sample("hosted-responses-approval")], lang="en")
    assert "0 帧" in ways_point(four, lang="zh")


def test_the_lesson_section(four: list[Trace]) -> None:
    for lang in ("zh", "en"):
        text = four_ways_markdown(four, lang=lang)
        assert text.count("\n| ") >= 11 + 11  # the table's rows and the ten messages' (with phase zero)
        assert ways_point(four, lang=lang).split("。")[0].split(". ")[0] in text.replace("\\", "")
    en = four_ways_markdown(four, lang="en")
    assert "# Four ways to give a model a tool" in en and "| hosted MCP (Responses) |" in en


# --- the page --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_compare_page_shows_the_four_ways(lang: Lang) -> None:
    from streamlit.testing.v1 import AppTest

    from flow_ui.text import plain_cell
    from helpers import ROOT

    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=90).run()
    at.radio(key="lang_choice").set_value(lang).run()
    at.switch_page("app_pages/compare.py").run()
    at.radio(key=f"compare_view_{lang}").set_value("ways").run()
    assert not at.exception, at.exception
    at.selectbox(key=f"ways_3_{lang}").set_value("sample:beijing-direct").run()
    at.button[0].click().run()  # loads the four samples again
    four = [sample(n) for n in FOUR_WAYS]
    [info] = at.info
    assert info.value.replace("\\", "") == ways_point(four, lang=lang)
    # every cell shown as the characters it holds (Markdown escaped, a URL no link)
    assert at.table[0].value.to_dict("records") == [
        {k: plain_cell(v) for k, v in row.items()} for row in ways_table(four, lang=lang)
    ]
    assert any("`http://127.0.0.1:" in str(v) for row in at.table[0].value.to_dict("records") for v in row.values())
    bodies = [e.proto.body for e in at.get("html")]
    assert sum('data-testid="ways-route"' in b for b in bodies) == 1
    [diagrams] = [b for b in bodies if "compare-diagrams" in b]
    # four pictures level with each other, and the same four each at its own heights for a page too narrow for two
    # to a row: one above the other, room kept for the others' messages would be empty bands
    heights = [
        float(m[1])
        for m in (
            re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', base64.b64decode(src).decode())
            for src in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', diagrams)
        )
        if m
    ]
    assert len(heights) == 8 and 'data-testid="compare-diagrams-stacked"' in diagrams
    level, own = heights[:4], heights[4:]
    assert all(o <= h for o, h in zip(own, level, strict=True)), (own, level)
    assert any(o < 0.85 * h for o, h in zip(own, level, strict=True)), (own, level)  # direct: no handshake


def test_a_table_cell_shows_a_url_as_code_and_everything_else_as_its_characters() -> None:
    from flow_ui.text import plain_cell

    said = plain_cell("see *this* http://127.0.0.1:5/mcp_x and [x](https://evil.example/`a`)")
    assert said == r"see \*this\* `http://127.0.0.1:5/mcp_x` and \[x\](``https://evil.example/`a`)``"
