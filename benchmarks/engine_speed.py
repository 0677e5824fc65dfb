"""Engine speed: random playouts as the computer players run them, now against revisions.

    python benchmarks/engine_speed.py [--games 100] [--rounds 5] [--seed 1] [--game NAME ...]
                                      [--players N ...] [--against REV ... | --against none]
    python benchmarks/engine_speed.py --instructions --games 15 [--against REV ...]

Each step of a playout is what an AI rollout does: ``outcome``, ``to_act``,
``legal_actions`` for the acting seat, a uniformly random pick, and the move. Measured
for every player count of every game in the registry (``engine.GAME_MODULES``), Workshop
Tonttu in both modes, in two passes over the same games: one applies every move with
``apply`` (the state and its events, as a table in the bot does), the other as the
computer players' search does (``GameAI.advance``, the state without events, where the
tree's computer players have one; ``apply`` otherwise). Prints per configuration:
microseconds per ``apply`` alone (first pass), per ``advance`` alone and per whole step
(the four engine calls; second pass; a step during which the process lost its core,
over 2 ms, is left out), and complete games per second of the process's own CPU time
in the second pass (so time spent waiting for a core on a busy machine is left out).

``--against REV`` (default: the merge-base of ``HEAD`` with ``main``; repeat it to
compare with several revisions in the same run, e.g. the commit before a piece of work
and today's ``main``) checks each REV out into a temporary ``git worktree`` (removed
afterwards) and measures the same games there, each in a process of its own. The
processes take turns: every configuration is cut into ``--rounds`` slices of games, and
the slices go round all the trees (in alternating order), so all see the same load on a
shared machine. The table then shows every side and the speed-up over each REV (REV's
time / this tree's time). All sides play the very same games (same seeds, same driver
code, from this file); their ``actions/game`` must agree, or the rules differ.
``--against none`` measures this tree alone.

Figures are noisy on a shared machine: compare only within one run.

``--instructions`` counts instead of timing (needs valgrind): for every configuration
and tree, the moves of the same ``--games`` games are applied once and three times
under ``valgrind --tool=cachegrind``, each pass by ``apply`` and as the search does,
and half the difference of the two instruction counts, per move, is printed
(``instr/apply``, ``instr/advance``). Making the games and starting Python cancel
out, and the counts do not move with the machine's load: the stable comparison.
Valgrind runs Python about 50 times slower, so use a few games (``--games 15``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TIMED_FIELDS = ("timed", "move_seconds", "step_seconds", "wall_seconds", "cpu_seconds")
PASSES = ("apply", "search")
"""The two passes over the same games: moves by ``apply``, and as the search makes them."""
PREEMPTED = 0.002
"""A step that took longer than this (seconds) lost the core to another process on the
way: no step of either game comes near it. Such steps are left out of the per-step
figures, which would otherwise be mostly scheduler noise on a busy machine."""

# --------------------------------------------------------------------------- worker side
# Runs inside the tree being measured (its root first on sys.path): it uses only the
# game protocol and ``engine.core``'s Rng, which every revision has.


def configurations(names: list[str] | None) -> list[dict[str, Any]]:
    """(game, players, options) to measure, skipping games whose module is absent."""
    from engine import GAME_MODULES, get_game

    out = []
    for name in names or list(GAME_MODULES):
        try:
            game = get_game(name)
        except ModuleNotFoundError as error:
            if error.name and GAME_MODULES.get(name, "").startswith(error.name):
                print(f"# {name}: module {GAME_MODULES[name]} not present, skipped")
                continue
            raise
        modes: list[dict[str, Any] | None] = [None]
        if name == "tonttu":
            modes = [{"mode": "tactical"}, {"mode": "speed"}]
        for options in modes:
            for players in range(game.min_players, game.max_players + 1):
                out.append({"game": name, "players": players, "options": options})
    return out


def search_advance(game_name: str) -> Any:
    """How the tree's computer players apply a move without its events
    (``GameAI.advance``), or None where they use ``apply``."""
    try:
        from engine.ai import game_ai
    except ImportError:  # a revision without computer players
        return None
    return getattr(game_ai(game_name), "advance", None)


def measure(
    game_name: str, players: int, options: dict[str, Any] | None, seeds: list[int], search: bool
) -> dict[str, Any]:
    """Play one random game per seed; time the engine calls of every step. ``search``:
    apply the moves as the computer players' search does (:func:`search_advance`)."""
    from engine import get_game
    from engine.core import Rng

    advance = search_advance(game_name) if search else None
    game = get_game(game_name)
    parsed = game.parse_options(options)
    seats = [f"p{i}" for i in range(players)]
    outcome, to_act, legal_actions, apply = (
        game.outcome,
        game.to_act,
        game.legal_actions,
        game.apply,
    )
    clock = time.perf_counter
    actions = dropped = 0
    move_seconds = step_seconds = 0.0
    started, cpu_started = clock(), time.process_time()
    for seed in seeds:
        state = game.new_game(seats, seed, parsed)
        rng = Rng(seed)
        while True:
            t0 = clock()
            if outcome(state) is not None:
                break
            acting = to_act(state)
            # as engine.ai.playout: one seat, or a random one of several in seat order
            if len(acting) == 1:
                (player,) = acting
            else:
                order = [p for p in state.players if p in acting]
                player = order[rng.below(len(order))]
            legal = legal_actions(state, player)
            action = legal[rng.below(len(legal))]
            t1 = clock()
            if advance is None:
                state, _events = apply(state, player, action)
            else:
                state = advance(state, player, action)
            t2 = clock()
            actions += 1
            if t2 - t0 > PREEMPTED:
                dropped += 1
                continue
            move_seconds += t2 - t1
            step_seconds += t2 - t0
    return {
        "games": len(seeds),
        "actions": actions,
        "timed": actions - dropped,
        "move_seconds": move_seconds,
        "step_seconds": step_seconds,
        "wall_seconds": clock() - started,
        "cpu_seconds": time.process_time() - cpu_started,
    }


