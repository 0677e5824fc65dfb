"""Workshop Tonttu's rules (docs/rules.md T-1 … T-6) as pure functions over :class:`TonttuState`.

Simultaneous phases follow OpenSpiel: during a pick or point phase ``to_act``
holds every seat that has not chosen yet. A seat that has chosen leaves
``to_act`` but may still replace its choice while the phase is open, so
``legal_actions`` keeps offering it the choices and ``apply`` accepts them
(T-2.1, T-2.2). The last missing choice triggers one joint reveal and
resolution inside that ``apply``. Speed mode (T-4) resolves each point at once
in apply order instead.

This module is the protocol object: setup, whose turn, the menus, views, outcome and
text. What ``apply`` does (the moves, their resolution, the end of a round) lives in
``engine.tonttu.rules``, the hot path of every computer player's search.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress
from operator import is_
from typing import Any, ClassVar

from pydantic import TypeAdapter, ValidationError

from engine.choices import ChoiceFacts
from engine.core import (
    TIMER,
    Game,
    IllegalAction,
    InvalidSetup,
    PlayerId,
    Rng,
)
from engine.tonttu import text
from engine.tonttu.choices import describe_choice
from engine.tonttu.data import (
    GIFT_CATEGORY,
    GIFT_NAMES,
    GIFT_NEEDS,
    MATERIAL_NAMES,
    MATERIAL_TYPE,
    N_GIFTS,
    N_MATERIALS,
    N_TYPES,
)
from engine.tonttu.models import (
    Action,
    ClosePointPhase,
    Event,
    GiftCard,
    Pick,
    PlayerResult,
    PointGift,
    PointMaterial,
    SeatView,
    TonttuOptions,
    TonttuOutcome,
    TonttuState,
    TonttuView,
    WonGift,
)
from engine.tonttu.rules import (
    GIFTS_PER_PLAYER,
    HAND_SIZE,
    PhaseClosed,
    Stage,
    apply_action,
    gift_points,
    is_race,
    phase_of,
    score,
    set_points,
    still_open,
    winners,
)
from engine.words import ENGLISH, N_, Words

__all__ = [
    "GAME",
    "GIFT_CARDS",
    "PhaseClosed",
    "Stage",
    "TonttuGame",
    "chosen_action",
    "have_chosen",
    "is_race",
    "phase_of",
    "point_menu",
    "score",
    "still_choosing",
    "still_open",
    "winners",
]

# Actions are frozen, so one instance of each possible action is shared.
PICKS: tuple[Pick, ...] = tuple(Pick(material=name) for name in MATERIAL_NAMES)  # type: ignore[arg-type]
PICKS_BY_MASK: tuple[tuple[Pick, ...], ...] = tuple(
    tuple(PICKS[t] for t in range(N_TYPES) if mask >> t & 1) for mask in range(1 << N_TYPES)
)
POINT_GIFTS: tuple[PointGift, ...] = tuple(PointGift(gift=g) for g in range(N_GIFTS))
POINT_MATERIALS: tuple[PointMaterial, ...] = tuple(PointMaterial(slot=s) for s in range(8))
POINT_MATERIALS_UP: tuple[PointMaterial, ...] = tuple(
    PointMaterial(slot=s, face_down=False) for s in range(8)
)
"""T-3.1: the same points, asking for the card face up."""
CLOSE = ClosePointPhase()
CLOSE_ONLY: tuple[ClosePointPhase, ...] = (CLOSE,)
_ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
_EVENTS_ADAPTER: TypeAdapter[list[Event]] = TypeAdapter(list[Event])

GIFT_CARDS: tuple[GiftCard, ...] = tuple(
    GiftCard(id=g, name=GIFT_NAMES[g], category=GIFT_CATEGORY[g], needs=list(GIFT_NEEDS[g]))
    for g in range(N_GIFTS)
)


NOBODY: frozenset[PlayerId] = frozenset()
NONES = (None,) * 8
TYPE_BIT: tuple[int, ...] = tuple(1 << t for t in MATERIAL_TYPE)
"""Material card id → its type's bit in a ``PICKS_BY_MASK`` index."""
_last_menus: list[tuple[Any, Any, tuple[Any, ...]]] = [(None, None, ()), (None, None, ())]
"""One-entry caches of the point menu, without and with T-3.1's face-up variants: (middle
gifts, middle materials, menu). The middle's tuples stay shared from state to state
until a card moves, so every seat pointing in one phase gets the same menu; a triple is
replaced in one assignment (safe across threads)."""


