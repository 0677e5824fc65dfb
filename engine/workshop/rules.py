"""The rules of Santa's Workshop (W-1 … W-7) as pure functions over :class:`WorkshopState`.

Hot-path notes: every legal action is a prebuilt, shared, immutable object (so
``legal_actions`` only picks from tables and ``apply`` recognises its own actions
by identity); ``apply`` gathers the changed fields in a small transaction object
and builds the next state with one ``replace`` (a lean, self-checked equivalent of
``model_copy(update=...)``), sharing every unchanged tuple and :class:`Seat` with
the previous state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError

from engine.core import (
    IllegalAction,
    InvalidSetup,
    Model,
    PlayerId,
    Rng,
    check_can_act,
)
from engine.workshop.data import CHOICE_MATERIALS, COMPONENTS, MATERIALS, TOKENS_PER_TYPE
from engine.workshop.models import (
    ACTION_ADAPTER,
    REASONS,
    STATIONS,
    ChoiceLost,
    ChooseMaterial,
    ChooseOrnament,
    CoverSpace,
    DayEnded,
    DeckReshuffled,
    DonateTokens,
    ElfPlaced,
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
R_TOY, R_COOP, R_DONATION, R_ORNAMENT, R_TREE, R_INSPECTION, R_UNFINISHED, R_REINDEER = REASONS

STATION_NAMES: dict[str, str] = {
    "wood": "Wood Shop",
    "metal": "Metal Shop",
    "fabric": "Fabric Shop",
    "assembly": "Assembly Hall",
    "donation": "Donation Center",
    "mail3": "Mail Room (up to 3 toys)",
    "mail2": "Mail Room (up to 2 toys)",
    "stables": "Reindeer Stables",
    "tree1": "Christmas Tree (1st station)",
    "tree2": "Christmas Tree (2nd station)",
}

# --------------------------------------------------------------------------- copying

M = TypeVar("M", bound=Model)
_new_object = object.__new__
_set_attribute = object.__setattr__


def _lean_replace(model: M, update: dict[str, Any]) -> M:
    """``model.model_copy(update=update)`` for our frozen models (no extras, no private
    attributes), without pydantic's generic copying: about twice as fast, same result."""
    copied = _new_object(type(model))
    _set_attribute(copied, "__dict__", {**model.__dict__, **update})
    _set_attribute(copied, "__pydantic_fields_set__", model.__pydantic_fields_set__ | update.keys())
    _set_attribute(copied, "__pydantic_extra__", None)
    _set_attribute(copied, "__pydantic_private__", None)
    return copied


def _pydantic_replace(model: M, update: dict[str, Any]) -> M:
    return model.model_copy(update=update)


def _lean_replace_works() -> bool:
    """Self-check at import: if a pydantic upgrade changes model internals, fall back."""
    try:
        seat = Seat(toys=((1, 0, 0, 0, 0),), score=3)
        update: dict[str, Any] = {"score": 5, "reindeer": (2,)}
        lean, real = _lean_replace(seat, update), seat.model_copy(update=update)
        return (
            lean == real
            and lean.__pydantic_fields_set__ == real.__pydantic_fields_set__
            and lean.model_dump_json() == real.model_dump_json()
            and Seat.model_validate_json(lean.model_dump_json()) == real
        )
    except Exception:  # pragma: no cover - only with unexpected pydantic internals
        return False


replace = _lean_replace if _lean_replace_works() else _pydantic_replace
"""Copy a state or seat with some fields replaced (structural sharing, no validation)."""


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
    i = t + 1
    return any(REQ[toy[0]][t] > toy[i] for toy in toys)


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
    return any(donation[t] and needs_type(toys, t) for t in range(4))


