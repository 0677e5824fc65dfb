"""Workshop Tonttu's words in Discord: a choice as a component value and back, what a
player is told they chose, the phases' names and reminders, and the thread's timings."""

from __future__ import annotations

from typing import Any

import discord

from engine.choices import ChoiceFacts
from engine.core import IllegalAction
from engine.tonttu.data import GIFT_NAMES, GIFT_NEEDS
from engine.tonttu.game import phase_of
from engine.tonttu.models import Pick, PointGift, PointMaterial
from engine.tonttu.text import NOTE_LABELS
from engine.words import ENGLISH, N_, Words

DMS_CLOSED = 50007
SPEED_SECONDS = 60
"""T-4: the race's default length when the table did not set one at /newgame."""
PHASE_CHANGES = frozenset(
    {"picks_revealed", "points_revealed", "point_phase_closed", "round_ended", "game_ended"}
)
"""Events after which the next phase (or the end) must be shown."""
ALLOWED_PINGS = discord.AllowedMentions(users=True, roles=False, everyone=False)
PANEL_FRESH = 14 * 60.0
"""Seconds an interaction's panel can be edited through it (Discord: 15 minutes)."""
STATUS_GAP = 1.5
"""Seconds between two edits of a phase's status message (choices made meanwhile share
the next edit)."""
TIDY_LATE = 6.0
"""Seconds after which the thread's tidy-ups (the status line, the board picture), held
back while the bot's REST budget has no room to spare (:meth:`RestBudget.spare
<cogs.helpers.gates.RestBudget.spare>`), take any free slot."""


# --------------------------------------------------------------------------- choices as text


def encode(action: Any) -> str:
    """A choice as a select value / race button / ``/play`` value: ``p:Wool``, ``g:12``,
    ``m:3`` (a face-down material, kept face down: T-3.1's default, and all values from
    before the choice existed) or ``mu:3`` (the same, taken face up)."""
    if action.kind == "pick":
        return f"p:{action.material}"
    if action.kind == "point_gift":
        return f"g:{action.gift}"
    if action.kind == "point_material":
        return f"m:{action.slot}" if action.face_down else f"mu:{action.slot}"
    raise ValueError(f"not a player's choice: {action!r}")


def decode(value: str) -> Any:
    """The engine action of :func:`encode`'s text; a sentence for anything else."""
    kind, _, rest = value.partition(":")
    try:
        if kind == "p" and rest:
            return Pick.model_validate({"material": rest})
        if kind == "g" and rest.isdigit() and len(rest) <= 3:
            return PointGift(gift=int(rest))
        if kind in ("m", "mu") and rest.isdigit() and len(rest) <= 2:
            return PointMaterial(slot=int(rest), face_down=kind == "m")
    except ValueError:
        pass
    raise IllegalAction("That is not one of the choices; pick one from the list.")


POINTED_AT_MATERIAL = {
    None: N_("You pointed at face-down material {n}."),
    "keep_face_down": N_("You pointed at face-down material {n}: keep it face down."),
    "take_face_up": N_("You pointed at face-down material {n}: take it face up."),
    "goes_face_up": N_(
        "You pointed at face-down material {n}: it goes face up (you already have a "
        "face-down card)."
    ),
}
"""A point at a face-down material, by its facts' note (``engine.choices.Note``)."""


def confirmation(facts: ChoiceFacts | str, action: Any, words: Words = ENGLISH) -> str:
    """ "You picked Wool." / "You pointed at Rocking Horse (needs …)." (what was chosen,
    without the menu's note on what it would do), from the choice's facts
    (``describe_choice``, which may be asked after the reveal: then a face-down
    material's note is unknown). ``facts`` may also be the choice's English menu label
    (the engine's own, as callers from before the facts pass it)."""
    if action.kind == "pick":
        return words.gettext("You picked {material}.").format(
            material=words.gettext(action.material)
        )
    if action.kind == "point_gift":
        return words.gettext("You pointed at {gift} (needs {materials}).").format(
            gift=words.gettext(GIFT_NAMES[action.gift]),
            materials=", ".join(words.gettext(m) for m in GIFT_NEEDS[action.gift]),
        )
    if isinstance(facts, str):  # the label the engine made for one of the notes
        slot = action.slot + 1
        labels = {ENGLISH.gettext(t).format(slot=slot): n for n, t in NOTE_LABELS.items()}
        note = labels.get(facts)
    else:
        note = facts.note
    return words.gettext(POINTED_AT_MATERIAL[note]).format(n=action.slot + 1)


PHASE_NAMES = {"pick": N_("pick"), "point": N_("point"), "race": N_("speed race")}
ROTATIONS = {"left": N_("left"), "right": N_("right")}
"""The rotation card's sides (T-2.4), as the status line names them."""
REMINDERS = {
    "pick": N_(
        "Reminder: {who}, round {round}'s pick is waiting for your choice (in my DM, or "
        "press **Choose privately**)."
    ),
    "point": N_(
        "Reminder: {who}, round {round}'s point is waiting for your choice (in my DM, or "
        "press **Choose privately**)."
    ),
    "race": N_(
        "Reminder: {who}, round {round}'s speed race is waiting for your choice (in my DM, "
        "or press **Choose privately**)."
    ),
}


def phase_name(state: Any, words: Words = ENGLISH) -> str:
    """The phase's name (``engine.tonttu.game.phase_of``); a finished game's panel
    names its last phase, as it always has."""
    phase = phase_of(state)
    if phase == "over":
        phase = "race" if state.mode == "speed" else "point"
    return words.gettext(PHASE_NAMES[phase])


def status_key(state: Any) -> str:
    """Where the status message of ``state``'s phase is stored (and its shown version)."""
    return f"phase:{state.round}:{state.phase}"
