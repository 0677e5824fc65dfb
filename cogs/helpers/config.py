"""The bot's settings, read once from the environment (or ``.env``) before anything
starts: :meth:`Settings.from_env`, the one place each setting is read. A malformed value
stops the bot (``./dev run``) and ``./dev check`` alike with a sentence naming it
(``SystemExit``: status 1), never a traceback, before anything connects anywhere;
``.env.example`` describes each setting.

Every number has a type and a range (:class:`Number`): no NaN or infinity, no fraction
where a whole number is meant (nothing is cut silently), zero only where it means
something (an off switch), and a maximum wherever a huge value would bite (an hour
between two looks at the timers, ten minutes of waiting at a stop). The sentence says
the range and what the setting is for.
"""

from __future__ import annotations

import math
import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

import storage

DIGITS = re.compile(r"[0-9]{1,30}")
"""A whole number as a setting writes it: ASCII digits (``str.isdigit`` takes ``²``, which
``int`` refuses), and not 5,000 of them (``int`` refuses those too)."""


def quoted(text: str) -> str:
    """A wrong value as a sentence shows it: quoted, and not all of a very long one.

    >>> quoted("9" * 100)
    "'99999999999999999999'… (100 characters)"
    """
    if len(text) <= 40:
        return repr(text)
    return f"{text[:20]!r}… ({len(text)} characters)"


WORKERS_PER_CORE = 4
"""``AI_WORKERS`` at most: this many per CPU core. A computer player's decision keeps a
core busy; more workers than cores only share them (and each is a process of its own)."""


@dataclass(frozen=True)
class Number:
    """A number setting: its range and the sentence a value outside it gets.

    >>> Number("X", 1.0, 0.5, 2, "a number of seconds", "what it is for").read({"X": "nan"})
    Traceback (most recent call last):
    SystemExit: X must be a number of seconds from 0.5 to 2 (what it is for), not 'nan'.
    """

    name: str
    default: float | None
    """When empty (``None``: the setting is off, or chosen elsewhere)."""
    low: float
    high: float
    what: str
    """What it must be: "a number of seconds", "a whole number of requests"…"""
    why: str
    """What it is for, in the sentence's parentheses."""
    whole: bool = False
    zero: str | None = None
    """What 0 means, when 0 is allowed below :attr:`low` (an off switch)."""

    def shown(self, value: float) -> str:
        return str(int(value)) if self.whole or value == int(value) else f"{value:g}"

    def sentence(self, text: str) -> str:
        off = f"0 ({self.zero}) or " if self.zero else ""
        return (
            f"{self.name} must be {off}{self.what} from {self.shown(self.low)} to "
            f"{self.shown(self.high)} ({self.why}), not {quoted(text)}."
        )

    def parse(self, text: str) -> float | None:
        """The value of ``text``, or ``None`` if it is not one this setting takes."""
        if self.whole:
            return int(text) if DIGITS.fullmatch(text) else None
        try:
            value = float(text)
        except ValueError:
            return None
        return value if math.isfinite(value) else None  # nan, inf, 1e999

    def read(self, env: Mapping[str, str]) -> float | None:
        text = env.get(self.name, "").strip()
        if not text:
            return self.default
        value = self.parse(text)
        if value is None or not (
            self.low <= value <= self.high or (self.zero is not None and value == 0)
        ):
            raise SystemExit(self.sentence(text))
        return value

    def value(self, env: Mapping[str, str]) -> float:
        """:meth:`read` of a setting that has a default."""
        value = self.read(env)
        assert value is not None, f"{self.name} has no default"
        return value

    def whole_number(self, env: Mapping[str, str]) -> int | None:
        value = self.read(env)
        return None if value is None else int(value)


