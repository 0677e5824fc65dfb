"""Files a person can hold: no module of the source packages runs past about 600 lines
unless its docstring says why it must be one piece ("on purpose")."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "i18n", "render", "storage", "tables", "web", "cogs")
LIMIT = 650
"""About 600 lines: a little over is no reason to split what reads as one."""


def sources() -> list[Path]:
    return [ROOT / "bot.py", *(p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py")))]


def test_a_long_module_says_why_it_is_one_piece() -> None:
    long = []
    for path in sources():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= LIMIT:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if "on purpose" not in doc:
            long.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert not long, "split these, or say in the docstring why not:\n" + "\n".join(long)


def test_the_check_reads_the_sources() -> None:
    found = {p.relative_to(ROOT).as_posix() for p in sources()}
    assert {
        "bot.py",
        "engine/core.py",
        "tables/core.py",
        "web/activity.py",
        "cogs/table/cog.py",
    } <= found
