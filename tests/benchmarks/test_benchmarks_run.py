"""Every benchmark still runs and prints its figures (with tiny sizes: this checks that
they work, not how fast anything is; no test asserts on time)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.serial  # several processes, signals or timing: run alone (see dev)


ROOT = Path(__file__).resolve().parents[2]

RUNS = {  # the command line after python, and a figure its output must show
    "ai_load": ("-m benchmarks.ai_load --clicks 2 --beside 1 --no-old", "p99 last / alone"),
    "engine_speed": ("benchmarks/engine_speed.py --games 2", "games/s"),
    "render_speed": ("benchmarks/render_speed.py --repeat 1", "through the drawing"),
    "replay_speed": ("benchmarks/replay_speed.py --games 1 --repeat 1", "running record"),
    "chart_speed": ("benchmarks/chart_speed.py --repeat 1", "through the drawing process"),
    "storage_speed": (
        "benchmarks/storage_speed.py --seconds 0.2 --finished 50",
        "100 games closed loop p50 / p99",
    ),
    "stats_speed": (
        "benchmarks/stats_speed.py --games 60 --queries 3",
        "/leaderboard (both games)",
    ),
    "ai_strength": ("benchmarks/ai_strength.py --games 1 --lines greedy-random", '"win_rate"'),
    "bot_latency": (
        "-m benchmarks.bot_latency --games 2 --think 0.05 --paced-seconds 1 --burst-rounds 1"
        " --rates 5 --step-seconds 1 --complete workshop-3,tonttu-4-speed"
        " --complete-actions 6 --tonttu-games 1 --tonttu-phases 1",
        "tonttu burst",
    ),
    "undo_speed": ("benchmarks/undo_speed.py --games 1 --undos 3", "undo p50 / p99"),
    "click_walk": ("-m benchmarks.click_walk", "hops on the deepest chain before the answer"),
    "catch_up": ("-m benchmarks.catch_up --games 6 --behind 2", "every table caught up"),
    "e2e_harness": ("-m benchmarks.e2e_harness --users 3 --rounds 1", "p99"),
    "scale_out": (
        "-m benchmarks.scale_out --games 2 --seconds 1 --think 0.1 --submits 5",
        "PostgreSQL, 2 processes / 1 process",
    ),
    "web_load": ("-m benchmarks.web_load --quick", "Activity click -> board in the clicking page"),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_the_benchmark_runs_and_prints_its_figures(name: str) -> None:
    command, figure = RUNS[name]
    done = subprocess.run(
        [sys.executable, *command.split()], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert figure in done.stdout, done.stdout[-2000:]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_engine_speed_counts_instructions_per_move_under_valgrind() -> None:
    """``engine_speed.py --instructions``: one line per configuration, with a plausible
    count per move for both passes (a Tonttu move is tens of thousands of instructions)."""
    command = "benchmarks/engine_speed.py --instructions --games 1 --game tonttu --players 3"
    done = subprocess.run(
        [sys.executable, *command.split(), "--against", "none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("tonttu")]
    assert [line.split()[1] for line in lines] == ["tactical", "speed"], done.stdout
    for line in lines:
        counts = re.findall(r"(instr/\w+): this tree ([\d,]+)", line)
        assert [name for name, _ in counts] == ["instr/apply", "instr/advance"], line
        for _name, value in counts:
            assert 5_000 < int(value.replace(",", "")) < 500_000, line
