"""``python bot.py --check`` (``./dev check``): is the bot ready to be played with?

It checks, in this order, without connecting to the gateway (REST only, a few requests):

1. the settings (``bot.Settings.from_env`` has read them before this runs: a wrong value
   already stopped with its sentence, the same as ``./dev run``'s);
2. the database (``DATABASE_URL``), read only (:func:`database_report`): reachable and
   readable (else the sentence ``./dev run`` would stop with), its schema version (one
   from a newer bot is a problem; an older one is migrated by the next start, which the
   check only announces: a check that changed the database would surprise), and its
   games by status;
3. the token: Discord accepts it (``Client.login``: ``GET /users/@me`` and the
   application), which also gives the application id for the invite link;
4. the servers the bot is in (``GET /users/@me/guilds``, which carries the bot's
   server-wide permissions in each) and, per server, which of the permissions it needs
   (``cogs/helpers/permissions.py``) its roles do not give it. A channel can still deny some of
   them: ``/newgame`` checks its own channel before it opens a lobby.
5. ``DISCORD_GUILD_ID``, if set, names one of those servers.

The report goes to stdout; each problem is a sentence on stderr, and the exit status is
1 if there is any (a database the bot cannot use, a token Discord refuses, Discord
unreachable, a server lacking a permission, the bot in no server yet), 0 when everything
is ready.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, TextIO

import aiohttp
import discord
import yarl

import storage
from cogs.helpers.permissions import invite_url, listed, missing
from storage.survey import Survey, survey

UNREACHABLE = (aiohttp.ClientError, OSError, asyncio.TimeoutError)
"""What reaching Discord raises when the network (or DNS) is down."""

GUILD_PAGE = 200
"""Discord lists at most 200 servers per request."""


def discord_host() -> str:
    """The host the bot's REST calls go to (``discord.com``, or a test's fake)."""
    url = yarl.URL(discord.http.Route.BASE)
    host = url.host or str(url)
    return host if url.port in (None, 80, 443) else f"{host}:{url.port}"


def unreachable_sentence(error: BaseException) -> str:
    """One line for Discord being out of reach: no network, no DNS, a refused connection.

    >>> unreachable_sentence(TimeoutError()).startswith("Cannot reach Discord at discord.com")
    True
    """
    reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
    if isinstance(error, aiohttp.ClientConnectorError) and error.os_error.strerror:
        reason = error.os_error.strerror
    reason = " ".join(str(reason).split())  # one line, whatever the library said
    return (
        f"Cannot reach Discord at {discord_host()} ({reason}): check this machine's "
        "network connection, then try again."
    )


def server_error_sentence(error: discord.DiscordServerError) -> str:
    return (
        f"Discord answered with an error of its own (HTTP {error.status}); it is probably "
        "having trouble: try again in a few minutes (https://discordstatus.com)."
    )


REFUSED_TOKEN = (
    "Discord refused the token: copy it again from the Developer Portal (your application "
    "→ Bot → Reset Token) into DISCORD_TOKEN in .env."
)


async def my_guilds(http: discord.http.HTTPClient) -> list[dict[str, Any]]:
    """Every server the bot is in, with its server-wide ``permissions``, page by page."""
    guilds: list[dict[str, Any]] = []
    after: int | None = None
    while True:
        answer: Any = await http.get_guilds(GUILD_PAGE, after=after, with_counts=False)
        page: list[dict[str, Any]] = list(answer)
        guilds.extend(page)
        if len(page) < GUILD_PAGE:
            return guilds
        after = max(int(g["id"]) for g in page)


def web_sentence(port: int | None, host: str, address: str | None, public: bool) -> str:
    """What the check says of the web pages: off, or where each game's page is read
    (``address``: ``Settings.web_address``; ``public``: ``WEB_BASE_URL`` is set, so the
    threads link to the pages)."""
    if port is None:
        return "Web pages: off (set WEB_PORT to serve each game's live page and replay)."
    where = address or f"http://{host}:<a free port>"
    links = (
        "each game's board in Discord links to it"
        if public
        else "set WEB_BASE_URL to the public address to link it from Discord"
    )
    return f"Web pages: on; each game's page is {where}/g/<its token> ({links})."


ACTIVITY_BUNDLE = Path(__file__).resolve().parents[2] / "web" / "static" / "activity.js"
"""The Activity's page script, which ``web/activity/build.sh`` bundles (needs Node.js)."""