TIMER_POLL_SECONDS = Number(
    "TIMER_POLL_SECONDS",
    30.0,
    0.1,
    3600,
    "a number of seconds",
    "how often the bot looks for due reminders and turn limits",
)
SHUTDOWN_GRACE_SECONDS = Number(
    "SHUTDOWN_GRACE_SECONDS",
    10.0,
    0,
    600,
    "a number of seconds",
    "how long a stop lets the work under way finish",
)
REST_BUDGET_PER_SECOND = Number(
    "REST_BUDGET_PER_SECOND",
    45,
    0,
    1000,
    "a whole number of requests a second",
    "0: no pacing; Discord allows 50 a second per bot; a budget counts whole requests",
    whole=True,
)
FLOOD_BURST = Number(
    "FLOOD_BURST",
    10,
    0,
    1000,
    "a whole number of interactions",
    "how many one user may send at once; 0: no flood guard",
    whole=True,
)
FLOOD_PER_SECOND = Number(
    "FLOOD_PER_SECOND",
    2.0,
    0.01,
    1000,
    "a number of interactions a second",
    "how fast one user's allowance refills",
    zero="no flood guard",
)
SHARD_COUNT = Number(
    "SHARD_COUNT",
    None,
    1,
    100_000,
    "a whole number of shards",
    "all the bot's shards, the same in every process; or empty for what Discord recommends",
    whole=True,
)
DISCORD_GUILD_ID = Number(
    "DISCORD_GUILD_ID",
    None,
    1,
    2**64 - 1,
    "a server id",
    "the digits Discord's Copy Server ID gives; or empty for none",
    whole=True,
)
WEB_PORT = Number(
    "WEB_PORT", None, 1, 65535, "a port number", "or empty for no web page", whole=True
)
METRICS_PORT = Number(
    "METRICS_PORT", None, 1, 65535, "a port number", "or empty for none", whole=True
)
DISCORD_CLIENT_ID = Number(
    "DISCORD_CLIENT_ID",
    None,
    1,
    2**64 - 1,
    "an application id",
    "the Application ID of the Developer Portal's General Information, for the Activity; "
    "or empty for none",
    whole=True,
)


def ai_workers_range(cores: int) -> Number:
    """``AI_WORKERS``' range on a machine of ``cores`` CPU cores."""
    return Number(
        "AI_WORKERS",
        None,
        0,
        WORKERS_PER_CORE * cores,
        "a whole number of processes",
        f"the computer players' workers: at most {WORKERS_PER_CORE} per CPU core, and this "
        f"machine has {cores}; 0: in the bot's own threads; empty: one per core but one",
        whole=True,
    )


def parse_shard_ids(text: str, shard_count: int) -> tuple[int, ...]:
    """``"0-3"`` → (0, 1, 2, 3); ``"4,5,6,7"`` and mixes such as ``"0-1,6"`` too.

    Raises ``ValueError`` with a sentence naming what is wrong.

    >>> parse_shard_ids("0-2,5", 8)
    (0, 1, 2, 5)
    """
    ids: list[int] = []
    for part in text.replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        if not DIGITS.fullmatch(first) or (dash and not DIGITS.fullmatch(last)):
            raise ValueError(
                f"SHARD_IDS must be shard numbers and ranges such as 0-3 or 4,5,6,7, not {text!r}."
            )
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError(f"SHARD_IDS: the range {part} runs backwards; write {high}-{low}.")
        if high >= shard_count:  # checked before the range is made: 0-999999999 is no list
            outside = low if low >= shard_count else shard_count
            raise ValueError(
                f"SHARD_IDS names shard {outside}, but with SHARD_COUNT={shard_count} the "
                f"shards are 0 to {shard_count - 1}."
            )
        ids.extend(range(low, high + 1))
    seen: set[int] = set()
    for shard in ids:
        if shard in seen:
            raise ValueError(f"SHARD_IDS names shard {shard} twice.")
        seen.add(shard)
    return tuple(sorted(ids))


