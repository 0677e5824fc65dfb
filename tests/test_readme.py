"""Every command the README shows in a ``sh`` block works as written.

Each line of each ```` ```sh ```` block runs, through ``bash`` as a reader would paste
it, in a copy of the project's top level as a fresh clone has it: no ``data/``, no
``.env``, no records or backups. Its ``.venv`` is the one ``./dev`` set up already (a
stand-in ``python`` that runs this test's interpreter, and ``./dev``'s stamp that it is
installed), so ``./dev`` goes straight to the command instead of installing for
minutes. A command passes when it exits with status 0.

Two things a reader has that a fresh clone has not are made first, as documented:

- the bot's database (``sqlite:///data/bot.db``, the default), which the storage
  commands are about: one finished game of Santa's Workshop, played by two members
  (one of them the user id the README's ``forget-user`` line names), as the bot
  would have stored it;
- the operator's PostgreSQL database, ``postgresql://workshop:PASSWORD@DBHOST:5432/workshop``
  in the README: a fresh, empty database on the tests' own PostgreSQL server instead,
  one per block (the block copies into it, then checks it).

Skipped, each with its reason in :data:`SKIPPED` (and the test fails if a reason
matches no command any more, so the list cannot go stale):
``./dev run`` (with or without settings before it) starts the bot, which needs a
Discord token and runs until stopped; ``./dev test`` is the whole suite, this test
among it; ``sudo …`` installs system packages and creates PostgreSQL roles as root with
a password prompt; ``./dev benchmark engine_speed`` measures for minutes against other
revisions (``--instructions`` under valgrind), and ``tests/benchmarks`` runs every
benchmark once with tiny sizes already.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

from engine import get_game
from engine.core import Rng
from storage import open as open_storage
from tests.postgres_server import PostgresServer

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

SKIPPED = {
    r"(^|\s)\./dev run(\s|$)": "starts the bot: needs a Discord token, runs until stopped",
    r"^\./dev test(\s|$)": "the whole test suite, this test among it",
    r"^sudo ": "installs system packages and creates PostgreSQL roles as root (a prompt)",
    r"^\./dev benchmark engine_speed(\s|$)": (
        "minutes of measuring against other revisions (valgrind with --instructions);"
        " tests/benchmarks runs every benchmark with tiny sizes"
    ),
}
OPERATORS_DATABASE = "postgresql://workshop:PASSWORD@DBHOST:5432/workshop"
MEMBER = 123456789012345678
"""The user id of the README's ``forget-user`` line: a member who played a game."""


def shown_commands() -> list[tuple[int, str]]:
    """Each command line of the README's ``sh`` blocks, with its block's number."""
    commands = []
    blocks = re.findall(r"^ *```sh\n(.*?)^ *```", README.read_text(), flags=re.M | re.S)
    for number, block in enumerate(blocks):
        for line in block.splitlines():
            text = line.strip()
            if text and not text.startswith("#"):
                commands.append((number, text))
    return commands


def skip_reason(command: str) -> str | None:
    return next((why for pattern, why in SKIPPED.items() if re.search(pattern, command)), None)


def fresh_clone(where: Path) -> Path:
    """The project's tracked top level, linked, and a ``.venv`` that ``./dev`` finds set up."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in sorted({path.split("/")[0] for path in tracked}):
        (where / name).symlink_to(ROOT / name)
    bin_dir = where / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(stat.S_IRWXU)
    digest = hashlib.sha1((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:12]
    (where / ".venv" / f".installed-test-{digest}").touch()  # as ./dev test leaves it
    return where


async def the_bots_database(path: Path) -> None:
    """A finished game of Santa's Workshop between two members, stored as the bot does."""
    path.parent.mkdir(parents=True)
    game = get_game("workshop")
    rng = Rng(7)
    async with await open_storage(f"sqlite:///{path}") as store:
        table = await store.create_lobby(
            guild_id=1,
            channel_id=2,
            kind="workshop",
            options=None,
            host_id=MEMBER,
            host_name="Aino",
        )
        await store.join(table.id, 42, "Bruno")
        loaded = await store.start(table.id, 11)
        while loaded.status == "active":
            player = sorted(game.to_act(loaded.state))[0]
            action = rng.choice(game.legal_actions(loaded.state, player))
            await store.submit(table.id, player, action, loaded.version)
            loaded = await store.load(table.id)
        assert loaded.status == "finished"


def test_every_command_the_readme_shows_runs_as_written(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    commands = shown_commands()
    assert any(c.startswith("./dev play ") for _, c in commands)  # the blocks were found
    for pattern in SKIPPED:
        assert any(re.search(pattern, c) for _, c in commands), f"{pattern}: nothing to skip"
    where = fresh_clone(tmp_path)
    asyncio.run(the_bots_database(where / "data" / "bot.db"))
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DATABASE_URL", "DISCORD_TOKEN", "PYTHONPATH"}
    }
    env["PYTHON"] = sys.executable  # ./dev's check of the Python version
    databases: dict[int, str] = {}
    failures = []
    for block, command in commands:
        if skip_reason(command):
            continue
        if OPERATORS_DATABASE in command:
            if block not in databases:
                databases[block] = postgres.new_database()
            command = command.replace(OPERATORS_DATABASE, databases[block])
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=where,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        if done.returncode != 0:
            failures.append(f"{command}\n  exit {done.returncode}: {done.stderr[-600:]}")
    assert not failures, "\n".join(failures)
    assert len(list((where / "records").glob("workshop-*.json"))) == 10  # simulate --records
    assert list((where / "backups").glob("*.db"))


def test_the_readme_walks_an_operator_through_the_activitys_developer_portal() -> None:
    """An operator finds the Portal's steps in the README itself, not only in
    docs/activity.md."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Play inside Discord (the Activity)", 1)[1].split("\n## ", 1)[0]
    for step in (
        "DISCORD_CLIENT_ID",
        "DISCORD_CLIENT_SECRET",
        "**Enable Activities**",
        "**Activities → URL Mappings**",
        "`games.example.org/workshop/activity`",
        "entry-point command, **Launch**",
        "`./dev check`",
    ):
        assert step in section, step
