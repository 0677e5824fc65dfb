"""Taking back a decision: which of a player's latest decisions may be undone, and
what a log with undos means. Works for every game through the :class:`Game`
protocol plus one optional per-game hook.

The rule
--------
A player may take back their own latest decisions, one at a time, as long as

(a) no other player has acted since,
(b) taking it back reveals or re-rolls nothing: a decision that used the state's
    RNG, drew from a deck or revealed a card or a reward ends the undo window, and
(c) it is the same turn.

Each applied step is judged once, from the states before and after it
(:func:`step_block`): it *keeps* the undo window open when the state's RNG is
unchanged, the same single player acted before and after it, the game is not over,
and the game's hook ``undo_block(before, player, action, after, events)`` finds
nothing against it (no hidden card drawn or revealed, the turn not over). The hook
returns ``None`` or the sentence explaining why the step cannot be taken back. A game
without the hook allows no undo at all (the safe default for a game added later);
a game that never allows one says why in ``undo_never`` (a sentence), which every
refusal then gives.

The *undo window* of a player is the number of latest effective steps, newest
first, that are theirs and keep the window open (:func:`undo_window`). Every step
before a step that closed the window can never be taken back again, so a
:class:`History` keeps only the steps after the last one that closed it.

Options weighed for the log:

* **Delete the undone row.** Simple to replay, but the log would no longer be
  append-only, the version would go back (a stale panel could then match a newer
  state), and the audit would lose what happened.
* **An undo entry in the log** (chosen). An undo is appended like any action, as
  ``{"kind": "undo", "seq": N}`` (the log entry it takes back, always the latest
  effective one) with one :class:`TookBack` event carrying the undone step's events
  for the public log line. The version only grows. Whatever replays the log calls
  :func:`effective_actions` (the decisions that stand) or :class:`History` (replay
  with undos, checking each undo was allowed where it stands).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from pydantic import TypeAdapter

from engine.core import AnyGame, Model, PlayerId, RuleError
from engine.words import ENGLISH, N_, Words

YOU = "You"
"""The display name of the reader's own seat (as ``engine.workshop.text.YOU``)."""

UNDO_KIND = "undo"
"""The ``kind`` of an undo entry in the action log; no game may use it for an action."""
TOOK_BACK_KIND = "took_back"


class Undo(Model):
    """A log entry that takes back log entry ``seq`` (the latest effective one)."""

    kind: Literal["undo"] = "undo"
    seq: int


class TookBack(Model):
    """The public event of an undo: who took back which entry, and what it had done."""

    kind: Literal["took_back"] = "took_back"
    player: PlayerId
    seq: int
    events: list[dict[str, Any]]
    """The undone step's events (as logged), for the log line."""


class CannotUndo(RuleError):
    """Nothing can be taken back now; ``str(error)`` says why."""


class LogEntry(Protocol):
    """What a logged action provides (``storage.LoggedAction`` is one)."""

    @property
    def seq(self) -> int: ...

    @property
    def player(self) -> PlayerId: ...

    @property
    def action(self) -> Mapping[str, Any]: ...


E = TypeVar("E", bound=LogEntry)


def is_undo(action: Mapping[str, Any]) -> bool:
    """Whether a logged action (its JSON object) is an undo entry."""
    return action.get("kind") == UNDO_KIND


def effective_actions(entries: Iterable[E]) -> list[E]:
    """The entries of a log that stand, oldest first: undo entries and the entries they
    took back left out. The export and anything else that replays a game from its seed
    applies exactly these.

    >>> from types import SimpleNamespace as E
    >>> log = [E(seq=1, player="a", action={"kind": "x"}),
    ...        E(seq=2, player="a", action={"kind": "y"}),
    ...        E(seq=3, player="a", action={"kind": "undo", "seq": 2}),
    ...        E(seq=4, player="a", action={"kind": "z"})]
    >>> [e.seq for e in effective_actions(log)]
    [1, 4]

    Raises ``ValueError`` for an undo that does not name the latest effective entry
    of the same player (a damaged log).
    """
    standing: list[E] = []
    for entry in entries:
        if not is_undo(entry.action):
            standing.append(entry)
            continue
        target = entry.action.get("seq")
        if not standing or standing[-1].seq != target or standing[-1].player != entry.player:
            raise ValueError(
                f"log entry {entry.seq} takes back entry {target}, which is not the latest "
                f"standing decision of {entry.player}."
            )
        standing.pop()
    return standing


