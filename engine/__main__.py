"""Command line: ``python -m engine simulate | replay | play | bench``.

python -m engine simulate --game workshop --players 4 --games 10 --seed 1
python -m engine simulate --game tonttu --seats hard,normal,normal,easy --games 2
python -m engine replay record.json [more.json ...]
python -m engine play workshop 3
python -m engine play tonttu 4 --opponents normal
python -m engine bench --game tonttu --players 4 --games 200

``./dev play | simulate | replay | bench`` runs these with the project's ``.venv``
and passes ``--prog ./dev`` first, so that the usage and every mistake name the
command the person typed (``./dev play: error: …``), not this module.

The computer players' levels are easy, normal and hard, as on Discord; the ids the
records and the database keep (random, greedy, strong) are accepted too
(:func:`engine.ai.level_id`).

This module is the engine's one impure corner, as a command line must be: it reads
the clock (``bench`` and ``simulate`` figures; the "is thinking" notice of the
terminal game, printed by a timer thread), draws a seed for ``play`` from
``secrets``, and reads files and the terminal. The rules modules it calls stay pure.

A person's mistake (a player count the game does not allow, a level or option it
does not know, a record file that is missing or not a record) is one sentence on
stderr and exit status 2, never a traceback. In the terminal game ``q`` (or the end
of the input) says "Bye." and exits 0; Ctrl-C says "Bye." too and exits 130, the
shell's status for an interrupt.

The terminal game speaks German or English: ``--lang de|en``, by default the language
the environment names, read as gettext does (:func:`default_language`). What a player
reads (the prompts, the board, the log, the help, argparse's own words such as
"usage:", a mistake's sentence) comes through ``i18n.words(lang)``; the JSON of
``simulate``, ``bench`` and ``replay`` is for operators and stays as it is.

In the terminal game ``help`` (or the word the prompt shows, German ``hilfe``) or
``?`` shows the one-screen legend of the game and its phase (:func:`engine.guide.legend`).

One file, about 850 lines, on purpose: it is the engine's one impure corner (the
clock, a thread, the terminal, files), and the rules below it stay pure because every
impure line of the engine is here and nowhere else.
"""

from __future__ import annotations

import argparse
import inspect
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

import i18n
import i18n.cli as i18n_cli
from engine import get_game
from engine.ai import LEVEL_NAMES, choose, level_id
from engine.ai.match import play_match
from engine.core import AnyGame, InvalidSetup, PlayerId, Rng, RuleError, derive_seed
from engine.guide import first_time, legend
from engine.records import (
    PartialRecord,
    Record,
    dump_outcome,
    pick_random,
    random_playout,
    replay,
)
from engine.words import ENGLISH, N_, Words, listed
from i18n.cli import HelpFormatter, argparse_speaking

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""
MISTAKE = 2
"""Exit status for a mistake in the command line (argparse uses it too)."""
THINKING_NOTICE_SECONDS = 0.5
"""A computer seat whose decision takes longer than this says that it is thinking."""

GAMES = ("workshop", "tonttu")
TITLES = (N_("Santa's Workshop"), N_("Workshop Tonttu"))
"""The games' titles (``Game.title``), translated where a sentence names a game."""
LANGS = ("en", "de")
"""The languages of ``--lang`` (the catalogues in ``i18n``)."""


class Mistake(Exception):
    """A person's mistake on the command line; ``str(error)`` is the sentence to print."""


def _players(count: int) -> list[str]:
    return [f"p{i + 1}" for i in range(count)]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"mode": args.mode} if getattr(args, "mode", None) else {}


def _game(args: argparse.Namespace, players: int, words: Words = ENGLISH) -> AnyGame:
    """The game of ``--game``, after checking that it is played by ``players`` players."""
    game = get_game(args.game)
    if not game.min_players <= players <= game.max_players:
        raise Mistake(
            words.gettext("{game} is played by {min} to {max} players, not {count}.").format(
                game=words.gettext(game.title),
                min=game.min_players,
                max=game.max_players,
                count=players,
            )
        )
    game.parse_options(_options(args))  # an option the game does not know: InvalidSetup
    return game


