"""``./dev``: ``run`` installs what running needs, ``test`` adds the test tools, each only
when pyproject.toml changed since it was installed.

The script runs in a copy of the project's top level whose ``.venv/bin/python`` is a
stand-in that writes down how it was called (nothing is installed, nothing started).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STAND_IN = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/../calls.log"
"""


def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "dev", tmp_path / "dev")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("python", "ruff", "mypy"):
        (bin_dir / tool).write_text(STAND_IN)
        (bin_dir / tool).chmod(stat.S_IRWXU)
    return tmp_path


def dev(where: Path, *args: str) -> list[str]:
    """Run ``./dev args`` there; the calls the stand-in saw."""
    log = where / ".venv" / "calls.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "PYTHON": sys.executable, "TEST_POSTGRES_URL": "postgresql://x/y"}
    result = subprocess.run(
        ["./dev", *args], cwd=where, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return log.read_text().splitlines() if log.exists() else []


def installs(calls: list[str]) -> list[str]:
    return [call.split()[-1] for call in calls if "pip install" in call]


def test_run_installs_the_bot_only_and_test_adds_the_tools(tmp_path: Path) -> None:
    where = project(tmp_path)
    assert installs(dev(where, "run")) == ["."]
    assert dev(where, "run") == ["bot.py"]  # installed already: straight to the bot
    assert installs(dev(where, "check")) == []
    assert installs(dev(where, "test")) == [".[test]"]
    assert installs(dev(where, "test")) == []
    assert installs(dev(where, "run")) == []  # the test install holds what running needs


def test_a_changed_pyproject_installs_again(tmp_path: Path) -> None:
    where = project(tmp_path)
    dev(where, "test")
    with (where / "pyproject.toml").open("a") as pyproject:
        pyproject.write("\n# a new dependency\n")
    assert installs(dev(where, "run")) == ["."]
    assert installs(dev(where, "test")) == [".[test]"]
    stamps = sorted(p.name.rsplit("-", 1)[0] for p in (where / ".venv").glob(".installed-*"))
    assert stamps == [".installed-run", ".installed-test"]  # the old ones are gone


def test_play_passes_the_game_and_players_by_position_and_the_rest_as_is(tmp_path: Path) -> None:
    where = project(tmp_path)
    dev(where, "run")
    assert dev(where, "play") == ["-m engine play --game workshop --players 3"]
    assert dev(where, "play", "tonttu", "4", "--seed", "1") == [
        "-m engine play --game workshop --players 3 --game tonttu --players 4 --seed 1"
    ]
    assert dev(where, "play", "--opponents", "greedy") == [
        "-m engine play --game workshop --players 3 --opponents greedy"
    ]
    assert dev(where, "play", "--help") == ["-m engine play --game workshop --players 3 --help"]
