"""Workshop Tonttu's moves and their resolution (docs/rules.md T-2 … T-5): ``apply_action``.

``engine.tonttu.game`` holds the protocol object (setup, queries, views, text); this
module holds what ``apply`` does, the hot path of every computer player's search.

Hot-path notes. ``apply`` copies the state's field values once (``state.__dict__``,
about twenty entries), replaces the sequences that change by new tuples, and takes the
copy over as the next state's ``__dict__`` (``engine.core.successor_of``): every
unchanged tuple is shared with the previous state, and nothing is validated, since
every value is made here from valid ones. The old state's fields are read from that
dict too (``d["hands"]``, not ``state.hands``; the functions below ``apply_action`` take
that dict, ``d``, rather than the state): a pydantic model defines ``__getattr__``,
which keeps CPython from specialising attribute reads on it: each costs about one and a
half dict subscripts. Events are built the same way as states, each from a
dict display naming all its fields (``successor_of`` the event's model); a
:class:`Chose` (who chose, in which phase, replacing or not) holds no other
information, so one instance of each is shared, as the actions are. Two events have
always listed their JSON keys in an order other than their model's (``GiftResult``
starts with ``result``, ``RoundEnded`` ends with ``reshuffled``): their dict displays
keep that order, so stored records stay byte for byte what they were. The computer
players' search never reads the events: it applies moves with :func:`advance` (the same
functions with ``events=False``), which skips building them, about a sixth of an
applied action's instructions in tactical mode and a quarter in speed mode.

Resolution order (T-2.3, T-3): gifts in middle slot order, then face-down materials
in slot order; then the refill of gifts, then of materials (reshuffling the discard
pile when the deck runs out, T-2.4); then the end check; then the hands pass, or are
discarded and dealt anew after the 4th round of a deal.

One file, near a thousand lines, on purpose: a round's resolution is one sequence of
functions over the same copied field values (``d``), in the order above, and the
search applies it millions of times; split, the order would be spread over files that
each need the same hot-path helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any, Literal

from engine.core import (
    TIMER,
    GameOver,
    IllegalAction,
    NotInGame,
    NotYourTurn,
    PlayerId,
    Rng,
    RuleError,
)
from engine.models import (
    SHARED_LIMIT,
    constructor,
    successor_of,
)
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
    N_TYPES,
)
from engine.tonttu.models import (
    MATERIAL_POINT,
    MATERIAL_POINT_UP,
    Chose,
    GameEnded,
    GiftResult,
    MaterialResult,
    PicksRevealed,
    PointPhaseClosed,
    PointsRevealed,
    RoundEnded,
    SpeedPoint,
    TonttuState,
)
from engine.words import N_, Term

HAND_SIZE = 5  # T-1.4
ROUNDS_PER_DEAL = 4  # T-2.3: hands go 5-4-3-2-1, the last card is discarded
GIFTS_PER_PLAYER = 5  # T-1.4
ROUNDS_WITHOUT_GIFT_LIMIT = 10  # T-2.5
SET_BONUS = 3  # T-5.2

CARD_NAME: tuple[str, ...] = tuple(MATERIAL_NAMES[t] for t in MATERIAL_TYPE)
"""Material card id → its type's name."""
NO_CHOICES: tuple[tuple[None, ...], ...] = tuple((None,) * n for n in range(8))
"""``NO_CHOICES[n]``: the choices of ``n`` seats at the start of a phase."""


# --------------------------------------------------------------------------- phases

Stage = Literal["pick", "point", "race", "over"]
"""What the table is doing, as a front end shows it: the pick phase (T-2.1), the
tactical point phase (T-2.2), a speed point phase (a race, T-4), or the game is over."""


class PhaseClosed(RuleError):
    """A choice made for a phase that has ended (T-2.1: changeable only until the reveal)."""


def phase_of(state: TonttuState) -> Stage:
    """``pick``, ``point``, ``race`` (a speed-mode point phase, T-4) or ``over``."""
    phase = state.phase
    if phase == "point" and state.mode == "speed":
        return "race"
    return phase


def is_race(state: TonttuState) -> bool:
    """A speed-mode point phase (T-4): the first valid point at a card wins it."""
    return phase_of(state) == "race"


