"""Workshop Tonttu's rules (RULES.md T-1 … T-6) as pure functions over :class:`TonttuState`.

Simultaneous phases follow OpenSpiel: during a pick or point phase ``to_act``
holds every seat that has not chosen yet. A seat that has chosen leaves
``to_act`` but may still replace its choice while the phase is open, so
``legal_actions`` keeps offering it the choices and ``apply`` accepts them
(T-2.1, T-2.2). The last missing choice triggers one joint reveal and
resolution inside that ``apply``. Speed mode (T-4) resolves each point at once
in apply order instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress
from operator import ge, is_
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from engine.core import (
    TIMER,
    GameOver,
    IllegalAction,
    InvalidSetup,
    NotInGame,
    NotYourTurn,
    PlayerId,
    Rng,
)
from engine.tonttu import text
from engine.tonttu.data import (
    GIFT_CATEGORY,
    GIFT_CATEGORY_ID,
    GIFT_NAMES,
    GIFT_NEED_COUNTS,
    GIFT_NEEDS,
    GIFT_TYPE_MASK,
    MATERIAL_IDS,
    MATERIAL_NAMES,
    MATERIAL_TYPE,
    N_GIFTS,
    N_MATERIALS,
    N_TYPES,
)
from engine.tonttu.models import (
    MATERIAL_POINT,
    Action,
    Chose,
    ClosePointPhase,
    Event,
    GameEnded,
    GiftCard,
    GiftResult,
    MaterialResult,
    Pick,
    PicksRevealed,
    PlayerResult,
    PointGift,
    PointMaterial,
    PointPhaseClosed,
    PointsRevealed,
    RoundEnded,
    SeatView,
    SpeedPoint,
    TonttuOptions,
    TonttuOutcome,
    TonttuState,
    TonttuView,
    WonGift,
)

HAND_SIZE = 5  # T-1.4
ROUNDS_PER_DEAL = 4  # T-2.3: hands go 5-4-3-2-1, the last card is discarded
GIFTS_PER_PLAYER = 5  # T-1.4
ROUNDS_WITHOUT_GIFT_LIMIT = 10  # T-2.5
SET_BONUS = 3  # T-5.2

# Actions are frozen, so one instance of each possible action is shared.
PICKS: tuple[Pick, ...] = tuple(Pick(material=name) for name in MATERIAL_NAMES)  # type: ignore[arg-type]
PICKS_BY_MASK: tuple[tuple[Pick, ...], ...] = tuple(
    tuple(PICKS[t] for t in range(N_TYPES) if mask >> t & 1) for mask in range(1 << N_TYPES)
)
POINT_GIFTS: tuple[PointGift, ...] = tuple(PointGift(gift=g) for g in range(N_GIFTS))
POINT_MATERIALS: tuple[PointMaterial, ...] = tuple(PointMaterial(slot=s) for s in range(8))
CLOSE = ClosePointPhase()
CLOSE_ONLY: tuple[ClosePointPhase, ...] = (CLOSE,)
_ACTION_ADAPTER: TypeAdapter[Any] = TypeAdapter(Action)
_EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)

_setattr = object.__setattr__
M = TypeVar("M", bound=BaseModel)


def _all_fields(cls: type[BaseModel]) -> set[str]:
    """Every field name of ``cls``: one set per class, shared by the objects built here
    (pydantic copies a fields-set record before it changes one)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = set(cls.model_fields)
    return names


_FIELD_NAMES: dict[type[BaseModel], set[str]] = {}


def _build(cls: type[M], **values: Any) -> M:
    """``cls.model_construct`` without its per-field bookkeeping (a hot path).

    Callers pass every field, already valid, in the order the JSON should show them;
    the playout tests check that each event and state built this way equals its JSON
    round-trip.
    """
    obj = cls.__new__(cls)
    _setattr(obj, "__dict__", values)
    _setattr(obj, "__pydantic_fields_set__", _all_fields(cls))
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


def _evolve(state: TonttuState, update: dict[str, Any]) -> TonttuState:
    """``state.model_copy(update=update)``, faster: structural sharing of untouched fields.

    Every state sets all fields (``new_game`` passes them all), so the fields-set
    record is shared unchanged.
    """
    values = state.__dict__.copy()
    values.update(update)
    obj = TonttuState.__new__(TonttuState)
    _setattr(obj, "__dict__", values)
    _setattr(obj, "__pydantic_fields_set__", state.__pydantic_fields_set__)
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


