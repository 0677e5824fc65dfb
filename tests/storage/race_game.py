"""A tiny but real game for storage tests: a card-and-dice race to a target score.

It implements the whole ``engine.core.Game`` protocol the way the real games do:
randomness only through ``Rng`` kept in the state, a hidden element (hands and
the deck), tagged-union actions and events, ``check_can_act``, and a timer
action. Storage must work with it without knowing anything about it.

Rules: 2–4 players; a shuffled deck of 20 cards (1–4, five each); each player
holds 2 cards. On your turn either play a card from your hand (score it, draw a
replacement, which only you see) or roll a die (score 1–3). The table's timer
may skip the player to act. The first to reach the target (option ``target``,
default 12) ends the game; the highest score wins, ties share the win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, TypeAdapter, ValidationError

from engine import register_game
from engine.core import (
    TIMER,
    IllegalAction,
    InvalidSetup,
    Model,
    Outcome,
    PlayerId,
    Rng,
    StateBase,
    check_can_act,
)

CARDS = tuple(value for value in (1, 2, 3, 4) for _ in range(5))
HAND = 2


class RaceOptions(Model):
    target: int = Field(default=12, ge=3, le=200)


class Play(Model):
    kind: Literal["play"] = "play"
    card: int


class Roll(Model):
    kind: Literal["roll"] = "roll"


class Skip(Model):
    kind: Literal["skip"] = "skip"


Action = Annotated[Play | Roll | Skip, Field(discriminator="kind")]
ACTION = TypeAdapter(Action)


class Played(Model):
    kind: Literal["played"] = "played"
    player: PlayerId
    card: int


class Drew(Model):
    """Public: someone drew a card. The card itself stays secret."""

    kind: Literal["drew"] = "drew"
    player: PlayerId


class Rolled(Model):
    kind: Literal["rolled"] = "rolled"
    player: PlayerId
    value: int


class Skipped(Model):
    kind: Literal["skipped"] = "skipped"
    player: PlayerId


class Ended(Model):
    kind: Literal["ended"] = "ended"
    winners: tuple[PlayerId, ...]


Event = Played | Drew | Rolled | Skipped | Ended


class RaceState(StateBase):
    target: int
    deck: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    turn: int
    moves: int = 0


class RaceView(Model):
    players: tuple[PlayerId, ...]
    scores: tuple[int, ...]
    turn: PlayerId
    hand: tuple[int, ...] | None
    hand_sizes: tuple[int, ...]
    deck_size: int
    target: int


def _replace(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


class RaceGame:
    name: ClassVar[str] = "race"
    title: ClassVar[str] = "Race"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4

    def parse_options(self, raw: Mapping[str, Any] | None) -> RaceOptions:
        try:
            return RaceOptions.model_validate(dict(raw or {}))
        except ValidationError as error:
            raise InvalidSetup(f"Those options do not work: {error.errors()[0]['msg']}.") from None

    def new_game(self, players: Sequence[PlayerId], seed: int, options: Model) -> RaceState:
        assert isinstance(options, RaceOptions)
        if not self.min_players <= len(players) <= self.max_players:
            raise InvalidSetup(f"Race needs 2 to 4 players, not {len(players)}.")
        if len(set(players)) != len(players):
            raise InvalidSetup("Each player can hold only one seat.")
        rng = Rng(seed)
        deck = rng.shuffled(CARDS)
        hands = tuple(deck[i * HAND : (i + 1) * HAND] for i in range(len(players)))
        first = rng.below(len(players))
        return RaceState(
            game=self.name,
            players=tuple(players),
            seed=seed,
            rng=rng.state,
            target=options.target,
            deck=deck[len(players) * HAND :],
            hands=hands,
            scores=(0,) * len(players),
            turn=first,
        )

    def to_act(self, state: RaceState) -> frozenset[PlayerId]:
        if self.outcome(state) is not None:
            return frozenset()
        return frozenset({state.players[state.turn]})

    def legal_actions(self, state: RaceState, player: PlayerId) -> Sequence[Play | Roll | Skip]:
        if self.outcome(state) is not None:
            return ()
        if player == TIMER:
            return (Skip(),)
        if player not in self.to_act(state):
            return ()
        hand = state.hands[state.turn]
        return (*(Play(card=card) for card in sorted(set(hand))), Roll())

    def apply(
        self, state: RaceState, player: PlayerId, action: Any
    ) -> tuple[RaceState, tuple[Event, ...]]:
        check_can_act(self, state, player)
        if action not in self.legal_actions(state, player):
            raise IllegalAction("You cannot do that now.")
        seat = state.turn
        events: list[Event] = []
        if isinstance(action, Skip):
            events.append(Skipped(player=state.players[seat]))
            changes: dict[str, Any] = {}
        elif isinstance(action, Play):
            hand = list(state.hands[seat])
            hand.remove(action.card)
            deck = state.deck
            events.append(Played(player=player, card=action.card))
            if deck:
                hand.append(deck[0])
                deck = deck[1:]
                events.append(Drew(player=player))
            changes = {
                "hands": _replace(state.hands, seat, tuple(hand)),
                "deck": deck,
                "scores": _replace(state.scores, seat, state.scores[seat] + action.card),
            }
        else:
            rng = Rng(state.rng)
            value = rng.below(3) + 1
            events.append(Rolled(player=player, value=value))
            changes = {
                "rng": rng.state,
                "scores": _replace(state.scores, seat, state.scores[seat] + value),
            }
        changes["turn"] = (seat + 1) % len(state.players)
        changes["moves"] = state.moves + 1
        new_state = state.model_copy(update=changes)
        result = self.outcome(new_state)
        if result is not None:
            events.append(Ended(winners=tuple(result.winners)))
        return new_state, tuple(events)

    def view(self, state: RaceState, player: PlayerId | None) -> RaceView:
        own = state.hands[state.players.index(player)] if player in state.players else None
        return RaceView(
            players=state.players,
            scores=state.scores,
            turn=state.players[state.turn],
            hand=own,
            hand_sizes=tuple(len(hand) for hand in state.hands),
            deck_size=len(state.deck),
            target=state.target,
        )

    def outcome(self, state: RaceState) -> Outcome | None:
        if max(state.scores) < state.target:
            return None
        best = max(state.scores)
        return Outcome(
            scores=dict(zip(state.players, state.scores, strict=True)),
            winners=[p for p, s in zip(state.players, state.scores, strict=True) if s == best],
        )

    def parse_action(self, data: Any) -> Play | Roll | Skip:
        try:
            if isinstance(data, str | bytes):
                return ACTION.validate_json(data)
            return ACTION.validate_python(data)
        except ValidationError:
            raise IllegalAction("That is not a move in Race.") from None

    def parse_state(self, data: str | bytes) -> RaceState:
        return RaceState.model_validate_json(data)

    def describe_action(
        self,
        state: RaceState,
        player: PlayerId,
        action: Any,
        names: Mapping[PlayerId, str] | None = None,
    ) -> str:
        if isinstance(action, Play):
            return f"Play your {action.card}"
        return "Roll the die" if isinstance(action, Roll) else "Skip the player to act"

    def describe_event(self, event: Any, names: Mapping[PlayerId, str]) -> str:
        if isinstance(event, Played):
            return f"{names[event.player]} plays a {event.card}."
        if isinstance(event, Rolled):
            return f"{names[event.player]} rolls a {event.value}."
        if isinstance(event, Skipped):
            return f"{names[event.player]} is skipped."
        if isinstance(event, Ended):
            return "Winner: " + ", ".join(names[p] for p in event.winners) + "."
        return ""

    def render_text(self, view: RaceView, names: Mapping[PlayerId, str]) -> str:
        lines = [
            f"{names[p]}: {s}/{view.target}" for p, s in zip(view.players, view.scores, strict=True)
        ]
        return "\n".join([*lines, f"To act: {names[view.turn]}"])


GAME = RaceGame()
register_game(GAME)
