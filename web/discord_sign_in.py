"""What the Discord Activity asks Discord, and the sessions it signs players in with.

Sign-in, as Discord documents it: the page's SDK asks Discord to ``authorize`` (scope
``identify``) and posts the code to the Activity (``web/activity.py``), which exchanges
it here at Discord's ``POST /oauth2/token`` with the client secret and reads
``GET /users/@me`` with the access token it got (:meth:`Discord.exchange`). The
Activity answers the access token (the SDK's ``authenticate`` needs it: the only place
it goes, and it is never logged) and a **session** of the bot's own (:class:`Sessions`):
the user's id, name and language and an expiry, signed with a key derived from
``DISCORD_CLIENT_SECRET``, so every process of the bot accepts it, across restarts,
without storing it. Every API call but the exchange carries it
(``Authorization: Bearer <session>``).

A table is found by the Activity instance the page runs in: Discord's
``GET /applications/{id}/activity-instances/{instance}``, asked with the bot's token,
tells its channel and who is in it (:meth:`Discord.instance`, kept a few seconds).

Discord is asked over one aiohttp client, made on first use and closed with the web
server. Its trouble (unreachable, 5xx, 429) is :class:`Away`; a code it does not accept
is :class:`NotAccepted`: the Activity answers each with its own sentence.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp

import i18n

log = logging.getLogger(__name__)

DISCORD_API = "https://discord.com/api/v10"
SESSION_SECONDS = 3600
"""How long a session lasts; the page signs in again (a new code) when it ends."""
DISCORD_SECONDS = 10.0
"""How long Discord's OAuth2 answers are waited for."""
INSTANCE_SECONDS = 10.0
"""How long Discord's answer on an Activity instance is kept (a user who joined since
is asked about again at once)."""
INSTANCES_KEPT = 10_000


# --------------------------------------------------------------------------- sessions


