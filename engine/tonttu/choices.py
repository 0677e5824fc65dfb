"""Workshop Tonttu's legal choices as data (:class:`engine.choices.ChoiceFacts`).

``describe_choice`` is ``GAME.describe_choice``; ``engine.tonttu.text`` makes the menu
labels from the same facts: a point's note on what it would do for the player now
(whether they can pay a gift, what they miss, how their offer compares; where a
face-down material lands) is worded from :attr:`ChoiceFacts.can_pay`,
:attr:`~ChoiceFacts.missing`, :attr:`~ChoiceFacts.offer`, :attr:`~ChoiceFacts.rivals`
and :attr:`~ChoiceFacts.note`. Everything here uses only what the player may see
(their own face-down card and public cards, T-6).
"""

from __future__ import annotations

from typing import Any

from engine.choices import ChoiceFacts, Note, Rival
from engine.core import PlayerId
from engine.tonttu.data import GIFT_NEED_COUNTS, MATERIAL_NAMES, MATERIAL_TYPE
from engine.tonttu.models import TonttuState
from engine.tonttu.rules import _can_pay, _offer


def live_seat(state: TonttuState | None, player: PlayerId | None) -> int | None:
    """``player``'s seat while its point is still to be made (or, in tactical mode,
    changed): only then do the facts (and the label) describe the position. Asked for
    after the point resolved (a confirmation), they describe the action alone."""
    if state is None or state.phase != "point" or player not in state.players:
        return None
    seat = state.players.index(player)
    if state.mode == "speed" and state.choices[seat] is not None:
        return None
    return seat


def missing_counts(face_up: tuple[int, ...], face_down: int | None, gift: int) -> list[int]:
    """The cards a workbench lacks for ``gift``, per material type id."""
    need = list(GIFT_NEED_COUNTS[gift])
    for card in (*face_up, *(() if face_down is None else (face_down,))):
        t = MATERIAL_TYPE[card]
        if need[t]:
            need[t] -= 1
    return need


def material_note(state: TonttuState | None, seat: int | None, face_down: bool) -> Note | None:
    """Where a face-down material a lone pointer takes lands (T-3.1, T-3.4); ``None``
    where the position does not say (no live seat) and face down was asked for."""
    if not face_down:
        return "take_face_up"
    if seat is None or state is None:
        return None  # face down if the workbench has no face-down card (T-3.1)
    return "goes_face_up" if state.face_down[seat] is not None else "keep_face_down"


def _rivals(state: TonttuState, seat: int, gift: int) -> tuple[Rival, ...]:
    """The other seats that could pay ``gift`` too, with their offers as far as public
    cards tell (their face-up cards, and whether a face-down card lies there)."""
    rivals = []
    for other, player in enumerate(state.players):
        if other == seat:
            continue
        other_up, has_down = state.face_up[other], state.face_down[other] is not None
        low = _offer(other_up, None, gift)
        maybe = False
        if _can_pay(other_up, None, gift):
            high = low + has_down
        elif has_down and sum(missing_counts(other_up, None, gift)) == 1:
            # only if their face-down card is the one they miss
            low = high = low + 1
            maybe = True
        else:
            continue
        rivals.append(Rival(player=player, low=low, high=high, if_face_down_fits=maybe))
    return tuple(rivals)


def describe_choice(state: TonttuState, player: PlayerId, action: Any) -> ChoiceFacts:
    """What ``action`` does for ``player`` in ``state``, now (see ``engine.choices``)."""
    kind = getattr(action, "kind", None)
    if kind == "pick":
        return ChoiceFacts(kind=kind, target=f"hand:{action.material}", gives={action.material: 1})
    if kind == "point_gift":
        gift = action.gift
        costs = {MATERIAL_NAMES[t]: n for t, n in enumerate(GIFT_NEED_COUNTS[gift]) if n}
        if gift not in state.middle_gifts:  # resolved already: the action alone
            return ChoiceFacts(kind=kind, target="gift", gives={"gift": 1}, costs=costs, card=gift)
        target = f"gift:{state.middle_gifts.index(gift)}"
        known: dict[str, Any] = {"gives": {"gift": 1}, "costs": costs, "card": gift}
        seat = live_seat(state, player)
        if seat is None:
            return ChoiceFacts(kind=kind, target=target, **known)
        up, down = state.face_up[seat], state.face_down[seat]
        if not _can_pay(up, down, gift):
            missing = missing_counts(up, down, gift)
            short = {MATERIAL_NAMES[t]: n for t, n in enumerate(missing) if n}
            # T-3.2: a pointer who cannot pay does not contend: the point gives nothing
            return ChoiceFacts(
                kind=kind,
                target=target,
                gives={},
                short={"gift": 1},
                costs=costs,
                card=gift,
                can_pay=False,
                missing=short,
            )
        if state.mode == "speed":  # T-4: the first valid point wins, no offers
            return ChoiceFacts(kind=kind, target=target, can_pay=True, **known)
        offer, rivals = _offer(up, down, gift), _rivals(state, seat, gift)
        return ChoiceFacts(
            kind=kind, target=target, can_pay=True, offer=offer, rivals=rivals, **known
        )
    if kind == "point_material":
        note = material_note(state, live_seat(state, player), action.face_down)
        return ChoiceFacts(
            kind=kind, target=f"material:{action.slot}", gives={"material": 1}, note=note
        )
    if kind == "close_point_phase":
        return ChoiceFacts(kind=kind, target="timer")
    raise ValueError(f"not a Workshop Tonttu action: {action!r}")


__all__ = ["describe_choice", "live_seat", "material_note", "missing_counts"]
