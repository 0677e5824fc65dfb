"""Command line: ``python -m engine simulate | replay | play | bench``.

python -m engine simulate --game workshop --players 4 --games 10 --seed 1
python -m engine simulate --game tonttu --seats strong,greedy,greedy,random --games 2
python -m engine replay record.json
python -m engine play --game workshop --players 3
python -m engine play --game tonttu --players 4 --opponents greedy
python -m engine bench --game tonttu --players 4 --games 200
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from engine import get_game
from engine.ai import LEVELS, choose
from engine.ai.match import parse_seats, play_match
from engine.core import Game, Rng, RuleError, derive_seed
from engine.records import Record, dump_outcome, pick_random, random_playout, replay


def _players(count: int) -> list[str]:
    return [f"p{i + 1}" for i in range(count)]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"mode": args.mode} if getattr(args, "mode", None) else {}


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    game = get_game(args.game)
    seats = _seats(args, out)
    if seats == []:
        return 2
    players = _players(len(seats) if seats else args.players)
    if args.records:
        Path(args.records).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    total_actions = 0
    wins = dict.fromkeys(players, 0.0)
    for index in range(args.games):
        seed = derive_seed(args.seed, index)
        if seats:
            _state, record = play_match(game, seats, seed, _options(args), players=players)
        else:
            _state, record = random_playout(game, players, seed, _options(args))
        total_actions += len(record.actions)
        outcome = record.outcome or {}
        for winner in outcome.get("winners", []):
            wins[winner] += 1 / len(outcome["winners"])
        line = {
            "seed": seed,
            "players": players,
            **({"seats": dict(zip(players, seats, strict=True))} if seats else {}),
            "scores": outcome.get("scores"),
            "winners": outcome.get("winners"),
            "actions": len(record.actions),
        }
        out.write(json.dumps(line) + "\n")
        if args.records:
            path = Path(args.records) / f"{args.game}-{seed}.json"
            path.write_text(record.model_dump_json(indent=1))
    elapsed = time.perf_counter() - started
    totals = {
        "games": args.games,
        "actions": total_actions,
        "seconds": round(elapsed, 3),
        "games_per_second": round(args.games / elapsed, 1) if elapsed else None,
        "wins": wins,
    }
    out.write(json.dumps({"totals": totals}) + "\n")
    return 0


def _seats(args: argparse.Namespace, out: TextIO) -> list[str] | None:
    """The ``--seats`` levels (None without the option, [] after an error message)."""
    if not getattr(args, "seats", None):
        return None
    try:
        return parse_seats(args.seats)
    except ValueError as error:
        out.write(f"{error}\n")
        return []


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    record = Record.model_validate_json(Path(args.file).read_text())
    game = get_game(record.game)
    try:
        state = replay(game, record)
    except RuleError as error:
        out.write(f"Replay failed: {error}\n")
        return 1
    outcome = dump_outcome(game, state)
    out.write(json.dumps(outcome, indent=1) + "\n")
    if outcome != record.outcome:
        out.write("MISMATCH: the replayed outcome differs from the recorded one.\n")
        return 1
    out.write("Replay matches the record.\n")
    return 0


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    game = get_game(args.game)
    figures = bench(game, args.players, args.games, args.seed, _options(args))
    out.write(json.dumps(figures) + "\n")
    return 0


def bench(
    game: Game, players: int, games: int, seed: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Complete random games per second and microseconds per apply (one core)."""
    seats = _players(players)
    parsed = game.parse_options(options)
    actions = 0
    apply_seconds = 0.0
    started = time.perf_counter()
    for index in range(games):
        game_seed = derive_seed(seed, index)
        state = game.new_game(seats, game_seed, parsed)
        rng = Rng(game_seed)
        while game.outcome(state) is None:
            player, action = pick_random(game, state, rng)
            t0 = time.perf_counter()
            state, _events = game.apply(state, player, action)
            apply_seconds += time.perf_counter() - t0
            actions += 1
    elapsed = time.perf_counter() - started
    return {
        "game": game.name,
        "options": parsed.model_dump(mode="json"),
        "players": players,
        "games": games,
        "games_per_second": round(games / elapsed, 1),
        "actions_per_game": round(actions / games, 1),
        "us_per_apply": round(apply_seconds / actions * 1e6, 2),
    }


