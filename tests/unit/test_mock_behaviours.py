"""The mock model's behaviours have one table of names and explanations (`flow.text.mock`): every model name the mock
answers to has a name in Chinese and in English and a line saying what it does, and the Run page's list, its fold,
`run --model`'s help and the docs' table are all written from it, so a behaviour cannot be added without them."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from flow.backends.mock import MODEL_NAMES
from flow.text.mock import MOCK_BEHAVIOURS, mock_model_does, mock_model_label, mock_models_help, mock_models_table
from flow.text.names import Lang
from helpers import ROOT

LANGS: tuple[Lang, ...] = ("zh", "en")
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_model_name_has_its_names_and_what_it_does_in_both_languages():
    assert list(MOCK_BEHAVIOURS) == MODEL_NAMES  # the same names, in the order the list offers them
    for model in MODEL_NAMES:
        behaviour = MOCK_BEHAVIOURS[model]
        for lang in LANGS:
            assert behaviour.name[lang].strip() and behaviour.does[lang].strip(), (model, lang)
        assert CJK.search(behaviour.name["zh"]) and CJK.search(behaviour.does["zh"]), model
        assert not CJK.search(behaviour.name["en"] + behaviour.does["en"]), model
    for lang in LANGS:  # no two behaviours go by one name
        assert len({b.name[lang] for b in MOCK_BEHAVIOURS.values()}) == len(MODEL_NAMES)


@pytest.mark.parametrize("lang", LANGS)
def test_the_help_explains_every_behaviour_with_the_id_the_command_line_takes(lang: Lang):
    lines = [line for line in mock_models_help(lang).splitlines() if line.startswith("- ")]
    assert len(lines) == len(MODEL_NAMES)
    for line, model in zip(lines, MODEL_NAMES, strict=True):
        assert f"`{model}`" in line and MOCK_BEHAVIOURS[model].name[lang] in line
        assert MOCK_BEHAVIOURS[model].does[lang] in line
    assert mock_model_label("mock-bad-json", lang).endswith(" · mock-bad-json")
    assert mock_model_does("mock", lang).endswith("。" if lang == "zh" else ".")


def test_the_command_lines_model_help_names_every_behaviour(monkeypatch: pytest.MonkeyPatch):
    from flow.cli import parser, subcommands

    monkeypatch.setenv("COLUMNS", "2000")  # one line per option: argparse wraps at hyphens too
    text = subcommands(parser())["run"].format_help()
    for model in MODEL_NAMES:
        assert f"{model} ({MOCK_BEHAVIOURS[model].name['en']})".lower() in text.lower(), model
    assert "mock-bad-json (arguments not JSON)" in text and "(a tool that does not exist)" in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_docs_table_is_the_same_table_in_the_pages_language(lang: Lang):
    import importlib.util

    spec = importlib.util.spec_from_file_location("generated", ROOT / "docs" / "hooks" / "generated.py")
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = Path(ROOT / "docs" / "engineers" / f"providers.{lang}.md")
    shown = hook.on_page_markdown(
        page.read_text(encoding="utf-8"), SimpleNamespace(file=SimpleNamespace(src_uri=page.name)), None, None
    )
    assert mock_models_table(lang) in shown
    rows = [line for line in mock_models_table(lang).splitlines() if line.startswith("| `")]
    assert len(rows) == len(MODEL_NAMES)


@pytest.mark.parametrize("lang", LANGS)
def test_the_run_page_offers_the_behaviours_by_their_names_and_explains_them(lang: Lang):
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=90).run()
    at.radio(key="lang_choice").set_value(lang).run()
    at.switch_page("app_pages/run.py").run()
    box = at.selectbox(key=f"mock_model_{lang}")
    assert list(box.proto.options) == [mock_model_label(m, lang) for m in MODEL_NAMES]
    box.set_value("mock-loop").run()
    assert at.session_state["app"].choices["mock_model"] == "mock-loop"  # the id is what a run is given
    shown = [str(c.value) for c in at.caption] + [str(m.value) for m in at.markdown]
    assert mock_model_does("mock-loop", lang) in shown
    assert mock_models_help(lang) in shown