def count(request: dict[str, Any]) -> int:
    """``--count``: apply the moves of the request's games ``reps`` times (under valgrind,
    which counts the instructions); prints the number of moves."""
    sys.path.insert(0, request["root"])
    from engine import get_game
    from engine.core import Rng

    game = get_game(request["game"])
    parsed = game.parse_options(request["options"])
    seats = [f"p{i}" for i in range(request["players"])]
    moves = []
    for seed in request["seeds"]:
        state = game.new_game(seats, seed, parsed)
        rng = Rng(seed)
        while game.outcome(state) is None:
            acting = game.to_act(state)
            order = [p for p in state.players if p in acting]
            player = order[rng.below(len(order))] if len(order) > 1 else order[0]
            legal = game.legal_actions(state, player)
            action = legal[rng.below(len(legal))]
            moves.append((state, player, action))
            state, _events = game.apply(state, player, action)
    advance = search_advance(request["game"]) if request["search"] else None
    move = advance or game.apply
    for _ in range(request["reps"]):
        for state, player, action in moves:
            move(state, player, action)
    print(len(moves))
    return 0


def serve(root: str) -> int:
    """Worker loop: one JSON request per stdin line, one JSON answer per stdout line."""
    sys.path.insert(0, root)
    for line in sys.stdin:
        request = json.loads(line)
        if request["do"] == "configurations":
            answer: Any = configurations(request["games"])
        else:
            answer = measure(
                request["game"],
                request["players"],
                request["options"],
                request["seeds"],
                request["search"],
            )
        print(json.dumps(answer), flush=True)
    return 0


# --------------------------------------------------------------------------- driver side


class Worker:
    """A measuring process rooted at one source tree."""

    def __init__(self, label: str, root: Path) -> None:
        self.label = label
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", str(root)],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, request: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.label} worker died (see its error above)")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return str(done.stdout).strip()


def resolve_against(against: str | None) -> str | None:
    """The commit to compare with: REV as given, by default the merge-base with main."""
    if against is not None and against.lower() == "none":
        return None
    try:
        if against is None:
            return git("merge-base", "HEAD", "main")
        return git("rev-parse", "--verify", f"{against}^{{commit}}")
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", "") or error
        print(f"# no comparison: cannot resolve {against or 'the merge-base with main'}: {detail}")
        return None


