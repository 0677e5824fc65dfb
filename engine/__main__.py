"""Command line: ``python -m engine simulate | replay | play | bench``.

python -m engine simulate --game workshop --players 4 --games 10 --seed 1
python -m engine simulate --game tonttu --seats strong,greedy,greedy,random --games 2
python -m engine replay record.json
python -m engine play --game workshop --players 3
python -m engine play --game tonttu --players 4 --opponents greedy
python -m engine bench --game tonttu --players 4 --games 200

This module is the engine's one impure corner, as a command line must be: it reads
the clock (``bench`` and ``simulate`` figures; the "is thinking" notice of the
terminal game, printed by a timer thread), draws a seed for ``play`` from
``secrets``, and reads files and the terminal. The rules modules it calls stay pure.

A person's mistake (a player count the game does not allow, a level or option it
does not know, a record file that is missing or not a record) is one sentence on
stderr and exit status 2, never a traceback. In the terminal game ``q`` (or the end
of the input) says "Bye." and exits 0; Ctrl-C says "Bye." too and exits 130, the
shell's status for an interrupt.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypeVar

from pydantic import ValidationError

from engine import get_game
from engine.ai import LEVELS, choose
from engine.ai.match import parse_seats, play_match
from engine.core import Game, InvalidSetup, PlayerId, Rng, RuleError, derive_seed
from engine.records import (
    PartialRecord,
    Record,
    dump_outcome,
    pick_random,
    random_playout,
    replay,
)

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""
MISTAKE = 2
"""Exit status for a mistake in the command line (argparse uses it too)."""
THINKING_NOTICE_SECONDS = 0.5
"""A computer seat whose decision takes longer than this says that it is thinking."""

GAMES = ("workshop", "tonttu")


class Mistake(Exception):
    """A person's mistake on the command line; ``str(error)`` is the sentence to print."""


def _players(count: int) -> list[str]:
    return [f"p{i + 1}" for i in range(count)]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"mode": args.mode} if getattr(args, "mode", None) else {}


def _game(args: argparse.Namespace, players: int) -> Game:
    """The game of ``--game``, after checking that it is played by ``players`` players."""
    game = get_game(args.game)
    if not game.min_players <= players <= game.max_players:
        raise Mistake(
            f"{game.title} is played by {game.min_players} to {game.max_players} players,"
            f" not {players}."
        )
    game.parse_options(_options(args))  # an option the game does not know: InvalidSetup
    return game


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    try:
        seats = parse_seats(args.seats) if args.seats else None
    except ValueError as error:  # an unknown level: the sentence names the known ones
        raise Mistake(str(error)) from None
    players = _players(len(seats) if seats else args.players)
    game = _game(args, len(players))
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
            path.write_text(record.model_dump_json(indent=1, exclude_none=True))
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


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    try:
        record = Record.model_validate_json(Path(args.file).read_bytes())
    except OSError as error:
        raise Mistake(f"Cannot read {args.file}: {error.strerror or error}.") from None
    except ValidationError:
        raise Mistake(
            f"{args.file} is not a game record (a JSON file written by simulate or"
            " exported with /export)."
        ) from None
    if not record.replayable:
        raise Mistake(f"{args.file}: {PartialRecord(record)}")
    try:
        game = get_game(record.game)
    except KeyError:
        raise Mistake(f"{args.file} is a record of an unknown game, {record.game!r}.") from None
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
    game = _game(args, args.players)
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


# --------------------------------------------------------------------------- play

YOU = "you"


def cmd_play(args: argparse.Namespace, out: TextIO, inp: TextIO) -> int:
    """The terminal game; Ctrl-C ends it like ``q`` does, with status 130."""
    game = _game(args, args.players)
    try:
        return _play(game, args, out, inp)
    except KeyboardInterrupt:
        out.write("\nBye.\n")
        out.flush()
        return INTERRUPTED


