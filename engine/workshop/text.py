"""Words for Santa's Workshop: menu labels and log lines.

The board as text is in ``engine.workshop.board``; both share the helpers here
(names, points, Elves, token letters).

Every function takes the translator ``words`` last (English without one, see
``engine.words``): each sentence is one template with ``str.format`` fields, and the
game words in it (stations, materials, toys, colours) are translated from
``engine.workshop.names``. Sentences about the seat named :data:`YOU` (the terminal
player, or the player reading their own undo) have templates of their own, so each
language conjugates its verb: "You place an Elf" / "Ann places an Elf", "Du
platzierst einen Wichtel" / "Anna platziert einen Wichtel".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.choices import ChoiceFacts
from engine.core import PlayerId
from engine.words import ENGLISH, N_, Words, listed
from engine.workshop.choices import describe_choice
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
    WorkshopState,
)
from engine.workshop.names import (
    A_ORNAMENT,
    AT_STATION,
    ORNAMENT,
    REASON_NAMES,
    SPACES,
    THE_ORNAMENT,
    material,
    ornament,
)
from engine.workshop.rules import (
    CAPACITY,
    MAIL_TAKE,
    MAX_UNFINISHED,
    STABLES,
    STATION_INDEX,
    STATION_NAMES,
    TOY_NAMES,
    current_seat,
)

# TRANSLATORS: the one-letter (or short) abbreviations of Wood, Metal, Fabric and
# Assembly, in this order, separated by spaces (the board's token counts: "W2 M0")
LETTERS_TEMPLATE = N_("W M F A")
LETTERS = {"wood": "W", "metal": "M", "fabric": "F", "assembly": "A"}
"""The English abbreviations (``letters(words)`` gives them in any language)."""


YOU = N_("You")
"""The display name of the reader's own seat (the terminal game's, or the player's
own undo line): sentences about that seat have templates of their own ("You place",
not "You places"); where it is only named, it is translated ("Du")."""


def letters(words: Words = ENGLISH) -> dict[str, str]:
    """Each material's abbreviation in ``words``' language."""
    short = words.gettext(LETTERS_TEMPLATE).split()
    if len(short) != len(MATERIALS):  # a broken translation: the English letters
        return LETTERS
    return dict(zip(MATERIALS, short, strict=True))


def shown_name(
    names: Mapping[PlayerId, str], player: PlayerId | None, words: Words = ENGLISH
) -> str:
    """A player's name as shown where it is not the subject of a sentence."""
    if player is None:
        return words.gettext("nobody")
    name = names.get(player, player)
    return words.gettext(YOU) if name == YOU else name


def _say(words: Words, who: str, other: str, you: str, **fields: Any) -> str:
    """The sentence about ``who``: template ``you`` for the reader's own seat (named
    :data:`YOU`), else ``other`` with the name as ``{name}``."""
    if who == YOU:
        return words.gettext(you).format(**fields)
    return words.gettext(other).format(name=who, **fields)


def points(n: int, words: Words = ENGLISH) -> str:
    """A number of points in words: ``1 point``, ``2 points``."""
    return words.ngettext("{n} point", "{n} points", abs(n)).format(n=n)


def elves(n: int, words: Words = ENGLISH) -> str:
    if n == 0:
        return words.gettext("no Elves")
    return words.ngettext("{n} Elf", "{n} Elves", n).format(n=n)


def joined(items: list[str], words: Words) -> str:
    """``A, B and C`` (:func:`engine.words.listed`)."""
    return listed(items, words)


def requirement_text(
    requires: Mapping[str, int],
    placed: Mapping[str, int] | None = None,
    words: Words = ENGLISH,
) -> str:
    short = letters(words)
    parts = []
    for m in MATERIALS:
        need = requires.get(m, 0)
        if need:
            have = (placed or {}).get(m, 0)
            parts.append(f"{short[m]}{have}/{need}" if placed is not None else f"{short[m]}{need}")
    return " ".join(parts)


def _toy_label(card: int, words: Words = ENGLISH) -> str:
    req = dict(zip(MATERIALS, C.toy_req[card], strict=True))
    name = words.gettext(C.toy_names[card])
    return f"{name} ({requirement_text(req, None, words)}, {points(C.toy_points[card], words)})"


