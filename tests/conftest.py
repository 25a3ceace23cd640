from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.browser import CHROMIUM, CHROMIUM_ARGS, serve_app
from flow import ModelConfig, RunOptions, RunResult, run
from flow.trace.model import Hop


@dataclass
class Ran:
    """What a command-line call gave: its exit code and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def run_flow_sync(question: str = "北京今天天气怎么样？", *, model: str = "mock", timeout_s: float = 30.0,
                  **options: Any) -> RunResult:
    options.setdefault("transport", "memory")
    return run(question, options=RunOptions(**options), model=ModelConfig(model=model, timeout_s=timeout_s))


def numbered_steps(hops: list[Hop]) -> list[int]:
    """The steps in the order they first appear."""
    seen: list[int] = []
    for h in hops:
        if h.step is not None and h.step not in seen:
            seen.append(h.step)
    return seen


def model_requests(hops: list[Hop]) -> list[dict[str, Any]]:
    return [h.payload["body"] for h in hops if h.kind == "llm.request"]


def kinds(hops: list[Hop]) -> list[str]:
    return [h.kind for h in hops]


@pytest.fixture
def runner():
    return run_flow_sync


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# The app in a real browser: Debian's Chromium, headless, driven by Playwright, against `streamlit run`.
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def app_url():
    """The app served by `streamlit run` on a free loopback port, for the tests of one module (as the benchmark
    serves it)."""
    with serve_app() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright  # only the browser tests need it

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