def _play(game: Game, args: argparse.Namespace, out: TextIO, inp: TextIO) -> int:
    players = [YOU, *[f"bot{i}" for i in range(1, args.players)]]
    names = {p: ("You" if p == YOU else f"Bot {p[3:]}") for p in players}
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    state = game.new_game(players, seed, game.parse_options(_options(args)))
    rng = Rng(seed ^ 0xB07)
    moves = 0
    board = Board(out, getattr(game, "terminal_board", game.render_text), names)
    out.write(
        f"{game.title}, seed {seed}. Type the number of a choice; b shows the whole board,"
        " q quits.\n"
    )
    if args.opponents:
        out.write(f"Your opponents are computer players at level {args.opponents}.\n")
    while game.outcome(state) is None:
        acting = game.to_act(state)
        if YOU in acting:
            board.show(game.view(state, YOU))
            legal = game.legal_actions(state, YOU)
            menu = [game.describe_action(state, YOU, action, names) for action in legal]
            _write_menu(out, menu)
            choice = _ask(out, inp, len(legal))
            while choice == "b":
                board.show_all()
                _write_menu(out, menu)
                choice = _ask(out, inp, len(legal))
            if not isinstance(choice, int):
                out.write("Bye.\n")
                return 0
            player, action = YOU, legal[choice]
        else:
            bots = [p for p in state.players if p in acting and p != YOU]
            player = bots[rng.below(len(bots))]
            if args.opponents:
                decide = partial(
                    choose,
                    game,
                    state,
                    player,
                    args.opponents,
                    derive_seed(seed, "computer", moves),
                )
                action = thinking(out, names[player], decide)
            else:
                action = rng.choice(game.legal_actions(state, player))
        state, events = game.apply(state, player, action)
        moves += 1
        for event in events:
            text = game.describe_event(event, names)
            if text:
                out.write(f"  · {text}\n")
    board.show(game.view(state, YOU), everything=True)
    result = game.outcome(state)
    assert result is not None
    if any(block.startswith("Final scores") for block in board.shown):
        # the final board has the breakdown already (Workshop Tonttu): the winners alone
        winners = " and ".join(names[p] for p in players if p in result.winners)
        out.write(f"\n★ {'Winners' if len(result.winners) > 1 else 'Winner'}: {winners}\n")
        return 0
    out.write("\nFinal scores:\n")
    for player in sorted(players, key=lambda p: -result.scores[p]):
        points = result.scores[player]
        mark = "  ★ winner" if player in result.winners else ""
        detail = _breakdown(getattr(result, "players", {}).get(player))
        detail = f" ({detail})" if detail else ""
        out.write(f"  {names[player]}: {points} point{'' if points == 1 else 's'}{detail}{mark}\n")
    return 0


class Board:
    """Prints the board before each of the player's decisions, but only what changed.

    The board text comes in blocks separated by blank lines (the heading, the stations,
    each player, …). The first block, which says whose decision it is, is always
    printed; every other block only when it differs from all the blocks shown last
    time. ``show_all`` prints the whole board again (the ``b`` key).
    """

    def __init__(
        self,
        out: TextIO,
        render: Callable[[Any, Mapping[PlayerId, str]], str],
        names: Mapping[PlayerId, str],
    ) -> None:
        self.out = out
        self.render = render
        self.names = names
        self.shown: list[str] = []

    def show(self, view: Any, everything: bool = False) -> None:
        blocks = self.render(view, self.names).split("\n\n")
        if everything or not self.shown:
            fresh = blocks
        else:
            fresh = [b for k, b in enumerate(blocks) if k == 0 or b not in self.shown]
        self.shown = blocks
        self.out.write("\n" + "\n\n".join(fresh) + "\n")

    def show_all(self) -> None:
        self.out.write("\n" + "\n\n".join(self.shown) + "\n")


def _write_menu(out: TextIO, menu: Sequence[str]) -> None:
    out.write("\n")
    for number, label in enumerate(menu, 1):
        out.write(f"  {number:>2}. {label}\n")


def _ask(out: TextIO, inp: TextIO, count: int) -> int | str | None:
    """The chosen index, ``"b"`` for the board, or None to quit (``q`` or end of input)."""
    while True:
        out.write(f"[1-{count}, b board, q quit]> " if count > 1 else "[1, b board, q quit]> ")
        out.flush()
        line = inp.readline()
        answer = line.strip().lower()
        if not line or answer in {"q", "quit", "exit"}:
            return None
        if answer in {"b", "board"}:
            return "b"
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
        out.write(f"Please type a number from 1 to {count}, b for the board, or q to quit.\n")


T = TypeVar("T")


def thinking(out: TextIO, name: str, decide: Callable[[], T]) -> T:
    """``decide()``; if it takes longer than :data:`THINKING_NOTICE_SECONDS`, a timer
    thread prints "<name> is thinking…" meanwhile (once, never after the decision)."""
    lock = threading.Lock()
    done = False

    def notice() -> None:
        with lock:
            if not done:
                out.write(f"  {name} is thinking…\n")
                out.flush()

    timer = threading.Timer(THINKING_NOTICE_SECONDS, notice)
    timer.daemon = True
    timer.start()
    try:
        return decide()
    finally:
        with lock:
            done = True
        timer.cancel()