def describe_action(
    s: WorkshopState,
    player: PlayerId,
    action: Any,
    names: Mapping[PlayerId, str] | None = None,
    words: Words = ENGLISH,
) -> str:
    names = names or {}
    if isinstance(action, PlaceElf):
        return _place_elf_label(s, player, action, names, words)
    if isinstance(action, TakeToy):
        if action.slot is None:
            return words.gettext("Take the top card of the toy deck (unseen)")
        return words.gettext("Take {toy} from slot {slot}").format(
            toy=_toy_label(s.mail[action.slot], words), slot=action.slot + 1
        )
    if isinstance(action, StopTaking):
        return words.gettext("Stop taking")
    if isinstance(action, TakeReindeer):
        card = s.stalls[action.stall]
        label = words.gettext("Take {reindeer} (stall {stall})").format(
            reindeer=C.reindeer_names[C.reindeer_card_name[card]], stall=action.stall + 1
        )
        final = describe_choice(s, player, action).final
        if final is None:
            return label
        # W-6.1: a name the player does not hold yet scores more than a second copy
        held = {C.reindeer_card_name[c] for c in s.seats[current_seat(s)].reindeer}
        if C.reindeer_card_name[card] in held:
            note = N_("{label}: a name you have, +{points} at the end")
        else:
            note = N_("{label}: a new name, +{points} at the end")
        return words.gettext(note).format(label=label, points=final)
    if isinstance(action, ChooseMaterial):
        return words.gettext("Take 1 {material}").format(material=material(action.material, words))
    if isinstance(action, PlaceTokens):
        seat = s.seats[current_seat(s)]
        toy = next(t for t in seat.toys if t[0] == action.toy)
        t = MATERIALS.index(action.material)
        fields = {
            "count": action.count,
            "material": material(action.material, words),
            "toy": words.gettext(TOY_NAMES[action.toy]),
            "need": C.toy_req[action.toy][t] - toy[1 + t],
        }
        if describe_choice(s, player, action).scores:
            completes = N_("Put {count} {material} on {toy} (needs {need}) (completes it)")
            return words.gettext(completes).format(**fields)
        return words.gettext("Put {count} {material} on {toy} (needs {need})").format(**fields)
    if isinstance(action, DonateTokens):
        return words.gettext("Donate {count} {material} (+{points})").format(
            count=action.count,
            material=material(action.material, words),
            points=points(action.count, words),
        )
    if isinstance(action, ChooseOrnament):
        left = len(s.ornaments[C.colours.index(action.colour)])
        return words.gettext("Take {ornament} ({left} left, reward hidden)").format(
            ornament=ornament(action.colour, A_ORNAMENT, words), left=left
        )
    if isinstance(action, CoverSpace):
        label = C.tree_spaces[C.tree_space_ids.index(action.space)].label
        text = words.gettext("Cover the tree space '{space}'").format(space=words.gettext(label))
        facts = describe_choice(s, player, action)
        if facts.short and not facts.gives:  # W-1.4: a token the supply no longer has
            (lacking,) = facts.short
            return words.gettext("{label}: nothing, the supply has no {material}").format(
                label=text, material=material(lacking, words)
            )
        return text + _donated(facts, words)
    if isinstance(action, TakeDonated):
        return words.gettext("Take 1 donated {material} for {toy}").format(
            material=material(action.material, words), toy=words.gettext(TOY_NAMES[action.toy])
        )
    return str(action)


