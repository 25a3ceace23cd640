"""MCP content that is not plain text reaches the model as what the chat API can take, and the translation is a hop
(issue 16: a prompt's embedded resource went as "", a blob resource as empty context)."""

from __future__ import annotations

import base64
import json

import pytest

from flow import ModelConfig, RunOptions, run
from flow.backends.scripted import load_script
from flow.engine.translate import map_content, resource_text
from flow.servers.config import EVERYTHING_SERVER
from flow.trace.files import load_trace
from helpers import ROOT

EVERYTHING = (str(EVERYTHING_SERVER), "stdio")
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode()


@pytest.mark.parametrize(
    ("block", "role", "how", "part_type", "words"),
    [
        ({"type": "text", "text": "你好"}, "user", "text", "text", "你好"),
        ({"type": "image", "data": PNG, "mimeType": "image/png"}, "user", "image_url", "image_url", ""),
        ({"type": "image", "data": PNG, "mimeType": "image/png"}, "assistant", "described", "text", "image image/png"),
        ({"type": "image", "data": PNG, "mimeType": "image/png"}, "tool", "described", "text", "text only"),
        ({"type": "audio", "data": PNG, "mimeType": "audio/wav"}, "user", "input_audio", "input_audio", ""),
        ({"type": "audio", "data": PNG, "mimeType": "audio/ogg"}, "user", "described", "text", "wav or mp3"),
        (
            {"type": "resource", "resource": {"uri": "a://b", "mimeType": "text/plain", "text": "正文"}},
            "user",
            "resource_text",
            "text",
            "Resource a://b:\n正文",
        ),
        (
            {"type": "resource", "resource": {"uri": "a://b", "mimeType": "text/plain", "blob": "5q2j5paH"}},
            "user",
            "blob_as_text",
            "text",
            "正文",
        ),
        (
            {"type": "resource", "resource": {"uri": "a://z", "mimeType": "application/zip", "blob": "UEsDBA=="}},
            "user",
            "described",
            "text",
            "4 bytes of binary data: not sent",
        ),
        (
            {"type": "resource_link", "uri": "file:///x.txt", "name": "x.txt", "description": "a file"},
            "user",
            "described",
            "text",
            "resource link x.txt file:///x.txt (a file): the model cannot open it",
        ),
    ],
)
def test_each_mcp_content_type_becomes_a_part_the_role_can_carry(block, role, how, part_type, words):
    mapped = map_content(block, role=role)
    assert mapped.how == how and mapped.part["type"] == part_type
    assert words in mapped.text
    if part_type == "image_url":
        assert mapped.part["image_url"]["url"] == f"data:image/png;base64,{PNG}"
    if part_type == "input_audio":
        assert mapped.part["input_audio"] == {"data": PNG, "format": "wav"}
    if how == "described":
        assert PNG not in mapped.text  # a description, not the data


def test_a_resource_s_blob_is_context_that_says_what_it_was():
    text, hows = resource_text(
        [{"uri": "a://t", "text": "one"}, {"uri": "a://z", "mimeType": "application/zip", "blob": "UEsDBA=="}]
    )
    assert hows == ["text", "described"] and text.startswith("one\n[resource a://z (application/zip)")


def _everything(script: str | None = None, **options):
    options.setdefault("server_command", EVERYTHING)
    model = ModelConfig.scripted(load_script(script)) if script else ModelConfig()
    return run("随便问问", options=RunOptions(**options), model=model)


@pytest.mark.parametrize(("kind", "how"), [("Text", "resource_text"), ("Blob", "blob_as_text")])
def test_a_prompt_with_an_embedded_resource_reaches_the_model_and_its_translation_is_a_hop(kind, how):
    result = _everything(prompt="resource-prompt", prompt_args=(("resourceType", kind), ("resourceId", "1")))
    assert result.ok, result.error
    hops = result.trace.hops
    translation = next(h for h in hops if h.kind == "translate.forward" and h.step == 2)
    assert translation.payload["what"] == "prompt resource-prompt" and how in translation.payload["content"]
    request = next(h for h in hops if h.kind == "llm.request")
    users = [m for m in request.payload["body"]["messages"] if m["role"] == "user"]
    assert users and all(m["content"] for m in users)  # no message went as ""
    assert any("demo://resource/dynamic/" in m["content"] for m in users)
    # The trace says what the user chose, not the typed question that was never sent.
    assert result.trace.meta.question == f"/resource-prompt resourceType={kind}, resourceId=1"
    question = next(h for h in hops if h.kind == "user.message")
    assert question.payload["content"] == result.trace.meta.question and "随便问问" not in result.trace.to_json()


def test_an_image_a_tool_returns_goes_to_the_model_as_a_line_that_says_so():
    result = _everything('[{"call": "get-tiny-image", "arguments": {}}]')
    assert result.ok, result.error
    tool = next(h for h in result.trace.hops if h.kind == "tool.result" and h.source == "mcp_client")
    content = tool.payload["tool_message_content"]
    images = [b for b in tool.payload["result"]["content"] if b["type"] == "image"]
    assert images and images[0]["data"] not in content  # the base64 is not pasted into the model's text
    assert "[image image/png" in content and "text only" in content


def test_the_demo_server_s_resource_is_translated_as_a_hop_in_the_sample():
    trace = load_trace(ROOT / "sample_traces" / "resource-read.json")
    translations = [h for h in trace.hops if h.kind == "translate.forward" and h.step == 2]
    assert [h.payload["content"] for h in translations] == [["text"]]
    assert json.loads(json.dumps(translations[0].payload["openai"]))[0]["role"] == "system"
