"""Discord's client around the bot's Activity, for the tests, so that the real Embedded
App SDK runs unmodified in Chromium.

Two HTTPS servers on this machine play Discord's two origins (Chromium is started with
``--host-resolver-rules`` mapping the names to their ports and ``--ignore-certificate-
errors`` for their throwaway self-signed certificate: :meth:`DiscordClient.flags`):

- ``https://discord.com`` serves the client's page (``activity_harness.html`` and
  ``.js``): it opens the Activity in an iframe with the query Discord gives it
  (``frame_id``, ``instance_id``, ``platform``, ``guild_id``, ``channel_id``) and answers
  the SDK's postMessage protocol (HANDSHAKE → READY, AUTHORIZE, AUTHENTICATE,
  CAPTURE_LOG). For AUTHORIZE it asks this server, which asks ``authorize`` (the test's
  hook into the fake Discord: a code for the test's user, as the real client's consent
  would give); for AUTHENTICATE it hands the access token to ``authenticate`` (the fake
  Discord's ``/users/@me`` with that token).
- ``https://<client id>.discordsays.com`` is Discord's proxy: every request goes on to the
  bot's web server under ``/activity`` (the Activity's URL mapping: its root to
  ``<WEB_BASE_URL>/activity``), streamed both ways (the page's Server-Sent Events too).
  It keeps what it passed (:attr:`DiscordClient.passed`: each request's method, path,
  status and the whole answer's body as it came, a stream's growing while it runs), so a
  test can read every byte a page received: one ``DiscordClient`` per player (each with
  its own Chromium) keeps each player's apart.

The SDK accepts messages only from Discord's origins (``https://discord.com`` among
them) and answers to the origin of ``document.referrer``: hence the real names, on 443.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import shutil
import ssl
import subprocess
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

HERE = Path(__file__).parent
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "content-encoding",
}
HARNESS_CSS = (
    "html, body { margin: 0; height: 100%; background: #313338; }\n"
    "iframe { display: block; width: 100vw; height: 100vh; border: 0; }\n"
)

Authorize = Callable[[int, list[str]], Awaitable[str]]
"""(the test user's id, the scopes asked) → an OAuth2 code for that user."""
Authenticate = Callable[[str], Awaitable[dict[str, Any] | None]]
"""An access token → the Discord user it belongs to (``/users/@me``), None if none."""

_CERTIFICATE: tuple[Path, Path] | None = None


def certificate() -> tuple[Path, Path]:
    """A throwaway self-signed certificate and key (made once per process, by
    ``openssl``) for discord.com and *.discordsays.com."""
    global _CERTIFICATE
    if _CERTIFICATE is None:
        openssl = shutil.which("openssl")
        if openssl is None:
            raise RuntimeError("openssl is needed to make the Activity harness's certificate")
        folder = Path(tempfile.mkdtemp(prefix="activity-tls-"))
        cert, key = folder / "cert.pem", folder / "key.pem"
        subprocess.run(
            [
                openssl,
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=discord.com",
                "-addext",
                "subjectAltName=DNS:discord.com,DNS:*.discordsays.com",
                "-keyout",
                str(key),
                "-out",
                str(cert),
            ],
            check=True,
            capture_output=True,
        )
        _CERTIFICATE = (cert, key)
    return _CERTIFICATE


@dataclass
class Passed:
    """One request the proxy passed on, and the answer it passed back."""

    method: str
    path: str
    """Path and query, under the Activity's root (``/api/table?channel=…``)."""
    status: int
    content_type: str
    encoding: str
    """The answer's ``Content-Encoding`` (``""``: none)."""
    raw: bytearray = field(default_factory=bytearray)
    """The body as it came, chunk by chunk (a stream's grows while it is open)."""
    done: bool = False
    request: bytes = b""
    """The request's body (a move's JSON)."""

    @property
    def body(self) -> bytes:
        """The body, decoded from its ``Content-Encoding`` (gzip or identity)."""
        if self.encoding in ("", "identity"):
            return bytes(self.raw)
        if self.encoding == "gzip" and self.done:
            return gzip.decompress(bytes(self.raw))
        raise AssertionError(f"{self.path}: a body in {self.encoding!r} the tests cannot read")

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    @property
    def route(self) -> str:
        """The path without its query."""
        return self.path.split("?", 1)[0]


@dataclass
class Launch:
    """Where the client opens the Activity, and as whom."""

    user_id: int
    username: str
    channel_id: int
    guild_id: int
    platform: str = "desktop"


class DiscordClient:
    """The two origins of Discord's client around one Activity (see the module doc).

    ``upstream`` is the bot's web server (``http://127.0.0.1:<port>``); ``authorize``
    and ``authenticate`` are the fake Discord's side of the sign-in."""

    def __init__(
        self,
        client_id: int,
        upstream: str,
        authorize: Authorize,
        authenticate: Authenticate,
        instance: Callable[[Launch], str] | None = None,
    ) -> None:
        self.client_id = client_id
        self.upstream = upstream.rstrip("/")
        self.authorize = authorize
        self.authenticate = authenticate
        self.instance = instance
        """The id of the Activity's instance a launch opens (Discord's, which the bot asks
        about); without it, one per channel that no one registered."""
        self.launches: dict[str, Launch] = {}
        self.proxied: list[tuple[str, str, int]] = []
        """Every request the proxy passed on: (method, path and query, status)."""
        self.passed: list[Passed] = []
        """The same, each with the body of its answer (:class:`Passed`)."""
        self.ports: dict[str, int] = {}
        self._runners: list[web.AppRunner] = []
        self._http: aiohttp.ClientSession | None = None

    @property
    def activity_host(self) -> str:
        return f"{self.client_id}.discordsays.com"

    def flags(self) -> list[str]:
        """Chromium's flags that send both names here and take the certificate."""
        rules = ",".join(
            [
                f"MAP discord.com 127.0.0.1:{self.ports['discord.com']}",
                f"MAP {self.activity_host} 127.0.0.1:{self.ports[self.activity_host]}",
            ]
        )
        return [f"--host-resolver-rules={rules}", "--ignore-certificate-errors"]

    def url(self, launch: Launch) -> str:
        """The client's page that opens the Activity for ``launch`` (its user)."""
        frame = f"frame-{len(self.launches) + 1}"
        self.launches[frame] = launch
        query = {
            "client_id": str(self.client_id),
            "frame_id": frame,
            "instance_id": (
                self.instance(launch) if self.instance else f"instance-{launch.channel_id}"
            ),
            "platform": launch.platform,
            "guild_id": str(launch.guild_id),
            "channel_id": str(launch.channel_id),
        }
        return f"https://discord.com/activities/?{urlencode(query)}"

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        cert, key = certificate()
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        self._http = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=10), auto_decompress=False
        )
        client = web.Application()
        client.add_routes(
            [
                web.get("/activities/", self.client_page),
                web.get("/activities/harness.js", self.client_file),
                web.get("/activities/harness.css", self.client_file),
                web.post("/activities/harness/user", self.user),
                web.post("/activities/harness/authorize", self.authorize_code),
                web.post("/activities/harness/authenticate", self.authenticate_token),
            ]
        )
        proxy = web.Application()
        proxy.router.add_route("*", "/{path:.*}", self.proxy)
        for name, app in (("discord.com", client), (self.activity_host, proxy)):
            runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
            await site.start()
            self._runners.append(runner)
            server = site._server
            assert isinstance(server, asyncio.Server)
            self.ports[name] = server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        for runner in self._runners:
            await runner.cleanup()
        self._runners.clear()
        if self._http is not None:
            await self._http.close()
            self._http = None

    async def __aenter__(self) -> DiscordClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------ discord.com

    def _launch(self, request: web.Request) -> Launch:
        frame = request.headers.get("X-Frame-Id", "")
        launch = self.launches.get(frame)
        if launch is None:
            raise web.HTTPBadRequest(text=json.dumps({"error": f"unknown frame {frame!r}"}))
        return launch

    async def client_page(self, request: web.Request) -> web.Response:
        return web.Response(
            text=(HERE / "activity_harness.html").read_text(encoding="utf-8"),
            content_type="text/html",
        )

    async def client_file(self, request: web.Request) -> web.Response:
        if request.path.endswith(".css"):
            return web.Response(text=HARNESS_CSS, content_type="text/css")
        script = (HERE / "activity_harness.js").read_text(encoding="utf-8")
        return web.Response(text=script, content_type="text/javascript")

    async def user(self, request: web.Request) -> web.Response:
        launch = self._launch(request)
        return web.json_response({"id": str(launch.user_id), "username": launch.username})

    async def authorize_code(self, request: web.Request) -> web.Response:
        launch = self._launch(request)
        asked = await request.json()
        if asked.get("client_id") != str(self.client_id):
            return web.json_response({"error": "Invalid client id"}, status=400)
        code = await self.authorize(launch.user_id, list(asked.get("scope") or []))
        return web.json_response({"code": code})

    async def authenticate_token(self, request: web.Request) -> web.Response:
        launch = self._launch(request)
        token = str((await request.json()).get("access_token") or "")
        user = await self.authenticate(token)
        if user is None or str(user.get("id")) != str(launch.user_id):
            return web.json_response({"error": "Invalid access token"}, status=401)
        return web.json_response(
            {
                "access_token": token,
                "user": {
                    "username": str(user.get("username", "")),
                    "discriminator": str(user.get("discriminator", "0")),
                    "id": str(user["id"]),
                    "avatar": None,
                    "public_flags": 0,
                    "global_name": user.get("global_name"),
                },
                "scopes": ["identify"],
                "expires": "2099-01-01T00:00:00.000Z",
                "application": {
                    "id": str(self.client_id),
                    "name": "Santa's Workshop",
                    "description": "",
                },
            }
        )

    # ------------------------------------------------------------ <id>.discordsays.com

    async def proxy(self, request: web.Request) -> web.StreamResponse:
        """Discord's proxy: the request, as it came, to the bot's ``/activity`` + path;
        the answer streamed back as it comes."""
        assert self._http is not None
        target = f"{self.upstream}/activity{request.rel_url}"
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        body = await request.read() if request.can_read_body else None
        async with self._http.request(
            request.method, target, headers=headers, data=body, allow_redirects=False
        ) as upstream:
            self.proxied.append((request.method, str(request.rel_url), upstream.status))
            passed = Passed(
                request.method,
                str(request.rel_url),
                upstream.status,
                upstream.headers.get("Content-Type", ""),
                upstream.headers.get("Content-Encoding", ""),
                request=body or b"",
            )
            self.passed.append(passed)
            answer = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in upstream.headers.items():
                if name.lower() not in HOP_BY_HOP:
                    answer.headers.add(name, value)
            if "Content-Encoding" in upstream.headers:
                answer.headers["Content-Encoding"] = upstream.headers["Content-Encoding"]
            await answer.prepare(request)
            with contextlib.suppress(ConnectionResetError, aiohttp.ClientPayloadError):
                async for chunk in upstream.content.iter_any():
                    passed.raw += chunk
                    await answer.write(chunk)
                passed.done = True
            with contextlib.suppress(ConnectionResetError):
                await answer.write_eof()
            return answer
