"""Santa's Workshop's board as text: Discord's text fallback and the terminal game.

The board is a list of blocks (:func:`board_blocks`: the heading with the pending
decision, the stations, the Mail Room, the rest of the table, each player, a legend)
joined by blank lines, so that the terminal game can reprint only the blocks that
changed. Every function takes the translator ``words`` last (English without one);
labels are templates, game words come from ``engine.workshop.names``.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.core import PlayerId
from engine.words import ENGLISH, N_, Words
from engine.workshop.models import OrnamentView, PlayerView, ToyView, WorkshopView
from engine.workshop.names import COLOURS, material
from engine.workshop.text import elves, joined, letters, points, requirement_text, shown_name
from engine.workshop.view import santa_date

DECISION_TEXT = {
    "station": N_("to place an Elf"),
    "mail": N_("to take a toy card (or stop)"),
    "reindeer": N_("to choose a reindeer"),
    "choose_material": N_("to choose a Material"),
    "place_tokens": N_("to place or donate tokens"),
    "ornament": N_("to choose an ornament colour"),
    "tree_space": N_("to choose a tree space"),
    "donation": N_("to take a donated token (or stop)"),
}
FIRST_DECISION_TEXT = {
    "mail": N_("to take a toy card"),
    "donation": N_("to take a donated token"),
}
"""The decisions whose stop is offered only after the first card or token (W-3.2, W-3.3)."""


def _toy_line(toy: ToyView, progress: bool, words: Words = ENGLISH) -> str:
    req = requirement_text(toy.requires, toy.placed if progress else None, words)
    return f"{words.gettext(toy.name)} [{req}] {points(toy.points, words)}"


LEGEND = N_(
    "Legend: * first player · W Wood, M Metal, F Fabric, A Assembly (tokens; W1/2: 1 of 2"
    " placed) · cheer: completed toys + ornaments at each Inspection"
)


def board_blocks(
    view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> list[str]:
    """The board as text, in blocks: the heading with the pending decision, the
    stations, the Mail Room, the rest of the table, one block per player, the legend.
    ``render_text`` joins them with blank lines; the terminal reprints only the blocks
    that changed."""
    head = [_heading(view, names, words)]
    stations = [words.gettext("Stations:")]
    station_names = [words.gettext(st.name) for st in view.stations]
    width = max([30, *map(len, station_names)])
    for st, name in zip(view.stations, station_names, strict=True):
        who = ", ".join(shown_name(names, o, words) for o in st.occupants) or "-"
        cap = words.gettext("open") if st.capacity is None else f"{len(st.occupants)}/{st.capacity}"
        stations.append(f"  {name:<{width}} {cap:>5}  {who}")
    mail = [
        words.gettext("Mail Room (deck {deck}, sleigh {sleigh}):").format(
            deck=view.deck_size, sleigh=view.sleigh_size
        )
    ]
    empty = words.gettext("(empty)")
    for k, slot in enumerate(view.mail_slots):
        mail.append(f"  {k + 1}. " + (_toy_line(slot, False, words) if slot else empty))
    stalls = ", ".join(s or empty for s in view.stalls)
    ornaments = ", ".join(
        f"{words.gettext(COLOURS.get(c, c))} {n}" for c, n in view.ornaments_left.items()
    )
    table = [
        words.gettext("Stables: {stalls} (deck {deck})").format(
            stalls=stalls, deck=view.reindeer_deck_size
        ),
        words.gettext("Ornaments left: {ornaments}").format(ornaments=ornaments),
        words.gettext("Donation Center: {donation} | Supply: {supply}").format(
            donation=_tokens(view.donation, words), supply=_tokens(view.supply, words)
        ),
    ]
    blocks = ["\n".join(head), "\n".join(stations), "\n".join(mail), "\n".join(table)]
    blocks += [_player_block(view, pl, names, words) for pl in view.players]
    blocks.append(words.gettext(LEGEND))
    return blocks


def _heading(view: WorkshopView, names: Mapping[PlayerId, str], words: Words) -> str:
    if view.over:
        return words.gettext("=== Santa's Workshop: Game over ===")
    lines = [
        words.gettext(
            "=== Santa's Workshop: Day {day} of 6 ({date}), first player {name} ==="
        ).format(
            day=view.day,
            date=santa_date(view.day, words),
            name=shown_name(names, view.first_player, words),
        )
    ]
    p = view.pending
    decision = DECISION_TEXT.get(p.decision)
    if not p.taken and p.decision in FIRST_DECISION_TEXT:  # no stop before the first
        decision = FIRST_DECISION_TEXT[p.decision]
    doing = words.gettext(decision) if decision else p.decision
    actor = next((pl for pl in view.players if pl.player == p.player), None)
    who = shown_name(names, p.player, words)
    if actor is not None:
        lines.append(
            words.gettext("To act: {name}, {doing}; {elves} left today").format(
                name=who, doing=doing, elves=elves(actor.elves_left, words)
            )
        )
    else:
        lines.append(words.gettext("To act: {name}, {doing}").format(name=who, doing=doing))
    extra = []
    if p.tokens:
        tokens = ", ".join(f"{n} {material(m, words)}" for m, n in p.tokens.items())
        extra.append(words.gettext("tokens in hand {tokens}").format(tokens=tokens))
    if p.materials_to_choose:
        n = p.materials_to_choose
        extra.append(
            words.ngettext(
                "{n} Material of choice to name", "{n} Materials of choice to name", n
            ).format(n=n)
        )
    if p.ornament:
        extra.append(
            words.gettext("ornament in hand: {colour} ({reward})").format(
                colour=words.gettext(COLOURS.get(p.ornament.colour, p.ornament.colour)),
                reward=words.gettext(p.ornament.reward),
            )
        )
    if extra:
        lines.append("  " + "; ".join(extra))
    return "\n".join(lines)


def _player_block(
    view: WorkshopView, pl: PlayerView, names: Mapping[PlayerId, str], words: Words
) -> str:
    mark = "*" if pl.player == view.first_player else " "
    n = pl.reindeer_count
    reindeer = words.ngettext("{n} reindeer", "{n} reindeer", n).format(n=n)
    if pl.reindeer:  # the names: in the owner's own view only (W-7.2)
        reindeer += f" ({', '.join(pl.reindeer)})"
    parts = [points(pl.score, words)]
    if not view.over:
        parts.append(words.gettext("{elves} left").format(elves=elves(pl.elves_left, words)))
    parts.append(reindeer)
    if pl.cheer:
        cheer = joined([str(c) for c in pl.cheer], words)
        parts.append(words.gettext("cheer {cheer}").format(cheer=cheer))
    lines = [f"{mark}{shown_name(names, pl.player, words)}: " + ", ".join(parts)]
    for toy in pl.unfinished:
        line = words.gettext("building {toy}").format(toy=_toy_line(toy, True, words))
        lines.append("    " + line)
    if pl.completed:
        done = ", ".join(words.gettext(t.name) for t in pl.completed)
        lines.append("    " + words.gettext("completed: {toys}").format(toys=done))
    hung = [_hung(sp.label, sp.ornament, words) for sp in pl.tree if sp.ornament]
    tree = words.gettext("tree {n}/6").format(n=pl.ornaments)
    lines.append("    " + tree + (": " + "; ".join(hung) if hung else ""))
    return "\n".join(lines)


def _hung(space: str, orn: OrnamentView, words: Words) -> str:
    """A covered tree space: "Star: 3 points: red (2 Assembly)"."""
    colour = words.gettext(COLOURS.get(orn.colour, orn.colour))
    return f"{words.gettext(space)}: {colour} ({words.gettext(orn.reward)})"


def render_text(view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    return "\n\n".join(board_blocks(view, names, words))


def terminal_board(
    view: WorkshopView, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> str:
    """``render_text`` for the terminal game: while the reader takes toy cards, the
    Mail Room's toys are in the menu of choices below it, so the board leaves them out
    (the toy list is shown once)."""
    blocks = board_blocks(view, names, words)
    if view.pending.decision == "mail" and view.viewer == view.pending.player:
        mail = blocks[2].split("\n")[0].removesuffix(":")
        blocks[2] = words.gettext("{mail}: its toys are your choices below").format(mail=mail)
    return "\n\n".join(blocks)


def _tokens(counts: Mapping[str, int], words: Words = ENGLISH) -> str:
    short = letters(words)
    return " ".join(f"{short.get(m, m)}{n}" for m, n in counts.items())


__all__ = ["board_blocks", "render_text", "terminal_board"]
