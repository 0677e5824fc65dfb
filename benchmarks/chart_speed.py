"""Speed of the chart posted with the final scores: milliseconds per chart.

    python benchmarks/chart_speed.py [--repeat 30] [--langs en,de]

For a finished 2- and 5-player Santa's Workshop and a 6-player Workshop Tonttu game
(seeded random games): the replay that makes the score timeline
(``engine.timeline.score_timeline``), the drawing (``render.chart.render_chart``) and
both, as ``render.render_game_chart`` does in the drawing process: p50 and p99 of
``--repeat`` runs, and the PNG's size, once per language of ``--langs`` (the
labels in English and in German, measured in the same run). Then the one-off cost:
importing matplotlib and ``render.chart`` in a fresh interpreter. Then the bot's way
(``tables/drawing.py``): the first chart through a new drawing process (start, imports,
replay, drawing) and a warm chart's round trip from the event loop.

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


def in_process(repeat: int, langs: list[str]) -> None:
    from engine.timeline import score_timeline
    from i18n import words
    from render.chart import render_chart

    print(
        f"{'game':<15} {'decisions':>9} {'stages':>6}   replay ms p50/p99   "
        f"draw ms p50/p99   both ms p50/p99   PNG KB"
    )
    for name, lang in ((name, lang) for name in GAMES for lang in langs):
        game, record, names = finished_game(name)
        decisions = [(step.player, step.action) for step in record.actions]
        replays, draws, boths = [], [], []
        png = b""
        timeline = None
        for _ in range(repeat):
            start = time.perf_counter()
            timeline = score_timeline(game, record.players, record.seed, record.options, decisions)
            middle = time.perf_counter()
            png = render_chart(timeline, names, words(lang))
            end = time.perf_counter()
            replays.append((middle - start) * 1000)
            draws.append((end - middle) * 1000)
            boths.append((end - start) * 1000)
        assert timeline is not None
        print(
            f"{name + ' ' + lang:<15} {len(decisions):>9} {len(timeline.stages) - 1:>6}   "
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


async def through_the_worker(repeat: int, langs: list[str]) -> None:
    from tables import drawing
    from tables.workers import WorkerPool

    game, record, names = finished_game("workshop-5p")
    decisions = [(step.player, step.action) for step in record.actions]
    args = (game.name, record.players, record.seed, record.options, decisions, names)
    drawing.POOL = pool = WorkerPool("drawing", size=1, warm=drawing._warm)
    warm: dict[str, list[float]] = {lang: [] for lang in langs}
    try:
        start = time.perf_counter()
        pool.start()
        await drawing.draw_chart(*args, langs[0])
        first = (time.perf_counter() - start) * 1000
        for k in range(repeat):
            # in turns, each first every other time: a change of load hits each alike
            for lang in langs if k % 2 == 0 else reversed(langs):
                start = time.perf_counter()
                await drawing.draw_chart(*args, lang)
                warm[lang].append((time.perf_counter() - start) * 1000)
    finally:
        pool.stop(terminate=True)
    each = "; ".join(
        f"{lang} warm p50 {percentile(times, 50):.0f} ms, p99 {percentile(times, 99):.0f} ms"
        for lang, times in warm.items()
    )
    print(
        f"through the drawing process (workshop-5p): first chart of a new process "
        f"{first:.0f} ms; {each}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--langs", default="en,de", help="labels' languages, comma-separated")
    args = parser.parse_args()
    langs = [lang.strip() for lang in args.langs.split(",") if lang.strip()]
    in_process(args.repeat, langs)
    import_cost()
    asyncio.run(through_the_worker(args.repeat, langs))


if __name__ == "__main__":
    main()