@contextmanager
def checked_out(commit: str) -> Iterator[Path]:
    """``commit`` in a temporary git worktree, removed afterwards."""
    parent = Path(tempfile.mkdtemp(prefix="engine-speed-"))
    tree = parent / "tree"
    git("worktree", "add", "--detach", "--quiet", str(tree), commit)
    try:
        yield tree
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True
        )
        shutil.rmtree(parent, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


def label(config: dict[str, Any]) -> str:
    options = config["options"] or {}
    return str(config["game"]) + "".join(f" {v}" for v in options.values())


def wanted(args: argparse.Namespace, configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The configurations with the ``--players`` asked for (all without the option)."""
    return [c for c in configs if not args.players or c["players"] in args.players]


def run(args: argparse.Namespace, workers: list[Worker]) -> list[dict[str, Any]]:
    """Measure every configuration on every worker, in alternating slices."""
    from engine.core import derive_seed

    configs = wanted(args, workers[0].ask({"do": "configurations", "games": args.game}))
    rows = []
    for config in configs:
        seeds = [
            derive_seed(args.seed, config["game"], config["players"], i) for i in range(args.games)
        ]
        rounds = max(1, min(args.rounds, len(seeds)))
        slices = [seeds[r::rounds] for r in range(rounds)]
        totals = [
            {via: dict.fromkeys(("games", "actions", *TIMED_FIELDS), 0.0) for via in PASSES}
            for _ in workers
        ]
        for r, chunk in enumerate(slices):
            order = list(range(len(workers)))
            if r % 2:
                order.reverse()
            for w in order:
                for via in PASSES:
                    request = {"do": "measure", **config, "seeds": chunk, "search": via == "search"}
                    for key, value in workers[w].ask(request).items():
                        totals[w][via][key] += value
        row = {"config": config, "sides": totals}
        rows.append(row)
        print(json.dumps({"label": label(config), **row}), flush=True)
    return rows


def figures(side: dict[str, dict[str, float]]) -> tuple[float, float, float, float]:
    """(us per apply, us per advance, us per step, games per CPU second) of one side's
    totals: the first from the apply pass, the others from the search pass."""
    applied, search = side["apply"], side["search"]
    return (
        applied["move_seconds"] / applied["timed"] * 1e6,
        search["move_seconds"] / search["timed"] * 1e6,
        search["step_seconds"] / search["timed"] * 1e6,
        search["games"] / search["cpu_seconds"],
    )


def print_table(rows: list[dict[str, Any]], names: list[str]) -> None:
    """One line per configuration: every side's figures, then the speed-ups of this
    tree (the first side) over each of the others."""
    print("\nus/apply: microseconds per move applied with apply (state and events); us/advance:")
    print("per move applied as the computer players' search does (no events where the tree's")
    print("computer players have GameAI.advance, else apply); us/step: per step of that search")
    print("pass (outcome + to_act + legal_actions + the move; steps that lost the core, > 2 ms,")
    print("left out); games/s: complete games per second of that pass's process CPU time")
    print("(everything, new_game included).")
    now, others = names[0], names[1:]
    if others:
        print(f"x {'/'.join(others)}: the speed-up of {now} over each (higher is faster).")
    width = 8 * len(names) + 6 * len(others)
    head = f"{'game':<16} {'players':>7}"
    titles = "".join(
        f" | {title:^{width}}" for title in ("us/apply", "us/advance", "us/step", "games/s")
    )
    print(f"{head}{titles} | actions/game")
    cells = "".join(f"{name[:8]:>8}" for name in [*others, now])
    cells += "".join(f" {'x ' + name[:3]:>5}" for name in others)
    print(f"{'':<16} {'':>7}" + f" | {cells}" * 4 + " |")
    mismatched = []
    for row in rows:
        sides = [figures(side) for side in row["sides"]]
        name = f"{label(row['config']):<16} {row['config']['players']:>7}"
        actions = [side[via]["actions"] for side in row["sides"] for via in PASSES]
        if len(set(actions)) > 1:
            mismatched.append(name)
        line = name
        for k in range(4):  # microseconds: lower is faster; games/s: higher
            mine = sides[0][k]
            theirs = [side[k] for side in sides[1:]]
            digits = 1 if k == 3 else 2
            line += " | " + "".join(f"{value:>8.{digits}f}" for value in [*theirs, mine])
            line += "".join(
                f" {(value / mine if k < 3 else mine / value):>5.2f}" for value in theirs
            )
        main_side = row["sides"][0]["search"]
        print(f"{line} | {main_side['actions'] / main_side['games']:>12.1f}")
    if mismatched:
        print("# WARNING: the trees played different games (the rules differ) for:")
        for name in mismatched:
            print(f"#   {name}")


def instructions(root: Path, request: dict[str, Any]) -> tuple[float, int]:
    """Instructions per move in ``root``'s tree, (3 repetitions - 1) / 2 / moves, and the
    number of moves."""
    counted = []
    for reps in (1, 3):
        done = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                "--cachegrind-out-file=/dev/null",
                sys.executable,
                str(Path(__file__).resolve()),
                "--count",
                json.dumps({**request, "root": str(root), "reps": reps}),
            ],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if refs is None:
            raise RuntimeError(f"no instruction count from valgrind: {done.stderr[-500:]}")
        counted.append((int(done.stdout.split()[-1]), int(refs.group(1).replace(",", ""))))
    (moves, once), (_moves, thrice) = counted
    return (thrice - once) / 2 / moves, moves


def count_all(args: argparse.Namespace, roots: list[Path], names: list[str]) -> None:
    """``--instructions``: per configuration, instructions per move on every tree."""
    from engine.core import derive_seed

    now, others = names[0], names[1:]
    print("\ninstr/apply: instructions per move applied with apply (state and events);")
    print("instr/advance: per move as the computer players' search applies it.")
    if others:
        print(f"x {'/'.join(others)}: the speed-up of {now} over each (higher is faster).")
    for config in wanted(args, configurations(args.game)):
        seeds = [
            derive_seed(args.seed, config["game"], config["players"], i) for i in range(args.games)
        ]
        cells = []
        for via in PASSES:
            request = {**config, "seeds": seeds, "search": via == "search"}
            measured = [instructions(root, request) for root in roots]
            counts = [per_move for per_move, _moves in measured]
            if len({moves for _per_move, moves in measured}) > 1:
                print(
                    f"# WARNING: the trees played different games (rules differ): {label(config)}"
                )
            mine = counts[0]
            shown = " ".join(
                f"{name} {value:,.0f}" for name, value in zip(names, counts, strict=True)
            )
            ratios = "".join(
                f" x {name[:7]} {value / mine:.2f}"
                for name, value in zip(others, counts[1:], strict=True)
            )
            title = "instr/apply" if via == "apply" else "instr/advance"
            cells.append(f"{title}: {shown}{ratios}")
        print(f"{label(config):<16} {config['players']} players | " + " | ".join(cells), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per configuration")
    parser.add_argument(
        "--rounds", type=int, default=5, help="alternating slices per configuration"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument(
        "--players", type=int, action="append", help="only this many players (repeatable)"
    )
    parser.add_argument(
        "--against",
        action="append",
        help="a revision to compare with (repeatable; default: merge-base with main; 'none')",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions per move with valgrind instead of timing",
    )
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--count", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve)
    if args.count:
        return count(json.loads(args.count))
    if args.instructions and shutil.which("valgrind") is None:
        print("--instructions needs valgrind (on Debian: apt install valgrind).")
        return 2
    sys.path.insert(0, str(ROOT))
    commits = []
    for against in args.against or [None]:
        commit = resolve_against(against)
        if commit is not None and commit not in commits:
            commits.append(commit)
    head = git("rev-parse", "--short", "HEAD")
    if commits:
        shorts = ", ".join(commit[:7] for commit in commits)
        print(f"# this tree ({head} + working changes) against {shorts}")
    names = ["now" if commits else "this tree", *(commit[:7] for commit in commits)]
    with ExitStack() as stack:
        trees = [stack.enter_context(checked_out(commit)) for commit in commits]
        if args.instructions:
            count_all(args, [ROOT, *trees], names)
            return 0
        workers = [Worker("this tree", ROOT)]
        workers += [Worker(commit[:7], tree) for commit, tree in zip(commits, trees, strict=True)]
        try:
            print_table(run(args, workers), names)
        finally:
            for worker in workers:
                worker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
