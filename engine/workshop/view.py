"""``view(state, player)``: the board as one player (or a spectator) may see it (W-7).

Stripped: other players' reindeer names (W-7.2), deck orders and the rewards of
face-down ornaments (W-7.3). Only sizes and counts of those remain.

The bot builds several views per action (the acting player's panel, the board, the
greedy suggestion), so the models are built without validation
(:func:`engine.core.constructor`): every value is made here, of its field's own type.
``tests/engine/workshop/test_view.py`` checks that validating a view's dump gives the
same view back.
"""

from __future__ import annotations

from engine.core import (
    PlayerId,
)
from engine.models import (
    constructor,
)
from engine.words import ENGLISH, Words
from engine.workshop.data import COMPONENTS as C
from engine.workshop.data import MATERIALS
from engine.workshop.models import (
    PHASE_NAMES,
    STATIONS,
    OrnamentView,
    PendingView,
    Phase,
    PlayerView,
    StationView,
    ToyView,
    TreeSpaceView,
    WorkshopState,
    WorkshopView,
)
from engine.workshop.rules import CAPACITY, STATION_NAMES, current_seat, elves_left

_toy = constructor(ToyView)
_ornament = constructor(OrnamentView)
_space = constructor(TreeSpaceView)
_station = constructor(StationView)
_pending = constructor(PendingView)
_player = constructor(PlayerView)
_view = constructor(WorkshopView)


def toy_view(card: int, placed: tuple[int, ...] = (0, 0, 0, 0)) -> ToyView:
    return _toy(
        card=card,
        name=C.toy_names[card],
        tier=C.toy_tiers[card],
        points=C.toy_points[card],
        requires=dict(zip(MATERIALS, C.toy_req[card], strict=True)),
        placed=dict(zip(MATERIALS, placed, strict=True)),
    )


def ornament_view(ornament: int) -> OrnamentView:
    return _ornament(colour=C.ornament_colour(ornament), reward=C.ornament_reward(ornament).label)


def santa_date(day: int, words: Words = ENGLISH) -> str:
    """W-2.1: Day d is December 18 + d."""
    return words.gettext("December {day}").format(day=18 + day)


def build_view(s: WorkshopState, viewer: PlayerId | None) -> WorkshopView:
    over = s.phase == Phase.OVER
    acting = None if over else current_seat(s)
    acting_id = None if acting is None else s.players[acting]
    pending = _pending(
        player=acting_id,
        decision=PHASE_NAMES[s.phase],
        station=STATIONS[s.station] if s.station >= 0 and not over else None,
        tokens={m: n for m, n in zip(MATERIALS, s.batch, strict=True) if n},
        materials_to_choose=s.to_choose,
        toys_left=s.mail_left,
        taken=s.taken,
        # the ornament in hand is already revealed (W-3.5)
        ornament=ornament_view(s.ornament) if s.ornament >= 0 else None,
    )
    stations = [
        _station(
            station=name,
            name=STATION_NAMES[name],
            capacity=CAPACITY[i] or None,
            occupants=[s.players[seat] for seat in s.spaces[i]],
        )
        for i, name in enumerate(STATIONS)
    ]
    # W-2.2: an Elf counts as placed as soon as it stands on its station, though its
    # decisions (tokens, toys, …) are still pending and the turn has not yet passed
    placing = acting if s.phase != Phase.STATION else None
    players = []
    for i, (player, seat) in enumerate(zip(s.players, s.seats, strict=True)):
        own = viewer == player
        players.append(
            _player(
                player=player,
                seat=i,
                score=seat.score,
                elves_left=0 if over else elves_left(s, i) - (i == placing),
                unfinished=[toy_view(toy[0], toy[1:]) for toy in seat.toys],
                completed=[toy_view(card, C.toy_req[card]) for card in seat.completed],
                tree=[
                    _space(
                        space=space.id,
                        label=space.label,
                        ornament=ornament_view(orn) if orn >= 0 else None,
                    )
                    for space, orn in zip(C.tree_spaces, seat.tree, strict=True)
                ],
                ornaments=sum(1 for o in seat.tree if o >= 0),
                reindeer_count=len(seat.reindeer),
                reindeer=(
                    [C.reindeer_names[C.reindeer_card_name[c]] for c in seat.reindeer]
                    if own
                    else None
                ),
                cheer=list(seat.cheer),
            )
        )
    return _view(
        viewer=viewer,
        day=s.day,
        date=santa_date(s.day),
        first_player=s.players[s.first],
        current_player=acting_id,
        pending=pending,
        stations=stations,
        mail_slots=[toy_view(card) if card >= 0 else None for card in s.mail],
        deck_size=len(s.deck),
        sleigh_size=len(s.sleigh),
        reindeer_deck_size=len(s.reindeer_deck),
        stalls=[
            C.reindeer_names[C.reindeer_card_name[card]] if card >= 0 else None for card in s.stalls
        ],
        ornaments_left=dict(zip(C.colours, (len(o) for o in s.ornaments), strict=True)),
        donation=dict(zip(MATERIALS, s.donation, strict=True)),
        supply=dict(zip(MATERIALS, s.supply, strict=True)),
        players=players,
        over=over,
    )
