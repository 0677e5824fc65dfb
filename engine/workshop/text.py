"""Words for Santa's Workshop: menu labels, log lines, and the board as text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import PlayerId
from engine.workshop.data import COMPONENTS as C
from engine.workshop.data import MATERIALS
from engine.workshop.models import (
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
    ReindeerTaken,
    Scored,
    StopTaking,
    TakeDonated,
    TakeReindeer,
    TakeToy,
    TokensDonated,
    TokensPlaced,
    TokensReceived,
    ToyCompleted,
    ToyTaken,
    ToyView,
    WorkshopState,
    WorkshopView,
)
from engine.workshop.rules import (
    CAPACITY,
    MAIL_TAKE,
    STABLES,
    STATION_INDEX,
    STATION_NAMES,
    TOY_NAMES,
    current_seat,
)

DECISION_TEXT = {
    "station": "to place an Elf",
    "mail": "to take a toy card (or stop)",
    "reindeer": "to choose a reindeer",
    "choose_material": "to choose a Material",
    "place_tokens": "to place or donate tokens",
    "ornament": "to choose an ornament colour",
    "tree_space": "to choose a tree space",
    "donation": "to take a donated token (or stop)",
}
ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th")
LETTERS = {"wood": "W", "metal": "M", "fabric": "F", "assembly": "A"}


def _name(names: Mapping[PlayerId, str], player: PlayerId | None) -> str:
    if player is None:
        return "nobody"
    return names.get(player, player)


def _title(material: str) -> str:
    return material.capitalize()


def requirement_text(requires: Mapping[str, int], placed: Mapping[str, int] | None = None) -> str:
    parts = []
    for m in MATERIALS:
        need = requires.get(m, 0)
        if need:
            have = (placed or {}).get(m, 0)
            parts.append(
                f"{LETTERS[m]}{have}/{need}" if placed is not None else f"{LETTERS[m]}{need}"
            )
    return " ".join(parts)


def _toy_label(card: int) -> str:
    req = dict(zip(MATERIALS, C.toy_req[card], strict=True))
    return f"{C.toy_names[card]} ({requirement_text(req)}, {C.toy_points[card]} pts)"


def describe_action(
    s: WorkshopState,
    player: PlayerId,
    action: Any,
    names: Mapping[PlayerId, str] | None = None,
) -> str:
    names = names or {}
    if isinstance(action, PlaceElf):
        i = STATION_INDEX[action.station]
        name = STATION_NAMES[action.station]
        occupants = s.spaces[i]
        space = len(occupants)
        if i < 4:
            label = f"{name}, {ORDINALS[space]} space: {space + 2} {_title(action.station)}"
            if occupants:
                bonus = ", ".join(
                    f"+{occupants.count(o)} cooperation to {_name(names, s.players[o])}"
                    for o in sorted(set(occupants))
                )
                label += f" ({bonus})"
            return label
        if i in MAIL_TAKE:
            return f"{name}: take 1 to {MAIL_TAKE[i]} toy cards"
        if i == STABLES:
            plural = "s" if space else ""
            gives = f"1 reindeer + {space + 1} Material{plural} of choice"
            return f"{name}, {ORDINALS[space]} space: {gives}"
        if CAPACITY[i] == 0:
            return f"{name}: take donated tokens your toys need"
        return f"{name}: 1 ornament + a tree space"
    if isinstance(action, TakeToy):
        if action.slot is None:
            return "Take the top card of the toy deck (unseen)"
        return f"Take {_toy_label(s.mail[action.slot])} from slot {action.slot + 1}"
    if isinstance(action, StopTaking):
        return "Stop taking"
    if isinstance(action, TakeReindeer):
        card = s.stalls[action.stall]
        return f"Take {C.reindeer_names[C.reindeer_card_name[card]]} (stall {action.stall + 1})"
    if isinstance(action, ChooseMaterial):
        return f"Take 1 {_title(action.material)}"
    if isinstance(action, PlaceTokens):
        seat = s.seats[current_seat(s)]
        toy = next(t for t in seat.toys if t[0] == action.toy)
        t = MATERIALS.index(action.material)
        need = C.toy_req[action.toy][t] - toy[1 + t]
        done = " (completes it)" if _completes(toy, t, action.count) else ""
        return (
            f"Put {action.count} {_title(action.material)} on {TOY_NAMES[action.toy]}"
            f" (needs {need}){done}"
        )
    if isinstance(action, DonateTokens):
        return f"Donate {action.count} {_title(action.material)} (+{action.count} points)"
    if isinstance(action, ChooseOrnament):
        left = len(s.ornaments[C.colours.index(action.colour)])
        return f"Take a {action.colour} ornament ({left} left, reward hidden)"
    if isinstance(action, CoverSpace):
        label = C.tree_spaces[C.tree_space_ids.index(action.space)].label
        return f"Cover the tree space '{label}'"
    if isinstance(action, TakeDonated):
        return f"Take 1 donated {_title(action.material)} for {TOY_NAMES[action.toy]}"
    return str(action)


def _completes(toy: tuple[int, ...], t: int, count: int) -> bool:
    req = C.toy_req[toy[0]]
    return all(req[i] == toy[1 + i] + (count if i == t else 0) for i in range(4))


def describe_event(event: Any, names: Mapping[PlayerId, str]) -> str:
    """A public log line. Never names a reindeer or an unrevealed ornament reward (W-7)."""
    who = _name(names, getattr(event, "player", None))
    if isinstance(event, ElfPlaced):
        name = STATION_NAMES[event.station]
        capacity = CAPACITY[STATION_INDEX[event.station]]
        where = f"{name} ({ORDINALS[event.space]} space)" if capacity > 1 else name
        return f"{who} places an Elf at the {where}."
    if isinstance(event, Scored):
        sign = "+" if event.points >= 0 else ""
        detail = f": {event.detail}" if event.detail else ""
        return f"{who} scores {sign}{event.points} ({event.reason}{detail})."
    if isinstance(event, TokensReceived):
        text = f"{who} receives {event.count} {_title(event.material)}"
        if event.short:
            text += f" ({event.short} fewer: the supply ran out)"
        return text + "."
    if isinstance(event, ChoiceLost):
        return f"{who} gets {event.count} fewer Materials: Wood, Metal and Fabric are all gone."
    if isinstance(event, TokensPlaced):
        source = " from the Donation Center" if event.from_donation else ""
        return f"{who} puts {event.count} {_title(event.material)}{source} on {event.toy}."
    if isinstance(event, TokensDonated):
        why = " (no toy needs it)" if event.automatic else ""
        return f"{who} donates {event.count} {_title(event.material)}{why}."
    if isinstance(event, ToyTaken):
        source = "the deck" if event.slot is None else f"Mail Room slot {event.slot + 1}"
        return f"{who} takes {event.toy} from {source}."
    if isinstance(event, DeckReshuffled):
        return f"The sleigh's {event.cards} toys are shuffled into a new toy deck."
    if isinstance(event, ToyCompleted):
        return f"{who} completes {event.toy}!"
    if isinstance(event, ReindeerTaken):
        return f"{who} takes a reindeer from the Stables."
    if isinstance(event, OrnamentRevealed):
        return f"{who} takes a {event.colour} ornament: {event.reward}."
    if isinstance(event, OrnamentPlaced):
        space = C.tree_spaces[C.tree_space_ids.index(event.space)]
        return f"{who} hangs the {event.colour} ornament on '{space.label}'."
    if isinstance(event, DayEnded):
        text = f"Day {event.day} ends; {event.stalls_revealed} reindeer revealed in the Stables."
        if event.first_player is not None:
            text += f" {_name(names, event.first_player)} is first player."
        return text
    if isinstance(event, Inspection):
        cheer = ", ".join(f"{_name(names, p)} {c}" for p, c in event.cheer.items())
        return f"Santa's Inspection {event.number}: Cheer {cheer}."
    if isinstance(event, GameEnded):
        winners = " and ".join(_name(names, p) for p in event.winners)
        return f"The game is over. Winner: {winners}."
    return ""


def _toy_line(toy: ToyView, progress: bool) -> str:
    req = requirement_text(toy.requires, toy.placed if progress else None)
    return f"{toy.name} [{req}] {toy.points} pts"


def render_text(view: WorkshopView, names: Mapping[PlayerId, str]) -> str:
    lines = []
    head = f"Day {view.day} of 6 ({view.date}), first player {_name(names, view.first_player)}"
    if view.over:
        head = "Game over"
    lines.append(f"=== Santa's Workshop: {head} ===")
    if not view.over:
        p = view.pending
        doing = DECISION_TEXT.get(p.decision, p.decision)
        lines.append(f"To act: {_name(names, p.player)}, {doing}")
        extra = []
        if p.tokens:
            extra.append(
                "tokens in hand " + ", ".join(f"{n} {_title(m)}" for m, n in p.tokens.items())
            )
        if p.materials_to_choose:
            extra.append(f"{p.materials_to_choose} Materials of choice to name")
        if p.ornament:
            extra.append(f"ornament in hand: {p.ornament.colour} ({p.ornament.reward})")
        if extra:
            lines.append("  " + "; ".join(extra))
    lines.append("Stations:")
    for st in view.stations:
        who = ", ".join(_name(names, o) for o in st.occupants) or "-"
        cap = "open" if st.capacity is None else f"{len(st.occupants)}/{st.capacity}"
        lines.append(f"  {st.name:<30} {cap:>5}  {who}")
    lines.append(f"Mail Room (deck {view.deck_size}, sleigh {view.sleigh_size}):")
    for k, slot in enumerate(view.mail_slots):
        lines.append(f"  {k + 1}. " + (_toy_line(slot, False) if slot else "(empty)"))
    stalls = ", ".join(s or "(empty)" for s in view.stalls)
    lines.append(f"Stables: {stalls} (deck {view.reindeer_deck_size})")
    lines.append("Ornaments left: " + ", ".join(f"{c} {n}" for c, n in view.ornaments_left.items()))
    lines.append(
        "Donation Center: " + _tokens(view.donation) + " | Supply: " + _tokens(view.supply)
    )
    for pl in view.players:
        mark = "*" if pl.player == view.first_player else " "
        lines.append(
            f"{mark}{_name(names, pl.player)}: {pl.score} pts, elves left {pl.elves_left}, "
            f"reindeer {pl.reindeer_count}"
            + (f" ({', '.join(pl.reindeer)})" if pl.reindeer is not None else "")
            + (f", cheer {pl.cheer}" if pl.cheer else "")
        )
        for toy in pl.unfinished:
            lines.append(f"    building {_toy_line(toy, True)}")
        if pl.completed:
            lines.append("    completed: " + ", ".join(t.name for t in pl.completed))
        tree = [
            f"{sp.label}: {sp.ornament.colour} ({sp.ornament.reward})" if sp.ornament else None
            for sp in pl.tree
        ]
        hung = [t for t in tree if t]
        lines.append(f"    tree {pl.ornaments}/6" + (": " + "; ".join(hung) if hung else ""))
    return "\n".join(lines)


def _tokens(counts: Mapping[str, int]) -> str:
    return " ".join(f"{LETTERS[m]}{n}" for m, n in counts.items())


__all__ = ["Phase", "describe_action", "describe_event", "render_text"]
