"""Speed of the chart posted with the final scores (issue 14): milliseconds per chart.

    python benchmarks/chart_speed.py [--repeat 30]

For a finished 2- and 5-player Santa's Workshop and a 6-player Workshop Tonttu game
(seeded random games): the replay that makes the score timeline
(``engine.timeline.score_timeline``), the drawing (``render.chart.render_chart``) and
both, as ``render.render_game_chart`` does in the drawing process: p50 and p99 of
``--repeat`` runs, and the PNG's size. Then the one-off cost: importing matplotlib and
``render.chart`` in a fresh interpreter. Then the bot's way (``cogs/drawing.py``): the
first chart through a new drawing process (start, imports, replay, drawing) and a warm
chart's round trip from the event loop.

A game ends once, so the chart's time is paid once per game, off the event loop; what
matters is that the final scores do not wait long for it. Figures are noisy on a
shared machine; compare only figures of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GAMES = {  # name: (game, players, seed, options)
    "workshop-2p": ("workshop", 2, 7, {}),
    "workshop-5p": ("workshop", 5, 2024, {}),
    "tonttu-6p": ("tonttu", 6, 1224, {"mode": "tactical"}),
}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def finished_game(name: str) -> tuple[Any, Any, dict[str, str]]:
    from engine import get_game
    from engine.records import random_playout
    from tests.render.states import names, players

    kind, n, seed, options = GAMES[name]
    game = get_game(kind)
    _, record = random_playout(game, players(n), seed, options)
    return game, record, names(n)


def in_process(repeat: int) -> None:
    from engine.timeline import score_timeline
    from render.chart import render_chart

    print(
        f"{'game':<12} {'decisions':>9} {'stages':>6}   replay ms p50/p99   "
        f"draw ms p50/p99   both ms p50/p99   PNG KB"
    )
    for name in GAMES:
        game, record, names = finished_game(name)
        decisions = [(step.player, step.action) for step in record.actions]
        replays, draws, boths = [], [], []
        png = b""
        timeline = None
        for _ in range(repeat):
            start = time.perf_counter()
            timeline = score_timeline(game, record.players, record.seed, record.options, decisions)
            middle = time.perf_counter()
            png = render_chart(timeline, names)
            end = time.perf_counter()
            replays.append((middle - start) * 1000)
            draws.append((end - middle) * 1000)
            boths.append((end - start) * 1000)
        assert timeline is not None
        print(
            f"{name:<12} {len(decisions):>9} {len(timeline.stages) - 1:>6}   "
            f"{percentile(replays, 50):>7.1f} / {percentile(replays, 99):<7.1f}   "
            f"{percentile(draws, 50):>6.1f} / {percentile(draws, 99):<6.1f}   "
            f"{percentile(boths, 50):>6.1f} / {percentile(boths, 99):<6.1f}   "
            f"{len(png) / 1024:>6.0f}"
        )


def import_cost() -> None:
    code = (
        "import time; t = time.perf_counter(); import render.chart; "
        "print((time.perf_counter() - t) * 1000)"
    )
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    print(
        f"importing matplotlib and render.chart in a fresh interpreter: "
        f"{min(runs):.0f} ms best of 3 (paid once per drawing process, at its first chart)"
    )


async def through_the_worker(repeat: int) -> None:
    from cogs import drawing
    from cogs.workers import WorkerPool

    game, record, names = finished_game("workshop-5p")
    decisions = [(step.player, step.action) for step in record.actions]
    args = (game.name, record.players, record.seed, record.options, decisions, names)
    drawing.POOL = pool = WorkerPool("drawing", size=1, warm=drawing._warm)
    try:
        start = time.perf_counter()
        pool.start()
        await drawing.draw_chart(*args)
        first = (time.perf_counter() - start) * 1000
        warm = []
        for _ in range(repeat):
            start = time.perf_counter()
            await drawing.draw_chart(*args)
            warm.append((time.perf_counter() - start) * 1000)
    finally:
        pool.stop(terminate=True)
    print(
        f"through the drawing process (workshop-5p): first chart of a new process "
        f"{first:.0f} ms; warm p50 {percentile(warm, 50):.0f} ms, p99 {percentile(warm, 99):.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    in_process(args.repeat)
    import_cost()
    asyncio.run(through_the_worker(args.repeat))


if __name__ == "__main__":
    main()