def _place_elf_label(
    s: WorkshopState,
    player: PlayerId,
    action: PlaceElf,
    names: Mapping[PlayerId, str],
    words: Words,
) -> str:
    """An Elf's station (W-3) with what it gives now (its facts): less than the board
    prints when the supply has run out or the player's room or the toy cards are short,
    and "nothing" when it gives none of it."""
    i = STATION_INDEX[action.station]
    name = words.gettext(STATION_NAMES[action.station])
    space = words.gettext(SPACES[len(s.spaces[i])])
    facts = describe_choice(s, player, action)
    if i < 4:
        m = MATERIALS[i]
        given, short = facts.gives.get(m, 0), facts.short.get(m, 0)
        fields = {"station": name, "space": space, "material": material(m, words)}
        if not given:
            label = words.gettext("{station}, {space}: nothing, the supply has no {material}")
        elif short:
            label = words.gettext(
                "{station}, {space}: {count} {material} ({short} fewer: the supply is short)"
            )
        else:
            label = words.gettext("{station}, {space}: {count} {material}")
        label = label.format(count=given, short=short, **fields) + _donated(facts, words)
        donated = sum(facts.donated.values())
        cooperation = {p: n - (donated if p == player else 0) for p, n in facts.scores.items()}
        if any(cooperation.values()):
            bonus = ", ".join(
                _cooperation(names.get(p, p), n, words) for p, n in cooperation.items() if n
            )
            label += f" ({bonus})"
        return label
    if i in MAIL_TAKE:
        n = facts.gives.get("toy", 0)
        if not facts.short:
            return words.gettext("{station}: take 1 to {n} toy cards").format(station=name, n=n)
        room = MAX_UNFINISHED - len(s.seats[current_seat(s)].toys)
        if room == n:  # W-4.2: at most 5 unfinished toys
            return words.ngettext(
                "{station}: take 1 toy card (room for 1 more unfinished toy)",
                "{station}: take 1 to {n} toy cards (room for {n} more unfinished toys)",
                n,
            ).format(station=name, n=n)
        return words.ngettext(  # W-3.6: the deck, the sleigh and the slots hold no more
            "{station}: take 1 toy card (only 1 is left)",
            "{station}: take 1 to {n} toy cards (only {n} are left)",
            n,
        ).format(station=name, n=n)
    if i == STABLES:
        n, short = facts.gives.get("choice", 0), facts.short.get("choice", 0)
        if short and not n:
            return words.gettext(
                "{station}, {space}: 1 reindeer, no Materials (Wood, Metal and Fabric are gone)"
            ).format(station=name, space=space)
        if short:
            return words.ngettext(
                "{station}, {space}: 1 reindeer + {n} Material of choice "
                "({short} fewer: the supply is short)",
                "{station}, {space}: 1 reindeer + {n} Materials of choice "
                "({short} fewer: the supply is short)",
                n,
            ).format(station=name, space=space, n=n, short=short)
        return words.ngettext(
            "{station}, {space}: 1 reindeer + {n} Material of choice",
            "{station}, {space}: 1 reindeer + {n} Materials of choice",
            n,
        ).format(station=name, space=space, n=n)
    if CAPACITY[i] == 0:
        return words.gettext(
            "{station}: take donated tokens your toys need (up to {tokens})"
        ).format(station=name, tokens=_counts(facts.gives, words))
    return words.gettext("{station}: 1 ornament + a tree space").format(station=name)


def _donated(facts: ChoiceFacts, words: Words) -> str:
    """W-4.1: what a label adds for received tokens no toy of the player needs."""
    if not facts.donated:
        return ""
    ((m, n),) = facts.donated.items()
    return words.ngettext(
        " (no toy needs {material}: donated, +{n} point)",
        " (no toy needs {material}: donated, +{n} points)",
        n,
    ).format(material=material(m, words), n=n)


def _counts(tokens: Mapping[str, int], words: Words) -> str:
    """Tokens by their letters, in the board's order: "W2 F1"."""
    short = letters(words)
    return " ".join(f"{short[m]}{tokens[m]}" for m in MATERIALS if tokens.get(m))


def _cooperation(name: str, n: int, words: Words) -> str:
    if name == YOU:
        return words.gettext("+{n} cooperation to You").format(n=n)
    return words.gettext("+{n} cooperation to {name}").format(n=n, name=name)


_INSPECTION_DETAIL = re.compile(r"Inspection (\d+), Cheer (\d+)")
_UNFINISHED_DETAIL = re.compile(r"(\d+) tokens on unfinished toys")
_REINDEER_DETAIL = re.compile(r"(\d+) reindeer")
_ORNAMENT_DETAIL = re.compile(r"(\w+) ornament: (.+)")