def point_menu(
    gifts: tuple[int | None, ...], materials: tuple[int | None, ...], face_up_too: bool = False
) -> tuple[Any, ...]:
    """Point at a gift (middle order), then at a face-down material (slot order).

    ``face_up_too`` (T-3.1: the seat has no face-down workbench card, so a material it
    takes alone would go face down): each material is offered twice, to keep face down
    (the default) and to take face up. Otherwise it goes face up anyway (T-3.4), and the
    one default point says all.
    """
    cached_gifts, cached_materials, menu = _last_menus[face_up_too]
    if cached_gifts is gifts and cached_materials is materials:
        return menu
    out: list[Any] = [POINT_GIFTS[g] for g in gifts if g is not None]
    for slot, material in enumerate(materials):
        if material is not None:
            out.append(POINT_MATERIALS[slot])
            if face_up_too:
                out.append(POINT_MATERIALS_UP[slot])
    menu = tuple(out)
    _last_menus[face_up_too] = (gifts, materials, menu)
    return menu


class TonttuGame(Game[TonttuState, Action, TonttuView, Event]):
    """Workshop Tonttu for 3–6 seats, tactical or speed mode (option ``mode``):
    :class:`engine.core.Game` with its state, action, view and event types."""

    name: ClassVar[str] = "tonttu"
    title: ClassVar[str] = N_("Workshop Tonttu")
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6
    board_has_final_scores: ClassVar[bool] = True
    """The final board (``render_text``) ends with each seat's breakdown (T-5), so the
    terminal game names only the winners after it."""

    # ------------------------------------------------------------------ setup

    def parse_options(self, raw: Mapping[str, Any] | None) -> TonttuOptions:
        try:
            return TonttuOptions.model_validate(dict(raw or {}))
        except ValidationError as error:
            raise InvalidSetup(
                "Workshop Tonttu's options are {{'mode': 'tactical' | 'speed'}}; got {options}.",
                options=dict(raw or {}),
            ) from error

    def new_game(self, players: Sequence[PlayerId], seed: int, options: Any = None) -> TonttuState:
        """T-1.4 setup, in the rule's order."""
        opts = options if isinstance(options, TonttuOptions) else self.parse_options(options)
        seats = tuple(players)
        n = len(seats)
        if not self.min_players <= n <= self.max_players:
            raise InvalidSetup("Workshop Tonttu needs 3 to 6 players, not {count}.", count=n)
        if len(set(seats)) != n or TIMER in seats or any(not p for p in seats):
            raise InvalidSetup("Every player needs a distinct, non-empty id.")
        rng = Rng(seed)
        gifts = rng.shuffled(range(N_GIFTS))[: GIFTS_PER_PLAYER * n]
        deck = list(rng.shuffled(range(N_MATERIALS)))
        hands: list[list[int]] = [[] for _ in seats]
        for _ in range(HAND_SIZE):
            for hand in hands:
                hand.append(deck.pop(0))
        face_up: list[tuple[int, ...]] = []
        face_down: list[int | None] = []
        for _ in seats:
            face_up.append((deck.pop(0),))
            face_down.append(deck.pop(0))
        middle_materials = tuple(deck.pop(0) for _ in range(n))
        return TonttuState(
            players=seats,
            seed=seed,
            rng=rng.state,
            mode=opts.mode,
            phase="pick",
            round=1,
            deal_round=1,
            rotation="left",
            gift_stack=tuple(gifts[n + 1 :]),
            middle_gifts=tuple(gifts[: n + 1]),
            middle_materials=middle_materials,
            deck=tuple(deck),
            discard=(),
            hands=tuple(tuple(h) for h in hands),
            face_up=tuple(face_up),
            face_down=tuple(face_down),
            won=((),) * n,
            scores=(0,) * n,
            choices=(None,) * n,
            # every field explicitly, so that _evolve can share the fields-set record
            game="tonttu",
            gift_won_this_round=False,
            rounds_without_gift=0,
            short_deal=False,
            end_reason=None,
        )

    # ------------------------------------------------------------------ queries

    # The queries below read the state's fields from its ``__dict__`` (as ``apply`` does,
    # see engine.tonttu.rules): one attribute read, then dict subscripts, each cheaper
    # than an attribute of a pydantic model.

    def to_act(self, state: TonttuState) -> frozenset[PlayerId]:
        """Seats that still owe a choice in this phase (empty hands skip the pick, T-2.5)."""
        d = state.__dict__
        phase = d["phase"]
        if phase == "over":
            return NOBODY
        choices = d["choices"]
        if phase == "pick" and () in d["hands"]:
            return frozenset(
                p
                for p, c, h in zip(d["players"], choices, d["hands"], strict=True)
                if c is None and h
            )
        # the seats whose choice is None, selected without a Python-level loop
        return frozenset(compress(d["players"], map(is_, choices, NONES)))

    def legal_actions(self, state: TonttuState, player: PlayerId) -> Sequence[Action]:
        """The choices open to ``player`` now.

        In tactical mode a seat that has already chosen still gets the full list:
        it may replace its choice until the last seat chooses (T-2.1, T-2.2).
        In speed mode a seat points once (T-4). ``TIMER`` gets
        ``close_point_phase`` while a speed point phase is open.
        """
        d = state.__dict__
        phase = d["phase"]
        if phase == "over":
            return ()
        if player == TIMER:
            return CLOSE_ONLY if phase == "point" and d["mode"] == "speed" else ()
        try:
            seat = d["players"].index(player)
        except ValueError:
            return ()
        if phase == "pick":
            mask = 0
            for held in d["hands"][seat]:
                mask |= TYPE_BIT[held]
            return PICKS_BY_MASK[mask]
        if d["mode"] == "speed" and d["choices"][seat] is not None:
            return ()
        return point_menu(d["middle_gifts"], d["middle_materials"], d["face_down"][seat] is None)

    def outcome(self, state: TonttuState) -> TonttuOutcome | None:
        """T-5: scores, gifts in completion order with categories, and winners."""
        if state.phase != "over":
            return None
        assert state.end_reason is not None
        players = {
            p: PlayerResult(
                gifts=[WonGift(name=GIFT_NAMES[g], category=GIFT_CATEGORY[g]) for g in won],
                gift_points=gift_points(won),
                set_points=set_points(won),
            )
            for p, won in zip(state.players, state.won, strict=True)
        }
        return TonttuOutcome(
            scores=dict(zip(state.players, state.scores, strict=True)),
            winners=winners(state),
            players=players,
            reason=state.end_reason,
        )

    # ------------------------------------------------------------------ apply

    # apply goes straight to the rules function (engine.tonttu.rules), one frame fewer
    apply = staticmethod(apply_action)

    # ------------------------------------------------------------------ views

    def view(self, state: TonttuState, player: PlayerId | None) -> TonttuView:
        """T-6: hands, pending choices and face-down cards only for their owner; a hand
        also for the seats that held it earlier in this deal (T-2.3)."""
        viewer_seat = state.players.index(player) if player in state.players else -1
        acting = self.to_act(state)
        seats = []
        n = len(state.players)
        passes = state.deal_round - 1 if state.phase != "over" else 0
        step = 1 if state.rotation == "left" else -1
        for seat, p in enumerate(state.players):
            down = state.face_down[seat]
            # T-2.3: the hand now at ``seat`` lay k seats against the rotation k passes ago
            known = (
                viewer_seat >= 0
                and viewer_seat != seat
                and 1 <= (seat - viewer_seat) * step % n <= passes
            )
            seats.append(
                SeatView(
                    player=p,
                    hand_size=len(state.hands[seat]),
                    face_up=[MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in state.face_up[seat]],
                    has_face_down=down is not None,
                    face_down=(
                        MATERIAL_NAMES[MATERIAL_TYPE[down]]
                        if down is not None and seat == viewer_seat
                        else None
                    ),
                    known_hand=(
                        [MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in state.hands[seat]]
                        if known
                        else None
                    ),
                    gifts=[GIFT_CARDS[g] for g in state.won[seat]],
                    score=state.scores[seat],
                    chosen=state.phase != "over" and state.choices[seat] is not None,
                    to_act=p in acting,
                )
            )
        hand: list[str] = []
        my_choice: str | None = None
        if viewer_seat >= 0:
            hand = [MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in state.hands[viewer_seat]]
            code = state.choices[viewer_seat]
            if code is not None and state.phase != "over":
                my_choice = text.choice_label(state, code, player)
        return TonttuView(
            viewer=player if viewer_seat >= 0 else None,
            mode=state.mode,
            phase=state.phase,
            round=state.round,
            deal_round=state.deal_round,
            rotation=state.rotation,
            gifts_in_stack=len(state.gift_stack),
            deck_size=len(state.deck),
            discard_size=len(state.discard),
            middle_gifts=[None if g is None else GIFT_CARDS[g] for g in state.middle_gifts],
            middle_materials=[c is not None for c in state.middle_materials],
            seats=seats,
            hand=hand,
            my_choice=my_choice,
            rounds_without_gift=state.rounds_without_gift,
            end_reason=state.end_reason,
            winners=winners(state) if state.phase == "over" else [],
        )

    # ------------------------------------------------------------------ parsing and text

    def parse_action(self, data: Any) -> Action:
        try:
            if isinstance(data, str | bytes):
                return _ACTION_ADAPTER.validate_json(data)
            return _ACTION_ADAPTER.validate_python(data)
        except ValidationError as error:
            raise IllegalAction(
                "That is not a Workshop Tonttu action: {action!r}.", action=data
            ).naming(action=data) from error

    def parse_event(self, data: Mapping[str, Any]) -> Event:
        return _EVENT_ADAPTER.validate_python(data)

    def parse_events_json(self, data: str | bytes) -> list[Event]:
        return _EVENTS_ADAPTER.validate_json(data)

    def parse_state(self, data: str | bytes) -> TonttuState:
        return TonttuState.model_validate_json(data)

    def describe_action(
        self,
        state: TonttuState,
        player: PlayerId,
        action: Any,
        names: Mapping[PlayerId, str] | None = None,
        words: Words = ENGLISH,
    ) -> str:
        return text.describe_action(action, state, player, names, words)

    def describe_choice(self, state: TonttuState, player: PlayerId, action: Action) -> ChoiceFacts:
        return describe_choice(state, player, action)

    def describe_event(
        self, event: Event, names: Mapping[PlayerId, str], words: Words = ENGLISH
    ) -> str:
        return text.describe_event(event, names, words)

    def render_text(
        self, view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH
    ) -> str:
        return text.render_text(view, names, words)

    undo_never: ClassVar[str]  # set below: why nothing is ever taken back

    def undo_block(
        self,
        before: TonttuState,
        player: PlayerId,
        action: Any,
        after: TonttuState,
        events: Sequence[Any],
    ) -> str | None:
        """The undo hook (``engine.undo``): nothing in Workshop Tonttu is taken back.

        A pick or a point is already changeable by choosing again until the last player
        has chosen (T-2.1, T-2.2); that last choice reveals every pick or point at once,
        and a speed point (T-4) resolves at once: undo never crosses a reveal. (The
        generic checks refuse most steps first: a simultaneous phase has more than one
        player to act.) See docs/rules-notes.md."""
        return UNDO_REFUSAL


