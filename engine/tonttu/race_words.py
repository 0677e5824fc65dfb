"""What the speed race (T-4) tells a player whose point came too late: who got the card
first. One sentence for every front end that takes race points (Discord's race buttons,
the Activity's race targets)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import PlayerId
from engine.tonttu.data import GIFT_NAMES
from engine.words import ENGLISH, Words


def too_late(
    entries: Sequence[Any],
    names: Mapping[PlayerId, str],
    round_: int,
    action: Any,
    words: Words = ENGLISH,
) -> str:
    """Why a point of the speed race (T-4) at a card came too late: who got that card
    first, from the public events of round ``round_`` in the game's log ``entries``
    (each with its ``events``, as storage keeps them). The sentence a race button and a
    race target clicked in the Activity answer with."""
    gettext = words.gettext
    for logged in reversed(entries):
        for event in logged.events:
            if event.get("kind") != "speed_point" or event.get("round") != round_:
                continue
            gift, material = event.get("gift"), event.get("material")
            if (
                action.kind == "point_gift"
                and gift
                and gift.get("result") == "won"
                and 0 <= action.gift < len(GIFT_NAMES)
                and gift.get("gift") == GIFT_NAMES[action.gift]
            ):
                winner = gift.get("winner")
                return gettext("Too late: {name} already won {gift}.").format(
                    name=names.get(winner, winner), gift=gettext(gift["gift"])
                )
            if (
                action.kind == "point_material"
                and material
                and material.get("slot") == action.slot
                and material.get("result") == "taken"
            ):
                taker = material.get("taker")
                return gettext("Too late: {name} already took face-down material {n}.").format(
                    name=names.get(taker, taker), n=action.slot + 1
                )
    return gettext("Too late: that card is no longer in the middle.")
