"""Santa's Workshop's legal choices as data (:class:`engine.choices.ChoiceFacts`).

``describe_choice`` is ``GAME.describe_choice``; ``engine.workshop.text`` makes the
menu labels from the same facts (the numbers in a label are the facts' numbers).
"""

from __future__ import annotations

from typing import Any

from engine.choices import ChoiceFacts
from engine.core import PlayerId
from engine.workshop.data import CHOICE_MATERIALS, MATERIALS
from engine.workshop.models import (
    ChooseMaterial,
    ChooseOrnament,
    CoverSpace,
    DonateTokens,
    PlaceElf,
    PlaceTokens,
    StopTaking,
    TakeDonated,
    TakeReindeer,
    TakeToy,
    WorkshopState,
)
from engine.workshop.rules import (
    CAPACITY,
    MAIL_TAKE,
    MAX_UNFINISHED,
    REQ,
    SPACE_INDEX,
    STABLES,
    STATION_INDEX,
    TOY_POINTS,
    C,
    current_seat,
    needs_type,
    reindeer_points,
)


def _left(s: WorkshopState, t: int) -> int:
    """Tokens of type ``t`` the supply can still give (W-1.4: received ones wait in
    ``batch``, still counted in the supply)."""
    return max(0, s.supply[t] - s.batch[t])


def _split(resource: str, printed: int, can: int) -> tuple[dict[str, int], dict[str, int]]:
    """(gives, short) of a printed count of which only ``can`` can be given now."""
    given = min(printed, can)
    gives = {resource: given} if given > 0 else {}
    return gives, ({resource: printed - given} if printed > given else {})


def _completes(toy: tuple[int, ...], t: int, count: int) -> bool:
    req = REQ[toy[0]]
    return all(req[i] == toy[1 + i] + (count if i == t else 0) for i in range(4))


def _own_toy(s: WorkshopState, card: int) -> tuple[int, ...]:
    return next(t for t in s.seats[current_seat(s)].toys if t[0] == card)


def describe_choice(s: WorkshopState, player: PlayerId, action: Any) -> ChoiceFacts:
    """What ``action`` does for the player to act in ``s``, now (see ``engine.choices``)."""
    if isinstance(action, PlaceElf):
        return _place_elf(s, player, action)
    if isinstance(action, TakeToy):
        if action.slot is None:
            return ChoiceFacts(kind=action.kind, target="toy_deck", gives={"toy": 1})
        card = s.mail[action.slot] if 0 <= action.slot < len(s.mail) else -1
        return ChoiceFacts(
            kind=action.kind,
            target=f"mail:{action.slot}",
            gives={"toy": 1},
            card=card if card >= 0 else None,
        )
    if isinstance(action, StopTaking):
        return ChoiceFacts(kind=action.kind, target="stop")
    if isinstance(action, TakeReindeer):
        card = s.stalls[action.stall]
        if card < 0:
            return ChoiceFacts(kind=action.kind, target=f"stall:{action.stall}")
        held = s.seats[current_seat(s)].reindeer
        return ChoiceFacts(
            kind=action.kind,
            target=f"stall:{action.stall}",
            gives={"reindeer": 1},
            card=card,
            final=reindeer_points((*held, card)) - reindeer_points(held),
        )
    if isinstance(action, ChooseMaterial):
        gives, short = _split(action.material, 1, _left(s, MATERIALS.index(action.material)))
        return ChoiceFacts(
            kind=action.kind, target=f"supply:{action.material}", gives=gives, short=short
        )
    if isinstance(action, PlaceTokens):
        toy = _own_toy(s, action.toy)
        t = MATERIALS.index(action.material)
        scores = {player: TOY_POINTS[action.toy]} if _completes(toy, t, action.count) else {}
        return ChoiceFacts(
            kind=action.kind,
            target=f"toy:{action.toy}",
            costs={action.material: action.count},
            scores=scores,
            card=action.toy,
        )
    if isinstance(action, DonateTokens):
        return ChoiceFacts(
            kind=action.kind,
            target="donation",
            costs={action.material: action.count},
            scores={player: action.count},
        )
    if isinstance(action, ChooseOrnament):
        return ChoiceFacts(
            kind=action.kind, target=f"ornament:{action.colour}", gives={"ornament": 1}
        )
    if isinstance(action, CoverSpace):
        k = SPACE_INDEX[action.space]
        space = C.tree_spaces[k]
        if space.points:
            return ChoiceFacts(
                kind=action.kind, target=f"tree:{action.space}", scores={player: space.points}
            )
        t = C.tree_space_material[k]
        gives, short = _split(MATERIALS[t], 1, _left(s, t))
        return ChoiceFacts(
            kind=action.kind,
            target=f"tree:{action.space}",
            gives=gives,
            short=short,
            **_unneeded(s, player, t, gives, {}),
        )
    if isinstance(action, TakeDonated):
        toy = _own_toy(s, action.toy)
        t = MATERIALS.index(action.material)
        scores = {player: TOY_POINTS[action.toy]} if _completes(toy, t, 1) else {}
        return ChoiceFacts(
            kind=action.kind,
            target=f"toy:{action.toy}",
            gives={action.material: 1},
            scores=scores,
            card=action.toy,
        )
    raise ValueError(f"not a Santa's Workshop action: {action!r}")