def cmd_simulate(args: argparse.Namespace, out: TextIO, words: Words = ENGLISH) -> int:
    seats = args.seats
    players = _players(len(seats) if seats else args.players)
    game = _game(args, len(players), words)
    if args.records:
        Path(args.records).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    total_actions = 0
    wins = dict.fromkeys(players, 0.0)
    names = [LEVEL_NAMES[level] for level in seats or ()]
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
            # each seat's level by the name players know it by (hard, not strong)
            **({"seats": dict(zip(players, names, strict=True))} if seats else {}),
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
    """Each file in turn (the first unreadable one stops it: a mistake); status 1 if
    any replay fails or differs. With several files each verdict names its file."""
    status = 0
    for file in args.file:
        verdict, failed = _replay_one(file, out)
        out.write(f"{file}: {verdict}\n" if len(args.file) > 1 else f"{verdict}\n")
        status = max(status, int(failed))
    return status


def _replay_one(file: str, out: TextIO) -> tuple[str, bool]:
    """Replays one record, prints its outcome; the verdict and whether it failed."""
    try:
        record = Record.model_validate_json(Path(file).read_bytes())
    except OSError as error:
        raise Mistake(f"Cannot read {file}: {error.strerror or error}.") from None
    except ValidationError:
        raise Mistake(
            f"{file} is not a game record (a JSON file written by simulate or"
            " exported with /export)."
        ) from None
    if not record.replayable:
        raise Mistake(f"{file}: {PartialRecord(record)}")
    try:
        game = get_game(record.game)
    except KeyError:
        raise Mistake(f"{file} is a record of an unknown game, {record.game!r}.") from None
    try:
        state = replay(game, record)
    except RuleError as error:
        return f"Replay failed: {error}", True
    outcome = dump_outcome(game, state)
    out.write(json.dumps(outcome, indent=1) + "\n")
    if outcome != record.outcome:
        return "MISMATCH: the replayed outcome differs from the recorded one.", True
    return "Replay matches the record.", False


def cmd_bench(args: argparse.Namespace, out: TextIO, words: Words = ENGLISH) -> int:
    game = _game(args, args.players, words)
    figures = bench(game, args.players, args.games, args.seed, _options(args))
    out.write(json.dumps(figures) + "\n")
    return 0


