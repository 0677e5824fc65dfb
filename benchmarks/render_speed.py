"""Board picture speed and size: milliseconds per PNG and kilobytes per PNG.

    python benchmarks/render_speed.py [--repeat 20] [--games 8] [--moves 40]
                                      [--langs en,de] [--against REF]

Two measurements of ``render.render_board`` from the public view, as the bot draws:
view model in, PNG bytes out.

- Fixed positions (``tests/render/states.py``: Santa's Workshop 2 and 5 players,
  Workshop Tonttu 3 and 6 players): the first (cold: fonts loading) time, then the
  best, median and worst of ``--repeat`` renders of the same position. Since regions
  that do not change are pasted from tiles (``render/canvas.py``), a repeated position
  is the best case; targets: 5-player Workshop < 60 ms, 6-player Tonttu
  < 40 ms, every PNG < 400 KB.
- Games in play, the bot's real load: ``--games`` 5-player Workshop and as many
  6-player Tonttu games are played with random moves, and the board after every
  decision is drawn, the games interleaved (decision 1 of every game, then decision 2,
  ...) as a busy bot's drawing process sees them. Printed: ms per picture (mean, p50,
  p99) and pictures per second of one core.

Each measurement runs once per language of ``--langs`` (the German labels are
longer and come through the catalogue; English and German are printed one under the
other, measured in the same run).

``--against REF`` measures a git commit (say the parent of a drawing change) in the
same run: its tree is exported to a temporary folder, and the same measurements run
there and here in subprocesses, in turns (``--rounds`` each; the round with the lowest
mean counts), printed side by side. Then the bot's way
(``tables/drawing.py``): the worker process's start-up with its first picture, a warm
picture's round trip from the event loop, and the worker's resident memory.
Figures are noisy on a shared machine; compare only figures of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

TARGET_MS = {"workshop-5p": 60.0, "tonttu-6p": 40.0}
MAX_KB = 400


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def drawer(lang: str) -> Any:
    """``render_board`` in ``lang`` (English as a tree before languages calls it)."""
    from render import render_board

    if lang == "en":
        return render_board
    return lambda view, table: render_board(view, table, lang)


def fixed_positions(repeat: int, lang: str) -> list[dict[str, Any]]:
    from tests.render.states import POSITIONS, names

    render_board = drawer(lang)
    rows = []
    for key, make in POSITIONS.items():
        game, state = make()
        view = game.view(state, None)
        table = names(len(state.players))
        times = []
        png = b""
        for _ in range(repeat + 1):
            start = time.perf_counter()
            png = render_board(view, table)
            times.append((time.perf_counter() - start) * 1000)
        target = next((ms for prefix, ms in TARGET_MS.items() if key.startswith(prefix)), None)
        rows.append(
            {
                "position": f"{key} {lang}",
                "cold_ms": round(times[0], 1),
                "best_ms": round(min(times[1:]), 1),
                "median_ms": round(statistics.median(times[1:]), 1),
                "max_ms": round(max(times[1:]), 1),
                "target_ms": target,
                "kb": round(len(png) / 1024, 1),
            }
        )
    return rows


def games_in_play(games: int, moves: int, lang: str) -> list[dict[str, Any]]:
    """Interleaved boards of ``games`` random games per kind, one after every decision."""
    from engine.core import Rng
    from engine.records import pick_random
    from engine.tonttu import GAME as TONTTU
    from engine.workshop import GAME as WORKSHOP
    from tests.render.states import names, players

    render_board = drawer(lang)
    rows = []
    for label, game, count in (("workshop 5p", WORKSHOP, 5), ("tonttu 6p", TONTTU, 6)):
        views: list[list[Any]] = []
        for g in range(games):
            state = game.new_game(players(count), 100 + g, game.parse_options({}))
            rng = Rng(100 + g)
            seq = [game.view(state, None)]
            while len(seq) < moves and game.outcome(state) is None:
                player, action = pick_random(game, state, rng)
                state, _ = game.apply(state, player, action)
                seq.append(game.view(state, None))
            views.append(seq)
        table = names(count)
        render_board(views[0][0], table)  # fonts loaded
        times = []
        started = time.perf_counter()
        for step in range(moves):
            for seq in views:
                if step < len(seq):
                    begun = time.perf_counter()
                    render_board(seq[step], table)
                    times.append((time.perf_counter() - begun) * 1000)
        elapsed = time.perf_counter() - started
        rows.append(
            {
                "games": f"{games} x {label} {lang}",
                "pictures": len(times),
                "mean_ms": round(statistics.mean(times), 1),
                "p50_ms": round(percentile(times, 50), 1),
                "p99_ms": round(percentile(times, 99), 1),
                "per_s": round(len(times) / elapsed, 1),
            }
        )
    return rows


def measure(repeat: int, games: int, moves: int, langs: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = {"fixed": [], "play": []}
    for lang in langs:
        result["fixed"] += fixed_positions(repeat, lang)
    for lang in langs:
        result["play"] += games_in_play(games, moves, lang)
    return result


def measure_in(
    root: Path | str, repeat: int, games: int, moves: int, langs: list[str]
) -> dict[str, Any]:
    """The measurements on the tree at ``root``, in a fresh subprocess."""
    done = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--measure-only",
            str(root),
            f"--repeat={repeat}",
            f"--games={games}",
            f"--moves={moves}",
            f"--langs={','.join(langs)}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def side_by_side(
    ref: str, rounds: int, repeat: int, games: int, moves: int, langs: list[str]
) -> dict[str, dict[str, Any]]:
    """This tree and commit ``ref``, measured in turns (``rounds`` times each, so a change
    of the machine's load hits both); per tree, the round with the lowest mean."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref], cwd=ROOT, capture_output=True, check=True
    ).stdout
    runs: dict[str, list[dict[str, Any]]] = {"this tree": [], ref: []}
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        for _ in range(rounds):
            runs[ref].append(measure_in(folder, repeat, games, moves, langs))
            runs["this tree"].append(measure_in(ROOT, repeat, games, moves, langs))

    def best(results: list[dict[str, Any]]) -> dict[str, Any]:
        return min(results, key=lambda r: sum(row["mean_ms"] for row in r["play"]))

    return {name: best(results) for name, results in runs.items()}


