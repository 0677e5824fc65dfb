"""The rules of Santa's Workshop (W-1 … W-7) as pure functions over :class:`WorkshopState`.

Hot-path notes: every legal action is a prebuilt, shared, immutable object (so
``legal_actions`` only picks from tables and ``apply`` recognises its own actions
by identity); ``apply`` gathers the changed fields in a small transaction object
and builds the next state with one ``replace`` (a lean, self-checked equivalent of
``model_copy(update=...)``), sharing every unchanged tuple and :class:`Seat` with
the previous state. The hot functions read a state's fields from its ``__dict__``
(``d["phase"]``, not ``s.phase``): a pydantic model defines ``__getattr__``, which keeps
CPython from specialising attribute reads on it: each costs about one and a half dict
subscripts.

One file, over a thousand lines, on purpose: the rules are one state machine of
decision points (an Elf's station, then its tokens, then a toy; an ornament, then its
reward, then a tree space; a day's end and its inspection), each decision's legal
actions beside what applying it does, in the order of docs/rules.md W-1 … W-6. Split
by decision, each part would still need the shared transaction, tables and helpers
above it, and a reader following one turn would go back and forth between files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from engine.core import (
    IllegalAction,
    InvalidSetup,
    Model,
    PlayerId,
    Rng,
    RuleError,
    check_action,
    check_can_act,
)
from engine.models import (
    _lean_evolve,
    constructor,
    evolve,
    successor_of,
)
from engine.words import N_, Term
from engine.workshop import names
from engine.workshop.data import CHOICE_MATERIALS, COMPONENTS, MATERIALS, TOKENS_PER_TYPE
from engine.workshop.models import (
    ACTION_ADAPTER,
    REASONS,
    STATIONS,
    Action,
    ChoiceLost,
    ChooseMaterial,
    ChooseOrnament,
    CoverSpace,
    DayEnded,
    DeckReshuffled,
    DonateTokens,
    ElfPlaced,
    Event,
    GameEnded,
    Inspection,
    OrnamentPlaced,
    OrnamentRevealed,
    Phase,
    PlaceElf,
    PlaceTokens,
    PlayerOutcome,
    ReindeerTaken,
    Scored,
    Seat,
    StopTaking,
    TakeDonated,
    TakeReindeer,
    TakeToy,
    Tokens,
    TokensDonated,
    TokensPlaced,
    TokensReceived,
    Toy,
    ToyCompleted,
    ToyTaken,
    WorkshopOptions,
    WorkshopOutcome,
    WorkshopState,
)

C = COMPONENTS
REQ = C.toy_req
TOY_POINTS = C.toy_points
TOY_NAMES = C.toy_names
N_REWARDS = len(C.rewards)
N_COLOURS = len(C.colours)

DAYS = 6
ELVES = 3
MAX_UNFINISHED = 4 + 1  # W-4.2
MAIL_SLOTS = 6
STALLS = 3
INSPECTION_DAYS = (3, 6)
INSPECTION_POINTS = (8, 4, 2, 1)  # W-5.2
REINDEER_POINTS = (0, 1, 3, 6, 9, 12, 16, 20, 25, 31)  # W-6.1, by distinct names
DUPLICATE_REINDEER_POINTS = 2

DONATION = 4
MAIL3, MAIL2 = 5, 6
STABLES = 7
TREE1, TREE2 = 8, 9
CAPACITY = (4, 4, 4, 4, 0, 1, 1, 3, 1, 1)
"""Spaces per station (W-3); 0 = open (any number)."""
MAIL_TAKE = {MAIL3: 3, MAIL2: 2}
# the decision points as module constants: a global is read faster than a class attribute
P_STATION = Phase.STATION
P_MAIL = Phase.MAIL
P_REINDEER = Phase.REINDEER
P_CHOOSE = Phase.CHOOSE
P_PLACE = Phase.PLACE
P_ORNAMENT = Phase.ORNAMENT
P_SPACE = Phase.SPACE
P_DONATION = Phase.DONATION
P_OVER = Phase.OVER
R_TOY, R_COOP, R_DONATION, R_ORNAMENT, R_TREE, R_INSPECTION, R_UNFINISHED, R_REINDEER = REASONS

STATION_NAMES = names.STATION_NAMES
"""A station's (English) name by its id: ``engine.workshop.names``."""

# --------------------------------------------------------------------------- events
# Built without validation from values made here (engine.core.constructor); the
# playout tests check that every event equals its JSON round-trip.

# Events whose fields are all scalars are shared: the same values give the same frozen
# instance (the same Elf placements, token moves and scores recur in every rollout).
new_choice_lost = constructor(ChoiceLost, shared=True)
new_day_ended = constructor(DayEnded, shared=True)
new_deck_reshuffled = constructor(DeckReshuffled, shared=True)
new_elf_placed = constructor(ElfPlaced, shared=True)
new_game_ended = constructor(GameEnded)
new_inspection = constructor(Inspection)
new_ornament_placed = constructor(OrnamentPlaced, shared=True)
new_ornament_revealed = constructor(OrnamentRevealed, shared=True)
new_reindeer_taken = constructor(ReindeerTaken, shared=True)
new_scored = constructor(Scored, shared=True)
new_tokens_donated = constructor(TokensDonated, shared=True)
new_tokens_placed = constructor(TokensPlaced, shared=True)
new_tokens_received = constructor(TokensReceived, shared=True)
new_toy_completed = constructor(ToyCompleted, shared=True)
new_toy_taken = constructor(ToyTaken, shared=True)


