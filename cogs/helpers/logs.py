"""The bot's log lines on stderr (``LOG_FORMAT``): readable text, as discord.py writes
them (in colour in a terminal), or one JSON object a line; either way with no secret in
them and, in JSON, what each line is about (``tables/logs.py`` has the fields, the
secrets and how a line learns its game, server and shard)."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any, TextIO

import discord

from tables.logs import JsonFormatter, Redactor, SafeHandler, secrets_of

SNOWFLAKE = re.compile(r"[0-9]{1,20}")
GAME_IN_CUSTOM_ID = re.compile(r"[a-z]{1,20}:([0-9]{1,18})(?::.*)?", re.DOTALL)


def setup_logging(
    log_format: str,
    *,
    token: str,
    database_url: str,
    env: Mapping[str, str],
    stream: TextIO | None = None,
    level: int = logging.INFO,
) -> logging.Handler:
    """The root logger's handler (on stderr, or ``stream``) at ``level``: ``json`` or
    ``text`` lines; the token, ``DISCORD_CLIENT_SECRET`` (from ``env``, if set) and the
    password of ``database_url`` redacted. Returns the handler.

    ``DISCORD_CLIENT_SECRET`` is no setting of the bot's (it signs in as a bot, with its
    token): it is the application's other secret, which an environment shared with an
    OAuth2 page or a deployment script may hold, and so a line might show."""
    secrets = secrets_of(token, env.get("DISCORD_CLIENT_SECRET"), database_url=database_url)
    handler = SafeHandler(Redactor(secrets), stream)
    if log_format == "json":
        discord.utils.setup_logging(handler=handler, formatter=JsonFormatter(), level=level)
    else:  # discord.py's own lines: coloured in a terminal, plain elsewhere
        discord.utils.setup_logging(handler=handler, level=level)
    return handler


def interaction_place(data: Mapping[str, Any], shard_count: int | None) -> dict[str, int]:
    """What a raw ``INTERACTION_CREATE`` is about, for its lines (``tables.logs.about``):
    its server and that server's shard (a DM's is shard 0, as Discord routes them), and
    the game a component's ``custom_id`` names (``act:<game>:…``, ``lobby:<game>:…``:
    every component of the bot puts its game second)."""
    place: dict[str, int] = {}
    guild = data.get("guild_id")
    if guild is not None and SNOWFLAKE.fullmatch(str(guild)):
        place["guild"] = int(guild)
    if shard_count:
        place["shard"] = (place["guild"] >> 22) % shard_count if "guild" in place else 0
    inner = data.get("data")
    custom_id = inner.get("custom_id") if isinstance(inner, dict) else None
    found = GAME_IN_CUSTOM_ID.fullmatch(custom_id) if isinstance(custom_id, str) else None
    if found:
        place["game"] = int(found[1])
    return place
