"""Menu labels, public log lines and a terminal board for Workshop Tonttu.

Everything here works from actions, public events and views only, so nothing
secret can leak into a log line or a board drawn for someone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.core import PlayerId
from engine.tonttu.data import (
    GIFT_NAMES,
    GIFT_NEED_COUNTS,
    GIFT_NEEDS,
    MATERIAL_NAMES,
    MATERIAL_TYPE,
)
from engine.tonttu.models import MATERIAL_POINT, MATERIAL_POINT_UP, PointGift, PointMaterial
from engine.tonttu.rules import SET_BONUS, _can_pay, _offer, gift_points, set_points
from engine.words import ENGLISH, Words

if TYPE_CHECKING:
    from engine.tonttu.models import GiftResult, MaterialResult, TonttuState, TonttuView

KEEP_FACE_DOWN = "keep it face down"
TAKE_FACE_UP = "take it face up"
GOES_FACE_UP = "it goes face up (you already have a face-down card)"
HINT = " · "
"""Separates a point's label from its note on what it would do for the player now."""
GIFT_IDS: dict[str, int] = {name: gift for gift, name in enumerate(GIFT_NAMES)}


def gift_label(gift: int) -> str:
    return f"{GIFT_NAMES[gift]} (needs {', '.join(GIFT_NEEDS[gift])})"


def describe_action(
    action: Any,
    state: TonttuState | None = None,
    player: PlayerId | None = None,
    names: Mapping[PlayerId, str] | None = None,
    words: Words = ENGLISH,
) -> str:
    """A menu label: "Pick Wool", "Point at Rocking Horse (needs Wood, Wood, Paint)".

    Given the position and the player, a point also says what it would do for that
    player now (T-3): for a gift, whether they can pay it, what they miss, and how
    their offer compares with the others who could pay it too (tactical mode, T-3.2);
    for a face-down material, whether it would go face down or face up (T-3.1). It
    uses only what the player may see (their own face-down card and public cards).
    """
    kind = getattr(action, "kind", None)
    if kind == "pick":
        return f"Pick {action.material}"
    seat = _live_seat(state, player)
    if kind == "point_gift":
        label = f"Point at {gift_label(action.gift)}"
        if seat is not None and state is not None and action.gift in state.middle_gifts:
            label += HINT + _gift_hint(state, seat, action.gift, names or {})
        return label
    if kind == "point_material":
        label = f"Point at face-down material {action.slot + 1}"
        if not action.face_down:
            return f"{label}: {TAKE_FACE_UP}"
        if seat is None or state is None:
            return label  # face down if the workbench has no face-down card (T-3.1)
        if state.face_down[seat] is not None:
            return f"{label}: {GOES_FACE_UP}"
        return f"{label}: {KEEP_FACE_DOWN}"
    if kind == "close_point_phase":
        return "Close the point phase (time is up)"
    return str(action)


def _live_seat(state: TonttuState | None, player: PlayerId | None) -> int | None:
    """``player``'s seat while its point is still to be made (or, in tactical mode,
    changed): only then does a label describe the position. A label asked for after the
    point resolved (a confirmation) describes the action alone."""
    if state is None or state.phase != "point" or player not in state.players:
        return None
    seat = state.players.index(player)
    if state.mode == "speed" and state.choices[seat] is not None:
        return None
    return seat


def _gift_hint(state: TonttuState, seat: int, gift: int, names: Mapping[PlayerId, str]) -> str:
    """What pointing at ``gift`` does for ``seat`` now (T-3.2, T-4)."""
    up, down = state.face_up[seat], state.face_down[seat]
    if not _can_pay(up, down, gift):
        return "missing " + missing_text(up, down, gift)
    if state.mode == "speed":
        return "you can pay"
    mine = _offer(up, down, gift)
    rivals = []
    for other, player in enumerate(state.players):
        if other == seat:
            continue
        # from public cards only: their face-up cards, and whether a face-down card lies there
        other_up, has_down = state.face_up[other], state.face_down[other] is not None
        low = _offer(other_up, None, gift)
        if _can_pay(other_up, None, gift):
            high, maybe = low + has_down, ""
        elif has_down and _missing_count(other_up, gift) == 1:
            # only if their face-down card is the one they miss
            low = high = low + 1
            maybe = " (if their face-down card fits)"
        else:
            continue
        name = names.get(player, player)
        rivals.append(f"{_versus(mine, low, high)} {name} {_span(low, high)}{maybe}")
    if not rivals:
        return "you can pay; nobody else can"
    return f"you can pay; if contested your offer {mine} " + ", ".join(rivals)