# --------------------------------------------------------------------------- copying

_lean_replace = _lean_evolve
replace = evolve
"""Copy a state or seat with some fields replaced (structural sharing, no validation);
``engine.core.evolve``, kept under this name for the tests and helpers that use it."""


_next_state = successor_of(WorkshopState)
_next_seat = successor_of(Seat)


def _seat_with(seat: Seat, name: str, value: Any) -> Seat:
    """A copy of ``seat`` with one field replaced (``engine.core.successor_of`` on the
    changed values: every field counts as set, as in every seat ``new_state`` makes)."""
    values = seat.__dict__.copy()
    values[name] = value
    return _next_seat(values)


# --------------------------------------------------------------------------- action tables

A_PLACE_ELF = tuple(PlaceElf(station=s) for s in STATIONS)
A_TAKE_SLOT = tuple(TakeToy(slot=k) for k in range(MAIL_SLOTS))
A_TAKE_DECK = TakeToy(slot=None)
A_STOP = StopTaking()
A_REINDEER = tuple(TakeReindeer(stall=k) for k in range(STALLS))
A_CHOOSE = tuple(ChooseMaterial(material=MATERIALS[t]) for t in CHOICE_MATERIALS)  # type: ignore[arg-type]
A_ORNAMENT = tuple(ChooseOrnament(colour=c) for c in C.colours)
A_COVER = tuple(CoverSpace(space=s) for s in C.tree_space_ids)
A_PLACE_TOKENS = tuple(
    tuple(
        tuple(PlaceTokens(material=MATERIALS[t], toy=card, count=n) for n in range(4))  # type: ignore[arg-type]
        for card in range(C.toy_count)
    )
    for t in range(4)
)
"""``A_PLACE_TOKENS[t][card][n]``; a toy needs at most 3 of one type (index 0 unused)."""
A_TAKE_DONATED = tuple(
    tuple(TakeDonated(material=MATERIALS[t], toy=card) for card in range(C.toy_count))  # type: ignore[arg-type]
    for t in range(4)
)
A_DONATE = tuple(
    tuple(DonateTokens(material=MATERIALS[t], count=n) for n in range(TOKENS_PER_TYPE + 1))  # type: ignore[arg-type]
    for t in range(4)
)
STATION_INDEX = {s: i for i, s in enumerate(STATIONS)}
MATERIAL_INDEX = {m: i for i, m in enumerate(MATERIALS)}
COLOUR_INDEX = {c: i for i, c in enumerate(C.colours)}
SPACE_INDEX = {s: i for i, s in enumerate(C.tree_space_ids)}


def reindeer_points(cards: Sequence[int]) -> int:
    """W-6.1: by distinct names, plus 2 per card beyond the first copy of a name."""
    distinct = len({C.reindeer_card_name[c] for c in cards})
    return REINDEER_POINTS[distinct] + DUPLICATE_REINDEER_POINTS * (len(cards) - distinct)


def toy_need(toy: Toy, t: int) -> int:
    return REQ[toy[0]][t] - toy[1 + t]


def needs_type(toys: Sequence[Toy], t: int) -> bool:
    return bool(needed_types(toys) >> t & 1)


NEEDS: dict[Toy, int] = {}
"""Unfinished toy (card and tokens placed) → bit mask of the token types it still needs
(bit ``t`` for type ``t``): every reachable toy, computed once at import."""


def _fill_needs() -> None:
    for card, req in enumerate(REQ):
        for w in range(req[0] + 1):
            for m in range(req[1] + 1):
                for f in range(req[2] + 1):
                    for a in range(req[3] + 1):
                        placed = (w, m, f, a)
                        mask = sum(1 << t for t in range(4) if placed[t] < req[t])
                        NEEDS[(card, w, m, f, a)] = mask


_fill_needs()


def needed_types(toys: Sequence[Toy]) -> int:
    """Bit mask of the token types some of ``toys`` still needs."""
    mask = 0
    for toy in toys:
        mask |= NEEDS[toy]
    return mask


def current_seat(s: WorkshopState) -> int:
    return (s.first + s.turn) % len(s.players)


def elves_left(s: WorkshopState, seat: int) -> int:
    """Elves a seat has not yet placed today (W-2.2)."""
    n = len(s.players)
    placed = (s.turn - ((seat - s.first) % n) + n - 1) // n
    return ELVES - max(0, placed)


# --------------------------------------------------------------------------- legality


def _can_take_toy(s: WorkshopState, seat: Seat) -> bool:
    """W-3.3: fewer than 5 unfinished and some card in a slot, the deck or the sleigh."""
    if len(seat.toys) >= MAX_UNFINISHED:
        return False
    return bool(s.deck or s.sleigh) or any(c >= 0 for c in s.mail)


def _donation_fits(donation: Tokens, toys: Sequence[Toy]) -> bool:
    need = needed_types(toys)
    return bool(
        (donation[0] and need & 1)
        or (donation[1] and need & 2)
        or (donation[2] and need & 4)
        or (donation[3] and need & 8)
    )