def _place_elf(s: WorkshopState, player: PlayerId, action: PlaceElf) -> ChoiceFacts:
    """An Elf on a station (W-3): the space it takes, what the station gives now, and
    the cooperation a shop scores for the seats already there (W-3.1)."""
    i = STATION_INDEX[action.station]
    occupants = s.spaces[i]
    space = len(occupants)
    target = f"station:{action.station}:{space}"
    seat = s.seats[current_seat(s)]
    gives: dict[str, int]
    short: dict[str, int] = {}
    scores: dict[PlayerId, int] = {}
    if i < 4:  # a shop or the Assembly Hall: 2, 3, 4, 5 tokens by space
        gives, short = _split(MATERIALS[i], space + 2, _left(s, i))
        scores = {s.players[o]: occupants.count(o) for o in sorted(set(occupants))}
    elif i in MAIL_TAKE:  # W-3.3: up to the station's number, room and cards permitting
        cards = len(s.deck) + len(s.sleigh) + sum(1 for c in s.mail if c >= 0)
        gives, short = _split("toy", MAIL_TAKE[i], min(MAX_UNFINISHED - len(seat.toys), cards))
    elif i == STABLES:  # W-3.4: a reindeer and 1, 2, 3 Materials of choice by space
        choice, short = _split("choice", space + 1, sum(_left(s, t) for t in CHOICE_MATERIALS))
        gives = {"reindeer": 1, **choice}
    elif CAPACITY[i] == 0:  # W-3.2: at most the donated tokens the player's toys need
        gives = {}
        for t, m in enumerate(MATERIALS):
            need = sum(REQ[toy[0]][t] - toy[1 + t] for toy in seat.toys)
            if min(need, s.donation[t]) > 0:
                gives[m] = min(need, s.donation[t])
    else:  # W-3.5: an ornament (and a tree space for it)
        gives = {"ornament": 1}
    extra: dict[str, Any] = {"scores": scores}
    if i < 4:  # W-4.1: tokens no toy needs are donated at once
        extra = _unneeded(s, player, i, gives, scores)
    return ChoiceFacts(
        kind=action.kind, target=target, gives=gives, short=short, costs={"elf": 1}, **extra
    )


def _unneeded(
    s: WorkshopState, player: PlayerId, t: int, gives: dict[str, int], scores: dict[PlayerId, int]
) -> dict[str, Any]:
    """``donated`` and ``scores`` of tokens of type ``t`` that no unfinished toy of the
    player needs: donated at once, a point each (W-4.1)."""
    given = gives.get(MATERIALS[t], 0)
    if not given or needs_type(s.seats[current_seat(s)].toys, t):
        return {"scores": scores}
    scores = dict(scores)
    scores[player] = scores.get(player, 0) + given
    ordered = {p: scores[p] for p in s.players if p in scores}  # in seat order
    return {"scores": ordered, "donated": {MATERIALS[t]: given}}


__all__ = ["describe_choice"]
