"""Menu labels, public log lines and a terminal board for Workshop Tonttu.

Everything here works from actions, public events and views only, so nothing
secret can leak into a log line or a board drawn for someone else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.choices import ChoiceFacts, Note
from engine.core import PlayerId
from engine.tonttu.choices import describe_choice, live_seat, material_note, missing_counts
from engine.tonttu.data import (
    GIFT_NAMES,
    GIFT_NEEDS,
    MATERIAL_NAMES,
    MATERIAL_TYPE,
)
from engine.tonttu.models import (
    MATERIAL_POINT,
    MATERIAL_POINT_UP,
    PointGift,
    PointMaterial,
)
from engine.tonttu.names import MODES, ROTATIONS
from engine.tonttu.rules import SET_BONUS, gift_points, set_points
from engine.words import ENGLISH, N_, Words

if TYPE_CHECKING:
    from engine.tonttu.models import GiftResult, MaterialResult, TonttuState, TonttuView

KEEP_FACE_DOWN = "keep it face down"
TAKE_FACE_UP = "take it face up"
GOES_FACE_UP = "it goes face up (you already have a face-down card)"
"""The notes that end an English label pointing at a face-down material (T-3.1); the
labels themselves are whole templates (:func:`describe_action`)."""
HINT = " · "
"""Separates a point's label from its note on what it would do for the player now."""
GIFT_IDS: dict[str, int] = {name: gift for gift, name in enumerate(GIFT_NAMES)}
YOU = N_("You")
"""The display name of the reader's own seat (the terminal game's player), as the
``names`` mapping gives it: sentences about that seat have templates of their own ("You
get it", not "You gets it"; "Du bekommst es"), and where it is only named it is
translated ("Du")."""


def _shown(names: Mapping[PlayerId, str], player: PlayerId | None, words: Words) -> str:
    """A player's name as shown where it is not the subject of a sentence."""
    name = names.get(player or "", player or "")
    return words.gettext(YOU) if name == YOU else name


def _name(name: str, words: Words) -> str:
    """A card's name (a gift, a material, a category) in ``words``' language."""
    return words.gettext(name)


def _needs(names: Sequence[str], words: Words) -> str:
    return ", ".join(words.gettext(n) for n in names)


def gift_label(gift: int, words: Words = ENGLISH) -> str:
    return words.gettext("{gift} (needs {materials})").format(
        gift=words.gettext(GIFT_NAMES[gift]), materials=_needs(GIFT_NEEDS[gift], words)
    )


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
    The gift's note follows :data:`HINT` (:func:`describe_parts` gives the two apart).
    """
    label, hint = describe_parts(action, state, player, names, words)
    return label + HINT + hint if hint else label


def describe_parts(
    action: Any,
    state: TonttuState | None = None,
    player: PlayerId | None = None,
    names: Mapping[PlayerId, str] | None = None,
    words: Words = ENGLISH,
) -> tuple[str, str]:
    """:func:`describe_action` in its two parts: the label, and the note on what a
    point at a gift would do for the player now ("" if none), both worded from the
    choice's facts (:func:`engine.tonttu.choices.describe_choice`)."""
    kind = getattr(action, "kind", None)
    if kind == "pick":
        return _pick_label(action.material, words), ""
    if kind == "point_gift":
        label = words.gettext("Point at {gift}").format(gift=gift_label(action.gift, words))
        if state is None or player is None:
            return label, ""
        facts = describe_choice(state, player, action)
        return label, _gift_hint(facts, names or {}, words)
    if kind == "point_material":
        note = material_note(state, live_seat(state, player), action.face_down)
        return words.gettext(NOTE_LABELS[note]).format(slot=action.slot + 1), ""
    if kind == "close_point_phase":
        return words.gettext("Close the point phase (time is up)"), ""
    return str(action), ""


NOTES: dict[Note, str] = {
    "keep_face_down": KEEP_FACE_DOWN,
    "take_face_up": TAKE_FACE_UP,
    "goes_face_up": GOES_FACE_UP,
}
"""Each note of a point at a face-down material, as its English label ends."""
NOTE_LABELS: dict[Note | None, str] = {
    None: N_("Point at face-down material {slot}"),
    "keep_face_down": N_("Point at face-down material {slot}: keep it face down"),
    "take_face_up": N_("Point at face-down material {slot}: take it face up"),
    "goes_face_up": N_(
        "Point at face-down material {slot}: it goes face up (you already have a face-down card)"
    ),
}
"""A point at a face-down material's label, by its note (``None``: the position does
not say, e.g. a confirmation after the reveal)."""


