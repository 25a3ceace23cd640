"""A run with its parts wired in: the engine's tool loop, given the stand-in model the configuration names."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2

from flow.backends import model_transport as stand_in
from flow.engine import loop
from flow.engine.model import ModelConfig
from flow.engine.options import RunResult


async def run_flow(
    question: str,
    *,
    model: ModelConfig = ModelConfig(),
    model_transport: httpx2.AsyncBaseTransport | None = None,
    **kwargs: Any,
) -> RunResult:
    """Run one question end to end (see `flow.engine.loop.run_flow`); the mock and scripted models answer offline."""
    return await loop.run_flow(question, model=model, model_transport=model_transport or stand_in(model), **kwargs)


def run(question: str, **kwargs: Any) -> RunResult:
    """Synchronous entry point for scripts and the CLI."""
    return anyio.run(lambda: run_flow(question, **kwargs))