def bench(
    game: AnyGame, players: int, games: int, seed: int, options: dict[str, Any] | None = None
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
YOU_NAME = N_("You")
"""The terminal player's display name in the games' ``names``; their text modules say
"You get" (not "You gets") for it, and translate it where it is only named."""


def cmd_play(args: argparse.Namespace, out: TextIO, inp: TextIO, words: Words = ENGLISH) -> int:
    """The terminal game; Ctrl-C ends it like ``q`` does, with status 130."""
    game = _game(args, args.players, words)
    try:
        return _play(game, args, out, inp, words)
    except KeyboardInterrupt:
        out.write("\n" + words.gettext("Bye.") + "\n")
        out.flush()
        return INTERRUPTED


def _board_text(game: AnyGame, words: Words) -> Callable[[Any, Mapping[PlayerId, str]], str]:
    """The game's board for the terminal (its ``terminal_board`` if it has one, else
    ``render_text``) in ``words``' language."""
    render = getattr(game, "terminal_board", game.render_text)
    if "words" not in inspect.signature(render).parameters:
        return render
    return partial(render, words=words)


def _play(
    game: AnyGame, args: argparse.Namespace, out: TextIO, inp: TextIO, words: Words = ENGLISH
) -> int:
    players = [YOU, *[f"bot{i}" for i in range(1, args.players)]]
    # the games' text translates the seat named YOU_NAME itself ("Du"), in the second person
    names = {
        p: (YOU_NAME if p == YOU else words.gettext("Bot {n}").format(n=p[3:])) for p in players
    }
    shown = {p: words.gettext(name) if p == YOU else name for p, name in names.items()}
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    state = game.new_game(players, seed, game.parse_options(_options(args)))
    rng = Rng(seed ^ 0xB07)
    moves = 0
    board = Board(out, _board_text(game, words), names)
    out.write(
        words.gettext(
            "{game}, seed {seed}. Type the number of a choice; ? explains the game,"
            " b shows the whole board, q quits."
        ).format(game=words.gettext(game.title), seed=seed)
        + "\n"
    )
    if args.opponents:
        out.write(
            words.gettext("Your opponents are computer players at level {level}.").format(
                level=words.gettext(LEVEL_NAMES[args.opponents])
            )
            + "\n"
        )
    while game.outcome(state) is None:
        acting = game.to_act(state)
        if YOU in acting:
            view = game.view(state, YOU)
            board.show(view)
            hint = first_time(game.name, view, words)  # a decision met the first time
            if hint:
                out.write(f"» {hint}\n")
            legal = game.legal_actions(state, YOU)
            menu = [game.describe_action(state, YOU, action, names, words) for action in legal]
            _write_menu(out, menu)
            choice = _ask(out, inp, len(legal), words)
            while choice in ("b", "?"):
                if choice == "b":
                    board.show_all()
                else:
                    out.write("\n" + legend(game.name, view, words).rstrip("\n") + "\n")
                _write_menu(out, menu)
                choice = _ask(out, inp, len(legal), words)
            if not isinstance(choice, int):
                out.write(words.gettext("Bye.") + "\n")
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
                action = thinking(out, names[player], decide, words)
            else:
                action = rng.choice(game.legal_actions(state, player))
        state, events = game.apply(state, player, action)
        moves += 1
        for event in events:
            text = game.describe_event(event, names, words)
            if text:
                out.write(f"  · {text}\n")
    board.show(game.view(state, YOU), everything=True)
    result = game.outcome(state)
    assert result is not None
    if getattr(game, "board_has_final_scores", False):
        # the final board has the breakdown already (Workshop Tonttu): the winners alone
        winners = listed([shown[p] for p in players if p in result.winners], words)
        count = len(result.winners)
        line = words.ngettext("Winner: {names}", "Winners: {names}", count).format(names=winners)
        out.write(f"\n★ {line}\n")
        return 0
    out.write("\n" + words.gettext("Final scores:") + "\n")
    for player in sorted(players, key=lambda p: -result.scores[p]):
        points = result.scores[player]
        line = words.ngettext("{name}: {count} point", "{name}: {count} points", points).format(
            name=shown[player], count=points
        )
        detail = _breakdown(getattr(result, "players", {}).get(player), words)
        if detail:
            line += f" ({detail})"
        if player in result.winners:
            line += "  ★ " + words.gettext("winner")
        out.write(f"  {line}\n")
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


# TRANSLATORS: words a player may type at the prompt, as it names them ("? help, b board,
# q quit"): one word each, in lower case, the same word as in the prompt
TYPED_WORDS = {"?": N_("help"), "b": N_("board"), "q": N_("quit")}
"""The words of the prompt's keys that a player may type instead of the key, in English
and in the player's language (German ``hilfe``, ``spielplan``, ``beenden``)."""


def _typed(key: str, words: Words) -> set[str]:
    """What a player may type for the prompt's ``key`` (``?``, ``b`` or ``q``)."""
    english = {"?": {"?", "h", "help"}, "b": {"b", "board"}, "q": {"q", "quit", "exit"}}[key]
    return english | {words.gettext(TYPED_WORDS[key]).strip().lower()}


def _ask(out: TextIO, inp: TextIO, count: int, words: Words = ENGLISH) -> int | str | None:
    """The chosen index, ``"b"`` for the board, ``"?"`` for the legend (``?``, ``h``,
    ``help`` or its translation, German ``hilfe``), or None to quit (``q`` or end of
    input); each key's word is understood in English and in ``words``' language."""
    while True:
        if count > 1:
            out.write(words.gettext("[1-{count}, ? help, b board, q quit]> ").format(count=count))
        else:
            out.write(words.gettext("[1, ? help, b board, q quit]> "))
        out.flush()
        line = inp.readline()
        answer = line.strip().lower()
        if not line or answer in _typed("q", words):
            return None
        if answer in _typed("b", words):
            return "b"
        if answer in _typed("?", words):
            return "?"
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
        out.write(
            words.gettext(
                "Please type a number from 1 to {count}, ? for help, b for the board, or q to quit."
            ).format(count=count)
            + "\n"
        )


T = TypeVar("T")


def thinking(out: TextIO, name: str, decide: Callable[[], T], words: Words = ENGLISH) -> T:
    """``decide()``; if it takes longer than :data:`THINKING_NOTICE_SECONDS`, a timer
    thread prints "<name> is thinking…" meanwhile (once, never after the decision)."""
    lock = threading.Lock()
    done = False

    def notice() -> None:
        with lock:
            if not done:
                out.write("  " + words.gettext("{name} is thinking…").format(name=name) + "\n")
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


def _breakdown(result: Any, words: Words = ENGLISH) -> str:
    """A player's final points by source, from the game's outcome detail: its
    ``breakdown`` mapping, or else its ``…_points`` numbers (their names are
    translated when the catalogue knows them)."""
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
    return ", ".join(f"{words.gettext(reason)} {value}" for reason, value in parts.items() if value)


# --------------------------------------------------------------------------- arguments


class _Parser(argparse.ArgumentParser):
    """The command line, and each command's own parser by name (``commands``), so that
    a mistake after a command shows that command's usage."""

    commands: dict[str, argparse.ArgumentParser]


def _whole(text: str, words: Words = ENGLISH) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            words.gettext("{text!r} is not a whole number").format(text=text)
        ) from None