def _pick_label(material: str, words: Words) -> str:
    return words.gettext("Pick {material}").format(material=_name(material, words))


def _gift_hint(facts: ChoiceFacts, names: Mapping[PlayerId, str], words: Words) -> str:
    """What pointing at a gift does for the player now (T-3.2, T-4), from its facts;
    "" where they do not describe the position."""
    if facts.can_pay is None:
        return ""
    if not facts.can_pay:
        cards = ", ".join(_counted(name, n, words) for name, n in facts.missing.items())
        return words.gettext("missing {cards}: you cannot pay, it gives you nothing").format(
            cards=cards
        )
    if facts.offer is None:  # speed mode: no offers (T-4)
        return words.gettext("you can pay")
    mine = facts.offer
    rivals = []
    for rival in facts.rivals:
        low, high = rival.low, rival.high
        shown = words.gettext(_versus(mine, low, high)).format(
            name=_shown(names, rival.player, words), offer=_span(low, high)
        )
        if rival.if_face_down_fits:
            shown = words.gettext("{rival} (if their face-down card fits)").format(rival=shown)
        rivals.append(shown)
    if not rivals:
        return words.gettext("you can pay; nobody else can")
    return words.gettext("you can pay; if contested your offer {offer} {rivals}").format(
        offer=mine, rivals=", ".join(rivals)
    )


