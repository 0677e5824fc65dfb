"""A table's public words that every front end says alike: the log's lines, the
reasons of the final scores.

Public only: the lines come from the public events of the log (the engine's
``describe_event`` says nothing secret), the breakdown from the stored outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine import get_game, undo
from engine.words import ENGLISH, N_, Words
from storage import GameInfo

REASON_LABELS = {
    "toy": N_("toys"),
    "cooperation": N_("cooperation"),
    "donation": N_("donations"),
    "ornament": N_("ornaments"),
    "tree": N_("tree spaces"),
    "inspection": N_("inspections"),
    "unfinished": N_("unfinished tokens"),
    "reindeer": N_("reindeer"),
}
"""The final scores' reasons (translated where used)."""


def event_lines(game: GameInfo, events: Iterable[Any], words: Words = ENGLISH) -> list[str]:
    """The log's lines of ``events`` (an undo's line too), empty ones left out."""
    rules = get_game(game.kind)
    lines = []
    for event in events:
        text = undo.describe_event(rules, event, game.names, words)
        if text:
            lines.append(text)
    return lines


def breakdown(detail: Mapping[str, Any], words: Words = ENGLISH) -> str:
    """One player's final score by reason (``Outcome``'s ``players`` entry), in a line."""
    parts = []
    for reason, points in detail.get("breakdown", {}).items():
        if points:
            label = words.gettext(REASON_LABELS[reason]) if reason in REASON_LABELS else reason
            parts.append(f"{label} {points}")
    if "gifts" in detail:
        gifts = ", ".join(
            words.gettext("{gift} ({category})").format(
                gift=words.gettext(g["name"]), category=words.gettext(g["category"])
            )
            for g in detail["gifts"]
        )
        if gifts:
            parts.append(words.gettext("gifts: {gifts}").format(gifts=gifts))
        else:
            parts.append(words.gettext("gifts: none"))
        parts.append(words.gettext("gift points {n}").format(n=detail.get("gift_points", 0)))
        parts.append(words.gettext("set bonus {n}").format(n=detail.get("set_points", 0)))
    if detail.get("reindeer"):
        parts.append(words.gettext("reindeer: {names}").format(names=", ".join(detail["reindeer"])))
    return " · ".join(parts)