def still_open(round_: int, phase: str) -> Callable[[TonttuState], None]:
    """The staleness check of a choice made for round ``round_``'s ``phase`` (``pick``
    or ``point``): run on the state the choice is to be applied to, it raises
    :class:`PhaseClosed` if that phase has been revealed since (any number of other
    choices may have been made meanwhile: a game's version says nothing here), or
    :class:`~engine.core.GameOver`. A table passes it to storage as the precondition
    of a simultaneous choice."""

    def check(state: TonttuState) -> None:
        if state.phase == "over":
            raise GameOver("The game is over; no more moves can be made.")
        if state.round != round_ or state.phase != phase:
            if phase == "pick":
                raise PhaseClosed(
                    N_(
                        "The picks of round {round} have already been revealed; "
                        "that choice was not counted."
                    ),
                    round=round_,
                )
            raise PhaseClosed(
                N_(
                    "The points of round {round} have already been revealed; "
                    "that choice was not counted."
                ),
                round=round_,
            )

    return check


# --------------------------------------------------------------------------- scoring


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
    """T-5.1 + T-5.2 (:func:`gift_points` plus :func:`set_points`, in one pass)."""
    n = len(won)
    if n < 3:  # a set needs three gifts: no categories to count
        return n * (n + 1) // 2
    counts = [0, 0, 0]
    for gift in won:
        counts[GIFT_CATEGORY_ID[gift]] += 1
    return n * (n + 1) // 2 + SET_BONUS * min(counts)


def winners(state: TonttuState) -> list[PlayerId]:
    """T-5.3: most points; tie → more gifts; still tied → shared win."""
    best = max(zip(state.scores, (len(w) for w in state.won), strict=True))
    return [
        p
        for p, s, w in zip(state.players, state.scores, state.won, strict=True)
        if (s, len(w)) == best
    ]


# --------------------------------------------------------------------------- paying


# A workbench's cards counted per type, packed in one int: 8 bits per type (a type has
# at most 16 cards), the top bit of each byte a guard. Subtracting a gift's packed
# requirement from the counts with every guard set clears the guard of each type that
# falls short: the workbench can pay iff every guard survives.
_UNIT: tuple[int, ...] = tuple(1 << 8 * t for t in MATERIAL_TYPE)
"""Material card id → one card of its type, packed."""
_GUARDS = sum(0x80 << 8 * t for t in range(N_TYPES))
_NEED: tuple[int, ...] = tuple(
    sum(count << 8 * t for t, count in enumerate(counts)) for counts in GIFT_NEED_COUNTS
)
"""Gift id → its requirement, packed."""
_MATCH: tuple[tuple[int, ...], ...] = tuple(
    tuple(mask >> t & 1 for t in MATERIAL_TYPE) for mask in GIFT_TYPE_MASK
)
"""``_MATCH[gift][card]``: 1 if the card's type appears on the gift (T-3.2 offers)."""


def _can_pay(face_up: Sequence[int], face_down: int | None, gift: int) -> bool:
    """T-3.2: the workbench (face-down card included) covers the gift's requirement."""
    have = _GUARDS  # a loop: map and sum cost more than they save on a few cards
    for card in face_up:
        have += _UNIT[card]
    if face_down is not None:
        have += _UNIT[face_down]
    return (have - _NEED[gift]) & _GUARDS == _GUARDS


def _pay_exact(
    face_up: tuple[int, ...], face_down: int | None, gift: int
) -> tuple[tuple[int, ...], int | None, list[int], int | None]:
    """T-3.2 single contender / T-4: pay exactly the requirement, face-up cards first.

    Returns (remaining face-up, remaining face-down, paid cards, paid face-down card).
    The caller has checked :func:`_can_pay`.
    """
    need = list(GIFT_NEED_COUNTS[gift])
    left = len(GIFT_NEEDS[gift])
    keep: list[int] = []
    paid: list[int] = []
    for i, card in enumerate(face_up):
        t = MATERIAL_TYPE[card]
        if need[t]:
            need[t] -= 1
            paid.append(card)
            left -= 1
            if not left:  # paid in full: the rest of the workbench stays
                return (*keep, *face_up[i + 1 :]), face_down, paid, None
        else:
            keep.append(card)
    # only the face-down card can cover what is left (T-3.2)
    assert face_down is not None
    paid.append(face_down)
    return tuple(keep), None, paid, face_down


def _offer(face_up: Sequence[int], face_down: int | None, gift: int) -> int:
    """T-3.2: how many workbench cards show a type that appears on the gift."""
    match = _MATCH[gift]
    count = 0
    for card in face_up:
        count += match[card]
    if face_down is not None:
        count += match[face_down]
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


