"""Board picture speed and size: milliseconds per PNG and kilobytes per PNG.

    python benchmarks/render_speed.py [--repeat 20]

Draws the golden positions of ``tests/render/states.py`` (Santa's Workshop 2 and 5
players, Workshop Tonttu 3 and 6 players) with ``render.render_board`` from the public
view, as the bot does: view model in, PNG bytes out. Prints the first (cold: fonts
loading) time, then the best, median and worst of ``--repeat`` warm renders (the best
is the least disturbed by other processes). Targets
(issue 8): 5-player Workshop < 60 ms, 6-player Tonttu < 40 ms, every PNG < 400 KB.
Then the bot's way (``cogs/drawing.py``): the worker process's start-up with its first
picture, a warm picture's round trip from the event loop (view pickled in, PNG out),
and the worker's resident memory.
Figures are noisy on a shared machine; run it once or twice, not in a loop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cogs import drawing
from render import render_board
from tests.render.states import POSITIONS, names

TARGET_MS = {"workshop-5p": 60.0, "tonttu-6p": 40.0}
MAX_KB = 400


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    rows = []
    for key, make in POSITIONS.items():
        game, state = make()
        view = game.view(state, None)
        table = names(len(state.players))
        times = []
        png = b""
        for _ in range(args.repeat + 1):
            start = time.perf_counter()
            png = render_board(view, table)
            times.append((time.perf_counter() - start) * 1000)
        target = next((ms for prefix, ms in TARGET_MS.items() if key.startswith(prefix)), None)
        row = {
            "position": key,
            "cold_ms": round(times[0], 1),
            "best_ms": round(min(times[1:]), 1),
            "median_ms": round(statistics.median(times[1:]), 1),
            "max_ms": round(max(times[1:]), 1),
            "target_ms": target,
            "kb": round(len(png) / 1024, 1),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(
        f"\n{'position':<20} {'cold ms':>8} {'best ms':>8} {'median ms':>10} {'max ms':>7} "
        f"{'target':>7} {'KB':>6}"
    )
    for r in rows:
        target = f"< {r['target_ms']:.0f}" if r["target_ms"] else ""
        print(
            f"{r['position']:<20} {r['cold_ms']:>8} {r['best_ms']:>8} {r['median_ms']:>10} "
            f"{r['max_ms']:>7} {target:>7} {r['kb']:>6}"
        )
    too_big = [r["position"] for r in rows if r["kb"] >= MAX_KB]
    if too_big:
        print(f"over {MAX_KB} KB: {', '.join(too_big)}")
    asyncio.run(through_the_worker(args.repeat))
    return 0


def resident(pid: int) -> str:
    """A process's resident memory (Linux; "?" elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "?"
    kb = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")), "")
    return f"{int(kb) / 1024:.0f} MB" if kb else "?"


async def through_the_worker(repeat: int) -> None:
    """What the bot pays per picture: the round trip to the drawing process."""
    game, state = POSITIONS["workshop-5p-mid"]()
    view, table = game.view(state, None), names(len(state.players))
    start = time.perf_counter()
    drawing.start()
    await drawing.draw(render_board, view, table)
    first = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await drawing.draw(render_board, view, table)
        times.append((time.perf_counter() - start) * 1000)
    pool = drawing.POOL.executor()
    pids = [p.pid for p in pool._processes.values()] if pool else []  # type: ignore[union-attr]
    rss = ", ".join(resident(pid) for pid in pids) or "?"
    print(
        f"\nworkshop-5p-mid through the drawing process: start + first picture {first:.0f} ms,"
        f" then median {statistics.median(times):.1f} ms per picture; worker memory {rss}"
    )


if __name__ == "__main__":
    sys.exit(main())
