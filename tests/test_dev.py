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


def test_the_engine_storage_and_i18n_commands_reach_their_modules_named_as_typed(
    tmp_path: Path,
) -> None:
    """``./dev play chess 3`` must say "./dev play: error: …": the module is told its name."""
    where = project(tmp_path)
    dev(where, "run")
    assert dev(where, "play") == ["-m engine --prog ./dev play"]
    assert dev(where, "play", "tonttu", "4", "--seed", "1") == [
        "-m engine --prog ./dev play tonttu 4 --seed 1"
    ]
    assert dev(where, "play", "--help") == ["-m engine --prog ./dev play --help"]
    for command in ("simulate", "replay", "bench"):
        assert dev(where, command, "--help") == [f"-m engine --prog ./dev {command} --help"]
    assert dev(where, "storage", "check") == ["-m storage --prog ./dev storage check"]
    assert dev(where, "i18n", "update", "de") == ["-m i18n update de"]


def test_benchmark_runs_one_of_benchmarks_as_a_module_with_the_test_tools(tmp_path: Path) -> None:
    where = project(tmp_path)
    (where / "benchmarks").mkdir()
    (where / "benchmarks" / "engine_speed.py").write_text("")
    calls = dev(where, "benchmark", "engine_speed", "--games", "2")
    assert installs(calls) == [".[test]"]  # the benchmarks drive tests/e2e's fake Discord
    assert calls[-1] == "-m benchmarks.engine_speed --games 2"
    wrong = subprocess.run(
        ["./dev", "benchmark", "no_such"], cwd=where, capture_output=True, text=True, check=False
    )
    assert wrong.returncode == 2 and "engine_speed" in wrong.stderr


def test_help_lists_every_command_and_an_unknown_one_is_named() -> None:
    shown = subprocess.run(["./dev", "help"], cwd=ROOT, capture_output=True, text=True, check=True)
    for command in ("run", "test", "check", "play", "simulate", "storage", "i18n", "benchmark"):
        assert f"./dev {command}" in shown.stdout
    unknown = subprocess.run(
        ["./dev", "plya"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert unknown.returncode == 2 and "./dev: unknown command 'plya'." in unknown.stderr
