"""Words for Santa's Workshop: menu labels, log lines, and the board as text.

The board is a list of blocks (:func:`board_blocks`: the heading with the pending
decision, the stations, the Mail Room, the rest of the table, each player, a legend)
joined by blank lines, so that the terminal game can reprint only the blocks that
changed. Sentences about the seat named "You" (the terminal player) use the verb's
plain form: "You place an Elf", "Ann places an Elf".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import PlayerId
from engine.words import ENGLISH, Words
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
    PlayerView,
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


YOU = "You"
"""The display name of the reader's own seat (the terminal game's): sentences about
that seat take the verb's plain form ("You place", not "You places")."""


def _name(names: Mapping[PlayerId, str], player: PlayerId | None) -> str:
    if player is None:
        return "nobody"
    return names.get(player, player)


def _says(who: str, verb: str) -> str:
    """``who`` and the verb agreeing with it: "Ann places", "You place", "You are"."""
    if who != YOU:
        return f"{who} {verb}"
    plain = {"is": "are", "has": "have"}.get(verb) or verb.removesuffix("s")
    return f"{who} {plain}"


def points(n: int) -> str:
    """A number of points in words: ``1 point``, ``2 points``."""
    return f"{n} point" if abs(n) == 1 else f"{n} points"


def elves(n: int) -> str:
    return "no Elves" if n == 0 else ("1 Elf" if n == 1 else f"{n} Elves")


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
    return f"{C.toy_names[card]} ({requirement_text(req)}, {points(C.toy_points[card])})"