def _positive(text: str, words: Words = ENGLISH) -> int:
    value = _whole(text, words)
    if value < 1:
        raise argparse.ArgumentTypeError(
            words.gettext("{value} is not a positive number").format(value=value)
        )
    return value


def _game_name(text: str, words: Words = ENGLISH) -> str:
    """A game's name as typed (``workshop``, ``Tonttu``), or a sentence naming it."""
    name = text.strip().lower()
    if name in GAMES:
        return name
    raise argparse.ArgumentTypeError(
        words.gettext(
            "there is no game {text!r}: the games are workshop ({workshop}) and tonttu ({tonttu})"
        ).format(text=text, workshop=words.gettext(TITLES[0]), tonttu=words.gettext(TITLES[1]))
    )


def _level(text: str, words: Words = ENGLISH) -> str:
    """A level as typed (``hard``, or the old ``strong``) as its id, or a sentence naming it."""
    try:
        return level_id(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_no_level(text, words)) from None


def _seats(text: str, words: Words = ENGLISH) -> list[str]:
    """``--seats``: a level per seat, by name or id (``hard,normal,normal,easy``), as ids."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError(
            words.gettext("give one level per seat, e.g. hard,normal,normal,easy")
        )
    return [_level(name, words) for name in names]


def _no_level(name: str, words: Words = ENGLISH) -> str:
    return words.gettext("there is no level {name!r}: the levels are easy, normal and hard").format(
        name=name
    )


DESCRIPTION = N_("""\
The game engines without Discord: play in the terminal, simulate and benchmark
games between computer players, replay a game record.""")

EPILOG = N_("""\
Santa's Workshop (workshop) takes 2 to 5 players, Workshop Tonttu (tonttu) 3 to 6.
The computer players' levels are easy, normal and hard.
Each command lists its own options and defaults: %(prog)s play --help