def station_refusal(s: WorkshopState, seat_index: int, station: int) -> IllegalAction | None:
    """Why an Elf cannot go to ``station`` now (the error, not raised), or None if it can."""
    seat = s.seats[seat_index]
    capacity = CAPACITY[station]
    if capacity and len(s.spaces[station]) >= capacity:
        name = Term(STATION_NAMES[STATIONS[station]])
        return IllegalAction("The {station} is full today.", station=name)
    if station == DONATION:
        if not _donation_fits(s.donation, seat.toys):
            return IllegalAction("No token in the Donation Center fits your unfinished toys.")
    elif station in MAIL_TAKE:
        if len(seat.toys) >= MAX_UNFINISHED:
            return IllegalAction("You already hold {n} unfinished toys.", n=MAX_UNFINISHED)
        if not _can_take_toy(s, seat):
            return IllegalAction("There is no toy card left to take.")
    elif station == STABLES:
        if all(c < 0 for c in s.stalls):
            return IllegalAction("No reindeer is left in the Stables today.")
    elif station in (TREE1, TREE2):
        if -1 not in seat.tree:
            return IllegalAction("Your tree already holds {n} ornaments.", n=len(seat.tree))
        if not any(s.ornaments):
            return IllegalAction("No ornament is left.")
    return None


_last_legal: tuple[Any, tuple[Any, ...]] = (None, ())
"""One-entry cache (state, legal actions): ``apply`` right after ``legal_actions`` on the
same state object (every random playout and menu) then skips recomputing them. The
result is a pure function of the state, and the pair is replaced in one assignment,
so sharing it is safe even across threads."""


def legal_actions_of(s: WorkshopState) -> tuple[Any, ...]:
    """The current player's legal actions, as an immutable tuple (cached per state object)."""
    global _last_legal
    cached_state, cached = _last_legal
    if cached_state is s:
        return cached
    legal = legal_list(s)
    _last_legal = (s, legal)
    return legal


STATION_MENUS: tuple[tuple[PlaceElf, ...], ...] = tuple(
    tuple(A_PLACE_ELF[i] for i in range(len(STATIONS)) if open_stations >> i & 1)
    for open_stations in range(1 << len(STATIONS))
)
"""Bit mask of the stations an Elf may go to (bit ``i`` for station ``i``) → the menu."""

PLACE_ROWS: tuple[dict[Toy, tuple[PlaceTokens, ...]], ...] = tuple(
    {toy: A_PLACE_TOKENS[t][toy[0]][1 : REQ[toy[0]][t] - toy[1 + t] + 1] for toy in NEEDS}
    for t in range(4)
)
"""``PLACE_ROWS[t][toy]``: placing 1, 2, … of type ``t`` on ``toy``, up to what it needs."""


def legal_list(s: WorkshopState) -> tuple[Any, ...]:
    """The current player's legal actions (shared prebuilt objects), uncached."""
    d = s.__dict__  # the fields, read from the dicts: cheaper than pydantic's attributes
    phase = d["phase"]
    seat = d["seats"][(d["first"] + d["turn"]) % len(d["players"])].__dict__
    if phase == P_STATION:
        # the same conditions as station_refusal, inlined for speed (a test keeps them equal)
        spaces = d["spaces"]
        toys = seat["toys"]
        open_stations = 0
        if len(spaces[0]) < 4:
            open_stations = 1
        if len(spaces[1]) < 4:
            open_stations |= 2
        if len(spaces[2]) < 4:
            open_stations |= 4
        if len(spaces[3]) < 4:
            open_stations |= 8
        if _donation_fits(d["donation"], toys):
            open_stations |= 1 << DONATION
        if len(toys) < MAX_UNFINISHED and (d["deck"] or d["sleigh"] or max(d["mail"]) >= 0):
            if not spaces[MAIL3]:
                open_stations |= 1 << MAIL3
            if not spaces[MAIL2]:
                open_stations |= 1 << MAIL2
        if len(spaces[STABLES]) < 3 and max(d["stalls"]) >= 0:
            open_stations |= 1 << STABLES
        if min(seat["tree"]) < 0 and any(d["ornaments"]):
            if not spaces[TREE1]:
                open_stations |= 1 << TREE1
            if not spaces[TREE2]:
                open_stations |= 1 << TREE2
        return STATION_MENUS[open_stations]
    if phase == P_PLACE:
        batch = d["batch"]
        t = 0
        while not batch[t]:
            t += 1
        have = batch[t]
        rows = PLACE_ROWS[t]
        out: list[Any] = []
        for toy in seat["toys"]:
            row = rows[toy]
            if row:
                out += row[:have]
        out.append(A_DONATE[t][have])
        return tuple(out)
    if phase == P_DONATION:
        out = []
        donation = d["donation"]
        for t in range(4):
            if donation[t]:
                takes = A_TAKE_DONATED[t]
                bit = 1 << t
                for toy in seat["toys"]:
                    if NEEDS[toy] & bit:
                        out.append(takes[toy[0]])
        if d["taken"]:
            out.append(A_STOP)
        return tuple(out)
    if phase == P_CHOOSE:
        return tuple([A_CHOOSE[t] for t in CHOICE_MATERIALS if d["supply"][t] > d["batch"][t]])
    if phase == P_MAIL:
        out = [A_TAKE_SLOT[k] for k, card in enumerate(d["mail"]) if card >= 0]
        if d["deck"] or d["sleigh"]:
            out.append(A_TAKE_DECK)
        if d["taken"]:
            out.append(A_STOP)
        return tuple(out)
    if phase == P_REINDEER:
        return tuple([A_REINDEER[k] for k, card in enumerate(d["stalls"]) if card >= 0])
    if phase == P_ORNAMENT:
        return tuple([A_ORNAMENT[c] for c, left in enumerate(d["ornaments"]) if left])
    if phase == P_SPACE:
        return tuple([A_COVER[k] for k, orn in enumerate(seat["tree"]) if orn < 0])
    return ()