def describe_action(
    s: WorkshopState,
    player: PlayerId,
    action: Any,
    names: Mapping[PlayerId, str] | None = None,
    words: Words = ENGLISH,
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
        return f"Donate {action.count} {_title(action.material)} (+{points(action.count)})"
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


def describe_event(event: Any, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    """A public log line. Never names a reindeer or an unrevealed ornament reward (W-7)."""
    who = _name(names, getattr(event, "player", None))
    if isinstance(event, ElfPlaced):
        name = STATION_NAMES[event.station]
        capacity = CAPACITY[STATION_INDEX[event.station]]
        where = f"{name} ({ORDINALS[event.space]} space)" if capacity > 1 else name
        return f"{_says(who, 'places')} an Elf at the {where}."
    if isinstance(event, Scored):
        detail, why = event.detail, str(event.reason)
        if detail:  # "(Inspection 1, Cheer 3)", not "(inspection: Inspection 1, Cheer 3)"
            why = detail if why in detail.lower() else f"{why}: {detail}"
        return f"{_says(who, 'scores')} {points(event.points)} ({why})."
    if isinstance(event, TokensReceived):
        text = f"{_says(who, 'receives')} {event.count} {_title(event.material)}"
        if event.short:
            text += f" ({event.short} fewer: the supply ran out)"
        return text + "."
    if isinstance(event, ChoiceLost):
        return (
            f"{_says(who, 'gets')} {event.count} fewer Materials: "
            "Wood, Metal and Fabric are all gone."
        )
    if isinstance(event, TokensPlaced):
        source = " from the Donation Center" if event.from_donation else ""
        return (
            f"{_says(who, 'puts')} {event.count} {_title(event.material)}{source} on {event.toy}."
        )
    if isinstance(event, TokensDonated):
        auto = " (no toy needs it)" if event.automatic else ""
        return f"{_says(who, 'donates')} {event.count} {_title(event.material)}{auto}."
    if isinstance(event, ToyTaken):
        source = "the deck" if event.slot is None else f"Mail Room slot {event.slot + 1}"
        return f"{_says(who, 'takes')} {event.toy} from {source}."
    if isinstance(event, DeckReshuffled):
        return f"The sleigh's {event.cards} toys are shuffled into a new toy deck."
    if isinstance(event, ToyCompleted):
        return f"{_says(who, 'completes')} {event.toy}!"
    if isinstance(event, ReindeerTaken):
        return f"{_says(who, 'takes')} a reindeer from the Stables."
    if isinstance(event, OrnamentRevealed):
        return f"{_says(who, 'takes')} a {event.colour} ornament: {event.reward}."
    if isinstance(event, OrnamentPlaced):
        space = C.tree_spaces[C.tree_space_ids.index(event.space)]
        return f"{_says(who, 'hangs')} the {event.colour} ornament on '{space.label}'."
    if isinstance(event, DayEnded):
        text = f"Day {event.day} ends; {event.stalls_revealed} reindeer revealed in the Stables."
        if event.first_player is not None:
            text += f" {_says(_name(names, event.first_player), 'is')} first player."
        return text
    if isinstance(event, Inspection):
        cheer = ", ".join(f"{_name(names, p)} {c}" for p, c in event.cheer.items())
        return f"Santa's Inspection {event.number}: Cheer {cheer}."
    if isinstance(event, GameEnded):
        winners = " and ".join(_name(names, p) for p in event.winners)
        label = "Winners" if len(event.winners) > 1 else "Winner"
        return f"The game is over. {label}: {winners}."
    return ""


def _toy_line(toy: ToyView, progress: bool) -> str:
    req = requirement_text(toy.requires, toy.placed if progress else None)
    return f"{toy.name} [{req}] {points(toy.points)}"


LEGEND = (
    "Legend: * first player · W Wood, M Metal, F Fabric, A Assembly (tokens; W1/2: 1 of 2"
    " placed) · cheer: completed toys + ornaments at each Inspection"
)


def board_blocks(view: WorkshopView, names: Mapping[PlayerId, str]) -> list[str]:
    """The board as text, in blocks: the heading with the pending decision, the
    stations, the Mail Room, the rest of the table, one block per player, the legend.
    ``render_text`` joins them with blank lines; the terminal reprints only the blocks
    that changed."""
    head = [_heading(view, names)]
    stations = ["Stations:"]
    for st in view.stations:
        who = ", ".join(_name(names, o) for o in st.occupants) or "-"
        cap = "open" if st.capacity is None else f"{len(st.occupants)}/{st.capacity}"
        stations.append(f"  {st.name:<30} {cap:>5}  {who}")
    mail = [f"Mail Room (deck {view.deck_size}, sleigh {view.sleigh_size}):"]
    for k, slot in enumerate(view.mail_slots):
        mail.append(f"  {k + 1}. " + (_toy_line(slot, False) if slot else "(empty)"))
    stalls = ", ".join(s or "(empty)" for s in view.stalls)
    table = [
        f"Stables: {stalls} (deck {view.reindeer_deck_size})",
        "Ornaments left: " + ", ".join(f"{c} {n}" for c, n in view.ornaments_left.items()),
        "Donation Center: " + _tokens(view.donation) + " | Supply: " + _tokens(view.supply),
    ]
    blocks = ["\n".join(head), "\n".join(stations), "\n".join(mail), "\n".join(table)]
    blocks += [_player_block(view, pl, names) for pl in view.players]
    blocks.append(LEGEND)
    return blocks


def _heading(view: WorkshopView, names: Mapping[PlayerId, str]) -> str:
    if view.over:
        return "=== Santa's Workshop: Game over ==="
    day = f"Day {view.day} of 6 ({view.date}), first player {_name(names, view.first_player)}"
    lines = [f"=== Santa's Workshop: {day} ==="]
    p = view.pending
    doing = DECISION_TEXT.get(p.decision, p.decision)
    actor = next((pl for pl in view.players if pl.player == p.player), None)
    left = f"; {elves(actor.elves_left)} left today" if actor is not None else ""
    lines.append(f"To act: {_name(names, p.player)}, {doing}{left}")
    extra = []
    if p.tokens:
        extra.append("tokens in hand " + ", ".join(f"{n} {_title(m)}" for m, n in p.tokens.items()))
    if p.materials_to_choose:
        extra.append(f"{p.materials_to_choose} Materials of choice to name")
    if p.ornament:
        extra.append(f"ornament in hand: {p.ornament.colour} ({p.ornament.reward})")
    if extra:
        lines.append("  " + "; ".join(extra))
    return "\n".join(lines)


def _player_block(view: WorkshopView, pl: PlayerView, names: Mapping[PlayerId, str]) -> str:
    mark = "*" if pl.player == view.first_player else " "
    reindeer = f"{pl.reindeer_count} reindeer"
    if pl.reindeer:  # the names: in the owner's own view only (W-7.2)
        reindeer += f" ({', '.join(pl.reindeer)})"
    line = f"{mark}{_name(names, pl.player)}: {points(pl.score)}, "
    if not view.over:
        line += f"{elves(pl.elves_left)} left, "
    line += reindeer
    if pl.cheer:
        line += ", cheer " + " and ".join(str(c) for c in pl.cheer)
    lines = [line]
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


def render_text(view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    return "\n\n".join(board_blocks(view, names))


def terminal_board(view: WorkshopView, names: Mapping[PlayerId, str]) -> str:
    """``render_text`` for the terminal game: while the reader takes toy cards, the
    Mail Room's toys are in the menu of choices below it, so the board leaves them out
    (the toy list is shown once)."""
    blocks = board_blocks(view, names)
    if view.pending.decision == "mail" and view.viewer == view.pending.player:
        blocks[2] = blocks[2].split("\n")[0].removesuffix(":") + ": its toys are your choices below"
    return "\n\n".join(blocks)


def _tokens(counts: Mapping[str, int]) -> str:
    return " ".join(f"{LETTERS[m]}{n}" for m, n in counts.items())


__all__ = ["Phase", "describe_action", "describe_event", "render_text", "terminal_board"]