# --------------------------------------------------------------------------- building

# Each event is built from a dict display that names every field, in the order of its
# JSON keys (successor_of: no keyword matching, no validation; every field counts as
# set, as in an event parsed from its JSON). Two events have always listed their keys
# in an order other than their model's: GiftResult starts with ``result``, RoundEnded
# ends with ``reshuffled``; their displays keep that order.
_gift_result = successor_of(GiftResult)
_material_result = successor_of(MaterialResult)
_picks_revealed = successor_of(PicksRevealed)
_points_revealed = successor_of(PointsRevealed)
_speed_point_event = successor_of(SpeedPoint)
_point_phase_closed = successor_of(PointPhaseClosed)
_round_ended = successor_of(RoundEnded)
_game_ended = successor_of(GameEnded)
new_chose = constructor(Chose, shared=True)
"""A :class:`Chose` holds nothing but who chose, in which phase, replacing or not: one
shared instance for each, like the shared actions."""
_FIRST_PICK: dict[PlayerId, Chose] = {}
_FIRST_POINT: dict[PlayerId, Chose] = {}
"""The shared :class:`Chose` of a seat's first (not replaced) pick and point, by player:
the one every round has, found with one lookup of a string instead of a call to
:data:`new_chose` (keyword arguments, a key tuple)."""


def _remember(known: dict[Any, Any], key: Any, event: Any) -> Any:
    """``event``, kept in ``known`` under ``key`` (emptied first when full)."""
    if len(known) >= SHARED_LIMIT:
        known.clear()
    known[key] = event
    return event


def _first_choice(known: dict[PlayerId, Chose], player: PlayerId, phase: Any) -> Chose:
    """``new_chose(player=player, phase=phase)``, remembered in ``known``."""
    event: Chose = _remember(known, player, new_chose(player=player, phase=phase))
    return event


_TAKEN: dict[tuple[PlayerId, int, str | None], MaterialResult] = {}
_WASTED: dict[tuple[PlayerId, int, int], GiftResult] = {}
"""The shared results of one seat taking a material alone (by player, slot and the card's
name if it lands face up) and of a wasted speed point (player, gift, slot): the same in
every round and rollout they recur in, like :data:`_FIRST_PICK`. Their lists are never
changed (events are read only)."""


def _taken(player: PlayerId, slot: int, material: str | None) -> MaterialResult:
    """T-3.1: ``player`` alone took the material in ``slot``; ``material`` is its name
    if it landed face up (None: face down, unnamed)."""
    key = (player, slot, material)
    result: MaterialResult = _TAKEN.get(key) or _remember(
        _TAKEN,
        key,
        _material_result(
            {
                "slot": slot,
                "pointers": [player],
                "result": "taken",
                "taker": player,
                "face_down": material is None,
                "material": material,
            }
        ),
    )
    return result


def _wasted(player: PlayerId, gift: int, slot: int) -> GiftResult:
    """T-4: ``player`` pointed at a gift their workbench cannot pay; it stays open."""
    key = (player, gift, slot)
    result: GiftResult = _WASTED.get(key) or _remember(
        _WASTED,
        key,
        _gift_result(
            {
                "result": "wasted",
                "gift": GIFT_NAMES[gift],
                "category": GIFT_CATEGORY[gift],
                "slot": slot,
                "pointers": [player],
                "contenders": [],
                "offers": {},
                "winner": None,
                "paid": [],
                "face_down_paid": None,
            }
        ),
    )
    return result


_next_state = successor_of(TonttuState)
"""The state whose field values are ``values`` (a changed copy of another state's
``__dict__``, taken over as is; ``engine.core.successor_of``)."""


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    """``values`` with item ``i`` replaced."""
    changed = list(values)
    changed[i] = value
    return tuple(changed)


# --------------------------------------------------------------------------- apply