examples:
  %(prog)s play workshop 3
  %(prog)s play tonttu 4 --opponents normal
  %(prog)s play tonttu 4 --lang de
  %(prog)s simulate --game workshop --players 4 --games 10 --records records
  %(prog)s simulate --game tonttu --seats hard,normal,normal,easy
  %(prog)s replay records/workshop-*.json
  %(prog)s bench --game tonttu --players 4
""")

PROG = "python -m engine"
"""The command's name in its usage; ``--prog NAME`` first on the command line sets
another (``./dev`` does: ``./dev play: error: …``)."""


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """``--lang``'s default, from the environment as gettext reads it
    (:func:`i18n.cli.default_language`)."""
    return i18n_cli.default_language(environ, LANGS)


def _language(argv: Sequence[str]) -> str:
    """The language asked for on the command line (``--lang``), before the parser in that
    language exists; a wrong or missing value is left for that parser to refuse."""
    early = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    early.add_argument("--lang")
    try:
        known, _ = early.parse_known_args(argv)
    except argparse.ArgumentError:
        return default_language()
    return known.lang if known.lang in LANGS else default_language()


def build_parser(words: Words = ENGLISH, prog: str = PROG) -> _Parser:
    """The command line, its help in ``words``' language (argparse's own words too, while
    :func:`argparse_speaking` lasts: build and use the parser inside it)."""
    formatter = partial(HelpFormatter, words=words)
    parser = _Parser(
        prog=prog,
        description=words.gettext(DESCRIPTION),
        epilog=words.gettext(EPILOG),
        formatter_class=formatter,
    )
    parser.commands = {}
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="command", title=words.gettext("commands")
    )

    def command(name: str, summary: str, details: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=summary, description=details, formatter_class=formatter)
        p.add_argument(
            "--lang",
            choices=LANGS,
            default=default_language(),
            help=words.gettext(
                "the language of what you read; without it, the one LANGUAGE, LC_ALL,"
                " LC_MESSAGES or LANG names"
            ),
        )
        parser.commands[name] = p
        return p

    positive = partial(_positive, words=words)
    game_name = partial(_game_name, words=words)

    def game_args(p: argparse.ArgumentParser, players: int, shown: bool = True) -> None:
        p.add_argument(
            "--game",
            type=game_name,
            metavar="{" + ",".join(GAMES) + "}",
            default="workshop",
            help=words.gettext("which game") if shown else argparse.SUPPRESS,
        )
        p.add_argument(
            "--players",
            type=positive,
            default=players,
            help=words.gettext("number of players: 2 to 5 for workshop, 3 to 6 for tonttu")
            if shown
            else argparse.SUPPRESS,
        )
        p.add_argument(
            "--mode",
            choices=["tactical", "speed"],
            help=words.gettext("Workshop Tonttu's mode (tonttu only; its default is tactical)"),
        )

    play = command(
        "play",
        words.gettext("play a game in the terminal against computer players"),
        words.gettext(
            "Play in the terminal: you take the first seat, computer players the others.\n"
            "Type the number of a choice, ? for how to play, b to see the whole board again,\n"
            "q to quit."
        ),
    )
    play.add_argument(
        "game_named",
        nargs="?",
        type=game_name,
        metavar="game",
        help=words.gettext(
            "workshop (Santa's Workshop, 2 to 5 players) or tonttu (Workshop Tonttu, 3 to 6);"
            " without it, workshop"
        ),
    )
    play.add_argument(
        "players_counted",
        nargs="?",
        type=positive,
        metavar="players",
        help=words.gettext("the number of players, you included; without it, 3"),
    )
    game_args(play, 3, shown=False)  # --game and --players: the older way, still understood
    play.add_argument(
        "--opponents",
        type=partial(_level, words=words),
        metavar="{" + ",".join(LEVEL_NAMES.values()) + "}",
        help=words.gettext(
            "the computer players' level (without it they make uniformly random moves,"
            " as easy ones do)"
        ),
    )
    play.add_argument(
        "--seed",
        type=partial(_whole, words=words),
        help=words.gettext("seed of the game (without it, a random one)"),
    )

    sim = command(
        "simulate",
        words.gettext("play games between computer players, one JSON line per game"),
        words.gettext(
            "Play games between computer players and print one JSON line per game (seed,\n"
            "scores, winners, number of actions), then a line of totals. Random moves\n"
            "unless --seats gives a level per seat."
        ),
    )
    game_args(sim, 4)
    sim.add_argument(
        "--seats",
        type=partial(_seats, words=words),
        help=words.gettext(
            "a computer level per seat, comma-separated, e.g. hard,normal,normal,easy"
            " (levels: easy, normal, hard); sets the number of players, overriding --players"
        ),
    )
    sim.add_argument("--games", type=positive, default=10, help=words.gettext("how many games"))
    sim.add_argument(
        "--seed",
        type=partial(_whole, words=words),
        default=1,
        help=words.gettext("seed of the batch; each game's seed derives from it"),
    )
    sim.add_argument(
        "--records", help=words.gettext("a folder to write one JSON record per game into")
    )

    rep = command(
        "replay",
        words.gettext("replay game records and check their outcomes"),
        words.gettext(
            "Apply each record's actions again from its seed and compare the outcome with\n"
            "the recorded one; exit status 1 if one differs or an action is not legal."
        ),
    )
    rep.add_argument(
        "file",
        nargs="+",
        help=words.gettext("a record written by simulate --records or exported with /export"),
    )

    ben = command(
        "bench",
        words.gettext("measure random games per second"),
        words.gettext("Play random games and print games per second and microseconds per apply."),
    )
    game_args(ben, 4)
    ben.add_argument("--games", type=positive, default=200, help=words.gettext("how many games"))
    ben.add_argument(
        "--seed",
        type=partial(_whole, words=words),
        default=1,
        help=words.gettext("seed of the batch"),
    )
    return parser


def parse(argv: Sequence[str], words: Words = ENGLISH, prog: str = PROG) -> argparse.Namespace:
    """The command line's arguments; a mistake in them ends the program as argparse
    does (the usage of the command it was typed after, one line, status 2), in
    ``words``' language throughout."""
    with argparse_speaking(words):
        parser = build_parser(words, prog)
        args, extra = parser.parse_known_args(argv)
        if extra:  # after the command: its own usage, not the whole program's
            where = parser.commands.get(getattr(args, "command", ""), parser)
            where.error(words.gettext("unrecognized arguments: %s") % " ".join(extra))
    if getattr(args, "game_named", None) is not None:
        args.game = args.game_named
    if getattr(args, "players_counted", None) is not None:
        args.players = args.players_counted
    return args


def main(
    argv: Sequence[str] | None = None,
    out: TextIO = sys.stdout,
    inp: TextIO = sys.stdin,
    err: TextIO = sys.stderr,
) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    prog = PROG
    if arguments[:1] == ["--prog"] and len(arguments) > 1:
        prog, arguments = arguments[1], arguments[2:]
    args = parse(arguments, i18n.words(_language(arguments)), prog)
    words = i18n.words(args.lang)
    try:
        if args.command == "simulate":
            return cmd_simulate(args, out, words)
        if args.command == "replay":
            return cmd_replay(args, out)
        if args.command == "bench":
            return cmd_bench(args, out, words)
        return cmd_play(args, out, inp, words)
    except Mistake as error:
        err.write(f"{error}\n")
        return MISTAKE
    except InvalidSetup as error:  # an option the game refuses
        err.write(error.text(words) + "\n")
        return MISTAKE
    except KeyboardInterrupt:
        err.write(words.gettext("Interrupted.") + "\n")
        return INTERRUPTED


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `python -m engine simulate | head -1`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)