def _breakdown(result: Any) -> str:
    """A player's final points by source, from the game's outcome detail: its
    ``breakdown`` mapping, or else its ``…_points`` numbers."""
    if result is None:
        return ""
    parts = getattr(result, "breakdown", None)
    if not isinstance(parts, Mapping):
        fields = result.model_dump() if hasattr(result, "model_dump") else {}
        parts = {
            name.removesuffix("_points").replace("_", " "): value
            for name, value in fields.items()
            if name.endswith("_points") and isinstance(value, int)
        }
    return ", ".join(f"{reason} {value}" for reason, value in parts.items() if value)


# --------------------------------------------------------------------------- arguments


class _HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Descriptions as written (line breaks kept) and "(default: …)" after each option
    that has a default worth stating."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number")
    return value


DESCRIPTION = """\
The game engines without Discord: play in the terminal, simulate and benchmark
games between computer players, replay a game record."""

EPILOG = """\
Santa's Workshop (workshop) takes 2 to 5 players, Workshop Tonttu (tonttu) 3 to 6.
Each command lists its own options and defaults: python -m engine play --help

examples:
  python -m engine play --game workshop --players 3
  python -m engine play --game tonttu --players 4 --opponents greedy
  python -m engine simulate --game workshop --players 4 --games 10
  python -m engine simulate --game tonttu --seats strong,greedy,greedy,random
  python -m engine replay workshop-123.json
  python -m engine bench --game tonttu --players 4
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=_HelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="command", title="commands")

    def command(name: str, summary: str, details: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name, help=summary, description=details, formatter_class=_HelpFormatter
        )

    def game_args(p: argparse.ArgumentParser, players: int) -> None:
        p.add_argument("--game", choices=GAMES, default="workshop", help="which game")
        p.add_argument(
            "--players",
            type=int,
            default=players,
            help="number of players: 2 to 5 for workshop, 3 to 6 for tonttu",
        )
        p.add_argument(
            "--mode",
            choices=["tactical", "speed"],
            help="Workshop Tonttu's mode (tonttu only; its default is tactical)",
        )

    play = command(
        "play",
        "play a game in the terminal against computer players",
        "Play in the terminal: you take the first seat, computer players the others.\n"
        "Type the number of a choice, b to see the whole board again, q to quit.",
    )
    game_args(play, 3)
    play.add_argument(
        "--opponents",
        choices=LEVELS,
        help="the computer players' level (without it they make uniformly random moves)",
    )
    play.add_argument("--seed", type=int, help="seed of the game (without it, a random one)")

    sim = command(
        "simulate",
        "play games between computer players, one JSON line per game",
        "Play games between computer players and print one JSON line per game (seed,\n"
        "scores, winners, number of actions), then a line of totals. Random moves\n"
        "unless --seats gives a level per seat.",
    )
    game_args(sim, 4)
    sim.add_argument(
        "--seats",
        help="a computer level per seat, comma-separated, e.g. strong,greedy,greedy,random"
        f" (levels: {', '.join(LEVELS)}); sets the number of players, overriding --players",
    )
    sim.add_argument("--games", type=_positive, default=10, help="how many games")
    sim.add_argument(
        "--seed", type=int, default=1, help="seed of the batch; each game's seed derives from it"
    )
    sim.add_argument("--records", help="a folder to write one JSON record per game into")

    rep = command(
        "replay",
        "replay a game record and check its outcome",
        "Apply a record's actions again from its seed and compare the outcome with the\n"
        "recorded one; exit status 1 if they differ or an action is not legal.",
    )
    rep.add_argument("file", help="a record written by simulate --records or exported with /export")

    ben = command(
        "bench",
        "measure random games per second",
        "Play random games and print games per second and microseconds per apply.",
    )
    game_args(ben, 4)
    ben.add_argument("--games", type=_positive, default=200, help="how many games")
    ben.add_argument("--seed", type=int, default=1, help="seed of the batch")
    return parser


def main(
    argv: Sequence[str] | None = None,
    out: TextIO = sys.stdout,
    inp: TextIO = sys.stdin,
    err: TextIO = sys.stderr,
) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "simulate":
            return cmd_simulate(args, out)
        if args.command == "replay":
            return cmd_replay(args, out)
        if args.command == "bench":
            return cmd_bench(args, out)
        return cmd_play(args, out, inp)
    except (Mistake, InvalidSetup) as error:  # InvalidSetup: an option the game refuses
        err.write(f"{error}\n")
        return MISTAKE
    except KeyboardInterrupt:
        err.write("Interrupted.\n")
        return INTERRUPTED


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `python -m engine simulate | head -1`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)
