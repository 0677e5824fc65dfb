"""The import graph of the source packages: no cycle, and every arrow allowed by the
layering that ``docs/design.md`` describes ("The layers").

Every ``import`` counts, wherever it stands (inside a function or under
``TYPE_CHECKING`` too): a reader and mypy follow them all.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "i18n", "render", "storage", "tables", "web", "cogs")

MAY_IMPORT: dict[str, set[str]] = {
    "engine": {"engine"},
    "engine.__main__": {"engine", "i18n"},  # the terminal front end: plays in a language
    "i18n": {"i18n", "engine"},
    "render": {"render", "engine", "i18n"},
    "storage": {"storage", "engine"},
    "storage.__main__": {"storage", "engine", "i18n"},  # the operator's commands: --help
    "tables": {"tables", "engine", "i18n", "render", "storage"},
    "web": {"web", "tables", "engine", "i18n", "render", "storage"},
    "cogs.helpers": {"cogs.helpers", "tables", "engine", "i18n", "render", "storage"},
    "cogs": {"cogs.helpers", "tables", "engine", "i18n", "render", "storage"},
    "bot": {"bot", "cogs", "cogs.helpers", "web", "tables", "engine", "i18n", "render", "storage"},
}
"""By layer: the layers its modules may import. A module's layer is the longest key that
is its name or a package of it; an extension of ``cogs`` may import only its own module
of ``cogs``, or the modules of its own package (no extension imports another)."""


def modules() -> dict[str, Path]:
    found = {"bot": ROOT / "bot.py"}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The project's modules that ``name`` (at ``path``) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def layer(name: str) -> str:
    keys = [k for k in MAY_IMPORT if name == k or name.startswith(k + ".")]
    return max(keys, key=len)


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imported(name, path, known)) for name, path in known.items()}


def allowed(source: str, target: str) -> bool:
    if target == "cogs":  # the package itself: EXTENSIONS, for bot.py
        return layer(source) == "bot"
    target_layer = layer(target)
    if target_layer == "cogs":  # an extension: only bot.py loads (imports) one; an
        # extension that is a package imports its own modules
        extension = ".".join(target.split(".")[:2])
        return layer(source) == "bot" or source == extension or source.startswith(extension + ".")
    return any(
        target_layer == k or target_layer.startswith(k + ".") for k in MAY_IMPORT[layer(source)]
    )


def test_every_arrow_follows_the_layers() -> None:
    wrong = sorted(
        f"{source} -> {target}"
        for source, targets in graph().items()
        for target in targets
        if not allowed(source, target)
    )
    assert not wrong, "imports across the layers of docs/design.md:\n" + "\n".join(wrong)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_back() -> None:
    """No circle of imports. A module's import of its own package (``from engine.workshop
    import data`` in ``engine/workshop/rules.py``) does not count: Python runs the
    package's ``__init__`` first whatever the module imports, so it adds no order."""
    edges = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph().items()}
    found = cycles(edges)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [({"a": {"b"}, "b": {"a"}}, [["a", "b"]]), ({"a": {"b"}, "b": set()}, [])],
)
def test_the_cycle_finder_finds_cycles(
    edges: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert cycles(edges) == expected


@pytest.mark.parametrize(
    ("source", "target", "ok"),
    [
        ("engine.core", "storage", False),
        ("storage.core", "engine.core", True),
        ("tables.service", "cogs.helpers.common", False),
        ("cogs.table", "cogs.lobby", False),
        ("cogs.tonttu.cog", "cogs.tonttu.thread", True),
        ("cogs.tonttu.cog", "cogs.table", False),
        ("cogs.lobby", "cogs.tonttu.text", False),
        ("cogs.table", "cogs.helpers.desk", True),
        ("cogs.helpers.desk", "bot", False),
        ("bot", "cogs.table", True),
    ],
)
def test_the_layers_say_no_where_they_should(source: str, target: str, ok: bool) -> None:
    assert allowed(source, target) is ok
