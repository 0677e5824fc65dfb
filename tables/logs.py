"""The log lines: what a line is about (a game, its server, a shard), a line as JSON, and
the secrets no line shows, whatever its format. ``cogs/helpers/logs.py`` puts them on the
root logger's handler (``LOG_FORMAT``).

What a line is about (:func:`about`, :func:`tag`)
-------------------------------------------------
No log call names its game, server or shard as a field: the work under way does, once, in
a context variable that every line logged meanwhile carries (asyncio copies it into the
tasks started from there). A few places set it: the interaction door (the server, its
shard, and the game of a component's ``custom_id``: ``cogs/helpers/gates.py``), a
publishing round (its game and server: ``tables/publishing.py``), a timer firing (its
game: ``tables/timers.py``; its server once the game is read: ``cogs/timers.py``), the
lobby's opening (``tables/service.py``). discord.py's own lines name their shard in the
message ("Shard ID 3 has connected…"): that number is the line's shard. A call may also
give them itself: ``log.info(..., extra={"game": game_id})``.

JSON (:class:`JsonFormatter`)
-----------------------------
One object a line: ``time`` (ISO 8601, UTC, to the millisecond), ``level``, ``logger``,
``message`` (formatted), ``exc`` (the traceback, when there is one), and ``game``,
``guild`` and ``shard`` when the line is about one. A server's id is a string, as
Discord's JSON writes its ids (larger than a double holds exactly).

Secrets (:class:`Redactor`)
---------------------------
The bot token, ``DISCORD_CLIENT_SECRET`` and the database's password are replaced by
``***`` in a line's message, its arguments and its traceback, as written, percent-decoded,
and escaped as ``repr`` and JSON escape them; so is the password of any URL
(``scheme://user:***@host``) and anything shaped like a Discord bot token. The filter
changes the record itself (every handler gets the redacted line); the handler
(:class:`SafeHandler`) redacts its formatted line once more, for formatters that draw a
traceback again from the exception (discord.py's coloured one does).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import urllib.parse
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TextIO

MASK = "***"
MIN_SECRET = 4
"""A secret shorter than this is not replaced wherever it appears (it would mangle every
line that has those letters); inside a URL a password of any length is."""
URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@\"']*:)[^\s@/\"']+(?=@)")
TOKEN_SHAPE = re.compile(r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}")
"""A Discord bot token: the bot's id, a time and a signature, in base64 (Discord's own
pattern for tokens found in public places)."""
DISCORD_SHARD = re.compile(r"\bshard ID (\d+)", re.IGNORECASE)
FIELDS = ("game", "guild", "shard")


# --------------------------------------------------------------------------- about


@dataclass(frozen=True)
class Place:
    """What the work under way is about (``None``: not one game, server or shard)."""

    game: int | None = None
    guild: int | None = None
    shard: int | None = None


_PLACE: ContextVar[Place] = ContextVar("log_place", default=Place())  # noqa: B039 - frozen


def here() -> Place:
    return _PLACE.get()


def _with(game: int | None, guild: int | None, shard: int | None) -> Place:
    place = _PLACE.get()
    return Place(
        place.game if game is None else int(game),
        place.guild if guild is None else int(guild),
        place.shard if shard is None else int(shard),
    )


@contextlib.contextmanager
def about(
    *, game: int | None = None, guild: int | None = None, shard: int | None = None
) -> Iterator[Place]:
    """Lines logged inside (and in the tasks started inside) are about ``game``,
    ``guild``, ``shard`` (those given; the others as before). What :func:`tag` adds
    inside ends here too."""
    token = _PLACE.set(_with(game, guild, shard))
    try:
        yield _PLACE.get()
    finally:
        _PLACE.reset(token)


def tag(*, game: int | None = None, guild: int | None = None, shard: int | None = None) -> None:
    """From now on in this task (or until the :func:`about` around it ends), lines are
    about these too: for a task of its own (a publishing round), or what is learnt on the
    way (the server of a game just read)."""
    _PLACE.set(_with(game, guild, shard))


class Placing(logging.Filter):
    """Gives each record the game, server and shard it is about, unless its call gave them."""

    def filter(self, record: logging.LogRecord) -> bool:
        place = _PLACE.get()
        for name in FIELDS:
            if getattr(record, name, None) is None:
                setattr(record, name, getattr(place, name))
        if getattr(record, "shard", None) is None and record.name.startswith("discord"):
            found = DISCORD_SHARD.search(record.getMessage())
            if found:
                record.shard = int(found[1])
        return True


# --------------------------------------------------------------------------- secrets


def secrets_of(*values: str | None, database_url: str = "") -> list[str]:
    """The secrets to keep out of the logs: ``values`` (a token, a client secret) that
    are set, and the password of ``database_url``."""
    found = [value for value in values if value]
    with contextlib.suppress(ValueError):
        password = urllib.parse.urlsplit(database_url).password
        if password:
            found.append(password)
    return found


def written(secret: str) -> set[str]:
    """The ways a line may write ``secret``."""
    forms = {secret, urllib.parse.unquote(secret), urllib.parse.quote(secret, safe="")}
    for form in list(forms):
        forms.add(repr(form)[1:-1])
        forms.add(json.dumps(form)[1:-1])
        forms.add(json.dumps(form, ensure_ascii=False)[1:-1])
    return {form for form in forms if len(form) >= MIN_SECRET}


class Redactor(logging.Filter):
    """Replaces the secrets in every record it sees (the module's doc says which)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        forms = sorted({form for secret in secrets for form in written(secret)}, key=len)
        self._literal = (
            re.compile("|".join(re.escape(form) for form in reversed(forms))) if forms else None
        )

    def redact(self, text: str) -> str:
        if self._literal is not None:
            text = self._literal.sub(MASK, text)
        text = URL_PASSWORD.sub(rf"\g<head>{MASK}", text)
        return TOKEN_SHAPE.sub(MASK, text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # arguments that do not fit the message: both, as they are
            message = f"{record.msg} {record.args!r}"
        record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


_TRACEBACKS = logging.Formatter()


# --------------------------------------------------------------------------- JSON


class JsonFormatter(logging.Formatter):
    """A record as one JSON object on one line (the module's doc lists its fields)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        exc = record.exc_text
        if record.exc_info and not exc:
            exc = self.formatException(record.exc_info)
        if record.stack_info:
            exc = "\n".join(filter(None, (exc, self.formatStack(record.stack_info))))
        if exc:
            line["exc"] = exc
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is None:
                value = getattr(_PLACE.get(), name)
            if value is not None:
                line[name] = str(value) if name == "guild" else value
        return json.dumps(line, ensure_ascii=False, default=str)


RECONNECTING = ("discord.client", "discord.shard")
"""discord.py's loggers that report each attempt to reach its gateway again."""


class Reconnects(logging.Filter):
    """discord.py logs each attempt to reconnect to Discord's gateway as an error with a
    traceback; a dropped connection or the gateway away for a while is expected and
    retried, so it is one warning line with the error's name."""

    def filter(self, record: logging.LogRecord) -> bool:
        if (
            record.name in RECONNECTING
            and record.exc_info
            and str(record.msg).startswith("Attempting a reconnect")
        ):
            try:
                message = record.getMessage()
            except Exception:
                message = str(record.msg)
            record.msg, record.args = f"{message} ({record.exc_info[1]!r})", None
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class SafeHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler (stderr by default) whose lines are redacted (:class:`Redactor`,
    as a filter and once more on the formatted line) and placed (:class:`Placing`)."""

    def __init__(self, redactor: Redactor, stream: TextIO | None = None) -> None:
        super().__init__(sys.stderr if stream is None else stream)
        self.redactor = redactor
        self.addFilter(Reconnects())
        self.addFilter(redactor)
        self.addFilter(Placing())

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor.redact(super().format(record))