def _span(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def _versus(mine: int, low: int, high: int) -> str:
    if high < mine:
        return "beats"
    if low > mine:
        return "loses to"
    if low == high:
        return "ties"
    return "beats or ties" if high == mine else "ties or loses to"


def _missing_counts(face_up: tuple[int, ...], face_down: int | None, gift: int) -> list[int]:
    need = list(GIFT_NEED_COUNTS[gift])
    for card in (*face_up, *(() if face_down is None else (face_down,))):
        t = MATERIAL_TYPE[card]
        if need[t]:
            need[t] -= 1
    return need


def _missing_count(face_up: tuple[int, ...], gift: int) -> int:
    return sum(_missing_counts(face_up, None, gift))


def missing_text(face_up: tuple[int, ...], face_down: int | None, gift: int) -> str:
    """The cards a workbench still lacks for ``gift``: "Wood, Paint ×2"."""
    need = _missing_counts(face_up, face_down, gift)
    return ", ".join(_counted(MATERIAL_NAMES[t], n) for t, n in enumerate(need) if n)


def _counted(name: str, count: int) -> str:
    return name if count == 1 else f"{name} ×{count}"


def choice_label(state: TonttuState, code: int, player: PlayerId | None = None) -> str:
    """The owner's pending choice as a label (used only in the owner's view): the label
    its menu entry has, so a menu can mark it as the current choice."""
    if state.phase == "pick":
        return f"Pick {MATERIAL_NAMES[MATERIAL_TYPE[code]]}"
    return describe_action(action_of(code), state, player)


def action_of(code: int) -> Any:
    """The point action a stored point code stands for (see ``MATERIAL_POINT``)."""
    if code >= MATERIAL_POINT_UP:
        return PointMaterial(slot=code - MATERIAL_POINT_UP, face_down=False)
    if code >= MATERIAL_POINT:
        return PointMaterial(slot=code - MATERIAL_POINT)
    return PointGift(gift=code)


def point_code(label: str) -> int:
    """The point code of a point's label (:func:`describe_action`, :func:`choice_label`);
    the inverse the computer players use to read their own pending point from a view."""
    rest = label.removeprefix("Point at ")
    if rest.startswith("face-down material "):
        number = rest.removeprefix("face-down material ").split(":")[0]
        base = MATERIAL_POINT_UP if f": {TAKE_FACE_UP}" in rest else MATERIAL_POINT
        return base + int(number) - 1
    return GIFT_IDS[rest.split(" (needs ")[0]]


def _names(players: list[PlayerId], names: Mapping[PlayerId, str]) -> str:
    return ", ".join(names.get(p, p) for p in players) or "nobody"


INDENT = "\n    "
"""Starts each detail line under a log entry's heading (a reveal's cards, a new deal)."""

END_REASONS = {
    "gift_stack_empty": "the gift stack has run out",
    "no_gift_for_10_rounds": "10 rounds in a row passed without anyone winning a gift",
}
"""Why a game ended (T-2.3, T-2.5), in words."""


def _gift_line(result: GiftResult, names: Mapping[PlayerId, str]) -> str:
    who = _names(result.pointers, names)
    head = f"{result.gift} ({result.category}), pointed at by {who}: "
    if result.result == "won":
        winner = names.get(result.winner or "", result.winner or "")
        line = f"{winner} get{_s(winner)} it"
        if result.offers:
            line = "offers " + _offers(result.offers, names)[1:-1] + "; " + line
        line += ", paying " + grouped(result.paid)
        if result.face_down_paid:
            line += f" ({result.face_down_paid} was face down)"
        return head + line
    if result.result == "tie":
        return head + "tied offers " + _offers(result.offers, names) + ", nobody gets it"
    if result.result == "wasted":
        return head + "cannot pay, the point is wasted"
    return head + "nobody can pay, nothing happens"


def _s(name: str) -> str:
    """A verb's third-person "s", left out for "You" (the terminal's name for its player)."""
    return "" if name == "You" else "s"


def _offers(offers: Mapping[PlayerId, int], names: Mapping[PlayerId, str]) -> str:
    return "(" + ", ".join(f"{names.get(p, p)} {o}" for p, o in offers.items()) + ")"


def _material_line(result: MaterialResult, names: Mapping[PlayerId, str]) -> str:
    head = f"face-down material {result.slot + 1}, pointed at by {_names(result.pointers, names)}: "
    if result.result == "contested":
        return head + "contested, nothing happens"
    taker = names.get(result.taker or "", result.taker or "")
    if result.face_down:
        return head + f"{taker} took it and keep{_s(taker)} it face down"
    return head + f"{taker} took it face up: {result.material}"


def describe_event(event: Any, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    """A public log entry: one line, or for a round's reveal and its end a few short
    lines (a heading, then one indented line per card or step)."""
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
        if not parts:
            return f"Round {event.round} points: nobody pointed."
        return f"Round {event.round} points:" + "".join(f"{INDENT}{_sentence(p)}" for p in parts)
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
        return _round_ended(event, name)
    if kind == "game_ended":
        return f"Game over: {END_REASONS.get(event.reason, event.reason)}."
    return str(event)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _round_ended(event: Any, name: Any) -> str:
    """T-2.3 / T-2.4: the refill on the heading line, a new deal on a line of its own."""
    parts = []
    if event.gifts_refilled:
        parts.append("new gifts " + ", ".join(event.gifts_refilled))
    if event.materials_refilled:
        count = event.materials_refilled
        parts.append(f"{count} new face-down material{'s' if count > 1 else ''}")
    if event.passed:
        parts.append(f"hands passed {event.passed}")
    line = f"End of round {event.round}" + (": " + "; ".join(parts) if parts else "") + "."
    if event.reshuffled:
        line += f"{INDENT}The discard pile was shuffled into a new material deck."
    if event.rotation:
        sizes = set(event.dealt.values())
        if len(sizes) == 1:
            dealt = f"{_counted_cards(sizes.pop())} dealt to each"
        else:  # T-2.4: the cards ran out
            each = ", ".join(f"{name(p)} {c}" for p, c in event.dealt.items())
            dealt = f"dealt {each} (the cards ran out)"
        line += (
            f"{INDENT}New deal: {_counted_cards(event.discarded)} discarded, the rotation card "
            f"flips to {event.rotation}, {dealt}."
        )
    return line


def _counted_cards(count: int) -> str:
    return f"{count} card{'' if count == 1 else 's'}"


def grouped(cards: list[str]) -> str:
    """Material names grouped and counted, in the rulebook's order: "Wood ×3, Metal"."""
    return ", ".join(_counted(name, cards.count(name)) for name in MATERIAL_NAMES if name in cards)


def workbench_text(face_up: list[str], has_face_down: bool, face_down: str | None) -> str:
    """A workbench grouped and counted: "Wood ×3, Metal ×2, 1 face down" (its owner also
    sees what the face-down card is: "1 face down [Gold]")."""
    parts = [grouped(face_up)] if face_up else []
    if has_face_down:
        parts.append(f"1 face down [{face_down}]" if face_down else "1 face down")
    return ", ".join(parts)


def render_text(view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    """The board as a plain-text table."""

    def name(p: PlayerId) -> str:
        return names.get(p, p)

    if view.phase == "over":
        why = END_REASONS.get(view.end_reason or "", view.end_reason or "")
        first = f"Workshop Tonttu ({view.mode}) · round {view.round} · game over: {why}"
    else:
        first = (
            f"Workshop Tonttu ({view.mode}) · round {view.round} · "
            f"hand round {view.deal_round}/4 · {view.phase} phase · rotation: {view.rotation}"
        )
    lines = [
        first,
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
    header = f"  {'Seat':<12} {'Hand':>4} {'Score':>5}  {'Chosen':<6}  {'Workbench':<40} Gifts"
    lines += ["", header, "  " + "-" * (len(header) + 10)]
    for seat in view.seats:
        bench = workbench_text(seat.face_up, seat.has_face_down, seat.face_down)
        gifts = ", ".join(f"{g.name} ({g.category[0]})" for g in seat.gifts) or "-"
        chosen = "yes" if seat.chosen else ("..." if seat.to_act else "")
        lines.append(
            f"  {name(seat.player):<12} {seat.hand_size:>4} {seat.score:>5}  {chosen:<6}  "
            f"{bench or '-':<40} {gifts}"
        )
    if view.viewer is not None and view.phase != "over":
        lines.append("")
        lines.append(f"Your hand: {', '.join(view.hand) or '(empty)'}")
        if view.my_choice:
            lines.append(f"Your choice so far: {view.my_choice} (you may still change it)")
    if view.phase == "over":
        lines += ["", *final_breakdown(view, names)]
    return "\n".join(lines)


def final_breakdown(view: TonttuView, names: Mapping[PlayerId, str]) -> list[str]:
    """T-5: each seat's points: the k-th gift is worth k, plus 3 per complete set."""
    lines = ["Final scores (the k-th gift is worth k; +3 per set of Toys, Clothing, Decorations):"]
    width = max(len(names.get(s.player, s.player)) for s in view.seats)
    for seat in view.seats:
        won = [g.id for g in seat.gifts]
        n = len(won)
        steps = "+".join(str(k) for k in range(1, n + 1)) or "0"
        sets = set_points(won) // SET_BONUS
        bonus = f"{set_points(won)} for {sets} set{'' if sets == 1 else 's'}"
        lines.append(
            f"  {names.get(seat.player, seat.player):<{width}}  {seat.score:>3} points = "
            f"{gift_points(won)} for {n} gift{'' if n == 1 else 's'} ({steps}) + {bonus}"
        )
    return lines