def apply_action(
    state: TonttuState, player: PlayerId, action: Any, events: bool = True
) -> tuple[TonttuState, list[Any]]:
    """``GAME.apply``: the checks (game over, timer, seat, phase), then the move.

    ``action`` may be anything a caller hands over; whatever is not one of the game's
    actions with fields of the right types (a dict, ``None``, a string, a model built
    without validation) is refused with :class:`IllegalAction`, never a ``KeyError``,
    ``TypeError`` or ``AttributeError`` from deeper in.

    ``events=False`` (:func:`advance`): the same next state, without building the
    events (the list returned is empty). A refusal (:class:`~engine.core.RuleError`)
    names the ``action`` and the ``player``.
    """
    d = state.__dict__  # the fields, read from the dict: cheaper than pydantic's attributes
    try:  # costs nothing until something is raised
        phase = d["phase"]
        if phase == "over":
            raise GameOver("The game is over; no more moves can be made.")
        try:
            kind = action.kind
        except Exception:  # not an action at all
            kind = None
        if player == TIMER:
            if kind == "close_point_phase" and phase == "point" and d["mode"] == "speed":
                return _close_point_phase(d, events)
            raise IllegalAction("The timer can only close an open speed point phase.")
        try:
            seat = d["players"].index(player)
        except ValueError:
            raise NotInGame("You are not playing in this game.") from None
        if phase == "pick":
            if kind != "pick":
                raise IllegalAction("It is the pick phase: choose one of your hand cards.")
            return _pick(d, seat, action, events)
        if kind == "point_gift":
            gift = getattr(action, "gift", None)
            middle_gifts = d["middle_gifts"]
            if type(gift) is not int or gift not in middle_gifts:
                raise IllegalAction("That gift is not in the middle; point at a card that is.")
            slot = middle_gifts.index(gift)
            code = gift
        elif kind == "point_material":
            wanted_slot = getattr(action, "slot", None)
            face_down = getattr(action, "face_down", True)  # T-3.1's default
            if type(face_down) is not bool:
                raise IllegalAction("Say whether the material should go face down: yes or no.")
            if type(wanted_slot) is not int:
                raise IllegalAction("Name the face-down material by its slot number.")
            slot = wanted_slot
            materials = d["middle_materials"]
            if not 0 <= slot < len(materials) or materials[slot] is None:
                raise IllegalAction(
                    "There is no face-down material in slot {slot}; point at a card that is.",
                    slot=slot + 1,
                )
            code = (MATERIAL_POINT if face_down else MATERIAL_POINT_UP) + slot
        else:
            raise IllegalAction("It is the point phase: point at a gift or a face-down material.")
        if d["mode"] == "speed":
            return _speed_point(d, seat, code, slot, events)
        return _tactical_point(d, seat, code, events)
    except RuleError as error:
        error.naming(action=action, player=player)
        raise


def advance(state: TonttuState, player: PlayerId, action: Any) -> TonttuState:
    """The state after ``action``, as :func:`apply_action` makes it, without its events:
    what a computer player's search applies (it never reads them, and they are most of
    the objects a move makes). Refuses what ``apply_action`` refuses."""
    return apply_action(state, player, action, False)[0]


def _pick(d: dict[str, Any], seat: int, action: Any, events: bool) -> tuple[TonttuState, list[Any]]:
    """T-2.1: a secret pick (or a replaced one); the last missing pick reveals them all."""
    hands = d["hands"]
    hand = hands[seat]
    if not hand:
        raise NotYourTurn("Your hand is empty, so you skip this pick.")
    material = getattr(action, "material", None)
    if type(material) is not str or material not in MATERIAL_IDS:
        # the names are T-1.2's, checked when the card data loads
        raise IllegalAction("Name the material to pick: one of Wood, Wool, Metal, Paint, Gold.")
    wanted = MATERIAL_IDS[material]
    for card in hand:
        if MATERIAL_TYPE[card] == wanted:
            break
    else:
        raise IllegalAction("You have no {material} in your hand.", material=Term(material))
    choices = list(d["choices"])
    replaced = choices[seat] is not None
    choices[seat] = card
    player = d["players"][seat]
    if replaced:
        event = new_chose(player=player, phase="pick", replaced=True)
    else:
        event = _FIRST_PICK.get(player) or _first_choice(_FIRST_PICK, player, "pick")
    # someone still has to pick: a seat without a choice, whose hand is not empty (T-2.5)
    if None in choices and (
        () not in hands or any(c is None and h for c, h in zip(choices, hands, strict=True))
    ):
        values = d.copy()
        values["choices"] = tuple(choices)
        return _next_state(values), [event] if events else []
    return _reveal_picks(d, choices, event, events)


