"""The docs site against what it replaced and what it shows: the README fits on a screen or two, every command the
long README held is still written somewhere in docs/ in both languages, every page exists in both languages, and
every picture a page shows is one the browser tests produce from the real app."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from helpers import ROOT

DOCS = ROOT / "docs"
LANGS = ("zh", "en")
COMMANDS = [
    line
    for line in (ROOT / "tests/data/readme-commands.txt").read_text("utf-8").splitlines()
    if not line.startswith("#")
]
# What moved when the app became a package (flow_ui/) with its own console script.
RENAMED = [
    ("streamlit run app.py -- --allow-server-commands", "mcp-flow app --allow-server-commands"),
    ("streamlit run serve.py", "mcp-flow app"),
    ("uvicorn serve:app", "uvicorn flow_ui.serve:app"),
    ("python -m flow", "mcp-flow"),
]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")
SCREENS = {f"assets/screens/{name}-{lang}.png" for name in ("step", "compare", "room") for lang in LANGS}


def as_typed(command: str) -> str:
    """A command as an installed user types it today: the renames applied, spaces collapsed."""
    for old, new in RENAMED:
        command = command.replace(old, new)
    if command == "streamlit run":
        command = "mcp-flow app"
    return re.sub(r"\s+", " ", command).strip()


def pages(lang: str) -> list[Path]:
    return sorted(DOCS.rglob(f"*.{lang}.md"))


def code_of(lang: str) -> str:
    """Every fenced block and inline code span of one language's pages, each as one line of typed text."""
    pieces: list[str] = []
    for page in pages(lang):
        text = page.read_text("utf-8")
        for block in FENCE.findall(text):
            pieces += [as_typed(line) for line in block.replace("\\\n", " ").splitlines()]
        pieces += [as_typed(span) for span in SPAN.findall(FENCE.sub("", text))]
    return "\n".join(pieces)


def test_the_readme_fits_on_a_screen_or_two_and_links_into_the_docs():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.encode("utf-8")) <= 8 * 1024
    for command in ("./dev.sh app", "./dev.sh test", "pipx install ."):
        assert command in readme
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).is_file(), link


def test_the_command_list_is_the_old_readmes():
    assert len(COMMANDS) > 70 and len(set(COMMANDS)) == len(COMMANDS)
    assert "python -m flow lesson sample_traces/beijing-mcp.json --lang zh" in COMMANDS


@pytest.mark.parametrize("lang", LANGS)
def test_every_command_of_the_old_readme_is_still_in_the_docs(lang):
    code = code_of(lang)
    missing = [command for command in COMMANDS if as_typed(command) not in code]
    assert not missing, f"not in the {lang} pages: {missing}"


def test_the_check_sees_a_missing_command():
    assert as_typed("python -m flow run --mode mcp    --question x") == "mcp-flow run --mode mcp --question x"
    assert as_typed("python -m flow no-such-command --out x") not in code_of("en")


def test_every_page_is_written_in_both_languages_and_is_in_the_nav():
    zh = {p.relative_to(DOCS).as_posix().removesuffix(".zh.md") for p in pages("zh")}
    en = {p.relative_to(DOCS).as_posix().removesuffix(".en.md") for p in pages("en")}
    assert zh == en
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))

    def listed(items: list[object]) -> set[str]:
        found: set[str] = set()
        for item in items:
            if isinstance(item, str):
                found.add(item.removesuffix(".md"))
            elif isinstance(item, dict):
                for value in item.values():
                    found |= listed(value) if isinstance(value, list) else {str(value).removesuffix(".md")}
        return found

    assert listed(config["nav"]) == zh
    for page in pages("zh") + pages("en"):
        assert len(page.read_bytes()) > 1500, f"{page} is a placeholder"


def test_every_picture_in_the_docs_is_a_screenshot_the_browser_tests_take():
    shown: set[str] = set()
    for lang in LANGS:
        for page in pages(lang):
            for target in IMAGE.findall(page.read_text("utf-8")):
                path = (page.parent / target).resolve().relative_to(DOCS.resolve()).as_posix()
                assert path in SCREENS, f"{page.name} shows {target}, which no test draws"
                assert path.endswith(f"-{lang}.png"), f"{page.name} shows the other language's {target}"
                shown.add(path)
    assert shown == SCREENS  # and every screenshot taken is shown somewhere
    for path in SCREENS:
        assert (DOCS / path).stat().st_size > 10_000
    on_disk = {p.relative_to(DOCS).as_posix() for p in (DOCS / "assets").rglob("*") if p.is_file()}
    assert on_disk == SCREENS
