"""The demo tools that ask back: each needs something only the client side has, and gets it from the client.

- `weather_here` asks the user which city they are in (elicitation, a form);
- `forecast_in_words` asks the host's model to put a forecast in one sentence (sampling);
- `class_notes` reads a city's notes only inside the folders the client names (roots).

And the tools that show the rest of a session: `unlock_alerts` adds the tool `weather_alerts` while the client is
connected and tells it its tool list changed (and that the resource weather://alerts changed, to a client that
subscribed to it); `weather_card` returns a structured result its output schema describes; `slow_report` takes
longer than a client waits, so the client cancels it.

They use the SDK's resolvers (`Resolve`, `Elicit`, `Sample`, `ListRoots`), which follow the negotiated protocol:
in 2025-11-25 each question is a request the server sends back over the session in the middle of `tools/call`;
in 2026-07-28 `tools/call` is answered with an input-required result, and the client calls again with the answers
and the echoed request state.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlparse

import anyio
import mcp_types
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.shared.exceptions import NoBackChannelError
from mcp_types import (
    CreateMessageResult,
    CreateMessageResultWithTools,
    ListRootsResult,
    SamplingMessage,
    TextContent,
    Tool,
    ToolChoice,
    ToolResultContent,
    ToolUseContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

from weather_demo import tools as demo_tools

CityArgument = Annotated[str, Field(description="City name in Chinese or English, e.g. 北京 or Beijing")]


"""A tool's city argument, as every demo tool describes it to the model."""


NOTES_DIR = Path(__file__).with_name("notes")  # the class's notes the demo offers as its default root
NOTE_MAX_BYTES = 4096  # a note longer than this is cut: the tool reads a page, not a disk
SAMPLING_MAX_TOKENS = 120
ALERTS_URI = "weather://alerts"
SLOW_REPORT_S = 30.0  # how long slow_report works: longer than a client waits with the run's usual timeout

CityName = Literal[tuple(zh for zh, _ in demo_tools.CITY_NAMES)]  # type: ignore[valid-type]


class WhichCity(BaseModel):
    """The form the user fills: one city from the list the server knows."""

    city: CityName = Field(title="城市 · City", description="你所在的城市 · The city you are in")  # type: ignore[valid-type]


def ask_city() -> Elicit[WhichCity]:
    return Elicit(
        "你在哪个城市？我要知道才能查那里的天气。Which city are you in? I need it to look up the weather there.",
        WhichCity,
    )


def ask_for_words(city: str) -> Sample:
    try:
        forecast = demo_tools.get_forecast(city, 3)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    data = json.dumps(forecast, ensure_ascii=False)
    text = f"Forecast data: {data}\nAnswer in {_language(city)}."
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
        max_tokens=SAMPLING_MAX_TOKENS,
        system_prompt="Say this weather forecast in one short sentence a child understands.",
    )


OUTING_PROMPT = "Class outing: "  # how plan_outing's sampling request begins (the offline mock model knows it)
OUTING_DAYS = 2
FORECAST_TOOL = Tool(
    name="get_forecast",
    description="The next days' weather for one city (the weather server's own data; the server runs it).",
    input_schema={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
        "required": ["city"],
    },
)


def _outing_question(city: str) -> SamplingMessage:
    text = (
        f"{OUTING_PROMPT}is the weather in {city} good for a class outing? Look at the forecast for the next "
        f"{OUTING_DAYS} days with the tool first. Answer in {_language(city)}."
    )
    return SamplingMessage(role="user", content=TextContent(type="text", text=text))


def ask_plan(city: str) -> Sample:
    """The first request: the question, and the server's own forecast tool for the model to use."""
    if demo_tools.find_city(city) is None:
        raise ToolError(f"No city called {city!r}")
    return Sample(
        [_outing_question(city)],
        max_tokens=SAMPLING_MAX_TOKENS,
        system_prompt="You help a teacher plan a class outing. Answer in one or two short sentences.",
        tools=[FORECAST_TOOL],
        tool_choice=ToolChoice(mode="auto"),
    )