def _reveal_picks(
    d: dict[str, Any], choices: list[int | None], first: Chose, events: bool
) -> tuple[TonttuState, list[Any]]:
    """T-2.1: all picks go face up onto their owners' workbenches at once."""
    players = d["players"]
    hands = list(d["hands"])
    face_up = list(d["face_up"])
    picks: dict[PlayerId, str] = {}
    skipped: list[PlayerId] = []
    for seat, card in enumerate(choices):
        if card is None:
            skipped.append(players[seat])
            continue
        hand = hands[seat]
        i = hand.index(card)
        hands[seat] = hand[:i] + hand[i + 1 :]
        face_up[seat] = (*face_up[seat], card)
        picks[players[seat]] = CARD_NAME[card]
    values = d.copy()
    values["hands"] = tuple(hands)
    values["face_up"] = tuple(face_up)
    values["phase"] = "point"
    values["choices"] = NO_CHOICES[len(choices)]
    if not events:
        return _next_state(values), []
    reveal = _picks_revealed(
        {"kind": "picks_revealed", "round": d["round"], "picks": picks, "skipped": skipped}
    )
    return _next_state(values), [first, reveal]


def _tactical_point(
    d: dict[str, Any], seat: int, code: int, events: bool
) -> tuple[TonttuState, list[Any]]:
    """T-2.2: a secret point (or a replaced one); the last missing point resolves them all."""
    choices = list(d["choices"])
    replaced = choices[seat] is not None
    choices[seat] = code
    player = d["players"][seat]
    if replaced:
        event = new_chose(player=player, phase="point", replaced=True)
    else:
        event = _FIRST_POINT.get(player) or _first_choice(_FIRST_POINT, player, "point")
    values = d.copy()
    if None in choices:
        values["choices"] = tuple(choices)
        return _next_state(values), [event] if events else []
    return _resolve_points(d, values, choices, event, events)


