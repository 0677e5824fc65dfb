"""Replaying a stored game move by move, for every front end's replay (``/replay`` on
Discord, the web page's): the record and log read once, the states computed by the
engine from the seed, a step forward applying one decision.

Only the public view of a replayed state is ever shown (``view(state, None)``); the
record holds the seed and every secret, so it never leaves the process.
"""

from __future__ import annotations

from typing import Any

from engine import get_game
from engine.records import Record
from storage import GameInfo, LoggedAction
from storage.export import decision_log, finished_record, memory_record, state_at


class Replayed:
    """A game's record and log up to a version (they never change), and the last
    position a viewer was shown, so that a step forward applies one decision instead of
    replaying the game from its seed (tens of ms for a whole Santa's Workshop game)."""

    def __init__(self, record: Record, log: list[LoggedAction]) -> None:
        self.record = record
        self.log = log
        """The log entries of the record's decisions (``storage.export.decision_log``):
        move ``n`` shows the events of ``log[n - 1]``."""
        self.position: tuple[int, Any] | None = None
        """(move, state after it); replaced in one assignment (read from threads)."""

    @classmethod
    def of(cls, info: GameInfo, log: list[LoggedAction]) -> Replayed:
        """A finished game's whole record, or a running game's up to ``info.version``
        (its seed and secrets included: only public views of it are shown)."""
        if info.status == "finished":
            return cls(finished_record(info, log), decision_log(log))
        upto = [entry for entry in log if entry.seq <= info.version]
        return cls(memory_record(info, upto), decision_log(upto))

    @property
    def moves(self) -> int:
        return len(self.record.actions)

    def state_at(self, move: int) -> Any:
        """The state after ``move`` decisions (run it in a thread: pure CPU)."""
        known = self.position
        if known is None or known[0] > move:
            state = state_at(self.record, move)
        else:
            rules = get_game(self.record.game)
            state = known[1]
            for step in self.record.actions[known[0] : move]:
                state, _events = rules.apply(state, step.player, rules.parse_action(step.action))
        self.position = (move, state)
        return state
