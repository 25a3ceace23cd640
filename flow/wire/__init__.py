"""The model APIs' wire formats, one module per API behind one interface (`flow.wire.base.WireApi`).

A new model API goes in a module of its own here (its request and response bodies, its stream of events, how the
app writes the model's turn and the tools' results back), is named in `ApiName` and registered in `API`; the engine
sends its bodies through the API's SDK (`flow.engine.model`), and nothing else needs to ask which API it has.
"""

from __future__ import annotations

from flow.wire.base import ApiName, WireApi
from flow.wire.chat import CHAT
from flow.wire.messages import MESSAGES
from flow.wire.responses import RESPONSES

API: dict[ApiName, WireApi] = {"chat": CHAT, "responses": RESPONSES, "messages": MESSAGES}


DEFAULT_API: WireApi = CHAT


"""What a recorded body with no sign of another API is read as: Chat Completions, the API every older trace was
recorded with (a request is offered to the others first, in `API`'s order)."""


def api_for_path(path: str) -> WireApi | None:
    """The API whose requests go to this URL path (a recording knows the path, not the SDK that sent it)."""
    return next((api for api in API.values() if path.rstrip("/").endswith(api.path)), None)