def print_fixed(name: str, rows: list[dict[str, Any]]) -> None:
    print(
        f"\n{name}: fixed positions\n{'position':<23} {'cold ms':>8} {'best ms':>8} "
        f"{'median ms':>10} {'max ms':>7} {'target':>7} {'KB':>6}"
    )
    for r in rows:
        target = f"< {r['target_ms']:.0f}" if r["target_ms"] else ""
        print(
            f"{r['position']:<23} {r['cold_ms']:>8} {r['best_ms']:>8} {r['median_ms']:>10} "
            f"{r['max_ms']:>7} {target:>7} {r['kb']:>6}"
        )
    too_big = [r["position"] for r in rows if r["kb"] >= MAX_KB]
    if too_big:
        print(f"over {MAX_KB} KB: {', '.join(too_big)}")


def print_play(results: dict[str, dict[str, Any]]) -> None:
    print(
        f"\ngames in play (boards after every decision, games interleaved)\n"
        f"{'tree':<14} {'games':<21} {'pictures':>8} {'mean ms':>8} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'per s':>6}"
    )
    for name, result in results.items():
        for r in result["play"]:
            print(
                f"{name:<14} {r['games']:<21} {r['pictures']:>8} {r['mean_ms']:>8} "
                f"{r['p50_ms']:>7} {r['p99_ms']:>7} {r['per_s']:>6}"
            )
    if len(results) == 2:
        (_, new), (other, old) = results.items()
        for a, b in zip(new["play"], old["play"], strict=True):
            print(f"{a['games']}: {b['mean_ms'] / a['mean_ms']:.1f}x faster than {other}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--games", type=int, default=8, help="games per kind in play")
    parser.add_argument("--moves", type=int, default=40, help="decisions drawn per game")
    parser.add_argument("--against", metavar="REF", help="also measure this git commit")
    parser.add_argument("--rounds", type=int, default=2, help="with --against: turns each")
    parser.add_argument("--langs", default="en,de", help="labels' languages, comma-separated")
    parser.add_argument("--measure-only", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    langs = [lang.strip() for lang in args.langs.split(",") if lang.strip()]
    if args.measure_only:  # a subprocess of --against: measure the tree at ROOT
        sys.path.insert(0, args.measure_only)
        print(json.dumps(measure(args.repeat, args.games, args.moves, langs)))
        return 0
    sys.path.insert(0, str(ROOT))
    if args.against:
        results = side_by_side(
            args.against, args.rounds, args.repeat, args.games, args.moves, langs
        )
    else:
        results = {"this tree": measure(args.repeat, args.games, args.moves, langs)}
    for name, result in results.items():
        print_fixed(name, result["fixed"])
    print_play(results)
    print_languages(results["this tree"], langs)
    asyncio.run(through_the_worker(args.repeat, langs))
    return 0


def print_languages(result: dict[str, Any], langs: list[str]) -> None:
    """Each language's mean time per picture of the games in play, against the first's."""
    if len(langs) < 2:
        return
    by_lang = {
        lang: [r["mean_ms"] for r in result["play"] if r["games"].endswith(f" {lang}")]
        for lang in langs
    }
    first = langs[0]
    for lang in langs[1:]:
        ratios = ", ".join(
            f"{b / a:.2f}x" for a, b in zip(by_lang[first], by_lang[lang], strict=True)
        )
        print(f"{lang} against {first}, mean ms per picture in play (workshop, tonttu): {ratios}")


def resident(pid: int) -> str:
    """A process's resident memory (Linux; "?" elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "?"
    kb = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")), "")
    return f"{int(kb) / 1024:.0f} MB" if kb else "?"


async def through_the_worker(repeat: int, langs: list[str]) -> None:
    """What the bot pays per picture: the round trip to the drawing process."""
    from render import render_board
    from tables import drawing
    from tests.render.states import POSITIONS, names

    game, state = POSITIONS["workshop-5p-mid"]()
    view, table = game.view(state, None), names(len(state.players))
    start = time.perf_counter()
    drawing.start()
    await drawing.draw(render_board, view, table, langs[0])
    first = (time.perf_counter() - start) * 1000
    times: dict[str, list[float]] = {lang: [] for lang in langs}
    for k in range(repeat):
        # in turns, each first every other time, so a change of the machine's load (or
        # of what the worker did last) hits each language alike
        for lang in langs if k % 2 == 0 else reversed(langs):
            start = time.perf_counter()
            await drawing.draw(render_board, view, table, lang)
            times[lang].append((time.perf_counter() - start) * 1000)
    medians = [f"{lang} {statistics.median(ms):.1f} ms" for lang, ms in times.items()]
    pool = drawing.POOL.executor()
    pids = [p.pid for p in pool._processes.values()] if pool else []  # type: ignore[union-attr]
    rss = ", ".join(resident(pid) for pid in pids) or "?"
    print(
        f"\nworkshop-5p-mid through the drawing process: start + first picture {first:.0f} ms,"
        f" then median per picture {', '.join(medians)}; worker memory {rss}"
    )


if __name__ == "__main__":
    sys.exit(main())