def station_refusal(s: WorkshopState, seat_index: int, station: int) -> str | None:
    """Why an Elf cannot go to ``station`` now (a sentence), or None if it can."""
    seat = s.seats[seat_index]
    name = STATION_NAMES[STATIONS[station]]
    capacity = CAPACITY[station]
    if capacity and len(s.spaces[station]) >= capacity:
        return f"The {name} is full today."
    if station == DONATION:
        if not _donation_fits(s.donation, seat.toys):
            return "No token in the Donation Center fits your unfinished toys."
    elif station in MAIL_TAKE:
        if len(seat.toys) >= MAX_UNFINISHED:
            return "You already hold 5 unfinished toys."
        if not _can_take_toy(s, seat):
            return "There is no toy card left to take."
    elif station == STABLES:
        if all(c < 0 for c in s.stalls):
            return "No reindeer is left in the Stables today."
    elif station in (TREE1, TREE2):
        if -1 not in seat.tree:
            return "Your tree already holds 6 ornaments."
        if not any(s.ornaments):
            return "No ornament is left."
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
    legal = tuple(legal_list(s))
    _last_legal = (s, legal)
    return legal


def legal_list(s: WorkshopState) -> list[Any]:
    """The current player's legal actions (shared prebuilt objects)."""
    phase = s.phase
    seat_index = (s.first + s.turn) % len(s.players)
    seat = s.seats[seat_index]
    if phase == Phase.STATION:
        out: list[Any] = []
        spaces = s.spaces
        for i in range(4):
            if len(spaces[i]) < 4:
                out.append(A_PLACE_ELF[i])
        # the same conditions as station_refusal, inlined for speed (a test keeps them equal)
        toys = seat.toys
        if _donation_fits(s.donation, toys):
            out.append(A_PLACE_ELF[DONATION])
        if len(toys) < MAX_UNFINISHED and (s.deck or s.sleigh or max(s.mail) >= 0):
            if not spaces[MAIL3]:
                out.append(A_PLACE_ELF[MAIL3])
            if not spaces[MAIL2]:
                out.append(A_PLACE_ELF[MAIL2])
        if len(spaces[STABLES]) < 3 and max(s.stalls) >= 0:
            out.append(A_PLACE_ELF[STABLES])
        if min(seat.tree) < 0 and any(s.ornaments):
            if not spaces[TREE1]:
                out.append(A_PLACE_ELF[TREE1])
            if not spaces[TREE2]:
                out.append(A_PLACE_ELF[TREE2])
        return out
    if phase == Phase.PLACE:
        batch = s.batch
        t = 0
        while not batch[t]:
            t += 1
        have = batch[t]
        table = A_PLACE_TOKENS[t]
        out = []
        for toy in seat.toys:
            need = REQ[toy[0]][t] - toy[1 + t]
            if need > 0:
                row = table[toy[0]]
                out.extend(row[1 : min(need, have) + 1])
        out.append(A_DONATE[t][have])
        return out
    if phase == Phase.CHOOSE:
        return [A_CHOOSE[t] for t in CHOICE_MATERIALS if s.supply[t] > s.batch[t]]
    if phase == Phase.MAIL:
        out = [A_TAKE_SLOT[k] for k, card in enumerate(s.mail) if card >= 0]
        if s.deck or s.sleigh:
            out.append(A_TAKE_DECK)
        if s.taken:
            out.append(A_STOP)
        return out
    if phase == Phase.REINDEER:
        return [A_REINDEER[k] for k, card in enumerate(s.stalls) if card >= 0]
    if phase == Phase.ORNAMENT:
        return [A_ORNAMENT[c] for c, left in enumerate(s.ornaments) if left]
    if phase == Phase.SPACE:
        return [A_COVER[k] for k, orn in enumerate(seat.tree) if orn < 0]
    if phase == Phase.DONATION:
        out = []
        for t in range(4):
            if s.donation[t]:
                takes = A_TAKE_DONATED[t]
                out.extend(takes[toy[0]] for toy in seat.toys if toy_need(toy, t) > 0)
        if s.taken:
            out.append(A_STOP)
        return out
    return []


DECISION_SENTENCES = {
    Phase.STATION: "place an Elf",
    Phase.MAIL: "take a toy card or stop",
    Phase.REINDEER: "choose a reindeer",
    Phase.CHOOSE: "choose a material",
    Phase.PLACE: "place or donate your tokens",
    Phase.ORNAMENT: "choose an ornament colour",
    Phase.SPACE: "choose a space on your tree",
    Phase.DONATION: "take a donated token or stop",
}