def ask_plan_again(
    city: str, first: Annotated[CreateMessageResultWithTools, Resolve(ask_plan)]
) -> Sample | CreateMessageResultWithTools:
    """The second request, when the model used the tool: the server ran it and sends the model its result."""
    uses = [block for block in first.content_as_list if isinstance(block, ToolUseContent)]
    if not uses:
        return first  # the model answered without the forecast
    results = [ToolResultContent(type="tool_result", tool_use_id=use.id, content=[_run_forecast(use)]) for use in uses]
    return Sample(
        [
            _outing_question(city),
            SamplingMessage(role="assistant", content=first.content_as_list),
            SamplingMessage(role="user", content=list(results)),
        ],
        max_tokens=SAMPLING_MAX_TOKENS,
        tools=[FORECAST_TOOL],
        tool_choice=ToolChoice(mode="none"),
    )


def _run_forecast(use: ToolUseContent) -> TextContent:
    """The server's own tool, run by the server for its sampling request (never by the host)."""
    if use.name != FORECAST_TOOL.name:
        return TextContent(type="text", text=f"Error: no tool called {use.name!r}")
    try:
        forecast = demo_tools.get_forecast(str(use.input.get("city", "")), int(use.input.get("days", OUTING_DAYS)))
    except (ValueError, TypeError) as exc:
        return TextContent(type="text", text=f"Error: {exc}")
    return TextContent(type="text", text=json.dumps(forecast, ensure_ascii=False))


def _language(city: str) -> str:
    return "Chinese" if any("\u4e00" <= ch <= "\u9fff" for ch in city) else "English"


def ask_roots() -> ListRoots:
    return ListRoots()


def _add_outing(server: MCPServer) -> None:
    @server.tool(
        description="Whether the weather in one city suits a class outing, decided by the host's own model: the "
        "tool asks the host to sample, offers that model the server's forecast tool, runs the tool when the model "
        "uses it, and asks again with the result (sampling with tools)."
    )
    async def plan_outing(
        city: CityArgument,
        answer: Annotated[CreateMessageResultWithTools, Resolve(ask_plan_again)],
    ) -> str:
        text = "\n".join(b.text for b in answer.content_as_list if isinstance(b, TextContent)).strip()
        if not text:
            raise ToolError("the host's model gave no text")
        return text


RADAR_URL = "https://weather.example/radar/sign-in"  # .example is reserved (RFC 2606): no page answers there


def add_asking_tools(server: MCPServer) -> None:
    """The tools that ask; added to a server built by `weather_demo.server.build_server(asks=True)`."""
    _add_radar(server)

    @server.tool(
        description="Today's weather where the user is. Takes no arguments: the tool asks the user which city "
        "they are in."
    )
    async def weather_here(
        where: Annotated[ElicitationResult[WhichCity], Resolve(ask_city)],
    ) -> dict[str, Any] | str:
        if not isinstance(where, AcceptedElicitation):
            return f"The user did not say where they are ({where.action}); no weather was looked up."
        return demo_tools.get_weather(where.data.city)

    @server.tool(
        description="The next three days' weather for one city, put into one sentence by the host's own model "
        "(the tool asks the host to sample it)."
    )
    async def forecast_in_words(
        city: CityArgument,
        sentence: Annotated[CreateMessageResult, Resolve(ask_for_words)],
    ) -> str:
        content = sentence.content
        text = content.text if isinstance(content, TextContent) else ""
        if not text:
            raise ToolError("the host's model gave no text")
        return text.strip()

    _add_outing(server)  # here, so that tools/list keeps its order

    @server.tool(
        description="The class's notes about one city, read from a file named after the city inside the folders "
        "the client shares (its roots), and nowhere else."
    )
    async def class_notes(
        city: CityArgument,
        roots: Annotated[ListRootsResult, Resolve(ask_roots)],
    ) -> dict[str, Any]:
        found = demo_tools.find_city(city)
        if found is None:
            raise ToolError(f"No city called {city!r}")
        folders = [folder for folder in (_folder(str(root.uri)) for root in roots.roots) if folder is not None]
        if not folders:
            raise ToolError("the client shares no folder (no file:// root), so there is nothing I may read")
        for folder in folders:
            note = _read_note(folder, found[1])
            if note is not None:
                return {"city": found[0], "root": folder.as_uri(), "file": f"{found[1]}.md", "note": note}
        return {"city": found[0], "roots": [f.as_uri() for f in folders], "note": None}


