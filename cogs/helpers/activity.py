"""What the bot does for its Discord Activity (``docs/activity.md``), beside the web
server that serves it (``web/activity.py``, given its options by ``bot.py``): the flood
guard its moves share with the user's clicks, and the Entry Point command that a sync
of the global commands must keep."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from cogs.helpers.gates import SLOW_DOWN, FloodGuard

ENTRY_POINT = 4
"""An application command of type PRIMARY_ENTRY_POINT: the Activity's launcher."""
ENTRY_POINT_FIELDS = (
    "id",
    "type",
    "name",
    "name_localizations",
    "description",
    "description_localizations",
    "handler",
    "contexts",
    "integration_types",
    "default_member_permissions",
)
"""What a bulk overwrite sends of it again (not its version, nor its application)."""


def flood_refusal(flood: FloodGuard) -> Callable[[int], str | None]:
    """The Activity's flood guard (``ActivityOptions.flood``): the user's own allowance,
    shared with their clicks in Discord; the sentence a refused click gets."""

    def refused(user_id: int) -> str | None:
        return None if flood.allow(user_id) else SLOW_DOWN

    return refused


async def entry_points(
    get_global_commands: Callable[[int], Awaitable[Any]], application_id: int
) -> list[dict[str, Any]]:
    """The application's Entry Point command, as a global sync must send it again: the
    command that launches the Activity, made by Discord when Activities are enabled in
    the Developer Portal. Discord refuses (50240) a bulk overwrite of the global commands
    that would remove it, and discord.py knows no such command."""
    kept = []
    for command in await get_global_commands(application_id):
        if command.get("type") != ENTRY_POINT:
            continue
        again = {k: command[k] for k in ENTRY_POINT_FIELDS if command.get(k) is not None}
        if "default_member_permissions" in again:  # Discord gives it as a string
            again["default_member_permissions"] = int(again["default_member_permissions"])
        kept.append(again)
    return kept
