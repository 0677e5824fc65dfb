"""Discord's OAuth2 as an Activity's server meets it: the authorization-code grant.

The real Discord client answers the Embedded App SDK's ``AUTHORIZE`` command with a
one-time code for the user (``authorize`` here plays that part); the Activity's server
exchanges the code at ``POST /oauth2/token`` (form-encoded: ``grant_type``
``authorization_code``, ``client_id``, ``client_secret``, ``code``) for an access token,
and reads the user with it at ``GET /users/@me`` (``Authorization: Bearer <token>``).
As on Discord: a wrong client id or secret is ``401 invalid_client``; an unknown, used
or expired code is ``400 invalid_grant`` (a code is good once, for 10 minutes); a
missing or unknown bearer token is ``401``. ``GET /users/@me`` with the bot's token
still answers the bot (the bot's own route).

Running Activities: ``start_activity`` is a user starting the Activity in a channel
(Discord's instance of it there), ``join_activity`` another joining it; the bot asks
``GET /applications/{id}/activity-instances/{instance}`` with its token for the
instance's channel and users, as on Discord (404 once no such instance runs).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .model import FakeUser
from .rest import API_PREFIX, json_response

if TYPE_CHECKING:
    from .server import FakeDiscord

CODE_SECONDS = 600.0
TOKEN_SECONDS = 604_800


@dataclass
class Exchange:
    """One ``POST /oauth2/token`` as the fake saw it (the secret is not kept)."""

    code: str
    status: int
    secret_right: bool


@dataclass
class FakeOAuth:
    """The application's OAuth2 client (its id is the application's) and the codes and
    tokens issued to users."""

    fake: FakeDiscord
    client_secret: str = field(default_factory=lambda: f"fake-client-secret-{secrets.token_hex(8)}")
    clock: Callable[[], float] = time.monotonic
    exchanges: list[Exchange] = field(default_factory=list)
    _codes: dict[str, tuple[int, float, tuple[str, ...]]] = field(default_factory=dict)
    _tokens: dict[str, tuple[int, float]] = field(default_factory=dict)
    instances: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Running Activity instances, as Discord's API gives them, by instance id."""

    def start_activity(self, channel_id: int, *user_ids: int, guild_id: int | None = None) -> str:
        """Users start the Activity in a channel: the id of its instance there (the
        SDK's ``instanceId``)."""
        guild = guild_id if guild_id is not None else self.fake.guild.id
        launch = self.fake.snowflake()
        location = f"gc-{guild}-{channel_id}"
        instance = f"i-{launch}-{location}"
        self.instances[instance] = {
            "application_id": str(self.client_id),
            "instance_id": instance,
            "launch_id": str(launch),
            "location": {
                "id": location,
                "kind": "gc",
                "channel_id": str(channel_id),
                "guild_id": str(guild),
            },
            "users": [str(u) for u in user_ids],
        }
        return instance

    def join_activity(self, instance: str, user_id: int) -> None:
        self.instances[instance]["users"].append(str(user_id))

    @property
    def client_id(self) -> int:
        return self.fake.application_id

    def authorize(self, user: FakeUser, scopes: tuple[str, ...] = ("identify",)) -> str:
        """A one-time code for ``user``, as the Discord client gives the SDK's
        ``authorize``."""
        code = secrets.token_urlsafe(20)
        self._codes[code] = (user.id, self.clock() + CODE_SECONDS, scopes)
        return code

    def routes(self, app: web.Application, rest: Callable[[web.Request], Awaitable[Any]]) -> None:
        """Add the two routes ahead of the REST catch-all (``rest``: the bot's
        ``GET /users/@me`` goes on there)."""
        for prefix in (API_PREFIX, "/api"):
            app.router.add_route("POST", f"{prefix}/oauth2/token", self._token)

        async def me(request: web.Request) -> web.StreamResponse:
            auth = request.headers.get("Authorization", "")
            if auth.startswith("Bearer "):
                return self._me(auth.removeprefix("Bearer ").strip())
            result: web.StreamResponse = await rest(request)
            return result

        app.router.add_route("GET", f"{API_PREFIX}/users/@me", me)
        app.router.add_route(
            "GET",
            f"{API_PREFIX}/applications/{{application_id}}/activity-instances/{{instance}}",
            self._instance,
        )

    async def _instance(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bot {self.fake.token}":
            return json_response({"message": "401: Unauthorized", "code": 0}, 401)
        found = self.instances.get(request.match_info["instance"])
        if request.match_info["application_id"] != str(self.client_id) or found is None:
            return json_response({"message": "404: Not Found", "code": 0}, 404)
        return json_response(found)

    async def _token(self, request: web.Request) -> web.Response:
        form = await request.post()
        code = str(form.get("code", ""))
        right = str(form.get("client_secret", "")) == self.client_secret
        if request.content_type != "application/x-www-form-urlencoded":
            return self._refuse(code, 400, "invalid_request", right)
        if str(form.get("client_id", "")) != str(self.client_id) or not right:
            return self._refuse(code, 401, "invalid_client", right)
        if form.get("grant_type") != "authorization_code":
            return self._refuse(code, 400, "unsupported_grant_type", right)
        issued = self._codes.pop(code, None)
        if issued is None or issued[1] < self.clock():
            return self._refuse(code, 400, "invalid_grant", right)
        user_id, _, scopes = issued
        token = secrets.token_urlsafe(24)
        self._tokens[token] = (user_id, self.clock() + TOKEN_SECONDS)
        self.exchanges.append(Exchange(code, 200, right))
        return json_response(
            {
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": TOKEN_SECONDS,
                "refresh_token": secrets.token_urlsafe(24),
                "scope": " ".join(scopes),
            }
        )

    def _refuse(self, code: str, status: int, error: str, right: bool) -> web.Response:
        self.exchanges.append(Exchange(code, status, right))
        return json_response({"error": error}, status)

    def _me(self, token: str) -> web.Response:
        found = self._tokens.get(token)
        if found is None or found[1] < self.clock():
            return json_response({"message": "401: Unauthorized", "code": 0}, 401)
        user = self.fake.users[found[0]]
        return json_response({**user.payload(), "locale": user.locale, "mfa_enabled": False})