@dataclass(frozen=True)
class Session:
    """Who is signed in: a Discord user, their name and language, until ``expires``."""

    user_id: int
    name: str
    lang: str
    expires: int
    """Unix time."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """The bot's own sessions: ``<payload>.<signature>``, both base64url; the payload is
    JSON (``u`` user id, ``n`` name, ``l`` language, ``e`` expiry, ``p`` purpose), the
    signature its HMAC-SHA256 under a key derived from the client secret (never the
    secret itself), so nothing is stored and every process with the same secret accepts
    it. A changed secret ends every session.

    Purposes: ``session`` (the API's ``Authorization``), and ``events``: the ticket in
    the event stream's address (a browser's ``EventSource`` sends no header), which says
    whose stream it is and opens nothing else."""

    def __init__(
        self,
        secret: str,
        *,
        clock: Callable[[], float] = time.time,
        lifetime: int = SESSION_SECONDS,
    ) -> None:
        self._key = hmac.new(
            secret.encode(), b"workshop-bot activity session v1", "sha256"
        ).digest()
        self.clock = clock
        self.lifetime = lifetime

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def issue(self, user_id: int, name: str, lang: str, purpose: str = "session") -> str:
        expires = int(self.clock()) + self.lifetime
        body = {"u": str(user_id), "n": name, "l": lang, "e": expires, "p": purpose}
        payload = _b64(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode())
        return f"{payload}.{self._sign(payload)}"

    def read(self, token: str, purpose: str = "session") -> Session | None:
        """The session of ``token``; ``None`` if it is malformed, forged, altered, over,
        or for another purpose."""
        payload, dot, signature = token.partition(".")
        if not dot or len(token) > 2000:
            return None
        if not hmac.compare_digest(self._sign(payload), signature):
            return None
        try:
            body = json.loads(_unb64(payload))
            session = Session(int(body["u"]), str(body["n"]), str(body["l"]), int(body["e"]))
            if body["p"] != purpose:
                return None
        except (ValueError, KeyError, TypeError, binascii.Error):
            return None
        if session.expires <= self.clock() or session.lang not in i18n.LANGUAGES:
            return None
        return session


# --------------------------------------------------------------------------- Discord


class App(Protocol):
    """The application Discord is asked for (``web/activity.py``'s ``ActivityOptions``)."""

    @property
    def client_id(self) -> int: ...

    @property
    def client_secret(self) -> str: ...

    @property
    def api(self) -> str:
        """Discord's API (a test's fake)."""

    @property
    def bot_token(self) -> str | None: ...


class Away(Exception):
    """Discord cannot be reached just now, or answered with its own trouble (5xx, 429)."""


class NotAccepted(Exception):
    """Discord did not accept the sign-in code."""


class Discord:
    """What the Activity asks Discord, over one aiohttp client (made on first use)."""

    def __init__(self) -> None:
        self._http: aiohttp.ClientSession | None = None
        self._instances: dict[str, tuple[float, int | None, frozenset[int]]] = {}
        """Activity instances asked of Discord lately: until when, channel, users."""

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=DISCORD_SECONDS))
        return self._http

    async def exchange(self, app: App, code: str) -> tuple[str, dict[str, Any]]:
        """Discord's access token for ``code``, and the user it belongs to. Nothing of
        the secret, the code or the token is logged: only Discord's status.

        Raises :class:`NotAccepted` for a code Discord refuses, :class:`Away` for
        Discord's trouble."""
        form = {
            "grant_type": "authorization_code",
            "client_id": str(app.client_id),
            "client_secret": app.client_secret,
            "code": code,
        }
        try:
            async with self._client().post(f"{app.api}/oauth2/token", data=form) as answer:
                granted = await answer.json(content_type=None) if answer.status == 200 else None
                status = answer.status
            access = granted.get("access_token") if isinstance(granted, dict) else None
            if not isinstance(access, str) or not access:
                log.info("activity: Discord refused a sign-in code (HTTP %s)", status)
                if status >= 500 or status == 429:  # Discord's trouble, not the code's
                    raise Away
                raise NotAccepted
            headers = {"Authorization": f"Bearer {access}"}
            async with self._client().get(f"{app.api}/users/@me", headers=headers) as answer:
                user = await answer.json(content_type=None) if answer.status == 200 else None
                status = answer.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            log.warning(
                "activity: Discord's OAuth2 could not be reached (%s)", type(error).__name__
            )
            raise Away from None
        if not isinstance(user, dict) or not str(user.get("id", "")).isdigit():
            log.info("activity: Discord did not give the signed-in user (HTTP %s)", status)
            raise Away
        return access, user

    async def instance(
        self, app: App, instance: str, user_id: int
    ) -> tuple[int | None, frozenset[int]]:
        """The channel and users of the Activity's running instance ``instance`` (``None``
        and none: no such instance running), kept a few seconds; asked again at once if
        ``user_id`` is not among them (they may have joined since). ``app`` has a bot
        token. Raises :class:`Away` for Discord's trouble."""
        now = time.monotonic()
        kept = self._instances.get(instance)
        if kept is None or kept[0] < now or user_id not in kept[2]:
            kept = (now + INSTANCE_SECONDS, *await self._instance(app, instance))
            self._instances[instance] = kept
            while len(self._instances) > INSTANCES_KEPT:
                self._instances.pop(next(iter(self._instances)))
        _, channel, users = kept
        return channel, users

    async def _instance(self, app: App, instance: str) -> tuple[int | None, frozenset[int]]:
        """Discord's ``GET /applications/{id}/activity-instances/{instance}``."""
        url = f"{app.api}/applications/{app.client_id}/activity-instances/{instance}"
        headers = {"Authorization": f"Bot {app.bot_token}"}
        try:
            async with self._client().get(url, headers=headers) as answer:
                found = await answer.json(content_type=None) if answer.status == 200 else None
                status = answer.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            log.warning(
                "activity: Discord's activity instances unreachable (%s)", type(error).__name__
            )
            raise Away from None
        if status >= 500 or status == 429:
            raise Away
        if not isinstance(found, dict):
            return None, frozenset()
        location = found.get("location") or {}
        channel = str(location.get("channel_id") or "")
        users = frozenset(int(u) for u in found.get("users") or () if str(u).isdigit())
        return (int(channel) if channel.isdigit() else None), users