def _resolve_points(
    d: dict[str, Any],
    values: dict[str, Any],
    choices: list[int | None],
    first: Chose,
    events: bool,
) -> tuple[TonttuState, list[Any]]:
    """T-3: reveal every point and resolve them together, in middle slot order."""
    players = d["players"]
    # the seats pointing at each code, in seat order (one pass over the choices)
    pointed: dict[int | None, list[int]] = {}
    for seat, code in enumerate(choices):
        if code in pointed:
            pointed[code].append(seat)
        else:
            pointed[code] = [seat]
    face_up = list(d["face_up"])
    face_down = list(d["face_down"])
    gift_results: list[GiftResult] = []
    middle_gifts = d["middle_gifts"]
    won_any = False
    for slot, gift in enumerate(middle_gifts):
        if gift is None or gift not in pointed:
            continue
        pointers = pointed[gift]
        contenders: list[int] = []
        pointer_names: list[PlayerId] = []
        contender_names: list[PlayerId] = []
        for s in pointers:
            name = players[s]
            pointer_names.append(name)
            if _can_pay(face_up[s], face_down[s], gift):
                contenders.append(s)
                contender_names.append(name)
        if not contenders:
            if events:
                gift_results.append(
                    _gift_result(
                        {
                            "result": "nobody_can_pay",
                            "gift": GIFT_NAMES[gift],
                            "category": GIFT_CATEGORY[gift],
                            "slot": slot,
                            "pointers": pointer_names,
                            "contenders": [],
                            "offers": {},
                            "winner": None,
                            "paid": [],
                            "face_down_paid": None,
                        }
                    )
                )
            continue
        named_offers: dict[PlayerId, int] = {}
        if len(contenders) == 1:
            winner = contenders[0]
            pay = _pay_exact
        else:
            offers = {s: _offer(face_up[s], face_down[s], gift) for s in contenders}
            named_offers = {players[s]: o for s, o in offers.items()}
            best = max(offers.values())
            top = [s for s, o in offers.items() if o == best]
            if len(top) > 1:  # T-3.2: a tie for highest: nobody gets it, nobody pays
                if events:
                    gift_results.append(
                        _gift_result(
                            {
                                "result": "tie",
                                "gift": GIFT_NAMES[gift],
                                "category": GIFT_CATEGORY[gift],
                                "slot": slot,
                                "pointers": pointer_names,
                                "contenders": contender_names,
                                "offers": named_offers,
                                "winner": None,
                                "paid": [],
                                "face_down_paid": None,
                            }
                        )
                    )
                continue
            winner = top[0]
            pay = _pay_offer
        # T-3.2, T-3.3: the winner pays (to the discard pile) and takes the gift
        up, down, paid, paid_down = pay(face_up[winner], face_down[winner], gift)
        face_up[winner] = up
        face_down[winner] = down
        values["discard"] += tuple(paid)
        if not won_any:
            won_any = True
            middle = list(middle_gifts)
            won = list(d["won"])
            scores = list(d["scores"])
        middle[slot] = None
        won_cards = (*won[winner], gift)
        won[winner] = won_cards
        scores[winner] = score(won_cards)
        if events:
            gift_results.append(
                _gift_result(
                    {
                        "result": "won",
                        "gift": GIFT_NAMES[gift],
                        "category": GIFT_CATEGORY[gift],
                        "slot": slot,
                        "pointers": pointer_names,
                        "contenders": contender_names,
                        "offers": named_offers,
                        "winner": players[winner],
                        "paid": list(map(CARD_NAME.__getitem__, paid)),
                        "face_down_paid": None if paid_down is None else CARD_NAME[paid_down],
                    }
                )
            )
    if won_any:
        values["middle_gifts"] = tuple(middle)
        values["won"] = tuple(won)
        values["scores"] = tuple(scores)
        values["gift_won_this_round"] = True
    material_results: list[MaterialResult] = []
    materials = d["middle_materials"]
    taken_any = False
    for slot, card in enumerate(materials):
        if card is None:
            continue
        takers = pointed.get(MATERIAL_POINT + slot)  # the seats pointing at it
        face_up_wanted = pointed.get(MATERIAL_POINT_UP + slot)  # … asking for face up (T-3.1)
        if face_up_wanted is not None:
            takers = sorted(face_up_wanted if takers is None else takers + face_up_wanted)
        if takers is None:
            continue
        if len(takers) > 1:  # T-3.1: two or more pointers, nothing happens
            if events:
                material_results.append(
                    _material_result(
                        {
                            "slot": slot,
                            "pointers": [players[s] for s in takers],
                            "result": "contested",
                            "taker": None,
                            "face_down": False,
                            "material": None,
                        }
                    )
                )
            continue
        if not taken_any:
            taken_any = True
            middle_materials = list(materials)
        middle_materials[slot] = None
        taken = _take_material(
            face_up, face_down, takers[0], players, card, slot, face_up_wanted is None, events
        )
        if taken is not None:
            material_results.append(taken)
    if taken_any:
        values["middle_materials"] = tuple(middle_materials)
    values["face_up"] = tuple(face_up)
    values["face_down"] = tuple(face_down)
    if not events:
        return _end_round(d, values, False)
    reveal = _points_revealed(
        {
            "kind": "points_revealed",
            "round": d["round"],
            "gifts": gift_results,
            "materials": material_results,
        }
    )
    new_state, end_events = _end_round(d, values, True)
    return new_state, [first, reveal, *end_events]


def _take_material(
    face_up: list[tuple[int, ...]],
    face_down: list[int | None],
    seat: int,
    players: tuple[PlayerId, ...],
    card: int,
    slot: int,
    wants_face_down: bool,
    events: bool,
) -> MaterialResult | None:
    """T-3.1: the card goes face down if the seat has none face down (T-3.4) and chose
    so with its point (the default), else face up. The event, if ``events``."""
    if wants_face_down and face_down[seat] is None:
        face_down[seat] = card
        landed = None  # face down: the card stays unnamed
    else:
        face_up[seat] = (*face_up[seat], card)
        landed = CARD_NAME[card]
    return _taken(players[seat], slot, landed) if events else None