def cmd_play(args: argparse.Namespace, out: TextIO, inp: TextIO) -> int:
    game = get_game(args.game)
    players = ["you", *[f"bot{i}" for i in range(1, args.players)]]
    names = {p: ("You" if p == "you" else f"Bot {p[3:]}") for p in players}
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    state = game.new_game(players, seed, game.parse_options(_options(args)))
    rng = Rng(seed ^ 0xB07)
    moves = 0
    out.write(f"{game.title}, seed {seed}. Type a number to choose, q to quit.\n")
    if args.opponents:
        out.write(f"Your opponents are computer players at level {args.opponents}.\n")
    while game.outcome(state) is None:
        acting = game.to_act(state)
        if "you" in acting:
            out.write("\n" + game.render_text(game.view(state, "you"), names) + "\n")
            legal = game.legal_actions(state, "you")
            for number, action in enumerate(legal, 1):
                out.write(f"  {number:>2}. {game.describe_action(state, 'you', action, names)}\n")
            choice = _ask(out, inp, len(legal))
            if choice is None:
                out.write("Bye.\n")
                return 0
            player, action = "you", legal[choice]
        else:
            bots = [p for p in state.players if p in acting and p != "you"]
            player = bots[rng.below(len(bots))]
            if args.opponents:
                move_seed = derive_seed(seed, "computer", moves)
                action = choose(game, state, player, args.opponents, move_seed)
            else:
                action = rng.choice(game.legal_actions(state, player))
        state, events = game.apply(state, player, action)
        moves += 1
        for event in events:
            text = game.describe_event(event, names)
            if text:
                out.write(f"  · {text}\n")
    out.write("\n" + game.render_text(game.view(state, "you"), names) + "\n")
    result = game.outcome(state)
    assert result is not None
    for player in players:
        out.write(f"{names[player]}: {result.scores[player]} points\n")
    out.write("Winner(s): " + ", ".join(names[p] for p in result.winners) + "\n")
    return 0


def _ask(out: TextIO, inp: TextIO, count: int) -> int | None:
    while True:
        out.write("> ")
        out.flush()
        line = inp.readline()
        if not line or line.strip().lower() in {"q", "quit", "exit"}:
            return None
        if line.strip().isdigit() and 1 <= int(line) <= count:
            return int(line) - 1
        out.write(f"Please type a number from 1 to {count}, or q to quit.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def game_args(p: argparse.ArgumentParser, players: int) -> None:
        p.add_argument("--game", choices=["workshop", "tonttu"], default="workshop")
        p.add_argument("--players", type=int, default=players)
        p.add_argument("--mode", choices=["tactical", "speed"], help="tonttu only")

    sim = sub.add_parser("simulate", help="play random games, one JSON line each")
    game_args(sim, 4)
    sim.add_argument(
        "--seats",
        help="computer level per seat, e.g. strong,greedy,greedy,random (sets --players)",
    )
    sim.add_argument("--games", type=int, default=10)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--records", help="folder to write one JSON record per game")

    rep = sub.add_parser("replay", help="re-apply a record and compare its outcome")
    rep.add_argument("file")

    play = sub.add_parser("play", help="play in the terminal against random seats")
    game_args(play, 3)
    play.add_argument(
        "--opponents",
        choices=LEVELS,
        help="computer opponents at this level (default: uniformly random moves)",
    )
    play.add_argument("--seed", type=int)

    ben = sub.add_parser("bench", help="random games per second")
    game_args(ben, 4)
    ben.add_argument("--games", type=int, default=200)
    ben.add_argument("--seed", type=int, default=1)
    return parser


def main(
    argv: Sequence[str] | None = None, out: TextIO = sys.stdout, inp: TextIO = sys.stdin
) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "simulate":
        return cmd_simulate(args, out)
    if args.command == "replay":
        return cmd_replay(args, out)
    if args.command == "bench":
        return cmd_bench(args, out)
    return cmd_play(args, out, inp)


if __name__ == "__main__":
    sys.exit(main())