def _add_radar(server: MCPServer) -> None:
    """The tool that sends the user to a page (URL-mode elicitation)."""

    @server.tool(
        description="Turn on the rain radar for the user. The weather service wants the user to sign in on its own "
        "page, so the tool asks the client to send the user there (URL-mode elicitation). Takes no arguments."
    )
    async def radar_sign_in(ctx: Context) -> str:
        # The SDK sends URL mode only as a request back over the session (2025-11-25); the 2026-07-28 protocol allows
        # it inside an input_required result too, but the SDK's resolvers (`Elicit`) build form mode only.
        try:
            opened = await ctx.elicit_url(
                "天气服务要你在它自己的页面上登录，才能打开降雨雷达。The weather service wants you to sign in on its own "
                "page to turn on the rain radar.",
                RADAR_URL,
                elicitation_id="radar-sign-in",
            )
        except NoBackChannelError:
            return (
                "The radar needs a sign-in on the weather service's page, and this connection (2026-07-28) cannot "
                "send the user there: this server asks in URL mode only with a request back over a session."
            )
        if opened.action != "accept":
            return f"The user did not go to the sign-in page ({opened.action}); the radar stays off."
        return (
            "The user agreed to open the sign-in page. What happens there never passes through the client; this demo "
            "has no page behind the address, so the radar stays off."
        )


def _folder(uri: str) -> Path | None:
    """A file:// root as a folder; any other URI is no folder the server may read."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = Path(unquote(parsed.path))
    return path if path.is_absolute() else None


def _read_note(folder: Path, city_en: str) -> str | None:
    """`<city>.md` directly inside `folder`, if it is there and stays inside (no link out of the root)."""
    wanted = folder / f"{city_en}.md"
    try:
        real = wanted.resolve(strict=True)
        if not real.is_relative_to(folder.resolve(strict=True)) or not real.is_file():
            return None
        with real.open("rb") as f:
            data = f.read(NOTE_MAX_BYTES + 1)
    except OSError:
        return None
    text = data[:NOTE_MAX_BYTES].decode("utf-8", errors="replace")
    return text + ("…" if len(data) > NOTE_MAX_BYTES else "")


class WeatherCard(BaseModel):
    """Today's weather in one city, as `weather_card` returns it: its output schema, and its structured content."""

    city: str = Field(description="The city's name in Chinese")
    city_en: str = Field(description="The city's name in English")
    condition: str = Field(description="The weather, in Chinese")
    condition_en: str = Field(description="The weather, in English")
    temp_low_c: int = Field(description="The lowest temperature today, °C")
    temp_high_c: int = Field(description="The highest temperature today, °C")


class Alert(BaseModel):
    """One city's weather alert, as `weather_alerts` returns it."""

    city: str
    level: Literal["none", "yellow"] = Field(description="yellow: take care (rain, snow, fog); none: no alert")
    text: str


_ALERT_WORDS = ("rain", "snow", "storm", "fog", "haze", "shower")


def alert_for(city: str) -> Alert:
    try:
        weather = demo_tools.get_weather(city)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    condition = str(weather["condition_en"])
    if any(word in condition for word in _ALERT_WORDS):
        return Alert(city=weather["city"], level="yellow", text=f"{condition} today: take an umbrella, go carefully")
    return Alert(city=weather["city"], level="none", text=f"{condition} today: no alert")


def add_session_tools(server: MCPServer) -> None:
    """The tools that show the rest of a session (lists that change, subscriptions, structured results,
    cancellation); added with the asking tools. What they change lives in `server`, which serves one client."""
    _add_alerts(server, _answer_subscribe(server))
    _add_card_and_report(server)