GIFT_CARDS: tuple[GiftCard, ...] = tuple(
    GiftCard(id=g, name=GIFT_NAMES[g], category=GIFT_CATEGORY[g], needs=list(GIFT_NEEDS[g]))
    for g in range(N_GIFTS)
)


def gift_points(won: Sequence[int]) -> int:
    """T-5.1: the k-th completed gift is worth k, so n gifts score n(n+1)/2."""
    n = len(won)
    return n * (n + 1) // 2


def set_points(won: Sequence[int]) -> int:
    """T-5.2: 3 per complete set of one gift of each category."""
    counts = [0, 0, 0]
    for gift in won:
        counts[GIFT_CATEGORY_ID[gift]] += 1
    return SET_BONUS * min(counts)


def score(won: Sequence[int]) -> int:
    return gift_points(won) + set_points(won)


def _can_pay(face_up: Sequence[int], face_down: int | None, gift: int) -> bool:
    """T-3.2: the workbench (face-down card included) covers the gift's requirement."""
    have = [0] * N_TYPES
    for card in face_up:
        have[MATERIAL_TYPE[card]] += 1
    if face_down is not None:
        have[MATERIAL_TYPE[face_down]] += 1
    need = GIFT_NEED_COUNTS[gift]
    return all(map(ge, have, need))  # no generator: a C-level loop


def _pay_exact(
    face_up: tuple[int, ...], face_down: int | None, gift: int
) -> tuple[tuple[int, ...], int | None, list[int], int | None]:
    """T-3.2 single contender / T-4: pay exactly the requirement, face-up cards first.

    Returns (remaining face-up, remaining face-down, paid cards, paid face-down card).
    The caller has checked :func:`_can_pay`.
    """
    need = list(GIFT_NEED_COUNTS[gift])
    keep: list[int] = []
    paid: list[int] = []
    for card in face_up:
        t = MATERIAL_TYPE[card]
        if need[t]:
            need[t] -= 1
            paid.append(card)
        else:
            keep.append(card)
    if any(need):  # only the face-down card can cover what is left (T-3.2)
        assert face_down is not None
        paid.append(face_down)
        return tuple(keep), None, paid, face_down
    return tuple(keep), face_down, paid, None


def _offer(face_up: Sequence[int], face_down: int | None, gift: int) -> int:
    """T-3.2: how many workbench cards show a type that appears on the gift."""
    mask = GIFT_TYPE_MASK[gift]
    count = sum(1 for card in face_up if mask >> MATERIAL_TYPE[card] & 1)
    if face_down is not None and mask >> MATERIAL_TYPE[face_down] & 1:
        count += 1
    return count


def _pay_offer(
    face_up: tuple[int, ...], face_down: int | None, gift: int
) -> tuple[tuple[int, ...], int | None, list[int], int | None]:
    """T-3.2 contested: the winner pays every workbench card whose type is on the gift."""
    mask = GIFT_TYPE_MASK[gift]
    keep = tuple(card for card in face_up if not mask >> MATERIAL_TYPE[card] & 1)
    paid = [card for card in face_up if mask >> MATERIAL_TYPE[card] & 1]
    if face_down is not None and mask >> MATERIAL_TYPE[face_down] & 1:
        paid.append(face_down)
        return keep, None, paid, face_down
    return keep, face_down, paid, None


_SCRATCH = (
    "deck",
    "discard",
    "face_down",
    "face_up",
    "hands",
    "middle_gifts",
    "middle_materials",
    "scores",
    "won",
)
"""The state's sequences a resolution may change (copied into lists on first use)."""


