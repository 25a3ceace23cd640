"""Presets for OpenAI-compatible providers, and example questions to offer."""

from __future__ import annotations

from dataclasses import dataclass

from flow.mock_model import MODEL_NAMES as MOCK_MODELS


@dataclass(frozen=True)
class Preset:
    name: str
    base_url: str
    model: str
    key_env: str  # where the key usually lives; OPENAI_API_KEY is always tried too
    needs_key: bool = True


PRESETS: list[Preset] = [
    Preset("OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY"),
    Preset("SiliconFlow", "https://api.siliconflow.cn/v1", "Qwen/Qwen2.5-7B-Instruct", "SILICONFLOW_API_KEY"),
    Preset("DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY"),
    Preset("Ollama (local)", "http://localhost:11434/v1", "qwen2.5:7b", "OLLAMA_API_KEY", needs_key=False),
    Preset("vLLM (local)", "http://localhost:8000/v1", "Qwen/Qwen2.5-7B-Instruct", "VLLM_API_KEY", needs_key=False),
    Preset("llama.cpp server (local)", "http://localhost:8080/v1", "local-model", "LLAMACPP_API_KEY", needs_key=False),
]

EXAMPLE_QUESTIONS: list[str] = [
    "北京今天天气怎么样？",
    "北京和上海今天天气怎么样？",
    "北京今天天气怎么样？给我一个出行建议",
    "我今天 9:00 上班，18:30 下班，工作了多久？",
    "火星今天天气怎么样？",
    "What's the weather like in London today?",
    "Compare the weather in Tokyo and Paris today.",
    "你好，请介绍一下你自己。",
]

__all__ = ["EXAMPLE_QUESTIONS", "MOCK_MODELS", "PRESETS", "Preset"]