def _speed_point(
    d: dict[str, Any], seat: int, code: int, slot: int, events: bool
) -> tuple[TonttuState, list[Any]]:
    """T-4: the point resolves at once, in apply order; each seat points once."""
    choices = list(d["choices"])
    if choices[seat] is not None:
        raise NotYourTurn("You have already pointed this round.")
    players = d["players"]
    player = players[seat]
    values = d.copy()
    gift_result: GiftResult | None = None
    material_result: MaterialResult | None = None
    if code < MATERIAL_POINT:
        gift = code
        face_up = d["face_up"]
        face_down = d["face_down"]
        if _can_pay(face_up[seat], face_down[seat], gift):
            up, _, paid, paid_down = _pay_exact(face_up[seat], face_down[seat], gift)
            # the seat's items replaced in lists: cheaper than a helper per tuple
            workbenches = list(face_up)
            workbenches[seat] = up
            values["face_up"] = tuple(workbenches)
            if paid_down is not None:
                downs = list(face_down)
                downs[seat] = None
                values["face_down"] = tuple(downs)
            values["discard"] = d["discard"] + tuple(paid)  # T-3.3
            gifts = list(d["middle_gifts"])
            gifts[slot] = None
            values["middle_gifts"] = tuple(gifts)
            won = list(d["won"])
            won[seat] = won_cards = (*won[seat], gift)
            values["won"] = tuple(won)
            scores = list(d["scores"])
            scores[seat] = score(won_cards)
            values["scores"] = tuple(scores)
            values["gift_won_this_round"] = True
            if events:
                gift_result = _gift_result(
                    {
                        "result": "won",
                        "gift": GIFT_NAMES[gift],
                        "category": GIFT_CATEGORY[gift],
                        "slot": slot,
                        "pointers": [player],
                        "contenders": [player],
                        "offers": {},
                        "winner": player,
                        "paid": list(map(CARD_NAME.__getitem__, paid)),
                        "face_down_paid": None if paid_down is None else CARD_NAME[paid_down],
                    }
                )
        elif events:  # a wasted point: the gift stays open
            gift_result = _wasted(player, gift, slot)
    else:
        materials = d["middle_materials"]
        card = materials[slot]
        assert card is not None
        values["middle_materials"] = _put(materials, slot, None)
        face_down = d["face_down"]
        if code < MATERIAL_POINT_UP and face_down[seat] is None:  # T-3.1
            values["face_down"] = _put(face_down, seat, card)
            landed = None  # face down: the card stays unnamed
        else:
            face_up = d["face_up"]
            values["face_up"] = _put(face_up, seat, (*face_up[seat], card))
            landed = CARD_NAME[card]
        if events:
            material_result = _taken(player, slot, landed)
    choices[seat] = code
    out: list[Any] = []
    if events:
        out.append(
            _speed_point_event(
                {
                    "kind": "speed_point",
                    "round": d["round"],
                    "player": player,
                    "gift": gift_result,
                    "material": material_result,
                }
            )
        )
    if None in choices:
        values["choices"] = tuple(choices)
        return _next_state(values), out
    new_state, end_events = _end_round(d, values, events)
    return new_state, out + end_events


def _close_point_phase(d: dict[str, Any], events: bool) -> tuple[TonttuState, list[Any]]:
    """T-4: the table's timer ran out; seats that did not point simply missed out."""
    if not events:
        return _end_round(d, d.copy(), False)
    missed = [p for p, c in zip(d["players"], d["choices"], strict=True) if c is None]
    event = _point_phase_closed(
        {"kind": "point_phase_closed", "round": d["round"], "missed": missed}
    )
    new_state, end_events = _end_round(d, d.copy(), True)
    return new_state, [event, *end_events]


# --------------------------------------------------------------------------- end of round


class _Deck:
    """The material deck and discard pile while a round ends (T-2.4: reshuffle the
    discard pile into a new deck when the deck runs out)."""

    __slots__ = ("deck", "discard", "reshuffles", "rng", "seed_rng")

    def __init__(self, deck: tuple[int, ...], discard: tuple[int, ...], rng: int) -> None:
        self.deck = deck
        self.discard = discard
        self.reshuffles = 0
        self.rng: Rng | None = None
        self.seed_rng = rng

    def take(self, count: int) -> tuple[int, ...]:
        """Up to ``count`` cards from the top, as one card at a time would: when the deck
        runs out and more are needed, the discard pile is shuffled into a new deck
        (T-2.4). Fewer only when deck and discard are both empty."""
        taken: tuple[int, ...] = ()
        while len(taken) < count:
            deck = self.deck
            if not deck:
                if not self.discard:
                    break
                if self.rng is None:
                    self.rng = Rng(self.seed_rng)
                deck = self.rng.shuffled(self.discard)
                self.discard = ()
                self.reshuffles += 1
            need = count - len(taken)
            taken += deck[:need]
            self.deck = deck[need:]
        return taken


