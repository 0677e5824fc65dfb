"""The gateway of the fake Discord: a JSON websocket, plain or zlib-stream.

:class:`GatewayMixin` says HELLO, answers heartbeats, checks IDENTIFY (token, shard)
and answers it with READY and a GUILD_CREATE per guild of that shard, RESUMEs a session
(replaying the events it missed) or invalidates it, and dispatches events to the shard
a guild's events belong to, honouring the session's intents. Tests drop or reconnect
the connection (``drop_gateway``, ``reconnect_gateway``), or keep the gateway away for a
while (``gateway_outage``). Also ``GET /gateway`` and
``GET /gateway/bot`` (the shard count and session start limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import zlib
from typing import Any

import discord
from aiohttp import WSMsgType, web

from .model import FakeGuild, HarnessError, RecordedRequest, Violation
from .rest import RestMixin

GATEWAY_PATH = "/gateway-ws/"

# Gateway intents the fake honours when dispatching (discord.Intents flag values).
_INTENT_FOR_EVENT = {
    "MESSAGE_CREATE": (
        discord.Intents(guild_messages=True).value,
        discord.Intents(dm_messages=True).value,
    ),
    "MESSAGE_UPDATE": (
        discord.Intents(guild_messages=True).value,
        discord.Intents(dm_messages=True).value,
    ),
    "MESSAGE_DELETE": (
        discord.Intents(guild_messages=True).value,
        discord.Intents(dm_messages=True).value,
    ),
}
_GUILDS_INTENT = discord.Intents(guilds=True).value


class _GatewayConnection:
    def __init__(self, ws: web.WebSocketResponse, compress: str | None) -> None:
        self.ws = ws
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None
        self._lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload)
        async with self._lock:
            if self._zlib is None:
                await self.ws.send_str(raw)
            else:
                data = self._zlib.compress(raw.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)


class _GatewaySession:
    def __init__(self, session_id: str, intents: int, shard_id: int = 0) -> None:
        self.id = session_id
        self.intents = intents
        self.shard_id = shard_id
        self.seq = 0
        self.buffer: list[dict[str, Any]] = []
        self.conn: _GatewayConnection | None = None


class GatewayMixin(RestMixin):
    """Gateway connections and sessions, per shard, and dispatching events to them."""

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{GATEWAY_PATH}"

    def shard_of(self, guild: FakeGuild | int | None) -> int:
        """The shard that receives ``guild``'s events (``None``, a DM: shard 0)."""
        if guild is None:
            return 0
        guild_id = guild if isinstance(guild, int) else guild.id
        return (guild_id >> 22) % self.shard_count

    @property
    def _session(self) -> _GatewaySession | None:
        """Shard 0's session (the only one without sharding)."""
        return self._shard_sessions.get(0)

    def _shard_for_event(self, event: str, data: dict[str, Any]) -> int:
        """Discord's routing: a guild's events to its shard, the rest to shard 0."""
        guild_id = data.get("id") if event.startswith("GUILD_") else data.get("guild_id")
        return self.shard_of(int(guild_id)) if guild_id else 0

    def _spawn_dispatch(self, event: str, data: dict[str, Any]) -> None:
        if not self._shard_sessions:
            return
        with contextlib.suppress(RuntimeError):  # no running loop: nothing connected yet
            task = asyncio.get_running_loop().create_task(self.dispatch(event, data))
            self._pending_dispatches.add(task)
            task.add_done_callback(self._pending_dispatches.discard)

    async def dispatch(
        self, event: str, data: dict[str, Any], *, session: _GatewaySession | None = None
    ) -> None:
        """Send a DISPATCH to the bot on the shard it belongs to (buffered for RESUME while
        that shard is disconnected; dropped if the shard never identified)."""
        if session is None:
            shard = self._shard_for_event(event, data)
            session = self._shard_sessions.get(shard)
            if session is None:
                return
        self.dispatched.append((session.shard_id, event, data))
        wanted = _INTENT_FOR_EVENT.get(event)
        if wanted is not None:
            bit = wanted[0] if data.get("guild_id") else wanted[1]
            if not session.intents & bit:
                return
        elif (
            event.startswith(("GUILD_", "CHANNEL_", "THREAD_"))
            and not session.intents & _GUILDS_INTENT
        ):
            return
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.buffer.append(payload)
        if session.conn is not None:
            # On a broken connection it stays in the buffer; a RESUME replays it.
            with contextlib.suppress(ConnectionResetError, RuntimeError):
                await session.conn.send(payload)
            # settle() waits a quiet period after this too, so the bot has handled it.
            self._last_activity = asyncio.get_running_loop().time()

    async def reconnect_gateway(self, *, resume: bool = True, shard: int = 0) -> None:
        """Ask the bot to reconnect (op 7 RECONNECT; it then RESUMEs), or drop the
        connection abruptly with close code 4000 (``resume=False`` closes with 4009,
        session timed out, so the bot identifies anew)."""
        session = self._shard_sessions.get(shard)
        if session is None or session.conn is None:
            raise HarnessError("the bot is not connected to the gateway")
        conn = session.conn
        if resume:
            await conn.send({"op": 7, "d": None})
        else:
            self._sessions.pop(session.id, None)
            await conn.ws.close(code=4009, message=b"Session timed out")

    async def drop_gateway(self, shard: int = 0) -> None:
        """Close the bot's connection with code 4000 (unknown error): it resumes."""
        session = self._shard_sessions.get(shard)
        if session is None or session.conn is None:
            raise HarnessError("the bot is not connected to the gateway")
        conn, session.conn = session.conn, None
        await conn.ws.close(code=4000, message=b"Unknown error")

    async def gateway_outage(self, on: bool = True) -> None:
        """The gateway goes away (``on``): every connection is closed (code 4000, as by
        :meth:`drop_gateway`) and every new one refused (HTTP 503, no websocket) until
        ``gateway_outage(False)``; sessions stay resumable, events are buffered."""
        self._gateway_down = on
        if on:
            for session in list(self._shard_sessions.values()):
                conn, session.conn = session.conn, None
                if conn is not None:
                    await conn.ws.close(code=4000, message=b"Unknown error")

    async def wait_connected(self, timeout: float = 10.0, shard: int = 0) -> None:  # noqa: ASYNC109
        def connected() -> bool:
            session = self._shard_sessions.get(shard)
            return session is not None and session.conn is not None

        await self.wait_for(connected, timeout, f"the bot's gateway connection (shard {shard})")

    async def _gateway_handler(self, request: web.Request) -> web.StreamResponse:
        if self._gateway_down:
            return web.Response(status=503, text="the gateway is down (gateway_outage)")
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = request.query.get("compress")
        if request.query.get("encoding", "json") != "json" or compress not in (None, "zlib-stream"):
            self._violate(Violation("gateway", f"unsupported gateway query {dict(request.query)}"))
            await ws.close(code=4002)
            return ws
        conn = _GatewayConnection(ws, compress)
        self._connections.add(conn)
        self.gateway_queries.append(dict(request.query))
        session: _GatewaySession | None = None
        try:
            self.gateway_log.append("HELLO")
            await conn.send({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                payload = json.loads(msg.data)
                op, d = payload.get("op"), payload.get("d")
                if op == 1:
                    self.heartbeats += 1
                    await conn.send({"op": 11})
                elif op == 2:
                    session = await self._identify(conn, d)
                    if session is None:
                        break
                elif op == 6:
                    session = await self._resume(conn, d)
        finally:
            self._connections.discard(conn)
            if session is not None and session.conn is conn:
                session.conn = None
                if ws.close_code == 1000:  # a clean close ends the session, as on Discord
                    self._sessions.pop(session.id, None)
                    if self._shard_sessions.get(session.shard_id) is session:
                        del self._shard_sessions[session.shard_id]
        return ws

    async def _identify(
        self, conn: _GatewayConnection, d: dict[str, Any]
    ) -> _GatewaySession | None:
        self.gateway_log.append("IDENTIFY")
        if d.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return None
        shard_id, shard_count = d.get("shard") or (0, 1)
        if shard_count != self.shard_count or not 0 <= shard_id < shard_count:
            # Discord: 4010 Invalid shard / 4011 Sharding required
            self._violate(
                Violation(
                    "gateway",
                    f"IDENTIFY with shard [{shard_id}, {shard_count}], but the bot has "
                    f"{self.shard_count} shard(s) (GET /gateway/bot)",
                )
            )
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return None
        session = _GatewaySession(secrets.token_hex(16), int(d.get("intents") or 0), shard_id)
        # A new IDENTIFY for a shard replaces that shard's earlier session (and only it).
        old = self._shard_sessions.get(shard_id)
        if old is not None:
            self._sessions.pop(old.id, None)
        self._sessions[session.id] = session
        self._shard_sessions[shard_id] = session
        session.conn = conn
        guilds = [g for g in self.guilds if self.shard_of(g) == shard_id]
        ready: dict[str, Any] = {
            "v": 10,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "_trace": ["fake-discord"],
        }
        if d.get("shard"):
            ready["shard"] = d["shard"]
        await self.dispatch("READY", ready, session=session)
        self.gateway_log.append("READY")
        self.readies[shard_id] = self.readies.get(shard_id, 0) + 1
        for guild_id in guilds:
            payload = self._guild_create_payload(self.guilds[guild_id])
            await self.dispatch("GUILD_CREATE", payload, session=session)
        self._identified.set()
        return session

    async def _resume(self, conn: _GatewayConnection, d: dict[str, Any]) -> _GatewaySession | None:
        self.gateway_log.append("RESUME")
        session = self._sessions.get(d.get("session_id", ""))
        if session is None or d.get("token") != self.token:
            await conn.send({"op": 9, "d": False})
            self.gateway_log.append("INVALID_SESSION")
            return None
        session.conn = conn
        last = int(d.get("seq") or 0)
        for payload in [p for p in session.buffer if p["s"] > last]:
            await conn.send(payload)
        await self.dispatch("RESUMED", {"_trace": ["fake-discord"]}, session=session)
        self.gateway_log.append("RESUMED")
        return session

    def _gateway_routes(self) -> None:
        """GET /gateway and /gateway/bot."""
        route = self._route

        @route("GET", "/gateway")
        async def get_gateway(rec: RecordedRequest) -> Any:
            return {"url": self.gateway_url.rstrip("/")}

        @route("GET", "/gateway/bot")
        async def get_gateway_bot(rec: RecordedRequest) -> Any:
            return {
                "url": self.gateway_url.rstrip("/"),
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": self.max_concurrency,
                },
            }