def _detail(reason: str, detail: str, words: Words) -> str:
    """A score event's detail (English, as the rules wrote it) in ``words``' language:
    a toy, a station or a tree space by its name; the other reasons by their pattern
    (``engine.workshop.rules``: ``tx.score``)."""
    if reason in ("toy", "cooperation", "tree"):
        return words.gettext(detail)
    if reason == "ornament" and (found := _ORNAMENT_DETAIL.fullmatch(detail)):
        colour, reward = found.groups()
        return f"{ornament(colour, ORNAMENT, words)}: {words.gettext(reward)}"
    if reason == "inspection" and (found := _INSPECTION_DETAIL.fullmatch(detail)):
        return words.gettext("Inspection {number}, Cheer {cheer}").format(
            number=int(found[1]), cheer=int(found[2])
        )
    if reason == "unfinished" and (found := _UNFINISHED_DETAIL.fullmatch(detail)):
        return words.gettext("{n} tokens on unfinished toys").format(n=int(found[1]))
    if reason == "reindeer" and (found := _REINDEER_DETAIL.fullmatch(detail)):
        n = int(found[1])
        return words.ngettext("{n} reindeer", "{n} reindeer", n).format(n=n)
    return detail


def _why(event: Scored, words: Words) -> str:
    """The reason in brackets: "(Inspection 1, Cheer 3)", "(toy: Kite)", "(donation)"
    (the reason is left out where the detail says it already)."""
    reason, detail = str(event.reason), event.detail
    name = words.gettext(REASON_NAMES.get(reason, reason))
    if not detail:
        return name
    shown = _detail(reason, detail, words)
    if reason in detail.lower():
        return shown
    return words.gettext("{reason}: {detail}").format(reason=name, detail=shown)


FIRST_INSPECTION = N_(
    "Santa inspects after Day 3 and Day 6: Cheer is your completed toys plus the "
    "ornaments on your tree; the most Cheer scores 8, the next 4, then 2 and 1. The "
    "completed toys now go to Santa's sleigh."
)
"""What the first Inspection's line adds, so a player meets the rule where it bites."""


