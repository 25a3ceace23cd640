"""Stand-in models: each is an httpx2 transport answering the OpenAI HTTP API, handed to the engine by its caller."""

from __future__ import annotations

import httpx2

from flow.engine.model import ModelConfig


def model_transport(model: ModelConfig) -> httpx2.AsyncBaseTransport | None:
    """The transport a stand-in model answers on; None for a real provider (the network)."""
    if model.backend == "mock":
        from flow.backends.mock import MockModelTransport

        return MockModelTransport()
    if model.backend == "scripted":
        from flow.backends.scripted import ScriptedModelTransport, Turn

        return ScriptedModelTransport(tuple(turn for turn in model.script if isinstance(turn, Turn)))
    return None  # "openai" goes to the network; "replay" brings its own transport