def refusal(s: WorkshopState, action: Any) -> str:
    """A sentence explaining why ``action`` is not legal here."""
    expected = DECISION_SENTENCES.get(s.phase, "wait")
    if isinstance(action, PlaceElf) and s.phase == Phase.STATION:
        reason = station_refusal(s, current_seat(s), STATION_INDEX[action.station])
        if reason:
            return reason
    if isinstance(action, PlaceTokens) and s.phase == Phase.PLACE:
        return "That toy cannot take those tokens."
    if isinstance(action, TakeToy) and s.phase == Phase.MAIL:
        return "That toy card cannot be taken."
    if isinstance(action, StopTaking):
        return "You must take at least one before you stop."
    return f"That is not possible now: you must {expected}."


# --------------------------------------------------------------------------- transaction


class _Tx:
    """The changes one ``apply`` makes, gathered before building the next state."""

    __slots__ = ("events", "n", "players", "rng", "s", "seats", "upd")

    def __init__(self, s: WorkshopState) -> None:
        self.s = s
        self.upd: dict[str, Any] = {}
        self.seats: list[Seat] | None = None
        self.events: list[Any] = []
        self.rng: Rng | None = None
        self.players = s.players
        self.n = len(s.players)

    def get(self, name: str) -> Any:
        upd = self.upd
        return upd[name] if name in upd else getattr(self.s, name)

    def seat(self, i: int) -> Seat:
        return self.s.seats[i] if self.seats is None else self.seats[i]

    def set_seat(self, i: int, seat: Seat) -> None:
        if self.seats is None:
            self.seats = list(self.s.seats)
        self.seats[i] = seat

    def random(self) -> Rng:
        if self.rng is None:
            self.rng = Rng(self.s.rng)
        return self.rng

    def score(self, i: int, points: int, reason: str, detail: str = "") -> None:
        seat = self.seat(i)
        k = REASONS.index(reason)
        breakdown = list(seat.breakdown)
        breakdown[k] += points
        self.set_seat(
            i,
            replace(seat, {"score": seat.score + points, "breakdown": tuple(breakdown)}),
        )
        self.events.append(
            Scored(player=self.players[i], points=points, reason=reason, detail=detail)  # type: ignore[arg-type]
        )

    def build(self) -> WorkshopState:
        upd = self.upd
        if self.seats is not None:
            upd["seats"] = tuple(self.seats)
        if self.rng is not None:
            upd["rng"] = self.rng.state
        return replace(self.s, upd)