NOT_BUILT = (
    " Its page is not built yet (web/static/activity.js, which needs Node.js 18 or newer): "
    "run ./dev run, or bash web/activity/build.sh, to build it; until then /activity/ "
    "says the Activity is unavailable."
)


def activity_sentence(
    client_id: int | None,
    secret: bool,
    port: int | None,
    base_url: str | None,
    built: bool = True,
) -> str:
    """What the check says of the Discord Activity: off and why, or where Discord's URL
    mapping must point (``docs/activity.md``); ``built``: whether its page's script is
    (``ACTIVITY_BUNDLE``): the settings on without it, it says how to build it.

    >>> activity_sentence(None, False, None, None)[:27]
    'Discord Activity: off (set '
    """
    on = _activity_settings(client_id, secret, port, base_url)
    if built or not on.startswith("Discord Activity: on"):
        return on
    return on + NOT_BUILT


def _activity_settings(
    client_id: int | None, secret: bool, port: int | None, base_url: str | None
) -> str:
    if not client_id or not secret:
        if not client_id and not secret:
            return (
                "Discord Activity: off (set DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET, and "
                "WEB_PORT, to let players play on the board inside Discord: docs/activity.md)."
            )
        missing = "DISCORD_CLIENT_SECRET" if client_id else "DISCORD_CLIENT_ID"
        where = "the Developer Portal's OAuth2 page" if client_id else "General Information"
        return f"Discord Activity: off; {missing} is not set (the Developer Portal, {where})."
    if port is None:
        return (
            "Discord Activity: off; it is served by the bot's web server: set WEB_PORT (and "
            "WEB_BASE_URL, the public HTTPS address Discord's URL mapping points to)."
        )
    if base_url is None:
        return (
            "Discord Activity: on at /activity/ of the web server; set WEB_BASE_URL to its "
            "public HTTPS address, and map the Activity's root (/) to <that address>/activity "
            "in the Developer Portal (Activities → URL Mappings)."
        )
    target = base_url.split("://", 1)[-1]
    return (
        f"Discord Activity: on; in the Developer Portal (Activities → URL Mappings) the root "
        f"(/) must map to {target}/activity."
    )


GAME_STATUSES = {
    "active": "active",
    "lobby": "in a lobby",
    "finished": "finished",
    "abandoned": "abandoned",
}
"""How the check names the games of each status, in this order."""


def games_sentence(games: dict[str, int]) -> str:
    """
    >>> games_sentence({"finished": 12, "active": 2, "lobby": 1})
    'Games: 2 active, 1 in a lobby, 12 finished (15 in all).'
    >>> games_sentence({})
    'Games: none yet.'
    """
    order = [*GAME_STATUSES, *sorted(set(games) - set(GAME_STATUSES))]
    parts = [f"{games[s]} {GAME_STATUSES.get(s, s)}" for s in order if games.get(s)]
    if not parts:
        return "Games: none yet."
    return f"Games: {', '.join(parts)} ({sum(games.values())} in all)."


def database_sentence(found: Survey) -> str:
    """What the check says of a database the bot can use (``found``: not from a newer
    bot)."""
    if not found.exists:
        return f"Database: {found.where} does not exist yet; the bot creates it at its first start."
    if not found.version:
        return f"Database: {found.where} has no tables yet; the bot creates them at its next start."
    if found.pending:
        them = "migration runs" if found.pending == 1 else "migrations run"
        return (
            f"Database: {found.where}, schema version {found.version}: {found.pending} "
            f"{them} at the next start, to version {found.latest} (this check changes "
            "nothing)."
        )
    return f"Database: {found.where}, schema version {found.version} (up to date)."