@dataclass(frozen=True)
class Settings:
    token: str
    database_url: str = storage.DEFAULT_DATABASE_URL
    guild_id: int | None = None
    timer_poll_seconds: float = 30.0
    ai_workers: int | None = None
    """Computer players' worker processes (None: one per core but one; 0: in threads)."""
    shard_count: int | None = None
    """All shards of the bot (every process the same); ``None``: what Discord recommends."""
    shard_ids: tuple[int, ...] | None = None
    """The shards this process runs; ``None``: all of them."""
    shutdown_grace_seconds: float = 10.0
    """On SIGINT/SIGTERM, how long handlers and background work under way may take."""
    rest_budget_per_second: int = 45
    """Rate-limited REST requests this process sends per second at most (0: unpaced)."""
    flood_burst: int = 10
    """Interactions one user may send at once before "slow down" (0: no flood guard)."""
    flood_per_second: float = 2.0
    """How fast a user's allowance refills, in interactions per second."""
    web_port: int | None = None
    """The web page's port (``None``: no web server; 0: any free port, for tests)."""
    web_host: str = "127.0.0.1"
    """The address the web server listens on."""
    web_base_url: str | None = None
    """The pages' public address (behind a reverse proxy), for links; without it no
    link is posted in Discord."""
    metrics_port: int | None = None
    """A port for ``/metrics``, ``/healthz`` and ``/readyz`` alone, when no web page is
    served (with ``WEB_PORT`` they are on the web port)."""
    log_format: str = "text"
    """``text`` (readable lines) or ``json`` (one JSON object a line)."""
    client_id: int | None = None
    """The application's id (``DISCORD_CLIENT_ID``), for the Activity's sign-in."""
    client_secret: str | None = field(default=None, repr=False)
    """``DISCORD_CLIENT_SECRET``: the Activity's sign-in (never shown, never logged)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, cores: int | None = None) -> Settings:
        """Every setting from ``env``; a wrong value raises ``SystemExit`` with its
        sentence. ``cores``: this machine's CPU cores (``AI_WORKERS``' maximum)."""
        cores = cores or os.cpu_count() or 1
        shard_count = SHARD_COUNT.whole_number(env)
        ids_text = env.get("SHARD_IDS", "").strip()
        shard_ids = None
        if ids_text:
            if shard_count is None:
                raise SystemExit(
                    "SHARD_IDS needs SHARD_COUNT too: every process must be told how many "
                    "shards the bot has in all (e.g. SHARD_COUNT=8 SHARD_IDS=0-3)."
                )
            try:
                shard_ids = parse_shard_ids(ids_text, shard_count)
            except ValueError as error:
                raise SystemExit(str(error)) from None
        return cls(
            token=token(env),
            shutdown_grace_seconds=SHUTDOWN_GRACE_SECONDS.value(env),
            rest_budget_per_second=int(REST_BUDGET_PER_SECOND.value(env)),
            flood_burst=int(FLOOD_BURST.value(env)),
            flood_per_second=FLOOD_PER_SECOND.value(env),
            database_url=database_url(env),
            guild_id=DISCORD_GUILD_ID.whole_number(env),
            timer_poll_seconds=TIMER_POLL_SECONDS.value(env),
            ai_workers=ai_workers_range(cores).whole_number(env),
            shard_count=shard_count,
            shard_ids=shard_ids,
            web_port=WEB_PORT.whole_number(env),
            web_host=web_host(env),
            web_base_url=web_base_url(env),
            metrics_port=METRICS_PORT.whole_number(env),
            log_format=log_format(env),
            client_id=DISCORD_CLIENT_ID.whole_number(env),
            client_secret=client_secret(env),
        )

    @property
    def web_address(self) -> str | None:
        """Where the pages are read: ``WEB_BASE_URL``, else the server's own address
        (``None`` without a web server, or with any free port)."""
        if self.web_port is None:
            return None
        if self.web_base_url:
            return self.web_base_url
        if not self.web_port:
            return None
        host = f"[{self.web_host}]" if ":" in self.web_host else self.web_host
        return f"http://{host}:{self.web_port}"

    @property
    def activity(self) -> bool:
        """Whether the Discord Activity is served: its OAuth2 client (both settings) and
        the web server it is part of (``cogs/helpers/check.py`` says why not)."""
        return bool(self.client_id and self.client_secret and self.web_port is not None)


def token(env: Mapping[str, str]) -> str:
    """``DISCORD_TOKEN`` (empty: none, which ``bot.py`` explains). A token is printable
    ASCII without spaces; anything else (``Bot abc…``, a pasted line break) would only
    come back from Discord as "refused" or from the HTTP library as a traceback."""
    text = env.get("DISCORD_TOKEN", "").strip()
    if text and not re.fullmatch(r"[!-~]+", text):
        raise SystemExit(
            "DISCORD_TOKEN must be the token alone, as the Developer Portal's Reset Token "
            "gives it: the one set has a space or a character no token has (it is not "
            "shown here: a token is a secret)."
        )
    return text


def client_secret(env: Mapping[str, str]) -> str | None:
    """``DISCORD_CLIENT_SECRET`` (empty: none): printable ASCII without spaces, as the
    Developer Portal's OAuth2 page gives it; a wrong one is never shown back."""
    text = env.get("DISCORD_CLIENT_SECRET", "").strip()
    if text and not re.fullmatch(r"[!-~]+", text):
        raise SystemExit(
            "DISCORD_CLIENT_SECRET must be the secret alone, as the Developer Portal's OAuth2 "
            "page gives it: the one set has a space or a character no secret has (it is not "
            "shown here: it is a secret)."
        )
    return text or None


