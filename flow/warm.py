"""A stdio MCP session kept open between runs, for a long-lived process such as the app.

Starting the server process costs far more than a whole run (see the benchmark), so a browser
session can keep one connection warm. The connection lives in an event loop on a background
thread; each run is scheduled onto it. Runs on a warm session show no set-up frames: the
session was opened before them, and `meta.server.reused_session` says so.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any

from flow.capture.recorder import NullRecorder
from flow.engine.model import ModelConfig
from flow.engine.options import RunOptions, RunResult
from flow.runs import run_flow
from flow.servers.connect import McpSession, open_session
from flow.servers.spec import Era, ServerSpec
from flow.trace.model import Hop


class WarmSession:
    """One open MCP connection and the thread that keeps it; `close()` ends both and reaps the server."""

    def __init__(self, spec: ServerSpec, *, era: Era, timeout_s: float = 10.0) -> None:
        self.spec, self.timeout_s = spec, timeout_s
        self.era: Era = era
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-warm-session", daemon=True)
        self._thread.start()
        self._session: McpSession | None = None
        self._stop: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None

    @property
    def open(self) -> bool:
        return self._session is not None

    def submit(
        self, question: str, *, options: RunOptions, model: ModelConfig, on_hop: Callable[[Hop], None] | None = None
    ) -> concurrent.futures.Future[RunResult]:
        """Schedule a run; `on_hop` is called on the background thread."""
        return asyncio.run_coroutine_threadsafe(self._run(question, options, model, on_hop), self._loop)

    def run(self, question: str, **kwargs: Any) -> RunResult:
        return self.submit(question, **kwargs).result()

    async def _run(
        self, question: str, options: RunOptions, model: ModelConfig, on_hop: Callable[[Hop], None] | None
    ) -> RunResult:
        if self._session is None:
            try:
                await self._open()
            except Exception:  # boundary: a cold run says what went wrong, as a hop and one line
                return await run_flow(question, options=options, model=model, on_hop=on_hop)
        result = await run_flow(question, options=options, model=model, on_hop=on_hop, session=self._session)
        if not result.ok and result.error and "MCP server" in result.error:
            await self._close()  # a broken connection is not kept; the next run opens a new one
        return result

    async def _open(self) -> None:
        ready = asyncio.Event()
        self._stop = asyncio.Event()
        failure: list[BaseException] = []

        async def hold() -> None:
            try:
                async with open_session(
                    self.spec, era=self.era, recorder=NullRecorder(), timeout_s=self.timeout_s
                ) as s:
                    self._session = s
                    ready.set()
                    assert self._stop is not None
                    await self._stop.wait()
            except BaseException as exc:  # boundary: reported to the run that asked for the session
                failure.append(exc)
            finally:
                self._session = None
                ready.set()

        self._holder = asyncio.ensure_future(hold())
        await ready.wait()
        if failure:
            raise failure[0]

    async def _close(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._holder is not None:
            await self._holder
        self._holder = None

    def close(self) -> None:
        if self._loop.is_closed():
            return
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._loop.close()
