"""Santa's Workshop, Standard Game (docs/rules.md W-1 … W-8): a pure, deterministic rules engine.

``GAME`` satisfies :class:`engine.core.Game`. The state is a frozen pydantic model
(:class:`WorkshopState`); ``apply`` returns a new state that shares every unchanged
part with the old one, plus the events (public log entries) it caused.

Decision model
--------------
One Elf placement is a chain of small decisions, each its own action, so that
``legal_actions`` is always a short, complete list (≤ 21 entries, fits a Discord
select menu) and hidden information is revealed only by the action that reveals
it. The current player's pending decision is ``state.phase``:

``station``          ``PlaceElf(station)``: shops/Assembly Hall/Stables take their
                     next free space (W-3); the cooperation bonus is scored at once.
``mail``             ``TakeToy(slot=0..5)`` or ``TakeToy(slot=None)`` (deck top), one
                     card at a time; ``StopTaking`` after the first (W-3.3). Ends by
                     itself at the station's limit, at 5 unfinished, or when nothing
                     can be taken.
``reindeer``         ``TakeReindeer(stall)`` (W-3.4).
``choose_material``  ``ChooseMaterial(wood|metal|fabric)``, once per Material of
                     choice (Stables, ornaments), before any of them is placed.
``place_tokens``     Received tokens wait in ``state.batch`` (still counted in the
                     supply, so W-1.4's conservation holds after every action). One
                     type at a time (Wood, Metal, Fabric, Assembly):
                     ``PlaceTokens(material, toy=card id, count=1..need)`` or
                     ``DonateTokens(material, count=all still unplaced)``. Placing
                     some then donating the rest reaches every split of W-4.1. A type
                     that no unfinished toy needs is donated automatically (the only
                     legal choice), with ``TokensDonated(automatic=True)``.
``ornament``         ``ChooseOrnament(colour)``: the reward is drawn at random within
                     the colour with the state's RNG at apply time (W-3.5), revealed
                     in ``OrnamentRevealed`` and resolved (points; Materials of choice;
                     Assembly; a toy card via the ``mail`` decision with a limit of 1).
``tree_space``       ``CoverSpace(space)``, then the space's reward (W-3.5).
``donation``         ``TakeDonated(material, toy)`` one token at a time onto a toy that
                     needs it; ``StopTaking`` after the first; ends by itself when
                     nothing more fits (W-3.2).

When nothing is pending the turn passes; after 3 Elves each the day ends (W-2.3)
with Inspections after Days 3 and 6 and final scoring after the second (W-5, W-6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.choices import ChoiceFacts
from engine.core import Game, Model, PlayerId
from engine.words import ENGLISH, N_, Words
from engine.workshop.board import render_text, terminal_board
from engine.workshop.choices import describe_choice
from engine.workshop.data import COMPONENTS, ComponentError, load_components, parse_components
from engine.workshop.models import (
    EVENT_ADAPTER,
    EVENTS_ADAPTER,
    REASONS,
    STATIONS,
    Action,
    Event,
    Phase,
    WorkshopOptions,
    WorkshopOutcome,
    WorkshopState,
    WorkshopView,
)
from engine.workshop.rules import (
    apply_action,
    legal_actions_for,
    new_state,
    outcome_of,
    parse_action,
    parse_options,
)
from engine.workshop.text import describe_action, describe_event
from engine.workshop.view import build_view

OVER = Phase.OVER
NOBODY: frozenset[PlayerId] = frozenset()
_seat_sets: tuple[tuple[PlayerId, ...], tuple[frozenset[PlayerId], ...]] = ((), ())
"""One-entry cache: a table's players → one ``frozenset((player,))`` per seat (what
``to_act`` returns), so ``to_act`` builds no set. Every state of a game shares its
``players`` tuple; the pair is replaced in one assignment (safe across threads)."""


def seat_sets(players: tuple[PlayerId, ...]) -> tuple[frozenset[PlayerId], ...]:
    global _seat_sets
    cached_players, sets = _seat_sets
    if cached_players is not players:
        sets = tuple(frozenset((p,)) for p in players)
        _seat_sets = (players, sets)
    return sets


class WorkshopGame(Game[WorkshopState, Action, WorkshopView, Event]):
    """The rules object registered as ``workshop``: :class:`engine.core.Game` with
    Santa's Workshop's state, action, view and event types."""

    name: ClassVar[str] = "workshop"
    title: ClassVar[str] = N_("Santa's Workshop")  # translated where shown: words.gettext(title)
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5

    def parse_options(self, raw: Mapping[str, Any] | None) -> WorkshopOptions:
        return parse_options(raw)

    def new_game(
        self, players: Sequence[PlayerId], seed: int, options: Model | None = None
    ) -> WorkshopState:
        return new_state(players, seed)

    def to_act(self, state: WorkshopState) -> frozenset[PlayerId]:
        if state.phase == OVER:
            return NOBODY
        players = state.players
        return seat_sets(players)[(state.first + state.turn) % len(players)]

    # The two calls an AI rollout makes for every action go straight to the rules
    # functions (one Python frame fewer each); they make the turn checks themselves.
    legal_actions = staticmethod(legal_actions_for)
    apply = staticmethod(apply_action)

    def view(self, state: WorkshopState, player: PlayerId | None) -> WorkshopView:
        return build_view(state, player)

    def outcome(self, state: WorkshopState) -> WorkshopOutcome | None:
        if state.phase != Phase.OVER:
            return None
        return outcome_of(state)

    def parse_action(self, data: Any) -> Action:
        return parse_action(data)

    def parse_state(self, data: str | bytes) -> WorkshopState:
        return WorkshopState.model_validate_json(data)

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        return EVENT_ADAPTER.validate_python(data)

    def parse_events_json(self, data: str | bytes) -> list[Event]:
        return EVENTS_ADAPTER.validate_json(data)

    def describe_action(
        self,
        state: WorkshopState,
        player: PlayerId,
        action: Action,
        names: Mapping[PlayerId, str] | None = None,
        words: Words = ENGLISH,
    ) -> str:
        return describe_action(state, player, action, names, words)

    def describe_choice(
        self, state: WorkshopState, player: PlayerId, action: Action
    ) -> ChoiceFacts:
        return describe_choice(state, player, action)

    def describe_event(
        self, event: Event, names: Mapping[PlayerId, str], words: Words = ENGLISH
    ) -> str:
        return describe_event(event, names, words)

    def render_text(
        self, view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH
    ) -> str:
        return render_text(view, names, words)

    def undo_block(
        self,
        before: WorkshopState,
        player: PlayerId,
        action: Action,
        after: WorkshopState,
        events: Sequence[Event],
    ) -> str | None:
        """The undo hook (``engine.undo``): why this step can't be taken back, or None.

        The generic checks (RNG unchanged, the same player to act before and after)
        come first; here: the same turn (an Elf's chain of decisions, W-2.2), and no
        secret of W-7.3 touched: a toy drawn from the deck (into a hand or a Mail Room
        slot), a reindeer deck or an ornament colour changed. The sentence is a template
        (``N_``): the undo error translates it (``RuleError.text``)."""
        if after.day != before.day or after.turn != before.turn or after.phase == OVER:
            return N_("Your turn has passed, so it can't be taken back.")
        if (
            after.deck != before.deck
            or after.sleigh != before.sleigh
            or after.reindeer_deck != before.reindeer_deck
            or after.ornaments != before.ornaments
        ):
            return N_("That decision drew or revealed a card, so it can't be taken back.")
        return None

    def terminal_board(
        self, view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH
    ) -> str:
        """The board for ``python -m engine play``: ``render_text`` without what the
        menu below it lists anyway (optional; the terminal game falls back to
        ``render_text``)."""
        return terminal_board(view, names, words)


GAME = WorkshopGame()

__all__ = [
    "COMPONENTS",
    "GAME",
    "REASONS",
    "STATIONS",
    "ComponentError",
    "WorkshopGame",
    "WorkshopOptions",
    "WorkshopOutcome",
    "WorkshopState",
    "WorkshopView",
    "load_components",
    "parse_components",
]