class _Table:
    """Mutable scratch copy of the parts of a state that a resolution changes."""

    __slots__ = (*_SCRATCH, "_state", "gift_won", "reshuffles", "rng")

    def __init__(self, state: TonttuState) -> None:
        self._state = state
        self.face_up = list(state.face_up)
        self.face_down = list(state.face_down)
        self.won = list(state.won)
        self.scores = list(state.scores)
        self.middle_gifts = list(state.middle_gifts)
        self.middle_materials = list(state.middle_materials)
        self.discard = list(state.discard)
        self.deck = list(state.deck)
        self.hands = list(state.hands)
        self.gift_won = state.gift_won_this_round
        self.rng: Rng | None = None
        self.reshuffles = 0

    def changes(self) -> dict[str, Any]:
        """The scratch sequences, back as tuples, for the next state."""
        return {name: tuple(getattr(self, name)) for name in _SCRATCH}

    def draw(self) -> int | None:
        """The top material card; T-2.4: reshuffle the discard pile when the deck is empty."""
        if not self.deck:
            if not self.discard:
                return None
            if self.rng is None:
                self.rng = Rng(self._state.rng)
            self.deck = list(self.rng.shuffled(self.discard))
            self.discard = []
            self.reshuffles += 1
        return self.deck.pop(0)

    def take_material(self, seat: int, slot: int, player: PlayerId) -> MaterialResult:
        """T-3.1: the card goes face down if the seat has none face down (T-3.4), else face up."""
        card = self.middle_materials[slot]
        assert card is not None
        self.middle_materials[slot] = None
        if self.face_down[seat] is None:
            self.face_down[seat] = card
            return _build(
                MaterialResult,
                slot=slot,
                pointers=[player],
                result="taken",
                taker=player,
                face_down=True,
                material=None,
            )
        self.face_up[seat] = (*self.face_up[seat], card)
        return _build(
            MaterialResult,
            slot=slot,
            pointers=[player],
            result="taken",
            taker=player,
            face_down=False,
            material=MATERIAL_NAMES[MATERIAL_TYPE[card]],
        )

    def win_gift(self, seat: int, slot: int, *, exact: bool) -> tuple[list[str], str | None]:
        """Pay for the gift in ``slot`` (exactly, or the whole offer) and take it (T-3.2, T-3.3)."""
        gift = self.middle_gifts[slot]
        assert gift is not None
        pay = _pay_exact if exact else _pay_offer
        up, down, paid, paid_down = pay(self.face_up[seat], self.face_down[seat], gift)
        self.face_up[seat] = up
        self.face_down[seat] = down
        self.discard.extend(paid)  # T-3.3
        self.middle_gifts[slot] = None
        won = (*self.won[seat], gift)
        self.won[seat] = won
        self.scores[seat] = score(won)
        self.gift_won = True
        names = [MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in paid]
        return names, None if paid_down is None else MATERIAL_NAMES[MATERIAL_TYPE[paid_down]]

    def rng_state(self, fallback: int) -> int:
        return fallback if self.rng is None else self.rng.state


NOBODY: frozenset[PlayerId] = frozenset()
NONES = (None,) * 8
_last_menu: tuple[Any, Any, tuple[Any, ...]] = (None, None, ())
"""One-entry cache of the point menu: (middle gifts, middle materials, menu). The
middle's tuples stay shared from state to state until a card moves, so every seat
pointing in one phase gets the same menu; the triple is replaced in one assignment
(safe across threads)."""


def point_menu(gifts: tuple[int | None, ...], materials: tuple[int | None, ...]) -> tuple[Any, ...]:
    """Point at a gift (middle order), then at a face-down material (slot order)."""
    global _last_menu
    cached_gifts, cached_materials, menu = _last_menu
    if cached_gifts is gifts and cached_materials is materials:
        return menu
    out: list[Any] = [POINT_GIFTS[g] for g in gifts if g is not None]
    for slot, material in enumerate(materials):
        if material is not None:
            out.append(POINT_MATERIALS[slot])
    menu = tuple(out)
    _last_menu = (gifts, materials, menu)
    return menu