def _end_round(
    d: dict[str, Any], values: dict[str, Any], events: bool
) -> tuple[TonttuState, list[Any]]:
    """T-2.3 in order: refill; game end; pass hands or discard, flip and redeal.

    ``d`` holds the old state's fields (its ``__dict__``, read only), ``values`` the table
    as the round's points left it (the next state's ``__dict__``); ``values`` is
    completed here and becomes the next state. The round's events, if ``events``."""
    players = d["players"]
    n = len(players)
    # refill the gifts from the stack, in slot order
    stack = d["gift_stack"]
    middle_gifts = values["middle_gifts"]
    refilled: list[str] = []
    if stack and None in middle_gifts:
        middle = list(middle_gifts)
        slot = -1
        for new in stack[: middle.count(None)]:  # the empty slots in order, while gifts last
            slot = middle.index(None, slot + 1)
            middle[slot] = new
            refilled.append(GIFT_NAMES[new])
        stack = stack[len(refilled) :]
        values["middle_gifts"] = tuple(middle)
    # refill the face-down materials, in slot order, from the top of the deck
    top = values["deck"]
    deck: _Deck | None = None  # made when the deck may run out (T-2.4) or for a new deal
    materials = values["middle_materials"]
    materials_refilled = 0
    if None in materials:
        middle = list(materials)
        empty = middle.count(None)
        if empty <= len(top):
            cards = top[:empty]
            top = top[empty:]
        else:
            deck = _Deck(top, values["discard"], d["rng"])
            cards = deck.take(empty)  # T-2.4: empty slots stay empty at the end
        slot = -1
        for card in cards:
            slot = middle.index(None, slot + 1)
            middle[slot] = card
        materials_refilled = len(cards)
        values["middle_materials"] = tuple(middle)
    gift_won = values["gift_won_this_round"]
    without = 0 if gift_won else d["rounds_without_gift"] + 1
    values["gift_stack"] = stack
    values["choices"] = NO_CHOICES[n]
    values["gift_won_this_round"] = False
    values["rounds_without_gift"] = without
    end_reason: Any = None
    if not stack:
        end_reason = "gift_stack_empty"
    elif without >= ROUNDS_WITHOUT_GIFT_LIMIT:
        end_reason = "no_gift_for_10_rounds"  # T-2.5
    passed = rotation = None
    discarded = 0
    dealt: dict[PlayerId, int] = {}
    hands = values["hands"]
    if end_reason is not None:
        values["phase"] = "over"
        values["end_reason"] = end_reason
    elif d["deal_round"] < ROUNDS_PER_DEAL:
        # T-2.3: pass the whole remaining hand the way the rotation card shows.
        passed = d["rotation"]
        hands = hands[-1:] + hands[:-1] if passed == "left" else hands[1:] + hands[:1]
        values["hands"] = hands
        values["deal_round"] = d["deal_round"] + 1
    else:
        # T-2.3: after the 4th round of a deal: discard, flip the rotation card, deal 5.
        discarded = sum(map(len, hands))
        if deck is None:
            deck = _Deck(top, values["discard"], d["rng"])
        deck.discard = tuple(chain(deck.discard, *hands))
        rotation = "right" if d["rotation"] == "left" else "left"
        # one card at a time in seat order; T-2.4: what there is, if the cards run out
        cards = deck.take(HAND_SIZE * n)
        hands = tuple(cards[seat::n] for seat in range(n))
        values["hands"] = hands
        values["rotation"] = rotation
        values["deal_round"] = 1
        values["short_deal"] = len(cards) < HAND_SIZE * n
        dealt = dict(zip(players, map(len, hands), strict=True))
    reshuffled = 0
    if deck is None:
        values["deck"] = top
    else:
        values["deck"] = deck.deck
        values["discard"] = deck.discard
        reshuffled = deck.reshuffles
        if deck.rng is not None:
            values["rng"] = deck.rng.state
    if end_reason is None:
        values["round"] = d["round"] + 1
        # T-2.5: with every hand empty there is nothing to pick; go straight to pointing.
        values["phase"] = "pick" if any(hands) else "point"
    new_state = _next_state(values)
    if not events:
        return new_state, []
    round_ended = _round_ended(
        {
            "kind": "round_ended",
            "round": d["round"],
            "gift_won": gift_won,
            "gifts_refilled": refilled,
            "materials_refilled": materials_refilled,
            "passed": passed,
            "discarded": discarded,
            "rotation": rotation,
            "dealt": dealt,
            "reshuffled": reshuffled,
        }
    )
    if end_reason is None:
        return new_state, [round_ended]
    ended = _game_ended(
        {
            "kind": "game_ended",
            "reason": end_reason,
            "scores": dict(zip(players, values["scores"], strict=True)),
            "winners": winners(new_state),
        }
    )
    return new_state, [round_ended, ended]