def _set_index(values: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    return (*values[:i], value, *values[i + 1 :])


def _receive(tx: _Tx, seat: int, t: int, count: int) -> None:
    """W-1.4: tokens received are reserved in ``batch``; a short supply gives what is left."""
    batch = tx.get("batch")
    give = min(count, tx.get("supply")[t] - batch[t])
    if give > 0:
        tx.upd["batch"] = _set_index(batch, t, batch[t] + give)
    tx.events.append(
        TokensReceived(
            player=tx.players[seat],
            material=MATERIALS[t],  # type: ignore[arg-type]
            count=give,
            short=count - give,
        )
    )


def _put_on_toy(tx: _Tx, seat_index: int, card: int, t: int, count: int, from_batch: bool) -> None:
    """Place tokens on a toy (W-4.1); a filled toy completes at once (W-4.3)."""
    seat = tx.seat(seat_index)
    toys = seat.toys
    k = next(i for i, toy in enumerate(toys) if toy[0] == card)
    toy = toys[k]
    new_toy: Toy = _set_index(toy, 1 + t, toy[1 + t] + count)  # type: ignore[assignment]
    player = tx.players[seat_index]
    tx.events.append(
        TokensPlaced(
            player=player,
            material=MATERIALS[t],  # type: ignore[arg-type]
            toy=TOY_NAMES[card],
            count=count,
            from_donation=not from_batch,
        )
    )
    supply = list(tx.get("supply"))
    if from_batch:
        supply[t] -= count
        batch = tx.get("batch")
        tx.upd["batch"] = _set_index(batch, t, batch[t] - count)
    else:
        donation = tx.get("donation")
        tx.upd["donation"] = _set_index(donation, t, donation[t] - count)
    req = REQ[card]
    if new_toy[1:] == req:
        for i in range(4):
            supply[i] += req[i]
        tx.set_seat(
            seat_index,
            replace(seat, {"toys": toys[:k] + toys[k + 1 :], "completed": (*seat.completed, card)}),
        )
        tx.events.append(ToyCompleted(player=player, toy=TOY_NAMES[card]))
        tx.score(seat_index, TOY_POINTS[card], R_TOY, TOY_NAMES[card])
    else:
        tx.set_seat(seat_index, replace(seat, {"toys": (*toys[:k], new_toy, *toys[k + 1 :])}))
    tx.upd["supply"] = tuple(supply)


def _donate(tx: _Tx, seat: int, t: int, count: int, automatic: bool) -> None:
    """W-4.1: donated tokens go to the Donation Center, +1 point each."""
    supply, donation, batch = tx.get("supply"), tx.get("donation"), tx.get("batch")
    tx.upd["supply"] = _set_index(supply, t, supply[t] - count)
    tx.upd["donation"] = _set_index(donation, t, donation[t] + count)
    tx.upd["batch"] = _set_index(batch, t, batch[t] - count)
    tx.events.append(
        TokensDonated(
            player=tx.players[seat],
            material=MATERIALS[t],  # type: ignore[arg-type]
            count=count,
            automatic=automatic,
        )
    )
    tx.score(seat, count, R_DONATION)


def _draw_toy(tx: _Tx) -> int:
    """Top card of the toy deck, reshuffling the sleigh when empty (W-3.6); -1 if none."""
    deck = tx.get("deck")
    if not deck:
        sleigh = tx.get("sleigh")
        if not sleigh:
            return -1
        deck = tx.random().shuffled(sleigh)
        tx.upd["sleigh"] = ()
        tx.events.append(DeckReshuffled(cards=len(deck)))
    tx.upd["deck"] = deck[:-1]
    return int(deck[-1])


def _take_toy(tx: _Tx, seat_index: int, slot: int | None) -> None:
    if slot is None:
        card = _draw_toy(tx)
    else:
        mail = tx.get("mail")
        card = mail[slot]
        tx.upd["mail"] = _set_index(mail, slot, _draw_toy(tx))
    seat = tx.seat(seat_index)
    tx.set_seat(seat_index, replace(seat, {"toys": (*seat.toys, (card, 0, 0, 0, 0))}))
    tx.events.append(ToyTaken(player=tx.players[seat_index], toy=TOY_NAMES[card], slot=slot))
    tx.upd["taken"] = tx.get("taken") + 1
    tx.upd["mail_left"] = tx.get("mail_left") - 1


def _continue(tx: _Tx, seat_index: int) -> None:
    """Move to the next pending decision of this turn, or end the turn.

    Order: toy cards still to take, Materials of choice to name, received tokens
    to place (types no toy needs are donated automatically: the only legal
    choice, W-4.1), the tree space for an ornament in hand, then the next Elf.
    """
    upd = tx.upd
    if tx.get("mail_left") > 0:
        if _can_take_toy(_View(tx), tx.seat(seat_index)):  # type: ignore[arg-type]
            upd["phase"] = Phase.MAIL
            return
        upd["mail_left"] = 0
    to_choose = tx.get("to_choose")
    if to_choose > 0:
        supply, batch = tx.get("supply"), tx.get("batch")
        if any(supply[t] > batch[t] for t in CHOICE_MATERIALS):
            upd["phase"] = Phase.CHOOSE
            return
        tx.events.append(ChoiceLost(player=tx.players[seat_index], count=to_choose))
        upd["to_choose"] = 0
    batch = tx.get("batch")
    if any(batch):
        toys = tx.seat(seat_index).toys
        for t in range(4):
            if batch[t]:
                if needs_type(toys, t):
                    upd["phase"] = Phase.PLACE
                    return
                _donate(tx, seat_index, t, batch[t], automatic=True)
    if tx.get("ornament") >= 0:
        upd["phase"] = Phase.SPACE
        return
    _end_turn(tx)


class _View:
    """Read access to a transaction with the state's attribute names (for shared helpers)."""

    __slots__ = ("_tx",)

    def __init__(self, tx: _Tx) -> None:
        self._tx = tx

    def __getattr__(self, name: str) -> Any:
        return self._tx.get(name)


def _end_turn(tx: _Tx) -> None:
    upd = tx.upd
    upd["phase"] = Phase.STATION
    upd["station"] = -1
    upd["taken"] = 0
    turn = tx.s.turn + 1
    upd["turn"] = turn
    if turn == ELVES * tx.n:
        _end_day(tx)


def _end_day(tx: _Tx) -> None:
    """W-2.3: Elves home, stalls to the deck bottom, 3 new, Santa, Inspection, first player."""
    s = tx.s
    upd = tx.upd
    upd["spaces"] = ((),) * len(STATIONS)
    deck = s.reindeer_deck + tuple(c for c in tx.get("stalls") if c >= 0)
    revealed = deck[:STALLS]
    upd["stalls"] = revealed + (-1,) * (STALLS - len(revealed))
    upd["reindeer_deck"] = deck[STALLS:]
    day = s.day
    last = day == DAYS
    first = s.first if last else (s.first + 1) % tx.n
    tx.events.append(
        DayEnded(
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
    upd["day"] = day + 1
    upd["first"] = first
    upd["turn"] = 0


def _inspection(tx: _Tx, number: int) -> None:
    """W-5: Cheer, dense ranking 8/4/2/1, completed toys to the sleigh."""
    seats = [tx.seat(i) for i in range(tx.n)]
    cheer = [len(seat.completed) + sum(1 for o in seat.tree if o >= 0) for seat in seats]
    tx.events.append(Inspection(number=number, cheer=dict(zip(tx.players, cheer, strict=True))))
    ranks = sorted(set(cheer), reverse=True)
    sleigh = list(tx.get("sleigh"))
    for i, seat in enumerate(seats):
        rank = ranks.index(cheer[i])
        sleigh.extend(seat.completed)
        tx.set_seat(i, replace(seat, {"completed": (), "cheer": (*seat.cheer, cheer[i])}))
        points = INSPECTION_POINTS[rank] if rank < len(INSPECTION_POINTS) else 0
        if points:
            tx.score(i, points, R_INSPECTION, f"Inspection {number}, Cheer {cheer[i]}")
    tx.upd["sleigh"] = tuple(sleigh)


def _final_scoring(tx: _Tx) -> None:
    """W-6.1: tokens on unfinished toys, then reindeer."""
    for i in range(tx.n):
        seat = tx.seat(i)
        tokens = sum(sum(toy[1:]) for toy in seat.toys)
        if tokens:
            tx.score(i, tokens, R_UNFINISHED, f"{tokens} tokens on unfinished toys")
        points = reindeer_points(seat.reindeer)
        if points:
            tx.score(i, points, R_REINDEER, f"{len(seat.reindeer)} reindeer")
    tx.upd["phase"] = Phase.OVER
    final = tx.build()
    result = outcome_of(final)
    tx.events.append(GameEnded(scores=result.scores, winners=result.winners))


def outcome_of(s: WorkshopState) -> WorkshopOutcome:
    """Scores, winners (W-6.2) and per-player detail of a finished game."""
    players = {}
    reindeer = []
    for player, seat in zip(s.players, s.seats, strict=True):
        points = reindeer_points(seat.reindeer)
        reindeer.append(points)
        players[player] = PlayerOutcome(
            breakdown=dict(zip(REASONS, seat.breakdown, strict=True)),
            reindeer=[C.reindeer_names[C.reindeer_card_name[c]] for c in seat.reindeer],
            unfinished_tokens=sum(sum(toy[1:]) for toy in seat.toys),
            cheer=list(seat.cheer),
            reindeer_points=points,
        )
    scores = {p: seat.score for p, seat in zip(s.players, s.seats, strict=True)}
    best = max(scores.values())
    top = [i for i, p in enumerate(s.players) if scores[p] == best]
    best_reindeer = max(reindeer[i] for i in top)
    winners = [s.players[i] for i in top if reindeer[i] == best_reindeer]
    return WorkshopOutcome(scores=scores, winners=winners, players=players)


# --------------------------------------------------------------------------- apply handlers


def _place_elf(tx: _Tx, seat_index: int, action: PlaceElf) -> None:
    s = tx.s
    i = STATION_INDEX[action.station]
    occupants = s.spaces[i]
    space = len(occupants)
    tx.upd["spaces"] = (*s.spaces[:i], (*occupants, seat_index), *s.spaces[i + 1 :])
    tx.upd["station"] = i
    tx.upd["taken"] = 0
    tx.events.append(ElfPlaced(player=tx.players[seat_index], station=action.station, space=space))
    if i < 4:
        # W-3.1: every player first scores 1 per Elf of theirs already here.
        for owner in sorted(set(occupants)):
            tx.score(owner, occupants.count(owner), R_COOP, STATION_NAMES[action.station])
        _receive(tx, seat_index, i, space + 2)
        _continue(tx, seat_index)
    elif i == DONATION:
        tx.upd["phase"] = Phase.DONATION
    elif i in MAIL_TAKE:
        tx.upd["mail_left"] = MAIL_TAKE[i]
        tx.upd["phase"] = Phase.MAIL
    elif i == STABLES:
        tx.upd["to_choose"] = space + 1
        tx.upd["phase"] = Phase.REINDEER
    else:
        tx.upd["phase"] = Phase.ORNAMENT


def _apply_take_toy(tx: _Tx, seat: int, action: TakeToy) -> None:
    _take_toy(tx, seat, action.slot)
    _continue(tx, seat)


def _apply_stop(tx: _Tx, seat: int, action: StopTaking) -> None:
    tx.upd["mail_left"] = 0
    _continue(tx, seat)


def _apply_reindeer(tx: _Tx, seat_index: int, action: TakeReindeer) -> None:
    stalls = tx.s.stalls
    card = stalls[action.stall]
    tx.upd["stalls"] = _set_index(stalls, action.stall, -1)
    seat = tx.seat(seat_index)
    tx.set_seat(seat_index, replace(seat, {"reindeer": (*seat.reindeer, card)}))
    tx.events.append(ReindeerTaken(player=tx.players[seat_index], stall=action.stall))
    _continue(tx, seat_index)


def _apply_choose(tx: _Tx, seat: int, action: ChooseMaterial) -> None:
    tx.upd["to_choose"] = tx.s.to_choose - 1
    _receive(tx, seat, MATERIAL_INDEX[action.material], 1)
    _continue(tx, seat)


def _apply_place(tx: _Tx, seat: int, action: PlaceTokens) -> None:
    _put_on_toy(tx, seat, action.toy, MATERIAL_INDEX[action.material], action.count, True)
    _continue(tx, seat)


def _apply_donate(tx: _Tx, seat: int, action: DonateTokens) -> None:
    _donate(tx, seat, MATERIAL_INDEX[action.material], action.count, automatic=False)
    _continue(tx, seat)


def _apply_ornament(tx: _Tx, seat: int, action: ChooseOrnament) -> None:
    """W-3.5: the reward is drawn at random within the colour, then revealed and gained."""
    c = COLOUR_INDEX[action.colour]
    ornaments = tx.s.ornaments
    left = ornaments[c]
    k = tx.random().below(len(left))
    reward_index = left[k]
    tx.upd["ornaments"] = (*ornaments[:c], left[:k] + left[k + 1 :], *ornaments[c + 1 :])
    tx.upd["ornament"] = c * N_REWARDS + reward_index
    reward = C.rewards[reward_index]
    tx.events.append(
        OrnamentRevealed(player=tx.players[seat], colour=action.colour, reward=reward.label)
    )
    if reward.points:
        tx.score(seat, reward.points, R_ORNAMENT, f"{action.colour} ornament: {reward.label}")
    if reward.toys:
        tx.upd["mail_left"] = reward.toys
        tx.upd["taken"] = 0
    if reward.choice:
        tx.upd["to_choose"] = reward.choice
    if reward.assembly:
        _receive(tx, seat, 3, reward.assembly)
    _continue(tx, seat)


def _apply_cover(tx: _Tx, seat_index: int, action: CoverSpace) -> None:
    k = SPACE_INDEX[action.space]
    ornament = tx.s.ornament
    seat = tx.seat(seat_index)
    tx.set_seat(seat_index, replace(seat, {"tree": _set_index(seat.tree, k, ornament)}))
    tx.upd["ornament"] = -1
    tx.events.append(
        OrnamentPlaced(
            player=tx.players[seat_index], colour=C.ornament_colour(ornament), space=action.space
        )
    )
    space = C.tree_spaces[k]
    if space.points:
        tx.score(seat_index, space.points, R_TREE, space.label)
    else:
        _receive(tx, seat_index, C.tree_space_material[k], 1)
    _continue(tx, seat_index)


def _apply_take_donated(tx: _Tx, seat_index: int, action: TakeDonated) -> None:
    _put_on_toy(tx, seat_index, action.toy, MATERIAL_INDEX[action.material], 1, False)
    tx.upd["taken"] = tx.s.taken + 1
    if _donation_fits(tx.get("donation"), tx.seat(seat_index).toys):
        tx.upd["phase"] = Phase.DONATION
    else:
        _continue(tx, seat_index)


def _apply_stop_donation(tx: _Tx, seat: int, action: StopTaking) -> None:
    _continue(tx, seat)


HANDLERS: dict[type, Any] = {
    PlaceElf: _place_elf,
    TakeToy: _apply_take_toy,
    TakeReindeer: _apply_reindeer,
    ChooseMaterial: _apply_choose,
    PlaceTokens: _apply_place,
    DonateTokens: _apply_donate,
    ChooseOrnament: _apply_ornament,
    CoverSpace: _apply_cover,
    TakeDonated: _apply_take_donated,
}


# --------------------------------------------------------------------------- setup


def new_state(players: Sequence[PlayerId], seed: int) -> WorkshopState:
    """W-1: first player from the seed, then the W-1.3 setup order."""
    n = len(players)
    if not 2 <= n <= 5:
        raise InvalidSetup(f"Santa's Workshop needs 2 to 5 players, not {n}.")
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
        seats.append(Seat(toys=toys))
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
    s: WorkshopState, player: PlayerId, action: Any
) -> tuple[WorkshopState, list[Any]]:
    legal = legal_actions_of(s)
    for candidate in legal:
        if candidate is action:
            break
    else:
        if action not in legal:
            raise IllegalAction(refusal(s, action))
    tx = _Tx(s)
    seat = (s.first + s.turn) % len(s.players)
    if type(action) is StopTaking:
        if s.phase == Phase.DONATION:
            _apply_stop_donation(tx, seat, action)
        else:
            _apply_stop(tx, seat, action)
    else:
        HANDLERS[type(action)](tx, seat, action)
    return tx.build(), tx.events


def parse_options(raw: Mapping[str, Any] | None) -> WorkshopOptions:
    try:
        return WorkshopOptions.model_validate(dict(raw or {}))
    except ValidationError as error:
        keys = ", ".join(sorted(raw or {}))
        raise InvalidSetup(f"Santa's Workshop has no options (got: {keys}).") from error


def parse_action(data: Any) -> Any:
    try:
        if isinstance(data, str | bytes):
            return ACTION_ADAPTER.validate_json(data)
        if isinstance(data, Model):
            data = data.model_dump()
        return ACTION_ADAPTER.validate_python(data)
    except ValidationError as error:
        raise IllegalAction("That is not a move in Santa's Workshop.") from error


def check_turn(game: Any, s: WorkshopState, player: PlayerId) -> None:
    check_can_act(game, s, player)
