"""A stored game as a record (``engine.records.Record``, ``docs/records.md``): the
export of ``/export`` and the steps of ``/replay``.

Two kinds of record, decided by the game's status:

* A **finished** game's record is complete: seed, seats, options, every decision
  from the action log and the stored outcome, plus display names.
  ``python -m engine replay FILE`` re-applies the decisions from the seed and
  checks that it reaches the same outcome. Nothing is secret any more once a game
  is over.
* A **running** game's record is partial: it is built only from what the game's
  thread shows a spectator, the public events of each move (``public_log``) and
  ``view(state, None)`` (``board``). The seed and the decisions are left out
  whole, not filtered: the seed fixes every future draw (deck orders, ornament
  rewards), and the decisions hold secrets the events never name (a Workshop
  Tonttu pick or point before its reveal, a choice replaced before the reveal, the
  face-down wish of a contested point). So a partial record cannot leak what the
  engine keeps out of events and spectator views, whatever game it is of.

:func:`decision_log` is the one place that picks the decisions out of the stored
log; the record's ``actions`` and the steps of ``/replay`` both come from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import get_game, undo
from engine.records import PublicEntry, Record, RecordedAction, replay
from engine.undo import effective_actions
from storage.models import GameInfo, LoadedGame, LoggedAction


def decision_log(log: Sequence[LoggedAction]) -> list[LoggedAction]:
    """The entries of a game's stored action log that are its decisions, in order: what a
    record's ``actions`` hold and what ``/replay`` steps through (move ``n`` is the state
    after the first ``n`` of them, and shows the events of the ``n``-th).

    This is the one place that decides it: the entries that stand
    (:func:`engine.undo.effective_actions`), without the undo entries and the decisions
    they took back.
    """
    return effective_actions(log)


def decisions(log: Sequence[LoggedAction]) -> list[RecordedAction]:
    """A record's ``actions``: the decisions of :func:`decision_log`."""
    return [
        RecordedAction(player=entry.player, action=dict(entry.action))
        for entry in decision_log(log)
    ]


def finished_record(game: GameInfo, log: Sequence[LoggedAction]) -> Record:
    """The complete record of a finished game (replays to its stored outcome)."""
    if game.status != "finished" or game.seed is None:
        raise ValueError(f"game {game.id} is {game.status}, not finished")
    return Record(
        game=game.kind,
        seed=game.seed,
        players=list(game.players),
        options=dict(game.options),
        actions=decisions(log),
        outcome=None if game.result is None else dict(game.result),
        title=get_game(game.kind).title,
        game_id=game.id,
        names=game.names,
        moves=game.version,
    )


def memory_record(game: GameInfo, log: Sequence[LoggedAction]) -> Record:
    """A running game's decisions up to its loaded version, secrets and seed included:
    what a computer seat's memory reads (``engine.ai.choose``'s ``record``, which keeps
    only what a spectator saw). Never shown to anyone."""
    return Record(
        game=game.kind,
        seed=game.seed,
        players=list(game.players),
        options=dict(game.options),
        actions=decisions([entry for entry in log if entry.seq <= game.version]),
    )


def running_record(game: LoadedGame, log: Sequence[LoggedAction]) -> Record:
    """The partial record of a running game: only what a spectator could see."""
    rules = get_game(game.kind)
    names = game.names
    entries = []
    for entry in log:
        events = undo.parse_events_json(rules, entry.events_json)
        text = [line for line in (undo.describe_event(rules, e, names) for e in events) if line]
        entries.append(
            PublicEntry(
                move=entry.seq,
                events=[event.model_dump(mode="json") for event in events],
                text=text,
            )
        )
    return Record(
        game=game.kind,
        players=list(game.players),
        options=dict(game.options),
        finished=False,
        title=rules.title,
        game_id=game.id,
        names=names,
        moves=game.version,
        public_log=entries,
        board=rules.view(game.state, None).model_dump(mode="json"),
    )


def dump(record: Record) -> bytes:
    """The record as the JSON file ``/export`` attaches: fields that are unset left out,
    so a running game's file has no ``seed`` and no ``actions`` key at all."""
    leave_out = None if record.finished else {"actions"}
    return record.model_dump_json(indent=1, exclude_none=True, exclude=leave_out).encode()


def state_at(record: Record, move: int) -> Any:
    """The state after the first ``move`` decisions of a complete record."""
    return replay(get_game(record.game), record, upto=move)