async def database_report(database_url: str, out: TextIO) -> str | None:
    """Look at the database (read only) and print what was found; returns the problem's
    sentence, if any: the one ``./dev run`` would stop with."""
    try:
        found = await survey(database_url)
    except storage.StorageError as error:
        return str(error)
    if found.version > found.latest:
        return str(storage.SchemaTooNew(found.where, found.version, found.latest))
    print(database_sentence(found), file=out)
    if found.version:
        print(games_sentence(found.games), file=out)
    return None


async def run_check(
    token: str,
    guild_id: int | None = None,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    web: str | None = None,
    database_url: str | None = None,
    activity: str | None = None,
    client_id: int | None = None,
) -> int:
    """The check (module docstring); returns the exit status. ``web``: what to say of
    the web pages (:func:`web_sentence`); ``database_url``: the database to look at;
    ``activity``: what to say of the Discord Activity (:func:`activity_sentence`);
    ``client_id``: ``DISCORD_CLIENT_ID``, which must be the token's application."""
    out = out or sys.stdout
    err = err or sys.stderr
    problems = 0

    def problem(sentence: str) -> None:
        nonlocal problems
        problems += 1
        print(sentence, file=err)

    print("Settings: read (.env and the environment).", file=out)
    if web:
        print(web, file=out)
    if activity:
        print(activity, file=out)
    if database_url is not None and (trouble := await database_report(database_url, out)):
        problem(trouble)
    client = discord.Client(intents=discord.Intents.default())
    try:
        try:
            await client.login(token)
            guilds = await my_guilds(client.http)
        except discord.LoginFailure:
            problem(REFUSED_TOKEN)
            return 1
        except discord.DiscordServerError as error:
            problem(server_error_sentence(error))
            return 1
        except UNREACHABLE as error:
            problem(unreachable_sentence(error))
            return 1
        except discord.HTTPException as error:
            problem(f"Discord refused the check (HTTP {error.status}: {error.text or error}).")
            return 1
    finally:
        await client.close()
    application_id = client.application_id
    print(f"Token: accepted; the bot is {client.user} (application {application_id}).", file=out)
    print(f"Invite link: {invite_url(application_id or 'APPLICATION_ID')}", file=out)
    if client_id is not None and application_id is not None and client_id != application_id:
        problem(
            f"DISCORD_CLIENT_ID is {client_id}, but the token is application {application_id}'s: "
            "the Activity's sign-in would fail. Copy the Application ID (and the OAuth2 "
            "client secret) of the bot's own application."
        )
    if not guilds:
        problem("The bot is in no server yet: open the invite link above to add it to one.")
    else:
        print(f"Servers ({len(guilds)}):", file=out)
    for guild in sorted(guilds, key=lambda g: str(g.get("name", "")).lower()):
        have = discord.Permissions(int(guild.get("permissions") or 0))
        lacking = missing(have)
        name = f"{guild.get('name')} (id {guild['id']})"
        if lacking:
            print(f"  {name}: missing {listed(lacking)}", file=out)
            them = "them" if len(lacking) > 1 else "it"
            problem(
                f"In the server {name} the bot lacks {listed(lacking)}: a server admin can "
                f"give {them} to its role (Server Settings → Roles), or open the invite link "
                "again and authorize it into that server."
            )
        else:
            print(f"  {name}: every permission the bot needs", file=out)
    if guild_id is not None and guild_id not in {int(g["id"]) for g in guilds}:
        problem(
            f"DISCORD_GUILD_ID is {guild_id}, but the bot is not in that server: add it with "
            "the invite link, or correct or empty DISCORD_GUILD_ID."
        )
    if problems:
        return 1
    print("Ready: start the bot with ./dev run (or python bot.py).", file=out)
    return 0