def web_host(env: Mapping[str, str]) -> str:
    """``WEB_HOST``: a host name or an IP address to listen on (default 127.0.0.1)."""
    text = env.get("WEB_HOST", "").strip() or "127.0.0.1"
    if not re.fullmatch(r"[A-Za-z0-9._%:-]+", text) or text.count(":") == 1:
        raise SystemExit(
            "WEB_HOST must be an address to listen on, such as 127.0.0.1, 0.0.0.0 or ::1 "
            f"(no http:// and no port: the port is WEB_PORT), not {text!r}."
        )
    return text


def log_format(env: Mapping[str, str]) -> str:
    text = env.get("LOG_FORMAT", "").strip().lower() or "text"
    if text not in ("text", "json"):
        raise SystemExit(f"LOG_FORMAT must be text or json, not {text!r}.")
    return text


def web_base_url(env: Mapping[str, str]) -> str | None:
    """``WEB_BASE_URL``: the public ``http(s)://host[/path]`` of the pages, without a
    trailing slash; empty for none."""
    text = env.get("WEB_BASE_URL", "").strip()
    if not text:
        return None
    parts = urllib.parse.urlsplit(text)
    try:
        parts.port  # noqa: B018 - reading it checks it
    except ValueError:
        parts = parts._replace(netloc="")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise SystemExit(
            "WEB_BASE_URL must be the pages' public address, such as "
            f"https://games.example.org or https://example.org/workshop, not {text!r}."
        )
    return text.rstrip("/")


def database_url(env: Mapping[str, str]) -> str:
    """``DATABASE_URL`` (the default when empty), checked for its form before anything
    starts; a URL the storage cannot open stops the bot with a sentence naming it."""
    url = env.get("DATABASE_URL", "").strip() or storage.DEFAULT_DATABASE_URL
    if storage.is_postgres_url(url):
        try:
            urllib.parse.urlsplit(url).port  # noqa: B018 - reading it checks it
        except ValueError:
            raise SystemExit(
                "DATABASE_URL has a port that is not a number: write it as "
                "postgresql://user:password@host:5432/database."
            ) from None
        return url
    try:
        storage.sqlite_path(url)
    except storage.BadDatabaseUrl as error:
        raise SystemExit(str(error)) from None
    return url