DECISION_SENTENCES = {
    P_STATION: N_("place an Elf"),
    P_MAIL: N_("take a toy card or stop"),
    P_REINDEER: N_("choose a reindeer"),
    P_CHOOSE: N_("choose a material"),
    P_PLACE: N_("place or donate your tokens"),
    P_ORNAMENT: N_("choose an ornament colour"),
    P_SPACE: N_("choose a space on your tree"),
    P_DONATION: N_("take a donated token or stop"),
}
"""What the player must do now, as the end of "you must …" (a ``Term``)."""


def refusal(s: WorkshopState, action: Any) -> IllegalAction:
    """Why ``action`` is not legal here: the error to raise, with its sentence."""
    if isinstance(action, PlaceElf) and s.phase == P_STATION:
        reason = station_refusal(s, current_seat(s), STATION_INDEX[action.station])
        if reason:
            return reason
    if isinstance(action, PlaceTokens) and s.phase == P_PLACE:
        return IllegalAction("That toy cannot take those tokens.")
    if isinstance(action, TakeToy) and s.phase == P_MAIL:
        return IllegalAction("That toy card cannot be taken.")
    if isinstance(action, StopTaking) and s.phase in (P_MAIL, P_DONATION):
        # W-3.3 / W-3.2: a visit may end early only after the first card or token
        if s.phase == P_MAIL:
            return IllegalAction("Take at least one toy card before you stop.")
        return IllegalAction("Take at least one donated token before you stop.")
    expected = Term(DECISION_SENTENCES.get(s.phase, N_("wait")))
    return IllegalAction("That is not possible now: you must {expected}.", expected=expected)


# --------------------------------------------------------------------------- transaction


class _Tx:
    """The changes one ``apply`` makes, gathered before building the next state.

    ``v`` starts as a copy of the state's field values and is changed in place (a
    dict subscript is the cheapest read and write Python has); it becomes the next
    state's ``__dict__`` in :meth:`build`. Only the sequences that change are
    replaced, by new tuples: every other value stays shared with the old state.
    Handlers read the old state's values from ``v`` too, before they change them (no
    pydantic attribute reads, see the module's notes).

    ``seats`` is read in place and replaced through :meth:`set_seat`, which notes the
    change (``seats_changed``), so that :meth:`build` knows without comparing them all.
    Made by :func:`_transaction`, not by calling the class (a Python ``__init__`` called
    from the class costs more than the stores it makes).
    """

    __slots__ = ("events", "players", "rng", "seats", "seats_changed", "v")

    v: dict[str, Any]
    seats: list[Seat]
    seats_changed: bool
    events: list[Any]
    rng: Rng | None
    players: tuple[PlayerId, ...]

    def random(self) -> Rng:
        if self.rng is None:
            self.rng = Rng(self.v["rng"])
        return self.rng

    def score(self, i: int, points: int, reason: str, detail: str = "", values: Any = None) -> None:
        """Seat ``i`` scores: a new seat, and the event. ``values``: the seat's field
        values with other changes already made (a copy of its ``__dict__``, taken over),
        so that the seat is copied once."""
        if values is None:
            values = self.seats[i].__dict__.copy()
        breakdown = list(values["breakdown"])
        breakdown[REASON_INDEX[reason]] += points
        values["score"] += points
        values["breakdown"] = tuple(breakdown)
        self.set_seat(i, _next_seat(values))
        self.events.append(
            new_scored(player=self.players[i], points=points, reason=reason, detail=detail)
        )

    def set_seat(self, i: int, seat: Seat) -> None:
        self.seats[i] = seat
        self.seats_changed = True

    def build(self) -> WorkshopState:
        """The next state. It takes ``v`` over as its ``__dict__``: call this once, last.
        The seats stay the old tuple itself if no seat was replaced."""
        v = self.v
        if self.seats_changed:
            v["seats"] = tuple(self.seats)
        if self.rng is not None:
            v["rng"] = self.rng.state
        return _next_state(v)


_new_tx = object.__new__


def _transaction(fields: dict[str, Any]) -> _Tx:
    """A new :class:`_Tx` for the move from the state whose ``__dict__`` is ``fields``."""
    tx: _Tx = _new_tx(_Tx)
    tx.v = fields.copy()
    tx.seats = list(fields["seats"])
    tx.seats_changed = False
    tx.events = []
    tx.rng = None
    tx.players = fields["players"]
    return tx


REASON_INDEX: dict[str, int] = {reason: k for k, reason in enumerate(REASONS)}


