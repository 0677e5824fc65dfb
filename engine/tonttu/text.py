"""Menu labels, public log lines and a terminal board for Workshop Tonttu.

Everything here works from actions, public events and views only, so nothing
secret can leak into a log line or a board drawn for someone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.core import PlayerId
from engine.tonttu.data import GIFT_NAMES, GIFT_NEEDS, MATERIAL_NAMES, MATERIAL_TYPE

if TYPE_CHECKING:
    from engine.tonttu.models import GiftResult, MaterialResult, TonttuState, TonttuView

from engine.tonttu.models import MATERIAL_POINT


def gift_label(gift: int) -> str:
    return f"{GIFT_NAMES[gift]} (needs {', '.join(GIFT_NEEDS[gift])})"


def describe_action(action: Any) -> str:
    """A menu label: "Pick Wool", "Point at Rocking Horse (needs Wood, Wood, Paint)"."""
    kind = action.kind
    if kind == "pick":
        return f"Pick {action.material}"
    if kind == "point_gift":
        return f"Point at {gift_label(action.gift)}"
    if kind == "point_material":
        return f"Point at face-down material {action.slot + 1}"
    if kind == "close_point_phase":
        return "Close the point phase (time is up)"
    return str(action)


def choice_label(state: TonttuState, code: int) -> str:
    """The owner's pending choice as a label (used only in the owner's view)."""
    if state.phase == "pick":
        return f"Pick {MATERIAL_NAMES[MATERIAL_TYPE[code]]}"
    if code >= MATERIAL_POINT:
        return f"Point at face-down material {code - MATERIAL_POINT + 1}"
    return f"Point at {gift_label(code)}"


def _names(players: list[PlayerId], names: Mapping[PlayerId, str]) -> str:
    return ", ".join(names.get(p, p) for p in players) or "nobody"


def _gift_line(result: GiftResult, names: Mapping[PlayerId, str]) -> str:
    who = _names(result.pointers, names)
    head = f"{result.gift} ({result.category}), pointed at by {who}: "
    if result.result == "won":
        winner = names.get(result.winner or "", result.winner or "")
        line = f"{winner} gets it and pays {', '.join(result.paid)}"
        if result.face_down_paid:
            line += f" (the face-down card was {result.face_down_paid})"
        if result.offers:
            line += " with the highest offer " + _offers(result.offers, names)
        return head + line
    if result.result == "tie":
        return head + "tied offers " + _offers(result.offers, names) + ", nobody gets it"
    if result.result == "wasted":
        return head + "cannot pay, the point is wasted"
    return head + "nobody can pay, nothing happens"


def _offers(offers: Mapping[PlayerId, int], names: Mapping[PlayerId, str]) -> str:
    return "(" + ", ".join(f"{names.get(p, p)} {o}" for p, o in offers.items()) + ")"


def _material_line(result: MaterialResult, names: Mapping[PlayerId, str]) -> str:
    head = f"face-down material {result.slot + 1}, pointed at by {_names(result.pointers, names)}: "
    if result.result == "contested":
        return head + "contested, nothing happens"
    taker = names.get(result.taker or "", result.taker or "")
    if result.face_down:
        return head + f"{taker} took a face-down material and keeps it face down"
    return head + f"{taker} took a face-down material; it is {result.material}, placed face up"


def describe_event(event: Any, names: Mapping[PlayerId, str]) -> str:
    """One public log line (or a few, joined by "; ")."""
    kind = event.kind

    def name(p: PlayerId | None) -> str:
        return names.get(p or "", p or "")

    if kind == "chose":
        if event.replaced:
            return f"{name(event.player)} changed their {event.phase} in secret."
        verb = "picked" if event.phase == "pick" else "pointed"
        return f"{name(event.player)} {verb} in secret."
    if kind == "picks_revealed":
        picks = ", ".join(f"{name(p)} {m}" for p, m in event.picks.items())
        line = f"Round {event.round} picks: {picks}."
        if event.skipped:
            line += f" Skipped (empty hand): {_names(event.skipped, names)}."
        return line
    if kind == "points_revealed":
        parts = [_gift_line(r, names) for r in event.gifts]
        parts += [_material_line(r, names) for r in event.materials]
        return f"Round {event.round} points: " + "; ".join(parts) + "."
    if kind == "speed_point":
        result = event.gift if event.gift is not None else event.material
        line = (
            _gift_line(result, names) if event.gift is not None else _material_line(result, names)
        )
        return f"Speed point: {line}."
    if kind == "point_phase_closed":
        missed = f" {_names(event.missed, names)} did not point." if event.missed else ""
        return f"Time is up: the point phase of round {event.round} is closed.{missed}"
    if kind == "round_ended":
        parts = [f"End of round {event.round}"]
        if event.gifts_refilled:
            parts.append("new gifts: " + ", ".join(event.gifts_refilled))
        if event.materials_refilled:
            parts.append(f"{event.materials_refilled} face-down material(s) added")
        if event.reshuffled:
            parts.append("the discard pile was shuffled into a new deck")
        if event.passed:
            parts.append(f"hands passed {event.passed}")
        if event.rotation:
            dealt = ", ".join(f"{name(p)} {c}" for p, c in event.dealt.items())
            parts.append(
                f"{event.discarded} last hand card(s) discarded, rotation card flipped to "
                f"{event.rotation}, new hands dealt ({dealt})"
            )
        return "; ".join(parts) + "."
    if kind == "game_ended":
        why = (
            "the gift stack is empty"
            if event.reason == "gift_stack_empty"
            else "10 rounds in a row passed without anyone winning a gift"
        )
        scores = ", ".join(f"{name(p)} {s}" for p, s in event.scores.items())
        return f"Game over: {why}. Scores: {scores}. Winner(s): {_names(event.winners, names)}."
    return str(event)


def render_text(view: TonttuView, names: Mapping[PlayerId, str]) -> str:
    """The board as a plain-text table."""

    def name(p: PlayerId) -> str:
        return names.get(p, p)

    lines = [
        f"Workshop Tonttu ({view.mode}) · round {view.round} · "
        f"hand round {view.deal_round}/4 · {view.phase} phase · rotation: {view.rotation}",
        f"Gifts in stack: {view.gifts_in_stack} · material deck: {view.deck_size} · "
        f"discard: {view.discard_size} · rounds without a gift: {view.rounds_without_gift}",
        "Middle gifts:",
    ]
    for slot, gift in enumerate(view.middle_gifts, 1):
        if gift is None:
            lines.append(f"  {slot}. (empty)")
        else:
            lines.append(
                f"  {slot}. {gift.name:<16} {gift.category:<12} needs {', '.join(gift.needs)}"
            )
    backs = " ".join(f"[{i}:{'#' if m else ' '}]" for i, m in enumerate(view.middle_materials, 1))
    lines.append(f"Face-down materials: {backs}")
    header = f"  {'Seat':<12} {'Hand':>4} {'Score':>5}  {'Chosen':<6}  {'Workbench':<34} Gifts"
    lines += ["", header, "  " + "-" * (len(header) + 10)]
    for seat in view.seats:
        bench = ", ".join(seat.face_up)
        if seat.has_face_down:
            bench += (", " if bench else "") + (
                f"[{seat.face_down}]" if seat.face_down else "[face down]"
            )
        gifts = ", ".join(f"{g.name} ({g.category[0]})" for g in seat.gifts) or "-"
        chosen = "yes" if seat.chosen else ("..." if seat.to_act else "")
        lines.append(
            f"  {name(seat.player):<12} {seat.hand_size:>4} {seat.score:>5}  {chosen:<6}  "
            f"{bench or '-':<34} {gifts}"
        )
    if view.viewer is not None:
        lines.append("")
        lines.append(f"Your hand: {', '.join(view.hand) or '(empty)'}")
        if view.my_choice:
            lines.append(f"Your choice so far: {view.my_choice} (you may still change it)")
    if view.phase == "over":
        lines.append(f"Game over ({view.end_reason}). Winner(s): {_names(view.winners, names)}")
    return "\n".join(lines)