def _answer_subscribe(server: MCPServer) -> dict[str, list[Any]]:
    """Register resources/subscribe and resources/unsubscribe (2025-11-25); the dict returned holds the sessions
    that subscribed to each resource URI. MCPServer has no decorator for them; its low-level server's public
    add_request_handler registers them, and the server then declares `resources.subscribe`."""
    subscribers: dict[str, list[Any]] = {}

    async def subscribe(ctx: Any, params: mcp_types.SubscribeRequestParams) -> mcp_types.EmptyResult:
        sessions = subscribers.setdefault(str(params.uri), [])
        if ctx.session not in sessions:
            sessions.append(ctx.session)
        return mcp_types.EmptyResult()

    async def unsubscribe(ctx: Any, params: mcp_types.UnsubscribeRequestParams) -> mcp_types.EmptyResult:
        sessions = subscribers.get(str(params.uri), [])
        if ctx.session in sessions:
            sessions.remove(ctx.session)
        return mcp_types.EmptyResult()

    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    lowlevel.add_request_handler("resources/subscribe", mcp_types.SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", mcp_types.UnsubscribeRequestParams, unsubscribe)
    return subscribers


async def _told(ctx: Context, modern: Callable[[], Awaitable[None]], legacy: Callable[[], Awaitable[None]]) -> None:
    """Tell the client something changed, the way its protocol era carries it: 2026-07-28 only on a
    subscriptions/listen stream the client opened (the server's subscription bus), 2025-11-25 as a notification on
    the session."""
    await (modern if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS else legacy)()


def _add_alerts(server: MCPServer, subscribers: dict[str, list[Any]]) -> None:
    """The resource weather://alerts, and `unlock_alerts`, which adds the tool `weather_alerts` and says so."""
    unlocked: list[bool] = []

    async def updated_alerts() -> None:
        for session in list(subscribers.get(ALERTS_URI, [])):
            await session.send_resource_updated(ALERTS_URI)

    @server.resource(
        ALERTS_URI,
        name="alerts",
        description="Today's weather alerts for the known cities, once unlock_alerts has turned them on",
        mime_type="text/plain",
    )
    def alerts() -> str:
        if not unlocked:
            return "Weather alerts are off (the tool unlock_alerts turns them on)."
        found = [alert_for(zh) for zh, _ in demo_tools.CITY_NAMES]
        return "\n".join(f"{a.city}: {a.text}" for a in found if a.level != "none") or "No alerts today."

    async def weather_alerts(
        city: CityArgument,
    ) -> Alert:
        return alert_for(city)

    @server.tool(
        description="Turn on weather alerts: adds the tool weather_alerts(city), which the server did not offer "
        "before, and tells the client its tool list changed, so the client lists the tools again."
    )
    async def unlock_alerts(ctx: Context) -> str:
        if unlocked:
            return "Weather alerts are already on: call weather_alerts(city)."
        unlocked.append(True)
        server.add_tool(weather_alerts, description="Today's weather alert for one city (after unlock_alerts).")
        await _told(ctx, ctx.notify_tools_changed, ctx.session.send_tool_list_changed)
        await _told(ctx, lambda: ctx.notify_resource_updated(ALERTS_URI), updated_alerts)
        return "Weather alerts are on: the new tool weather_alerts(city) gives one city's alert."


def _add_card_and_report(server: MCPServer) -> None:
    """`weather_card`, a structured result; `slow_report`, longer than a client waits."""

    @server.tool(
        description="Today's weather in one city as a card: a structured result (structuredContent) that the "
        "tool's output schema describes, beside the same data as text."
    )
    async def weather_card(
        city: CityArgument,
    ) -> WeatherCard:
        try:
            weather = demo_tools.get_weather(city)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        return WeatherCard.model_validate(weather, extra="ignore")

    @server.tool(
        description=f"A long weather report for one city; it takes about {SLOW_REPORT_S:g} seconds and reports "
        "its progress as it goes."
    )
    async def slow_report(
        city: CityArgument,
        ctx: Context,
    ) -> str:
        found = demo_tools.find_city(city)
        if found is None:
            raise ToolError(f"No city called {city!r}")
        parts = 10
        for part in range(parts):
            await ctx.report_progress(part, parts, f"part {part + 1} of {parts}")
            await anyio.sleep(SLOW_REPORT_S / parts)
        forecast = json.dumps(demo_tools.get_forecast(found[0], 7), ensure_ascii=False)
        return f"The long report for {found[0]}: {forecast}"