def describe_event(event: Any, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    """A public log line. Never names a reindeer or an unrevealed ornament reward (W-7)."""
    player = getattr(event, "player", None)
    who = words.gettext("nobody") if player is None else names.get(player, player)
    if isinstance(event, ElfPlaced):
        at = words.gettext(AT_STATION[event.station])
        if CAPACITY[STATION_INDEX[event.station]] > 1:
            return _say(
                words,
                who,
                N_("{name} places an Elf {at} ({space})."),
                N_("You place an Elf {at} ({space})."),
                at=at,
                space=words.gettext(SPACES[event.space]),
            )
        return _say(
            words, who, N_("{name} places an Elf {at}."), N_("You place an Elf {at}."), at=at
        )
    if isinstance(event, Scored):
        return _say(
            words,
            who,
            N_("{name} scores {points} ({why})."),
            N_("You score {points} ({why})."),
            points=points(event.points, words),
            why=_why(event, words),
        )
    if isinstance(event, TokensReceived):
        fields = {"count": event.count, "material": material(event.material, words)}
        if event.short:
            return _say(
                words,
                who,
                N_("{name} receives {count} {material} ({short} fewer: the supply ran out)."),
                N_("You receive {count} {material} ({short} fewer: the supply ran out)."),
                short=event.short,
                **fields,
            )
        return _say(
            words,
            who,
            N_("{name} receives {count} {material}."),
            N_("You receive {count} {material}."),
            **fields,
        )
    if isinstance(event, ChoiceLost):
        if who == YOU:
            return words.ngettext(
                "You get {count} fewer Materials: Wood, Metal and Fabric are all gone.",
                "You get {count} fewer Materials: Wood, Metal and Fabric are all gone.",
                event.count,
            ).format(count=event.count)
        return words.ngettext(
            "{name} gets {count} fewer Materials: Wood, Metal and Fabric are all gone.",
            "{name} gets {count} fewer Materials: Wood, Metal and Fabric are all gone.",
            event.count,
        ).format(name=who, count=event.count)
    if isinstance(event, TokensPlaced):
        fields = {
            "count": event.count,
            "material": material(event.material, words),
            "toy": words.gettext(event.toy),
        }
        if event.from_donation:
            return _say(
                words,
                who,
                N_("{name} puts {count} {material} from the Donation Center on {toy}."),
                N_("You put {count} {material} from the Donation Center on {toy}."),
                **fields,
            )
        return _say(
            words,
            who,
            N_("{name} puts {count} {material} on {toy}."),
            N_("You put {count} {material} on {toy}."),
            **fields,
        )
    if isinstance(event, TokensDonated):
        fields = {"count": event.count, "material": material(event.material, words)}
        if event.automatic:
            return _say(
                words,
                who,
                N_("{name} donates {count} {material} (no toy needs it)."),
                N_("You donate {count} {material} (no toy needs it)."),
                **fields,
            )
        return _say(
            words,
            who,
            N_("{name} donates {count} {material}."),
            N_("You donate {count} {material}."),
            **fields,
        )
    if isinstance(event, ToyTaken):
        toy = words.gettext(event.toy)
        if event.slot is None:
            return _say(
                words,
                who,
                N_("{name} takes {toy} from the deck."),
                N_("You take {toy} from the deck."),
                toy=toy,
            )
        return _say(
            words,
            who,
            N_("{name} takes {toy} from Mail Room slot {slot}."),
            N_("You take {toy} from Mail Room slot {slot}."),
            toy=toy,
            slot=event.slot + 1,
        )
    if isinstance(event, DeckReshuffled):
        return words.gettext("The sleigh's {cards} toys are shuffled into a new toy deck.").format(
            cards=event.cards
        )
    if isinstance(event, ToyCompleted):
        return _say(
            words,
            who,
            N_("{name} completes {toy}!"),
            N_("You complete {toy}!"),
            toy=words.gettext(event.toy),
        )
    if isinstance(event, ReindeerTaken):
        return _say(
            words,
            who,
            N_("{name} takes a reindeer from the Stables."),
            N_("You take a reindeer from the Stables."),
        )
    if isinstance(event, OrnamentRevealed):
        return _say(
            words,
            who,
            N_("{name} takes {ornament}: {reward}."),
            N_("You take {ornament}: {reward}."),
            ornament=ornament(event.colour, A_ORNAMENT, words),
            reward=words.gettext(event.reward),
        )
    if isinstance(event, OrnamentPlaced):
        space = C.tree_spaces[C.tree_space_ids.index(event.space)]
        return _say(
            words,
            who,
            N_("{name} hangs {ornament} on '{space}'."),
            N_("You hang {ornament} on '{space}'."),
            ornament=ornament(event.colour, THE_ORNAMENT, words),
            space=words.gettext(space.label),
        )
    if isinstance(event, DayEnded):
        text = words.ngettext(
            "Day {day} ends; {n} reindeer revealed in the Stables.",
            "Day {day} ends; {n} reindeer revealed in the Stables.",
            event.stalls_revealed,
        ).format(day=event.day, n=event.stalls_revealed)
        if event.first_player is not None:
            first = names.get(event.first_player, event.first_player)
            text += " " + _say(
                words, first, N_("{name} is first player."), N_("You are first player.")
            )
        return text
    if isinstance(event, Inspection):
        cheer = ", ".join(f"{shown_name(names, p, words)} {c}" for p, c in event.cheer.items())
        line = words.gettext("Santa's Inspection {number}: Cheer {cheer}.").format(
            number=event.number, cheer=cheer
        )
        if event.number == 1:  # the first Inspection says what it is (W-5)
            line += " " + words.gettext(FIRST_INSPECTION)
        return line
    if isinstance(event, GameEnded):
        winners = joined([shown_name(names, p, words) for p in event.winners], words)
        return words.ngettext(
            "The game is over. Winner: {winners}.",
            "The game is over. Winners: {winners}.",
            2 if len(event.winners) > 1 else 1,
        ).format(winners=winners)
    return ""


__all__ = [
    "YOU",
    "describe_action",
    "describe_event",
    "elves",
    "joined",
    "letters",
    "points",
    "shown_name",
]