def _span(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def _versus(mine: int, low: int, high: int) -> str:
    """How ``mine`` compares with an offer from ``low`` to ``high``: a template with the
    rival's ``name`` and ``offer``."""
    if high < mine:
        return N_("beats {name} {offer}")
    if low > mine:
        return N_("loses to {name} {offer}")
    if low == high:
        return N_("ties {name} {offer}")
    if high == mine:
        return N_("beats or ties {name} {offer}")
    return N_("ties or loses to {name} {offer}")


def missing_text(
    face_up: tuple[int, ...], face_down: int | None, gift: int, words: Words = ENGLISH
) -> str:
    """The cards a workbench still lacks for ``gift``: "Wood, Paint ×2"."""
    need = missing_counts(face_up, face_down, gift)
    return ", ".join(_counted(MATERIAL_NAMES[t], n, words) for t, n in enumerate(need) if n)


def _counted(name: str, count: int, words: Words = ENGLISH) -> str:
    name = words.gettext(name)
    return name if count == 1 else f"{name} ×{count}"


def choice_label(
    state: TonttuState, code: int, player: PlayerId | None = None, words: Words = ENGLISH
) -> str:
    """The owner's pending choice as a label (used only in the owner's view): the label
    its menu entry has, so a menu can mark it as the current choice."""
    if state.phase == "pick":
        return _pick_label(MATERIAL_NAMES[MATERIAL_TYPE[code]], words)
    return describe_action(action_of(code), state, player, words=words)


def action_of(code: int) -> Any:
    """The point action a stored point code stands for (see ``MATERIAL_POINT``)."""
    if code >= MATERIAL_POINT_UP:
        return PointMaterial(slot=code - MATERIAL_POINT_UP, face_down=False)
    if code >= MATERIAL_POINT:
        return PointMaterial(slot=code - MATERIAL_POINT)
    return PointGift(gift=code)


def point_code(label: str) -> int:
    """The point code of a point's English label (:func:`describe_action`,
    :func:`choice_label`); the inverse the computer players use to read their own
    pending point from a view (whose ``my_choice`` is always English)."""
    rest = label.removeprefix("Point at ")
    if rest.startswith("face-down material "):
        number = rest.removeprefix("face-down material ").split(":")[0]
        base = MATERIAL_POINT_UP if f": {TAKE_FACE_UP}" in rest else MATERIAL_POINT
        return base + int(number) - 1
    return GIFT_IDS[rest.split(" (needs ")[0]]


def _choice_text(choice: str, words: Words) -> str:
    """A view's pending choice (an English label) in ``words``' language; a point's note
    on what it would do is left out (the view cannot say it again)."""
    if words is ENGLISH:
        return choice
    if choice.startswith("Pick "):
        return _pick_label(choice.removeprefix("Pick "), words)
    return describe_action(action_of(point_code(choice.split(HINT)[0])), words=words)


def _names(players: list[PlayerId], names: Mapping[PlayerId, str], words: Words) -> str:
    return ", ".join(_shown(names, p, words) for p in players) or words.gettext("nobody")


INDENT = "\n    "
"""Starts each detail line under a log entry's heading (a reveal's cards, a new deal)."""

END_REASONS = {
    "gift_stack_empty": N_("the gift stack has run out"),
    "no_gift_for_10_rounds": N_("10 rounds in a row passed without anyone winning a gift"),
}
"""Why a game ended (T-2.3, T-2.5), in words."""


def _end_reason(reason: str, words: Words) -> str:
    return words.gettext(END_REASONS[reason]) if reason in END_REASONS else reason


def _gift_line(result: GiftResult, names: Mapping[PlayerId, str], words: Words) -> str:
    if result.result == "won":
        winner = names.get(result.winner or "", result.winner or "")
        cards = grouped(result.paid, words)
        if winner == YOU:
            line = words.gettext("You get it, paying {cards}").format(cards=cards)
        else:
            line = words.gettext("{winner} gets it, paying {cards}").format(
                winner=winner, cards=cards
            )
        if result.face_down_paid:
            line = words.gettext("{payment} ({card} was face down)").format(
                payment=line, card=_name(result.face_down_paid, words)
            )
        if result.offers:
            line = words.gettext("offers {offers}; {result}").format(
                offers=_offers(result.offers, names, words)[1:-1], result=line
            )
    elif result.result == "tie":
        line = words.gettext("tied offers {offers}, nobody gets it").format(
            offers=_offers(result.offers, names, words)
        )
    elif result.result == "wasted":
        line = words.gettext("cannot pay, the point is wasted")
    else:
        line = words.gettext("nobody can pay, nothing happens")
    gift, category = _name(result.gift, words), _name(result.category, words)
    return _pointed_at(
        result.pointers,
        names,
        words,
        (
            N_("{gift} ({category}), pointed at by {players}: {result}"),
            N_("{gift} ({category}), pointed at by You: {result}"),
            N_("{gift} ({category}), pointed at by You, {players}: {result}"),
        ),
        gift=gift,
        category=category,
        result=line,
    )


def _pointed_at(
    pointers: list[PlayerId],
    names: Mapping[PlayerId, str],
    words: Words,
    templates: tuple[str, str, str],
    **fields: Any,
) -> str:
    """A card's line: who pointed at it, then ``fields["result"]``. The reader's seat
    (named :data:`YOU`, first in seat order in the terminal) has templates of its own,
    so a language can decline it ("gezeigt von dir")."""
    anyone, you_alone, you_and_others = templates
    if not pointers or names.get(pointers[0], pointers[0]) != YOU:
        return words.gettext(anyone).format(players=_names(pointers, names, words), **fields)
    if len(pointers) == 1:
        return words.gettext(you_alone).format(**fields)
    others = _names(pointers[1:], names, words)
    return words.gettext(you_and_others).format(players=others, **fields)


def _offers(offers: Mapping[PlayerId, int], names: Mapping[PlayerId, str], words: Words) -> str:
    return "(" + ", ".join(f"{_shown(names, p, words)} {o}" for p, o in offers.items()) + ")"


def _material_line(result: MaterialResult, names: Mapping[PlayerId, str], words: Words) -> str:
    taker = names.get(result.taker or "", result.taker or "")
    you = taker == YOU
    if result.result == "contested":
        line = words.gettext("contested, nothing happens")
    elif result.face_down:
        if you:
            line = words.gettext("You took it and keep it face down")
        else:
            line = words.gettext("{taker} took it and keeps it face down").format(taker=taker)
    else:
        material = _name(result.material or "", words)
        if you:
            line = words.gettext("You took it face up: {material}").format(material=material)
        else:
            line = words.gettext("{taker} took it face up: {material}").format(
                taker=taker, material=material
            )
    return _pointed_at(
        result.pointers,
        names,
        words,
        (
            N_("face-down material {slot}, pointed at by {players}: {result}"),
            N_("face-down material {slot}, pointed at by You: {result}"),
            N_("face-down material {slot}, pointed at by You, {players}: {result}"),
        ),
        slot=result.slot + 1,
        result=line,
    )


FIRST_REVEAL = N_(
    "(A gift goes to its one pointer who can pay it, else to the single highest offer; "
    "a tie: to nobody. A face-down material goes to its one pointer.)"
)
FIRST_ROUND_END = N_(
    "(Each round ends so: the middle is refilled and hands pass on; after a deal's 4th "
    "round, new hands. The game ends when the gift stack runs out.)"
)
"""What the first reveal and the first end of a round add, so a player meets the rule
where it bites (the rounds are numbered from 1 in every game)."""


def describe_event(event: Any, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    """A public log entry: one line, or for a round's reveal and its end a few short
    lines (a heading, then one indented line per card or step)."""
    kind = event.kind

    def name(p: PlayerId | None) -> str:
        return _shown(names, p, words)

    if kind == "chose":
        return _chose(names.get(event.player, event.player), event.phase, event.replaced, words)
    if kind == "picks_revealed":
        picks = ", ".join(f"{name(p)} {_name(m, words)}" for p, m in event.picks.items())
        line = words.gettext("Round {round} picks: {picks}.").format(round=event.round, picks=picks)
        if event.skipped:
            line += " " + words.gettext("Skipped (empty hand): {players}.").format(
                players=_names(event.skipped, names, words)
            )
        return line
    if kind == "points_revealed":
        parts = [_gift_line(r, names, words) for r in event.gifts]
        parts += [_material_line(r, names, words) for r in event.materials]
        if not parts:
            return words.gettext("Round {round} points: nobody pointed.").format(round=event.round)
        heading = words.gettext("Round {round} points:").format(round=event.round)
        line = heading + "".join(f"{INDENT}{_sentence(p)}" for p in parts)
        if event.round == 1:  # the first reveal says how points resolve (T-3)
            line += INDENT + words.gettext(FIRST_REVEAL)
        return line
    if kind == "speed_point":
        if event.gift is not None:
            line = _gift_line(event.gift, names, words)
        else:
            line = _material_line(event.material, names, words)
        return words.gettext("Speed point: {result}.").format(result=line)
    if kind == "point_phase_closed":
        if not event.missed:
            return words.gettext("Time is up: the point phase of round {round} is closed.").format(
                round=event.round
            )
        return words.ngettext(
            "Time is up: the point phase of round {round} is closed. {players} did not point.",
            "Time is up: the point phase of round {round} is closed. {players} did not point.",
            len(event.missed),
        ).format(round=event.round, players=_names(event.missed, names, words))
    if kind == "round_ended":
        return _round_ended(event, name, words)
    if kind == "game_ended":
        return words.gettext("Game over: {reason}.").format(reason=_end_reason(event.reason, words))
    return str(event)


def _chose(who: str, phase: str, replaced: bool, words: Words) -> str:
    """A secret pick or point (T-2.1, T-2.2), in the second person for the terminal's
    player."""
    if who == YOU:
        if replaced:
            if phase == "pick":
                return words.gettext("You changed your pick in secret.")
            return words.gettext("You changed your point in secret.")
        if phase == "pick":
            return words.gettext("You picked in secret.")
        return words.gettext("You pointed in secret.")
    if replaced:
        if phase == "pick":
            return words.gettext("{name} changed their pick in secret.").format(name=who)
        return words.gettext("{name} changed their point in secret.").format(name=who)
    if phase == "pick":
        return words.gettext("{name} picked in secret.").format(name=who)
    return words.gettext("{name} pointed in secret.").format(name=who)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _round_ended(event: Any, name: Any, words: Words) -> str:
    """T-2.3 / T-2.4: the refill on the heading line, a new deal on a line of its own."""
    parts = []
    if event.gifts_refilled:
        parts.append(
            words.gettext("new gifts {gifts}").format(
                gifts=", ".join(_name(g, words) for g in event.gifts_refilled)
            )
        )
    if event.materials_refilled:
        count = event.materials_refilled
        parts.append(
            words.ngettext(
                "{count} new face-down material", "{count} new face-down materials", count
            ).format(count=count)
        )
    if event.passed == "left":
        parts.append(words.gettext("hands passed left"))
    elif event.passed:
        parts.append(words.gettext("hands passed right"))
    if parts:
        line = words.gettext("End of round {round}: {changes}.").format(
            round=event.round, changes="; ".join(parts)
        )
    else:
        line = words.gettext("End of round {round}.").format(round=event.round)
    if event.round == 1:  # the first end of a round says what every one does (T-2.3)
        line += INDENT + words.gettext(FIRST_ROUND_END)
    if event.reshuffled:
        line += INDENT + words.gettext("The discard pile was shuffled into a new material deck.")
    if event.rotation:
        sizes = set(event.dealt.values())
        if len(sizes) == 1:
            dealt = words.gettext("{cards} dealt to each").format(
                cards=_counted_cards(sizes.pop(), words)
            )
        else:  # T-2.4: the cards ran out
            each = ", ".join(f"{name(p)} {c}" for p, c in event.dealt.items())
            dealt = words.gettext("dealt {each} (the cards ran out)").format(each=each)
        if event.rotation == "left":
            deal = N_("New deal: {discarded} discarded, the rotation card flips to left, {dealt}.")
        else:
            deal = N_("New deal: {discarded} discarded, the rotation card flips to right, {dealt}.")
        line += INDENT + words.gettext(deal).format(
            discarded=_counted_cards(event.discarded, words), dealt=dealt
        )
    return line


def _counted_cards(count: int, words: Words) -> str:
    return words.ngettext("{count} card", "{count} cards", count).format(count=count)


def grouped(cards: list[str], words: Words = ENGLISH) -> str:
    """Material names grouped and counted, in the rulebook's order: "Wood ×3, Metal"."""
    return ", ".join(
        _counted(name, cards.count(name), words) for name in MATERIAL_NAMES if name in cards
    )


def workbench_text(
    face_up: list[str], has_face_down: bool, face_down: str | None, words: Words = ENGLISH
) -> str:
    """A workbench grouped and counted: "Wood ×3, Metal ×2, 1 face down" (its owner also
    sees what the face-down card is: "1 face down [Gold]")."""
    parts = [grouped(face_up, words)] if face_up else []
    if has_face_down and face_down:
        parts.append(words.gettext("1 face down [{card}]").format(card=_name(face_down, words)))
    elif has_face_down:
        parts.append(words.gettext("1 face down"))
    return ", ".join(parts)


PHASES = {"pick": N_("pick phase"), "point": N_("point phase")}


def render_text(view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
    """The board as a plain-text table."""

    def name(p: PlayerId) -> str:
        return _shown(names, p, words)

    mode = words.gettext(MODES.get(view.mode, view.mode))
    if view.phase == "over":
        first = words.gettext(
            "Workshop Tonttu ({mode}) · round {round} · game over: {reason}"
        ).format(mode=mode, round=view.round, reason=_end_reason(view.end_reason or "", words))
    else:
        first = words.gettext(
            "Workshop Tonttu ({mode}) · round {round} · hand round {hand_round}/4 · "
            "{phase} · rotation: {rotation}"
        ).format(
            mode=mode,
            round=view.round,
            hand_round=view.deal_round,
            phase=words.gettext(PHASES.get(view.phase, view.phase)),
            rotation=words.gettext(ROTATIONS.get(view.rotation, view.rotation)),
        )
    lines = [
        first,
        words.gettext(
            "Gifts in stack: {gifts} · material deck: {deck} · discard: {discard} · "
            "rounds without a gift: {rounds}"
        ).format(
            gifts=view.gifts_in_stack,
            deck=view.deck_size,
            discard=view.discard_size,
            rounds=view.rounds_without_gift,
        ),
        words.gettext("Middle gifts:"),
    ]
    middle = [g for g in view.middle_gifts if g is not None]
    # English names fit the columns; longer translations widen them
    gift_width = max([16, *(len(_name(g.name, words)) + 1 for g in middle)])
    category_width = max([12, *(len(_name(g.category, words)) + 1 for g in middle)])
    for slot, gift in enumerate(view.middle_gifts, 1):
        if gift is None:
            lines.append(f"  {slot}. " + words.gettext("(empty)"))
        else:
            needs = words.gettext("needs {materials}").format(materials=_needs(gift.needs, words))
            lines.append(
                f"  {slot}. {_name(gift.name, words):<{gift_width}} "
                f"{_name(gift.category, words):<{category_width}} {needs}"
            )
    backs = " ".join(f"[{i}:{'#' if m else ' '}]" for i, m in enumerate(view.middle_materials, 1))
    lines.append(words.gettext("Face-down materials: {backs}").format(backs=backs))
    seat_h, hand_h, score_h = words.gettext("Seat"), words.gettext("Hand"), words.gettext("Score")
    chosen_h, bench_h = words.gettext("Chosen"), words.gettext("Workbench")
    gifts_h = words.gettext("Gifts")
    hand_w, score_w, chosen_w = max(4, len(hand_h)), max(5, len(score_h)), max(6, len(chosen_h))
    benches = [
        workbench_text(seat.face_up, seat.has_face_down, seat.face_down, words) or "-"
        for seat in view.seats
    ]
    # the widest workbench sets its column, so it never runs into the gifts
    bench_w = max(len(bench_h), *map(len, benches))
    seat_w = max(12, *(len(name(seat.player)) for seat in view.seats))
    header = (
        f"  {seat_h:<{seat_w}} {hand_h:>{hand_w}} {score_h:>{score_w}}  "
        f"{chosen_h:<{chosen_w}}  {bench_h:<{bench_w}}  {gifts_h}"
    )
    lines += ["", header, "  " + "-" * (len(header) + 10)]
    for seat, bench in zip(view.seats, benches, strict=True):
        gifts = (
            ", ".join(f"{_name(g.name, words)} ({_name(g.category, words)[0]})" for g in seat.gifts)
            or "-"
        )
        chosen = words.gettext("yes") if seat.chosen else ("..." if seat.to_act else "")
        lines.append(
            f"  {name(seat.player):<{seat_w}} {seat.hand_size:>{hand_w}} "
            f"{seat.score:>{score_w}}  {chosen:<{chosen_w}}  {bench:<{bench_w}}  {gifts}"
        )
    if view.viewer is not None and view.phase != "over":
        lines.append("")
        hand = ", ".join(_name(card, words) for card in view.hand) or words.gettext("(empty)")
        lines.append(words.gettext("Your hand: {cards}").format(cards=hand))
        # T-2.3: hands the viewer held earlier in this deal, wherever they are now
        held = "; ".join(
            f"{name(seat.player)}: {', '.join(_name(card, words) for card in seat.known_hand)}"
            for seat in view.seats
            if seat.known_hand
        )
        if held:
            lines.append(words.gettext("Hands you held this deal: {hands}").format(hands=held))
        if view.my_choice:
            lines.append(
                words.gettext("Your choice so far: {choice} (you may still change it)").format(
                    choice=_choice_text(view.my_choice, words)
                )
            )
    if view.phase == "over":
        lines += ["", *final_breakdown(view, names, words)]
    return "\n".join(lines)


FINAL_SCORES = N_(
    "Final scores (the k-th gift is worth k; +3 per set of Toys, Clothing, Decorations):"
)
"""The heading of the final breakdown (T-5)."""


def final_breakdown(
    view: TonttuView, names: Mapping[PlayerId, str], words: Words = ENGLISH
) -> list[str]:
    """T-5: each seat's points: the k-th gift is worth k, plus 3 per complete set."""
    lines = [words.gettext(FINAL_SCORES)]
    width = max(len(_shown(names, s.player, words)) for s in view.seats)
    for seat in view.seats:
        won = [g.id for g in seat.gifts]
        n = len(won)
        sets = set_points(won) // SET_BONUS
        points = words.ngettext(
            "{score:>3} point = {gift_points} for {gifts} ({steps}) + {set_points} for {sets}",
            "{score:>3} points = {gift_points} for {gifts} ({steps}) + {set_points} for {sets}",
            seat.score,
        ).format(
            score=seat.score,
            gift_points=gift_points(won),
            gifts=words.ngettext("{count} gift", "{count} gifts", n).format(count=n),
            steps="+".join(str(k) for k in range(1, n + 1)) or "0",
            set_points=set_points(won),
            sets=words.ngettext("{count} set", "{count} sets", sets).format(count=sets),
        )
        lines.append(f"  {_shown(names, seat.player, words):<{width}}  {points}")
    return lines