# --------------------------------------------------------------------------- the rule

CHANCE = N_("That decision used chance (a shuffle or a random draw), so it can't be taken back.")
TURN_OVER = N_("Your turn has passed, so it can't be taken back.")
GAME_OVER = N_("The game is over; nothing can be taken back.")
OTHER_MOVED = N_("Another player has moved since, so you have nothing to take back now.")


def step_block(
    game: AnyGame, before: Any, player: PlayerId, action: Any, after: Any, events: Sequence[Any]
) -> str | None:
    """``None`` when this applied step keeps the undo window open, else why it closes it."""
    hook = getattr(game, "undo_block", None)
    if hook is None:
        return f"{game.title} has no undo."
    if game.outcome(after) is not None:
        return GAME_OVER
    if before.rng != after.rng:  # rule (b): the RNG was used
        return CHANCE
    alone = frozenset((player,))
    if game.to_act(before) != alone or game.to_act(after) != alone:  # rule (c)
        return TURN_OVER
    block: str | None = hook(before, player, action, after, events)
    return block


@dataclass(frozen=True)
class Step:
    """One standing applied step, with the states around it."""

    seq: int
    player: PlayerId
    action: Any
    before: Any
    after: Any
    events: tuple[Any, ...]
    block: str | None
    """``None``: it can be taken back (if nothing after it closed the window)."""


class History:
    """A game replayed from its seed through its log (undos included): the current
    state and the steps that may still matter to an undo (those after the last step
    that closed the undo window). Extend it with later log entries as they come.

    Each undo entry is checked as it is replayed: it must take back the latest
    standing step, of its own player, inside that player's undo window; a
    ``ValueError`` says which entry is wrong.
    """

    def __init__(self, game: AnyGame, state: Any, version: int = 0) -> None:
        self.game = game
        self.state = state
        self.version = version
        """The seq of the last entry applied (the stored game's version)."""
        self.steps: list[Step] = []

    def apply(self, seq: int, player: PlayerId, action: Any) -> Sequence[Any]:
        """Apply one log entry (an engine action or an :class:`Undo`); its events."""
        if seq != self.version + 1:
            raise ValueError(f"log entry {seq} follows entry {self.version}.")
        if isinstance(action, Undo):
            new_state, event = self.taken_back(player, action.seq)
            self.steps.pop()
            self.state = new_state
            self.version = seq
            return [event]
        after, events = self.game.apply(self.state, player, action)
        self.record(seq, player, action, after, events)
        return events

    def record(
        self, seq: int, player: PlayerId, action: Any, after: Any, events: Sequence[Any]
    ) -> None:
        """Add log entry ``seq``: ``action`` (an engine action, not an undo), already
        applied by ``player`` to :attr:`state`, gave ``after`` and ``events`` (storage
        records the steps it has just applied and committed, without applying them
        again)."""
        if seq != self.version + 1:
            raise ValueError(f"log entry {seq} follows entry {self.version}.")
        before = self.state
        events = tuple(events)
        block = step_block(self.game, before, player, action, after, events)
        if block is not None:
            self.steps.clear()  # nothing before this step can be taken back any more
        self.steps.append(Step(seq, player, action, before, after, events, block))
        self.state = after
        self.version = seq

    def apply_logged(self, seq: int, player: PlayerId, action: Mapping[str, Any]) -> Sequence[Any]:
        """:meth:`apply` for an action as the log stores it (a JSON object)."""
        parsed = Undo.model_validate(action) if is_undo(action) else self.game.parse_action(action)
        return self.apply(seq, player, parsed)

    def window(self, player: PlayerId) -> int:
        """How many of its latest decisions ``player`` may take back now, one at a time."""
        count = 0
        for step in reversed(self.steps):
            if step.player != player or step.block is not None:
                break
            count += 1
        return count

    def refusal(self, player: PlayerId) -> str | None:
        """Why ``player`` cannot take anything back now (a sentence), or ``None``."""
        if self.game.outcome(self.state) is not None:
            return GAME_OVER
        never: str | None = getattr(self.game, "undo_never", None)
        if never is not None:
            return never
        if not self.steps:
            if self.version == 0:
                return N_("Nothing has been played yet, so there is nothing to take back.")
            return N_("Every decision so far has been taken back; there is nothing more to undo.")
        last = self.steps[-1]
        if last.player != player:
            return OTHER_MOVED
        if last.block is not None:
            return last.block
        return None

    def last_undoable(self, player: PlayerId) -> Step:
        """The step ``player`` would take back now; :class:`CannotUndo` if none."""
        refusal = self.refusal(player)
        if refusal is not None:
            raise CannotUndo(refusal)
        return self.steps[-1]

    def taken_back(self, player: PlayerId, seq: int | None = None) -> tuple[Any, TookBack]:
        """The state after ``player`` takes back their latest decision, and its event.

        ``seq`` (when replaying an undo entry) must be the step it takes back."""
        try:
            step = self.last_undoable(player)
        except CannotUndo as error:
            if seq is None:
                raise
            raise ValueError(f"the undo of entry {seq} is not allowed there: {error}") from None
        if seq is not None and step.seq != seq:
            raise ValueError(f"the undo names entry {seq}, but the latest is {step.seq}.")
        event = TookBack(
            player=player,
            seq=step.seq,
            events=[e.model_dump(mode="json") for e in step.events],
        )
        return step.before, event

    def undo_entry(self, player: PlayerId) -> tuple[Undo, Any, TookBack]:
        """What to append to the log for ``player``'s undo now: the entry, the state it
        leaves and its event (nothing is changed here); :class:`CannotUndo` if none."""
        state, event = self.taken_back(player)
        return Undo(seq=event.seq), state, event