class TonttuGame:
    """Workshop Tonttu for 3–6 seats, tactical or speed mode (option ``mode``)."""

    name: ClassVar[str] = "tonttu"
    title: ClassVar[str] = "Workshop Tonttu"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6

    # ------------------------------------------------------------------ setup

    def parse_options(self, raw: Mapping[str, Any] | None) -> TonttuOptions:
        try:
            return TonttuOptions.model_validate(dict(raw or {}))
        except ValidationError as error:
            raise InvalidSetup(
                "Workshop Tonttu's options are {'mode': 'tactical' | 'speed'}; "
                f"got {dict(raw or {})}."
            ) from error

    def new_game(self, players: Sequence[PlayerId], seed: int, options: Any = None) -> TonttuState:
        """T-1.4 setup, in the rule's order."""
        opts = options if isinstance(options, TonttuOptions) else self.parse_options(options)
        seats = tuple(players)
        n = len(seats)
        if not self.min_players <= n <= self.max_players:
            raise InvalidSetup(f"Workshop Tonttu needs 3 to 6 players, not {n}.")
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

    def to_act(self, state: TonttuState) -> frozenset[PlayerId]:
        """Seats that still owe a choice in this phase (empty hands skip the pick, T-2.5)."""
        phase = state.phase
        if phase == "over":
            return NOBODY
        choices = state.choices
        if phase == "pick" and () in state.hands:
            return frozenset(
                p
                for p, c, h in zip(state.players, choices, state.hands, strict=True)
                if c is None and h
            )
        # the seats whose choice is None, selected without a Python-level loop
        return frozenset(compress(state.players, map(is_, choices, NONES)))

    def legal_actions(self, state: TonttuState, player: PlayerId) -> Sequence[Any]:
        """The choices open to ``player`` now.

        In tactical mode a seat that has already chosen still gets the full list:
        it may replace its choice until the last seat chooses (T-2.1, T-2.2).
        In speed mode a seat points once (T-4). ``TIMER`` gets
        ``close_point_phase`` while a speed point phase is open.
        """
        phase = state.phase
        if phase == "over":
            return ()
        if player == TIMER:
            return CLOSE_ONLY if phase == "point" and state.mode == "speed" else ()
        try:
            seat = state.players.index(player)
        except ValueError:
            return ()
        if phase == "pick":
            mask = 0
            for held in state.hands[seat]:
                mask |= 1 << MATERIAL_TYPE[held]
            return PICKS_BY_MASK[mask]
        if state.mode == "speed" and state.choices[seat] is not None:
            return ()
        return point_menu(state.middle_gifts, state.middle_materials)

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

    def apply(
        self, state: TonttuState, player: PlayerId, action: Any
    ) -> tuple[TonttuState, list[Any]]:
        phase = state.phase
        if phase == "over":
            raise GameOver("The game is over; no more moves can be made.")
        kind = getattr(action, "kind", None)
        if player == TIMER:
            if kind == "close_point_phase" and phase == "point" and state.mode == "speed":
                return self._close_point_phase(state)
            raise IllegalAction("The timer can only close an open speed point phase.")
        try:
            seat = state.players.index(player)
        except ValueError:
            raise NotInGame("You are not playing in this game.") from None
        if phase == "pick":
            if kind != "pick":
                raise IllegalAction("It is the pick phase: choose one of your hand cards.")
            return self._pick(state, seat, action)
        if kind == "point_gift":
            gift = action.gift
            if gift not in state.middle_gifts:
                raise IllegalAction("That gift is not in the middle; point at a card that is.")
            slot = state.middle_gifts.index(gift)
            code = gift
        elif kind == "point_material":
            slot = action.slot
            if not 0 <= slot < len(state.middle_materials) or state.middle_materials[slot] is None:
                raise IllegalAction(
                    f"There is no face-down material in slot {slot + 1}; point at a card that is."
                )
            code = MATERIAL_POINT + slot
        else:
            raise IllegalAction("It is the point phase: point at a gift or a face-down material.")
        if state.mode == "speed":
            return self._speed_point(state, seat, code, slot)
        return self._tactical_point(state, seat, code)

    def _pick(self, state: TonttuState, seat: int, action: Pick) -> tuple[TonttuState, list[Any]]:
        hand = state.hands[seat]
        if not hand:
            raise NotYourTurn("Your hand is empty, so you skip this pick (T-2.5).")
        wanted = MATERIAL_IDS.get(action.material, -1)
        for card in hand:
            if MATERIAL_TYPE[card] == wanted:
                break
        else:
            raise IllegalAction(f"You have no {action.material} in your hand.")
        choices = list(state.choices)
        replaced = choices[seat] is not None
        choices[seat] = card
        event = _build(
            Chose, kind="chose", player=state.players[seat], phase="pick", replaced=replaced
        )
        for choice, held in zip(choices, state.hands, strict=True):
            if choice is None and held:  # someone still has to pick
                return _evolve(state, {"choices": tuple(choices)}), [event]
        new_state, events = self._reveal_picks(state, choices)
        return new_state, [event, *events]

    def _reveal_picks(
        self, state: TonttuState, choices: list[int | None]
    ) -> tuple[TonttuState, list[Any]]:
        """T-2.1: all picks go face up onto their owners' workbenches at once."""
        hands = list(state.hands)
        face_up = list(state.face_up)
        picks: dict[PlayerId, str] = {}
        skipped: list[PlayerId] = []
        for seat, card in enumerate(choices):
            if card is None:
                skipped.append(state.players[seat])
                continue
            hand = hands[seat]
            i = hand.index(card)
            hands[seat] = hand[:i] + hand[i + 1 :]
            face_up[seat] = (*face_up[seat], card)
            picks[state.players[seat]] = MATERIAL_NAMES[MATERIAL_TYPE[card]]
        event = _build(
            PicksRevealed, kind="picks_revealed", round=state.round, picks=picks, skipped=skipped
        )
        new_state = _evolve(
            state,
            {
                "hands": tuple(hands),
                "face_up": tuple(face_up),
                "phase": "point",
                "choices": (None,) * len(choices),
            },
        )
        return new_state, [event]

    def _tactical_point(
        self, state: TonttuState, seat: int, code: int
    ) -> tuple[TonttuState, list[Any]]:
        choices = list(state.choices)
        replaced = choices[seat] is not None
        choices[seat] = code
        event = _build(
            Chose, kind="chose", player=state.players[seat], phase="point", replaced=replaced
        )
        if None in choices:
            return _evolve(state, {"choices": tuple(choices)}), [event]
        return self._resolve_points(state, choices, event)

    def _resolve_points(
        self, state: TonttuState, choices: list[int | None], first: Chose
    ) -> tuple[TonttuState, list[Any]]:
        """T-3: reveal every point and resolve them together, in middle slot order."""
        players = state.players
        table = _Table(state)
        gift_results: list[GiftResult] = []
        material_results: list[MaterialResult] = []
        # the seats pointing at each code, in seat order (one pass over the choices)
        pointed: dict[int | None, list[int]] = {}
        for seat, code in enumerate(choices):
            if code in pointed:
                pointed[code].append(seat)
            else:
                pointed[code] = [seat]
        for slot, gift in enumerate(state.middle_gifts):
            if gift is None or gift not in pointed:
                continue
            gift_results.append(self._resolve_gift(table, players, slot, gift, pointed[gift]))
        for slot, card in enumerate(state.middle_materials):
            code = MATERIAL_POINT + slot
            if card is None or code not in pointed:
                continue
            pointers = pointed[code]
            names = [players[s] for s in pointers]
            if len(pointers) == 1:
                result = table.take_material(pointers[0], slot, names[0])
            else:  # T-3.1: two or more pointers, nothing happens
                result = _build(
                    MaterialResult,
                    slot=slot,
                    pointers=names,
                    result="contested",
                    taker=None,
                    face_down=False,
                    material=None,
                )
            material_results.append(result)
        reveal = _build(
            PointsRevealed,
            kind="points_revealed",
            round=state.round,
            gifts=gift_results,
            materials=material_results,
        )
        new_state, end_events = self._end_round(state, table)
        return new_state, [first, reveal, *end_events]

    @staticmethod
    def _resolve_gift(
        table: _Table, players: tuple[PlayerId, ...], slot: int, gift: int, pointers: list[int]
    ) -> GiftResult:
        """T-3.2 for one gift and the seats pointing at it."""
        contenders = [s for s in pointers if _can_pay(table.face_up[s], table.face_down[s], gift)]
        base: dict[str, Any] = {
            "gift": GIFT_NAMES[gift],
            "category": GIFT_CATEGORY[gift],
            "slot": slot,
            "pointers": [players[s] for s in pointers],
            "contenders": [players[s] for s in contenders],
            "offers": {},
            "winner": None,
            "paid": [],
            "face_down_paid": None,
        }
        if not contenders:
            return _build(GiftResult, result="nobody_can_pay", **base)
        if len(contenders) == 1:
            winner = contenders[0]
            paid, shown = table.win_gift(winner, slot, exact=True)
        else:
            offers = {s: _offer(table.face_up[s], table.face_down[s], gift) for s in contenders}
            base["offers"] = {players[s]: o for s, o in offers.items()}
            best = max(offers.values())
            top = [s for s, o in offers.items() if o == best]
            if len(top) > 1:  # T-3.2: a tie for highest: nobody gets it, nobody pays
                return _build(GiftResult, result="tie", **base)
            winner = top[0]
            paid, shown = table.win_gift(winner, slot, exact=False)
        base.update(winner=players[winner], paid=paid, face_down_paid=shown)
        return _build(GiftResult, result="won", **base)

    def _speed_point(
        self, state: TonttuState, seat: int, code: int, slot: int
    ) -> tuple[TonttuState, list[Any]]:
        """T-4: the point resolves at once, in apply order; each seat points once."""
        if state.choices[seat] is not None:
            raise NotYourTurn("You have already pointed this round.")
        player = state.players[seat]
        table = _Table(state)
        gift_result: GiftResult | None = None
        material_result: MaterialResult | None = None
        if code < MATERIAL_POINT:
            gift = code
            can = _can_pay(table.face_up[seat], table.face_down[seat], gift)
            base: dict[str, Any] = {
                "gift": GIFT_NAMES[gift],
                "category": GIFT_CATEGORY[gift],
                "slot": slot,
                "pointers": [player],
                "contenders": [player] if can else [],
                "offers": {},
                "winner": None,
                "paid": [],
                "face_down_paid": None,
            }
            if can:
                paid, shown = table.win_gift(seat, slot, exact=True)
                base.update(winner=player, paid=paid, face_down_paid=shown)
                gift_result = _build(GiftResult, result="won", **base)
            else:  # a wasted point: the gift stays open
                gift_result = _build(GiftResult, result="wasted", **base)
        else:
            material_result = table.take_material(seat, slot, player)
        event = _build(
            SpeedPoint,
            kind="speed_point",
            round=state.round,
            player=player,
            gift=gift_result,
            material=material_result,
        )
        choices = list(state.choices)
        choices[seat] = code
        if None not in choices:
            new_state, end_events = self._end_round(state, table)
            return new_state, [event, *end_events]
        update = table.changes()
        update["choices"] = tuple(choices)
        update["gift_won_this_round"] = table.gift_won
        return _evolve(state, update), [event]

    def _close_point_phase(self, state: TonttuState) -> tuple[TonttuState, list[Any]]:
        """T-4: the table's timer ran out; seats that did not point simply missed out."""
        missed = [p for p, c in zip(state.players, state.choices, strict=True) if c is None]
        event = _build(
            PointPhaseClosed, kind="point_phase_closed", round=state.round, missed=missed
        )
        new_state, end_events = self._end_round(state, _Table(state))
        return new_state, [event, *end_events]

    # ------------------------------------------------------------------ end of round

    def _end_round(self, state: TonttuState, table: _Table) -> tuple[TonttuState, list[Any]]:
        """T-2.3 in order: refill; game end; pass hands or discard, flip and redeal."""
        n = len(state.players)
        stack = list(state.gift_stack)
        refilled: list[str] = []
        for slot, gift in enumerate(table.middle_gifts):
            if gift is None and stack:
                new = stack.pop(0)
                table.middle_gifts[slot] = new
                refilled.append(GIFT_NAMES[new])
        materials_refilled = 0
        for slot, card in enumerate(table.middle_materials):
            if card is None:
                drawn = table.draw()
                if drawn is None:
                    break  # T-2.4: deck and discard both empty; the slot stays empty
                table.middle_materials[slot] = drawn
                materials_refilled += 1
        without = 0 if table.gift_won else state.rounds_without_gift + 1
        update: dict[str, Any] = {
            "gift_stack": tuple(stack),
            "choices": (None,) * n,
            "gift_won_this_round": False,
            "rounds_without_gift": without,
        }
        end_reason: Any = None
        if not stack:
            end_reason = "gift_stack_empty"
        elif without >= ROUNDS_WITHOUT_GIFT_LIMIT:
            end_reason = "no_gift_for_10_rounds"  # T-2.5
        round_event: dict[str, Any] = {
            "kind": "round_ended",
            "round": state.round,
            "gift_won": table.gift_won,
            "gifts_refilled": refilled,
            "materials_refilled": materials_refilled,
            "passed": None,
            "discarded": 0,
            "rotation": None,
            "dealt": {},
        }
        events: list[Any] = []
        if end_reason is not None:
            update["phase"] = "over"
            update["end_reason"] = end_reason
        elif state.deal_round < ROUNDS_PER_DEAL:
            # T-2.3: pass the whole remaining hand the way the rotation card shows.
            hands = table.hands
            if state.rotation == "left":
                hands = [hands[(i - 1) % n] for i in range(n)]
            else:
                hands = [hands[(i + 1) % n] for i in range(n)]
            table.hands = hands
            round_event["passed"] = state.rotation
            update["deal_round"] = state.deal_round + 1
        else:
            # T-2.3: after the 4th round of a deal: discard, flip the rotation card, deal 5.
            discarded = 0
            for hand in table.hands:
                table.discard.extend(hand)
                discarded += len(hand)
            rotation = "right" if state.rotation == "left" else "left"
            dealt = [0] * n
            new_hands: list[list[int]] = [[] for _ in range(n)]
            for _ in range(HAND_SIZE):
                for seat in range(n):
                    card = table.draw()
                    if card is None:
                        break  # T-2.4: deal what there is, one card at a time in seat order
                    new_hands[seat].append(card)
                    dealt[seat] += 1
            table.hands = [tuple(h) for h in new_hands]
            update["rotation"] = rotation
            update["deal_round"] = 1
            update["short_deal"] = sum(dealt) < HAND_SIZE * n
            round_event.update(
                discarded=discarded,
                rotation=rotation,
                dealt=dict(zip(state.players, dealt, strict=True)),
            )
        round_event["reshuffled"] = table.reshuffles
        update.update(table.changes())
        update["rng"] = table.rng_state(state.rng)
        events.append(_build(RoundEnded, **round_event))
        if end_reason is not None:
            final = _evolve(state, update)
            events.append(
                _build(
                    GameEnded,
                    kind="game_ended",
                    reason=end_reason,
                    scores=dict(zip(state.players, final.scores, strict=True)),
                    winners=winners(final),
                )
            )
            return final, events
        update["round"] = state.round + 1
        # T-2.5: with every hand empty there is nothing to pick; go straight to pointing.
        update["phase"] = "pick" if any(table.hands) else "point"
        return _evolve(state, update), events

    # ------------------------------------------------------------------ views

    def view(self, state: TonttuState, player: PlayerId | None) -> TonttuView:
        """T-6: hands, pending choices and face-down cards only for their owner."""
        viewer_seat = state.players.index(player) if player in state.players else -1
        acting = self.to_act(state)
        seats = []
        for seat, p in enumerate(state.players):
            down = state.face_down[seat]
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
                my_choice = text.choice_label(state, code)
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

    def parse_action(self, data: Any) -> Any:
        try:
            if isinstance(data, str | bytes):
                return _ACTION_ADAPTER.validate_json(data)
            return _ACTION_ADAPTER.validate_python(data)
        except ValidationError as error:
            raise IllegalAction(f"That is not a Workshop Tonttu action: {data!r}.") from error

    def parse_event(self, data: Mapping[str, Any]) -> Any:
        return _EVENT_ADAPTER.validate_python(data)

    def parse_state(self, data: str | bytes) -> TonttuState:
        return TonttuState.model_validate_json(data)

    def describe_action(
        self,
        state: TonttuState,
        player: PlayerId,
        action: Any,
        names: Mapping[PlayerId, str] | None = None,
    ) -> str:
        return text.describe_action(action)

    def describe_event(self, event: Any, names: Mapping[PlayerId, str]) -> str:
        return text.describe_event(event, names)

    def render_text(self, view: TonttuView, names: Mapping[PlayerId, str]) -> str:
        return text.render_text(view, names)


def winners(state: TonttuState) -> list[PlayerId]:
    """T-5.3: most points; tie → more gifts; still tied → shared win."""
    best = max(zip(state.scores, (len(w) for w in state.won), strict=True))
    return [
        p
        for p, s, w in zip(state.players, state.scores, state.won, strict=True)
        if (s, len(w)) == best
    ]


GAME = TonttuGame()
