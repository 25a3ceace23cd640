"""The viewer's ES modules joined into one module text, for hosts that cannot resolve imports.

Streamlit's custom component (v2) imports the viewer from a blob URL, and the HTML export and the rooms' follower
page run it from an inline script: neither has a place a relative `import … from './x.mjs'` could fetch from, and
nothing may be downloaded at run time. So the modules are joined as a bundler would hoist them: each module once,
after the modules it imports, its `import` lines dropped and its `export` keywords too (the entry keeps its own),
every top-level name left as it was. That is sound only while no two modules declare the same top-level name and
imports are named, relative and unaliased; `join_modules` checks both and says which file breaks them.

Whole-line `//` comments are left out of the joined text: they are for whoever reads the modules, and the joined
text goes to every student's phone in a room (a third of its bytes were comments). That is sound while no string
spans lines (a line inside one could start with `//`): no template literal over two lines, no line continued with a
backslash; the join checks both.
"""

from __future__ import annotations

import re
from pathlib import Path

_IMPORT = re.compile(r"^import\s*\{([^}]*)\}\s*from\s*'\./([\w-]+\.mjs)';[ \t]*\n", re.M)
_EXPORT_KEYWORD = re.compile(r"^export\s+(?=(?:async\s+)?function\b|class\b|const\b|let\b)", re.M)
_EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\};?[ \t]*\n", re.M)
_DECLARED = re.compile(
    r"^(?:export\s+)?(?:(?:async\s+)?function\*?\s*|class\s+|const\s+|let\s+|var\s+)([A-Za-z_$][\w$]*)", re.M
)
_EXPORTED = re.compile(r"^export\s+(?:(?:async\s+)?function\*?\s*|class\s+|const\s+|let\s+)([A-Za-z_$][\w$]*)", re.M)
_LEFT_IMPORT = re.compile(r"^import\b.*", re.M)
_LEFT_EXPORT = re.compile(r"^export\b.*", re.M)
_COMMENT_LINE = re.compile(r"^[ \t]*//.*\n", re.M)


class ModuleError(ValueError):
    """A module the join cannot take as it is."""


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


class _Module:
    def __init__(self, folder: Path, name: str) -> None:
        self.name = name
        self.text = (folder / name).read_text(encoding="utf-8")
        self.imports: list[tuple[str, list[str]]] = []
        for names, source in _IMPORT.findall(self.text):
            if any(" as " in n for n in _names(names)):
                raise ModuleError(f"{name}: import {{{names.strip()}}}: rename at the source, not with 'as'")
            self.imports.append((source, _names(names)))
        self.exports = set(_EXPORTED.findall(self.text))
        for listed in _EXPORT_LIST.findall(self.text):
            self.exports |= set(_names(listed))
        self.declared = _DECLARED.findall(self.text)
        for number, line in enumerate(self.text.splitlines(), 1):
            if line.lstrip().startswith("//"):
                continue
            if line.count("`") % 2 or line.endswith("\\"):
                raise ModuleError(f"{name}:{number}: keep a string on one line (comment lines are dropped)")

    def body(self, *, entry: bool) -> str:
        text = _COMMENT_LINE.sub("", _IMPORT.sub("", self.text))
        if not entry:
            text = _EXPORT_LIST.sub("", _EXPORT_KEYWORD.sub("", text))
        left = _LEFT_IMPORT.search(text) or (None if entry else _LEFT_EXPORT.search(text))
        if left is not None:
            raise ModuleError(f"{self.name}: cannot join {left.group(0)[:60]!r} (named relative imports only)")
        return text.strip("\n")


def join_modules(folder: Path, entry: str) -> str:
    """The module `entry` (a file in `folder`) and every module it imports, directly or not, as one module text."""
    order: list[_Module] = []
    seen: dict[str, _Module] = {}
    path: list[str] = []

    def visit(name: str) -> None:
        if name in path:
            raise ModuleError(f"import cycle: {' -> '.join([*path[path.index(name) :], name])}")
        if name in seen:
            return
        if not (folder / name).is_file():
            raise ModuleError(f"{path[-1] if path else 'entry'}: no module {name!r} in {folder.name}/")
        module = _Module(folder, name)
        seen[name] = module
        path.append(name)
        for source, names in module.imports:
            visit(source)
            missing = [n for n in names if n not in seen[source].exports]
            if missing:
                raise ModuleError(f"{name}: {source} does not export {', '.join(missing)}")
        path.pop()
        order.append(module)

    visit(entry)
    owner: dict[str, str] = {}
    for module in order:
        for declared in module.declared:
            if owner.setdefault(declared, module.name) != module.name:
                raise ModuleError(f"{module.name} and {owner[declared]} both declare {declared!r} at the top level")
    return "\n\n".join(f"// ---- {m.name} ----\n{m.body(entry=m.name == entry)}" for m in order) + "\n"