def replay(game: AnyGame, initial: Any, entries: Iterable[LogEntry]) -> History:
    """A :class:`History` from the game's first state through ``entries`` (the log)."""
    history = History(game, initial)
    for entry in entries:
        history.apply_logged(entry.seq, entry.player, entry.action)
    return history


# --------------------------------------------------------------------------- log lines


def parse_event(game: AnyGame, data: Mapping[str, Any]) -> Any:
    """An event as logged: the game's own, or a :class:`TookBack`."""
    if data.get("kind") == TOOK_BACK_KIND:
        return TookBack.model_validate(data)
    return game.parse_event(data)


TOOK_BACK_JSON = '[{"kind":"' + TOOK_BACK_KIND + '"'
_TOOK_BACK_LIST: TypeAdapter[list[TookBack]] = TypeAdapter(list[TookBack])
"""How the events of an undo entry begin as the log stores them (``model_dump_json``)."""


def parse_events_json(game: AnyGame, data: str | bytes) -> list[Any]:
    """The events of one log entry, from the JSON array the log stores, in one parse:
    the game's own, or an undo's :class:`TookBack`."""
    text = data.decode() if isinstance(data, bytes) else data
    if text.startswith(TOOK_BACK_JSON):
        return list(_TOOK_BACK_LIST.validate_json(text))
    return game.parse_events_json(text)


def describe_event(
    game: AnyGame, event: Any, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> str:
    """The log line of an event: the game's own, or for an undo "Aino took back: …"
    made of the game's lines for the undone events (the actor's name left out). The
    name ``"You"`` (the reader's own seat) has sentences of its own, as in the games'
    lines; its lines start with the translated name ("Du platzierst …")."""
    if not isinstance(event, TookBack):
        return game.describe_event(event, names, words)
    who = names.get(event.player, event.player)
    shown = words.gettext(YOU) if who == YOU else who
    parts = []
    for data in event.events:
        line = game.describe_event(game.parse_event(data), names, words).rstrip(".")
        for subject in (who, shown):
            if line.startswith(subject + " "):
                line = line[len(subject) + 1 :]
                break
        if line:
            parts.append(line)
    if not parts:
        if who == YOU:
            return words.gettext("You took back: their last decision.")
        return words.gettext("{name} took back: their last decision.").format(name=who)
    if who == YOU:
        return words.gettext("You took back: {what}.").format(what="; ".join(parts))
    return words.gettext("{name} took back: {what}.").format(name=who, what="; ".join(parts))