def _set_index(values: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return (*values[:i], value, *values[i + 1 :])


def _receive(tx: _Tx, seat: int, t: int, count: int) -> None:
    """W-1.4: tokens received are reserved in ``batch``; a short supply gives what is left."""
    v = tx.v
    batch = v["batch"]
    give = min(count, v["supply"][t] - batch[t])
    if give > 0:
        v["batch"] = (*batch[:t], batch[t] + give, *batch[t + 1 :])
    tx.events.append(
        new_tokens_received(
            player=tx.players[seat],
            material=MATERIALS[t],
            count=give,
            short=count - give,
        )
    )


def _put_on_toy(tx: _Tx, seat_index: int, card: int, t: int, count: int, from_batch: bool) -> None:
    """Place tokens on a toy (W-4.1); a filled toy completes at once (W-4.3)."""
    v = tx.v
    values = tx.seats[seat_index].__dict__.copy()  # the seat's next values
    toys = values["toys"]
    k = 0
    while toys[k][0] != card:
        k += 1
    toy = toys[k]
    new_toy = (*toy[: 1 + t], toy[1 + t] + count, *toy[2 + t :])
    player = tx.players[seat_index]
    tx.events.append(
        new_tokens_placed(
            player=player,
            material=MATERIALS[t],
            toy=TOY_NAMES[card],
            count=count,
            from_donation=not from_batch,
        )
    )
    if from_batch:
        supply = v["supply"]
        v["supply"] = supply = (*supply[:t], supply[t] - count, *supply[t + 1 :])
        batch = v["batch"]
        v["batch"] = (*batch[:t], batch[t] - count, *batch[t + 1 :])
    else:
        donation = v["donation"]
        v["donation"] = (*donation[:t], donation[t] - count, *donation[t + 1 :])
    req = REQ[card]
    if new_toy[1:] == req:
        supply = v["supply"]
        v["supply"] = (
            supply[0] + req[0],
            supply[1] + req[1],
            supply[2] + req[2],
            supply[3] + req[3],
        )
        values["toys"] = toys[:k] + toys[k + 1 :]
        values["completed"] = (*values["completed"], card)
        tx.events.append(new_toy_completed(player=player, toy=TOY_NAMES[card]))
        tx.score(seat_index, TOY_POINTS[card], R_TOY, TOY_NAMES[card], values)
    else:
        values["toys"] = (*toys[:k], new_toy, *toys[k + 1 :])
        tx.set_seat(seat_index, _next_seat(values))


def _donate(tx: _Tx, seat: int, t: int, count: int, automatic: bool) -> None:
    """W-4.1: donated tokens go to the Donation Center, +1 point each."""
    v = tx.v
    supply, donation, batch = v["supply"], v["donation"], v["batch"]
    v["supply"] = (*supply[:t], supply[t] - count, *supply[t + 1 :])
    v["donation"] = (*donation[:t], donation[t] + count, *donation[t + 1 :])
    v["batch"] = (*batch[:t], batch[t] - count, *batch[t + 1 :])
    tx.events.append(
        new_tokens_donated(
            player=tx.players[seat],
            material=MATERIALS[t],
            count=count,
            automatic=automatic,
        )
    )
    tx.score(seat, count, R_DONATION)


def _draw_toy(tx: _Tx) -> int:
    """Top card of the toy deck, reshuffling the sleigh when empty (W-3.6); -1 if none."""
    v = tx.v
    deck = v["deck"]
    if not deck:
        sleigh = v["sleigh"]
        if not sleigh:
            return -1
        deck = tx.random().shuffled(sleigh)
        v["sleigh"] = ()
        tx.events.append(new_deck_reshuffled(cards=len(deck)))
    v["deck"] = deck[:-1]
    return int(deck[-1])


def _take_toy(tx: _Tx, seat_index: int, slot: int | None) -> None:
    v = tx.v
    if slot is None:
        card = _draw_toy(tx)
    else:
        mail = v["mail"]
        card = mail[slot]
        v["mail"] = _set_index(mail, slot, _draw_toy(tx))
    seat = tx.seats[seat_index]
    tx.set_seat(seat_index, _seat_with(seat, "toys", (*seat.toys, (card, 0, 0, 0, 0))))
    tx.events.append(new_toy_taken(player=tx.players[seat_index], toy=TOY_NAMES[card], slot=slot))
    v["taken"] += 1
    v["mail_left"] -= 1


def _continue(tx: _Tx, seat_index: int) -> None:
    """Move to the next pending decision of this turn, or end the turn.

    Order: toy cards still to take, Materials of choice to name, received tokens
    to place (types no toy needs are donated automatically: the only legal
    choice, W-4.1), the tree space for an ornament in hand, then the next Elf.
    """
    v = tx.v
    if v["mail_left"] > 0:
        # as _can_take_toy: room for a toy, and a card in the deck, the sleigh or a slot
        if len(tx.seats[seat_index].toys) < MAX_UNFINISHED and (
            v["deck"] or v["sleigh"] or max(v["mail"]) >= 0
        ):
            v["phase"] = P_MAIL
            return
        v["mail_left"] = 0
    to_choose = v["to_choose"]
    if to_choose > 0:
        supply, batch = v["supply"], v["batch"]
        if supply[0] > batch[0] or supply[1] > batch[1] or supply[2] > batch[2]:
            v["phase"] = P_CHOOSE
            return
        tx.events.append(new_choice_lost(player=tx.players[seat_index], count=to_choose))
        v["to_choose"] = 0
    batch = v["batch"]
    if batch != NO_TOKENS:
        need = needed_types(tx.seats[seat_index].toys)
        for t in range(4):
            if batch[t]:
                if need >> t & 1:
                    v["phase"] = P_PLACE
                    return
                _donate(tx, seat_index, t, batch[t], automatic=True)
    if v["ornament"] >= 0:
        v["phase"] = P_SPACE
        return
    _end_turn(tx)


NO_TOKENS: Tokens = (0, 0, 0, 0)


def _end_turn(tx: _Tx) -> None:
    v = tx.v
    v["phase"] = P_STATION
    v["station"] = -1
    v["taken"] = 0
    turn = v["turn"] + 1
    v["turn"] = turn
    if turn == ELVES * len(tx.players):
        _end_day(tx)


def _end_day(tx: _Tx) -> None:
    """W-2.3: Elves home, stalls to the deck bottom, 3 new, Santa, Inspection, first player."""
    v = tx.v
    v["spaces"] = ((),) * len(STATIONS)
    deck = v["reindeer_deck"] + tuple([c for c in v["stalls"] if c >= 0])
    revealed = deck[:STALLS]
    v["stalls"] = revealed + (-1,) * (STALLS - len(revealed))
    v["reindeer_deck"] = deck[STALLS:]
    day = v["day"]
    last = day == DAYS
    first = v["first"] if last else (v["first"] + 1) % len(tx.players)
    tx.events.append(
        new_day_ended(
            day=day,
            stalls_revealed=len(revealed),
            first_player=None if last else tx.players[first],
        )
    )
    if day in INSPECTION_DAYS:
        _inspection(tx, INSPECTION_DAYS.index(day) + 1)
    if last:
        _final_scoring(tx)
        return
    v["day"] = day + 1
    v["first"] = first
    v["turn"] = 0


def _inspection(tx: _Tx, number: int) -> None:
    """W-5: Cheer, dense ranking 8/4/2/1, completed toys to the sleigh."""
    seats = [tx.seats[i] for i in range(len(tx.players))]
    cheer = [len(seat.completed) + sum(1 for o in seat.tree if o >= 0) for seat in seats]
    tx.events.append(new_inspection(number=number, cheer=dict(zip(tx.players, cheer, strict=True))))
    ranks = sorted(set(cheer), reverse=True)
    sleigh = list(tx.v["sleigh"])
    for i, seat in enumerate(seats):
        rank = ranks.index(cheer[i])
        sleigh.extend(seat.completed)
        values = seat.__dict__.copy()
        values["completed"] = ()
        values["cheer"] = (*values["cheer"], cheer[i])
        points = INSPECTION_POINTS[rank] if rank < len(INSPECTION_POINTS) else 0
        if points:
            tx.score(i, points, R_INSPECTION, f"Inspection {number}, Cheer {cheer[i]}", values)
        else:
            tx.set_seat(i, _next_seat(values))
    tx.v["sleigh"] = tuple(sleigh)


def _final_scoring(tx: _Tx) -> None:
    """W-6.1: tokens on unfinished toys, then reindeer."""
    for i in range(len(tx.players)):
        seat = tx.seats[i]
        tokens = sum(sum(toy[1:]) for toy in seat.toys)
        if tokens:
            tx.score(i, tokens, R_UNFINISHED, f"{tokens} tokens on unfinished toys")
        points = reindeer_points(seat.reindeer)
        if points:
            tx.score(i, points, R_REINDEER, f"{len(seat.reindeer)} reindeer")
    tx.v["phase"] = P_OVER
    # the outcome's scores and winners, without building (and validating) the outcome
    scores, winners = standings(tx.players, tx.seats)
    tx.events.append(new_game_ended(scores=scores, winners=winners))


def standings(
    players: Sequence[PlayerId], seats: Sequence[Seat]
) -> tuple[dict[PlayerId, int], list[PlayerId]]:
    """Scores by player and the winners (W-6.2): the most points; a tie goes to the
    most reindeer points; still tied, all of them win."""
    scores = {p: seat.score for p, seat in zip(players, seats, strict=True)}
    best = max(scores.values())
    top = [i for i, p in enumerate(players) if scores[p] == best]
    reindeer = {i: reindeer_points(seats[i].reindeer) for i in top}
    best_reindeer = max(reindeer.values())
    winners = [players[i] for i in top if reindeer[i] == best_reindeer]
    return scores, winners


def outcome_of(s: WorkshopState) -> WorkshopOutcome:
    """Scores, winners (W-6.2) and per-player detail of a finished game."""
    players = {}
    for player, seat in zip(s.players, s.seats, strict=True):
        players[player] = PlayerOutcome(
            breakdown=dict(zip(REASONS, seat.breakdown, strict=True)),
            reindeer=[C.reindeer_names[C.reindeer_card_name[c]] for c in seat.reindeer],
            unfinished_tokens=sum(sum(toy[1:]) for toy in seat.toys),
            cheer=list(seat.cheer),
            reindeer_points=reindeer_points(seat.reindeer),
        )
    scores, winners = standings(s.players, s.seats)
    return WorkshopOutcome(scores=scores, winners=winners, players=players)


# --------------------------------------------------------------------------- apply handlers


def _place_elf(tx: _Tx, seat_index: int, action: PlaceElf) -> None:
    v = tx.v
    station = action.station
    i = STATION_INDEX[station]
    spaces = v["spaces"]
    occupants = spaces[i]
    space = len(occupants)
    v["spaces"] = (*spaces[:i], (*occupants, seat_index), *spaces[i + 1 :])
    v["station"] = i
    v["taken"] = 0
    tx.events.append(new_elf_placed(player=tx.players[seat_index], station=station, space=space))
    if i < 4:
        # W-3.1: every player first scores 1 per Elf of theirs already here.
        if occupants:
            for owner in sorted(set(occupants)):
                tx.score(owner, occupants.count(owner), R_COOP, STATION_NAMES[station])
        _receive(tx, seat_index, i, space + 2)
        _continue(tx, seat_index)
    elif i == DONATION:
        v["phase"] = P_DONATION
    elif i in MAIL_TAKE:
        v["mail_left"] = MAIL_TAKE[i]
        v["phase"] = P_MAIL
    elif i == STABLES:
        v["to_choose"] = space + 1
        v["phase"] = P_REINDEER
    else:
        v["phase"] = P_ORNAMENT


def _apply_take_toy(tx: _Tx, seat: int, action: TakeToy) -> None:
    _take_toy(tx, seat, action.slot)
    _continue(tx, seat)


def _apply_stop(tx: _Tx, seat: int, action: StopTaking) -> None:
    """End a Mail Room visit (W-3.3) or a Donation Center visit (W-3.2) early."""
    if tx.v["phase"] != P_DONATION:
        tx.v["mail_left"] = 0
    _continue(tx, seat)


def _apply_reindeer(tx: _Tx, seat_index: int, action: TakeReindeer) -> None:
    stalls = tx.v["stalls"]
    stall = action.stall
    card = stalls[stall]
    tx.v["stalls"] = _set_index(stalls, stall, -1)
    seat = tx.seats[seat_index]
    tx.set_seat(seat_index, _seat_with(seat, "reindeer", (*seat.reindeer, card)))
    tx.events.append(new_reindeer_taken(player=tx.players[seat_index], stall=stall))
    _continue(tx, seat_index)


def _apply_choose(tx: _Tx, seat: int, action: ChooseMaterial) -> None:
    tx.v["to_choose"] -= 1
    _receive(tx, seat, MATERIAL_INDEX[action.material], 1)
    _continue(tx, seat)


def _apply_place(tx: _Tx, seat: int, action: PlaceTokens) -> None:
    a = action.__dict__  # one attribute read for three fields
    _put_on_toy(tx, seat, a["toy"], MATERIAL_INDEX[a["material"]], a["count"], True)
    _continue(tx, seat)


def _apply_donate(tx: _Tx, seat: int, action: DonateTokens) -> None:
    a = action.__dict__
    _donate(tx, seat, MATERIAL_INDEX[a["material"]], a["count"], automatic=False)
    _continue(tx, seat)


def _apply_ornament(tx: _Tx, seat: int, action: ChooseOrnament) -> None:
    """W-3.5: the reward is drawn at random within the colour, then revealed and gained."""
    v = tx.v
    colour = action.colour
    c = COLOUR_INDEX[colour]
    ornaments = v["ornaments"]
    left = ornaments[c]
    k = tx.random().below(len(left))
    reward_index = left[k]
    v["ornaments"] = (*ornaments[:c], left[:k] + left[k + 1 :], *ornaments[c + 1 :])
    v["ornament"] = c * N_REWARDS + reward_index
    reward = C.rewards[reward_index]
    tx.events.append(
        new_ornament_revealed(player=tx.players[seat], colour=colour, reward=reward.label)
    )
    if reward.points:
        tx.score(seat, reward.points, R_ORNAMENT, f"{colour} ornament: {reward.label}")
    if reward.toys:
        v["mail_left"] = reward.toys
        v["taken"] = 0
    if reward.choice:
        v["to_choose"] = reward.choice
    if reward.assembly:
        _receive(tx, seat, 3, reward.assembly)
    _continue(tx, seat)


def _apply_cover(tx: _Tx, seat_index: int, action: CoverSpace) -> None:
    space_id = action.space
    k = SPACE_INDEX[space_id]
    ornament = tx.v["ornament"]
    seat = tx.seats[seat_index]
    tx.set_seat(seat_index, _seat_with(seat, "tree", _set_index(seat.tree, k, ornament)))
    tx.v["ornament"] = -1
    tx.events.append(
        new_ornament_placed(
            player=tx.players[seat_index],
            colour=C.ornament_colour(ornament),
            space=space_id,
        )
    )
    space = C.tree_spaces[k]
    if space.points:
        tx.score(seat_index, space.points, R_TREE, space.label)
    else:
        _receive(tx, seat_index, C.tree_space_material[k], 1)
    _continue(tx, seat_index)


def _apply_take_donated(tx: _Tx, seat_index: int, action: TakeDonated) -> None:
    v = tx.v
    a = action.__dict__
    _put_on_toy(tx, seat_index, a["toy"], MATERIAL_INDEX[a["material"]], 1, False)
    v["taken"] += 1
    if _donation_fits(v["donation"], tx.seats[seat_index].toys):
        v["phase"] = P_DONATION
    else:
        _continue(tx, seat_index)


HANDLERS: dict[type, Any] = {
    PlaceElf: _place_elf,
    TakeToy: _apply_take_toy,
    StopTaking: _apply_stop,
    TakeReindeer: _apply_reindeer,
    ChooseMaterial: _apply_choose,
    PlaceTokens: _apply_place,
    DonateTokens: _apply_donate,
    ChooseOrnament: _apply_ornament,
    CoverSpace: _apply_cover,
    TakeDonated: _apply_take_donated,
}


# --------------------------------------------------------------------------- setup


EMPTY_SEAT = Seat().model_dump()


def new_state(players: Sequence[PlayerId], seed: int) -> WorkshopState:
    """W-1: first player from the seed, then the W-1.3 setup order."""
    n = len(players)
    if not 2 <= n <= 5:
        raise InvalidSetup("Santa's Workshop needs 2 to 5 players, not {n}.", n=n)
    if len(set(players)) != n:
        raise InvalidSetup("Each player can take only one seat.")
    rng = Rng(seed)
    first = rng.below(n)
    deck = list(rng.shuffled(range(C.toy_count)))
    mail = tuple(deck.pop() for _ in range(MAIL_SLOTS))
    reindeer = rng.shuffled(range(C.reindeer_count))
    seats = []
    for _ in range(n):
        toys = tuple((deck.pop(), 0, 0, 0, 0) for _ in range(2))
        # every field explicitly set, so that copies can share the fields-set record
        seats.append(Seat(**{**EMPTY_SEAT, "toys": toys}))
    return WorkshopState(
        game="workshop",
        players=tuple(players),
        seed=seed,
        rng=rng.state,
        first=first,
        mail=mail,
        deck=tuple(deck),
        reindeer_deck=reindeer[STALLS:],
        stalls=reindeer[:STALLS],
        ornaments=tuple(tuple(range(N_REWARDS)) for _ in range(N_COLOURS)),
        seats=tuple(seats),
    )


def apply_action(
    state: WorkshopState, player: PlayerId, action: Any
) -> tuple[WorkshopState, list[Event]]:
    """``GAME.apply``: the turn check, then the action's handler in a transaction.

    A refusal (:class:`~engine.core.RuleError`) names the ``action`` and the ``player``.
    """
    d = state.__dict__  # the fields, read from the dict: cheaper than pydantic's attributes
    players = d["players"]
    seat = (d["first"] + d["turn"]) % len(players)
    try:  # costs nothing until something is raised
        if d["phase"] == P_OVER or player != players[seat]:
            from engine.workshop import GAME  # the shared checks need the game object

            check_can_act(GAME, state, player)
            # only the timer gets past the shared checks here, and it has no moves
            raise IllegalAction("The table's timer has no moves in Santa's Workshop.")
        cached_state, legal = _last_legal
        if cached_state is not state:
            legal = legal_actions_of(state)
        for candidate in legal:  # the prebuilt actions: identity, not pydantic's slower ==
            if candidate is action:
                break
        else:
            action = legal_equal(state, legal, action)
    except RuleError as error:
        error.naming(action=action, player=player)
        raise
    tx = _transaction(d)
    HANDLERS[type(action)](tx, seat, action)
    return tx.build(), tx.events


def legal_equal(s: WorkshopState, legal: Sequence[Any], action: Any) -> Any:
    """The prebuilt legal action equal to ``action`` (one parsed from JSON, say), or
    :class:`IllegalAction` with a sentence: for anything that is not a well-formed
    action of this game first (``engine.core.check_action``), then for a move the
    rules do not allow here. The handlers then only ever see the prebuilt objects."""
    check_action(action, HANDLERS, "Santa's Workshop")
    for candidate in legal:
        if candidate == action:
            return candidate
    raise refusal(s, action)


def legal_actions_for(state: WorkshopState, player: PlayerId) -> Sequence[Action]:
    """``GAME.legal_actions``: the current player's legal actions (a cached tuple), an
    empty list for anyone else."""
    d = state.__dict__
    players = d["players"]
    if d["phase"] == P_OVER or player != players[(d["first"] + d["turn"]) % len(players)]:
        return []
    return legal_actions_of(state)


def parse_options(raw: Mapping[str, Any] | None) -> WorkshopOptions:
    try:
        return WorkshopOptions.model_validate(dict(raw or {}))
    except ValidationError as error:
        keys = ", ".join(sorted(raw or {}))
        raise InvalidSetup("Santa's Workshop has no options (got: {keys}).", keys=keys) from error


def parse_action(data: Any) -> Action:
    try:
        if isinstance(data, str | bytes):
            return ACTION_ADAPTER.validate_json(data)
        if isinstance(data, Model):
            data = data.model_dump()
        return ACTION_ADAPTER.validate_python(data)
    except ValidationError as error:
        raise IllegalAction("That is not a move in Santa's Workshop.").naming(
            action=data
        ) from error


def check_turn(game: Any, s: WorkshopState, player: PlayerId) -> None:
    check_can_act(game, s, player)
