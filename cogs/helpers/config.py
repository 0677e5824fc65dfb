"""The bot's settings, read once from the environment (or ``.env``) before anything
starts: :meth:`Settings.from_env`. A malformed value stops the bot with a sentence
naming it (``SystemExit``), never a traceback; ``.env.example`` describes each setting.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

import storage


def parse_shard_ids(text: str, shard_count: int) -> tuple[int, ...]:
    """``"0-3"`` → (0, 1, 2, 3); ``"4,5,6,7"`` and mixes such as ``"0-1,6"`` too.

    Raises ``ValueError`` with a sentence naming what is wrong.

    >>> parse_shard_ids("0-2,5", 8)
    (0, 1, 2, 5)
    """
    ids: list[int] = []
    for part in text.replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError(
                f"SHARD_IDS must be shard numbers and ranges such as 0-3 or 4,5,6,7, not {text!r}."
            )
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError(f"SHARD_IDS: the range {part} runs backwards; write {high}-{low}.")
        ids.extend(range(low, high + 1))
    outside = sorted({i for i in ids if i >= shard_count})
    if outside:
        raise ValueError(
            f"SHARD_IDS names shard {outside[0]}, but with SHARD_COUNT={shard_count} the "
            f"shards are 0 to {shard_count - 1}."
        )
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"SHARD_IDS names shard {twice[0]} twice.")
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
    rest_budget_per_second: float = 45.0
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

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        guild = env.get("DISCORD_GUILD_ID", "").strip()
        if guild and not guild.isdigit():
            raise SystemExit(f"DISCORD_GUILD_ID must be a server id (digits), not {guild!r}.")
        workers = env.get("AI_WORKERS", "").strip()
        if workers and not workers.isdigit():
            raise SystemExit(f"AI_WORKERS must be a number of processes, not {workers!r}.")
        count_text = env.get("SHARD_COUNT", "").strip()
        ids_text = env.get("SHARD_IDS", "").strip()
        if count_text and (not count_text.isdigit() or int(count_text) < 1):
            raise SystemExit(
                f"SHARD_COUNT must be a whole number of 1 or more, not {count_text!r}."
            )
        shard_count = int(count_text) if count_text else None
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
            token=env.get("DISCORD_TOKEN", "").strip(),
            shutdown_grace_seconds=number(env, "SHUTDOWN_GRACE_SECONDS", 10.0),
            rest_budget_per_second=number(env, "REST_BUDGET_PER_SECOND", 45.0),
            flood_burst=int(number(env, "FLOOD_BURST", 10, whole=True)),
            flood_per_second=number(env, "FLOOD_PER_SECOND", 2.0),
            database_url=database_url(env),
            guild_id=int(guild) if guild else None,
            timer_poll_seconds=number(env, "TIMER_POLL_SECONDS", 30.0),
            ai_workers=int(workers) if workers else None,
            shard_count=shard_count,
            shard_ids=shard_ids,
            web_port=port(env, "WEB_PORT"),
            web_host=env.get("WEB_HOST", "").strip() or "127.0.0.1",
            web_base_url=web_base_url(env),
            metrics_port=port(env, "METRICS_PORT"),
            log_format=log_format(env),
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


def port(env: Mapping[str, str], name: str) -> int | None:
    """A port setting: empty for none, else a port number."""
    text = env.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) > 65535:
        what = "no web page" if name == "WEB_PORT" else "none"
        raise SystemExit(
            f"{name} must be a port number from 1 to 65535 (or empty for {what}), not {text!r}."
        )
    return int(text)


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


def number(env: Mapping[str, str], name: str, default: float, *, whole: bool = False) -> float:
    """A setting that is a number of 0 or more (``default`` when empty); a wrong value
    stops the bot with a sentence naming it."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        value = -1
    if value < 0:
        kind = "a whole number" if whole else "a number"
        raise SystemExit(f"{name} must be {kind} of 0 or more, not {text!r}.")
    return value
