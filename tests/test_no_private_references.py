"""No tracked file cites what only the project's authors can read: an issue number of a
private tracker ("issue 16", "issues 12 and 17") or a document kept outside the repository
(``RULES.md``, ``DESIGN.md``, a shared folder beside the project). Nobody else can look
those up, so a file says the reason itself; the project's own rulebook and design are
``docs/rules.md`` and ``docs/design.md``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()

SUFFIXES = (".py", ".md", ".json", ".toml")
NAMES = ("dev", ".env.example")
"""The files read: source, documentation and data by suffix, and these by name."""

ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
OUTSIDE = re.compile(r"RULES\.md|DESIGN\.md|\.\./shared|shared folder")

SPEC_FIXTURE = ("tests/e2e/fake_discord/spec.py", "tests/e2e/README.md")
SPEC = "../shared/discord-api-spec"
"""Where the fake Discord finds Discord's OpenAPI spec, beside the project: a test
fixture's location, which these two files may name."""

PENDING = ("tests/e2e/fake_discord/", "tests/e2e/README.md")
"""Cleared of issue numbers in a change of their own: while their issue numbers are the
only hits, the test is skipped and names them."""


class Hit(NamedTuple):
    path: str
    line: int
    text: str
    issue: bool

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text.strip()}"


def tracked() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git work tree")
    paths = [path for path in listed.decode().split("\0") if path]
    return [
        path
        for path in paths
        if path != THIS and (path.endswith(SUFFIXES) or path.rsplit("/", 1)[-1] in NAMES)
    ]


def cited(path: str, text: str) -> list[Hit]:
    """The lines of ``text`` (the file at ``path``) that cite an issue or an outside
    document. A line saying ``RULES.md`` is ``not in`` something checks its absence."""
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        if ISSUE.search(line):
            hits.append(Hit(path, number, line, issue=True))
            continue
        outside = [match.group() for match in OUTSIDE.finditer(line)]
        if path in SPEC_FIXTURE and SPEC in line:
            outside = [name for name in outside if name != "../shared"]
        if outside and "not in" not in line:
            hits.append(Hit(path, number, line, issue=False))
    return hits


@pytest.mark.parametrize(
    "line",
    [
        '"""Which language a text is in (issue 16).',
        "## Rate limits (issues 12 and 17)",
        "Issue 17's proof: the bot dies",
        "# ---- in German (Issue #16)",
        "Fair play (RULES.md W-7)",
        "See `DESIGN.md` in the shared folder.",
        "the spec in ../shared/",
    ],
)
def test_a_citation_is_found(line: str) -> None:
    assert cited("engine/x.py", line)


@pytest.mark.parametrize(
    "path,line",
    [
        ("engine/x.py", "Fair play (docs/rules.md W-7, T-6)"),
        ("engine/x.py", "the layers of docs/design.md"),
        ("engine/x.py", "an issue with 3 players"),
        ("tests/cogs/x.py", '    assert "RULES.md" not in text'),
        ("tests/e2e/README.md", "`<root>/../shared/discord-api-spec/openapi.json`"),
        ("tests/e2e/fake_discord/spec.py", "in ../shared/discord-api-spec/ beside"),
    ],
)
def test_what_is_not_a_citation(path: str, line: str) -> None:
    assert not cited(path, line)


def test_no_tracked_file_cites_a_private_tracker_or_document() -> None:
    hits = []
    for path in tracked():
        file = ROOT / path
        if file.is_file():
            hits += cited(path, file.read_text(encoding="utf-8", errors="replace"))
    pending = [hit for hit in hits if hit.issue and hit.path.startswith(PENDING)]
    others = [hit for hit in hits if hit not in pending]
    assert not others, "say the reason instead:\n" + "\n".join(map(str, hits))
    if pending:
        pytest.skip("issue numbers still to clear:\n" + "\n".join(map(str, pending)))