UNDO_REFUSAL = N_(
    "In Workshop Tonttu you change a pick or a point by choosing again until everyone "
    "has chosen; once they are revealed nothing can be taken back."
)
TonttuGame.undo_never = UNDO_REFUSAL


GAME = TonttuGame()


# --------------------------------------------------------------------------- who chooses
# What a front end asks about the simultaneous phases (T-2.1, T-2.2, T-4), besides
# ``phase_of``, ``is_race`` and ``still_open`` (engine.tonttu.rules).


def still_choosing(state: TonttuState) -> frozenset[PlayerId]:
    """The seats that must still choose in the current phase: ``GAME.to_act`` (a seat
    whose hand is empty skips the pick, T-2.5; nobody once the game is over). A seat
    that has chosen may still change its choice in tactical mode until the last one
    chooses, but the phase no longer waits for it."""
    return GAME.to_act(state)


def have_chosen(state: TonttuState) -> frozenset[PlayerId]:
    """The seats that have chosen in the current phase (public, T-6: who, never what)."""
    if state.phase == "over":
        return NOBODY
    return frozenset(p for p, c in zip(state.players, state.choices, strict=True) if c is not None)


def chosen_action(
    state: TonttuState, player: PlayerId | None
) -> Pick | PointGift | PointMaterial | None:
    """``player``'s own pending choice in the current phase, as the action its menu
    offers (a secret: for that player's eyes only, T-6); ``None`` if it has not chosen
    (or is no seat, or the game is over)."""
    if state.phase == "over" or player not in state.players:
        return None
    code = state.choices[state.players.index(player)]
    if code is None:
        return None
    if state.phase == "pick":
        return PICKS[MATERIAL_TYPE[code]]
    action: PointGift | PointMaterial = text.action_of(code)
    return action
