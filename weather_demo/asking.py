"""The demo tools that ask back: each needs something only the client side has, and gets it from the client.

- `weather_here` asks the user which city they are in (elicitation, a form);
- `forecast_in_words` asks the host's model to put a forecast in one sentence (sampling);
- `class_notes` reads a city's notes only inside the folders the client names (roots).

They use the SDK's resolvers (`Resolve`, `Elicit`, `Sample`, `ListRoots`), which follow the negotiated protocol:
in 2025-11-25 each question is a request the server sends back over the session in the middle of `tools/call`;
in 2026-07-28 `tools/call` is answered with an input-required result, and the client calls again with the answers
and the echoed request state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlparse

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

from weather_demo import tools as demo_tools

NOTES_DIR = Path(__file__).with_name("notes")  # the class's notes the demo offers as its default root
NOTE_MAX_BYTES = 4096  # a note longer than this is cut: the tool reads a page, not a disk
SAMPLING_MAX_TOKENS = 120

CityName = Literal[tuple(zh for zh, _ in demo_tools.CITY_NAMES)]  # type: ignore[valid-type]


class WhichCity(BaseModel):
    """The form the user fills: one city from the list the server knows."""

    city: CityName = Field(description="The city you are in")  # type: ignore[valid-type]


def ask_city() -> Elicit[WhichCity]:
    return Elicit("Which city are you in? I need it to look up the weather there.", WhichCity)


def ask_for_words(city: str) -> Sample:
    try:
        forecast = demo_tools.get_forecast(city, 3)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    data = json.dumps(forecast, ensure_ascii=False)
    language = "Chinese" if any("\u4e00" <= ch <= "\u9fff" for ch in city) else "English"
    text = f"Forecast data: {data}\nAnswer in {language}."
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
        max_tokens=SAMPLING_MAX_TOKENS,
        system_prompt="Say this weather forecast in one short sentence a child understands.",
    )


def ask_roots() -> ListRoots:
    return ListRoots()


def add_asking_tools(server: MCPServer) -> None:
    """The three tools that ask; added to a server built by `weather_demo.server.build_server(asks=True)`."""

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
        city: Annotated[str, Field(description="City name in Chinese or English, e.g. 北京 or Beijing")],
        sentence: Annotated[CreateMessageResult, Resolve(ask_for_words)],
    ) -> str:
        content = sentence.content
        text = content.text if isinstance(content, TextContent) else ""
        if not text:
            raise ToolError("the host's model gave no text")
        return text.strip()

    @server.tool(
        description="The class's notes about one city, read from a file named after the city inside the folders "
        "the client shares (its roots), and nowhere else."
    )
    async def class_notes(
        city: Annotated[str, Field(description="City name in Chinese or English, e.g. 北京 or Beijing")],
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
