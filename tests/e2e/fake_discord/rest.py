"""The REST plumbing of the fake Discord: every request's way through it.

:class:`RestMixin` reads a request (JSON or multipart with attachments), runs the
request hooks, then in this order: the outage switch, the injected faults and Discord's
rate limits (decided by ``faults.py``), a hold (``hold``/``release``), and only then
serves it: the route (registered by each area's mixin with ``_route``), the bot's
token, Discord's limits on bodies (``limits.py``) and the OpenAPI spec (``spec.py``),
and the route's handler. Also here: the answer (with Discord's ``X-RateLimit-*``
headers when ``bucket_headers`` is on), ``ApiError`` (Discord's JSON error answer), the
lookups route handlers share (``_get_channel``, ``_get_message``, ``_need``,
``_guild``) and the attachment downloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from aiohttp import BodyPartReader, web

from . import faults as flt
from . import limits
from .model import (
    FakeChannel,
    FakeFile,
    FakeGuild,
    RecordedRequest,
    Violation,
)
from .state import FakeState

API_PREFIX = "/api/v10"
JSON = "application/json"  # exactly: discord.py's json_or_text compares the whole header
PID_HEADER = "X-Fake-Pid"  # the sending process's id (run_bot.py), recorded as its pid

# Narrow, documented exceptions to spec validation: (method, template, error substring).
# Every entry must say why discord.py legitimately sends what the spec rejects.
SPEC_EXCEPTIONS: list[tuple[str, str, str, str]] = []

Handler = Callable[..., Awaitable[Any]]


class ApiError(Exception):
    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    if data is None and status == 204:
        return web.Response(status=204, headers=headers)
    return web.Response(
        status=status,
        body=json.dumps(data).encode(),
        headers={"Content-Type": JSON, **(headers or {})},
    )


class _Held:
    """A request held by ``FakeDiscord.hold``: its answer, once released, or ``None``
    to drop it."""

    __slots__ = ("future", "record", "request")

    def __init__(self, request: web.Request, record: RecordedRequest) -> None:
        self.request = request
        self.record = record
        self.future: asyncio.Future[tuple[int, Any] | None] = (
            asyncio.get_running_loop().create_future()
        )


def _compile(template: str) -> re.Pattern[str]:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    return re.compile(f"^{pattern}$")


class RestMixin(FakeState):
    """Serving REST requests: reading, faults and limits, holds, routing, answering."""

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    def _route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        def register(func: Handler) -> Handler:
            self._routes.append((method, _compile(template), func))
            return func

        return register

    async def _read_body(self, request: web.Request) -> tuple[Any, list[FakeFile]]:
        if not request.can_read_body:
            return None, []
        ctype = request.content_type
        if ctype == "multipart/form-data":
            body: Any = None
            files: list[FakeFile] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue  # nested multipart: discord.py never sends one
                if part.name == "payload_json":
                    body = json.loads(await part.text())  # type: ignore[union-attr]
                else:
                    data = await part.read()  # type: ignore[union-attr]
                    files.append(
                        FakeFile(
                            part.name or "",
                            getattr(part, "filename", None) or "",
                            part.headers.get("Content-Type", "application/octet-stream"),
                            bytes(data),
                        )
                    )
            return body, files
        raw = await request.read()
        if not raw:
            return None, []
        if ctype != JSON:
            raise ApiError(400, 50035, f"unsupported Content-Type {ctype!r}")
        return json.loads(raw), []

    async def _rest_handler(self, request: web.Request) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        self._inflight += 1
        path = request.path[len(API_PREFIX) :]
        method = request.method
        record = RecordedRequest(method, path, dict(request.query), None, [], at=self.clock())
        self.requests.append(record)
        record.interaction_id = self._interaction_for_path(path)
        if (pid := request.headers.get(PID_HEADER, "")).isdigit():
            record.pid = int(pid)
        try:
            try:
                record.json, record.files = await self._read_body(request)
                for hook in list(self.request_hooks):
                    await hook(record)
            except ApiError as error:
                return self._answer(record, error.status, error.body())
            except Exception as error:  # a body the fake cannot read
                return self._answer(record, *self._fake_error(record, error))
            refused = await self._faults_and_limits(request, record)
            if refused is not None:
                return refused
            if self._hold_predicate is not None and self._hold_predicate(record):
                return await self._hold_request(request, record)
            status, data = await self._process(request, record)
            return self._answer(record, status, data)
        finally:
            self._inflight -= 1
            self._last_activity = loop.time()

    async def _process(self, request: web.Request, record: RecordedRequest) -> tuple[int, Any]:
        """Serve the request (route, checks, state change): (status, JSON answer)."""
        try:
            return await self._serve(request, record)
        except ApiError as error:
            return error.status, error.body()
        except Exception as error:  # a bug in the fake
            return self._fake_error(record, error)

    def _fake_error(self, record: RecordedRequest, error: Exception) -> tuple[int, Any]:
        # Never a 5xx: discord.py would retry it for seconds. Fail the test instead.
        self._violate(
            Violation(
                "fake_error",
                f"the fake could not handle this request: {error!r}\n" + traceback.format_exc(),
                None,
                record.method,
                record.path,
                record.interaction_id,
            )
        )
        return 400, {"message": "Invalid Form Body", "code": 50035}

    def _answer(
        self,
        record: RecordedRequest,
        status: int,
        data: Any,
        headers: dict[str, str] | None = None,
    ) -> web.Response:
        record.status, record.response, record.answered = status, data, True
        if (
            headers is None
            and self.bucket_headers
            and status < 400
            and (channel := flt.post_channel(record.method, record.path)) is not None
        ):
            now = self.clock()
            remaining, reset_after = self._limiter.posts_remaining(channel, now)
            headers = {
                "X-RateLimit-Limit": str(flt.CHANNEL_POSTS),
                "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
                "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                "X-RateLimit-Bucket": flt.bucket_hash(record.method, record.path),
            }
        return json_response(data, status, headers)

    def _drop(self, request: web.Request, record: RecordedRequest) -> web.Response:
        """Close the connection without an answer (the client sees it disconnected)."""
        record.answered = False
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=503)  # never reaches the client

    async def _wait_or_stop(self, delay: float) -> None:
        """Sleep ``delay`` s (not counted as in flight), or less if the fake stops."""
        self._inflight -= 1
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
        finally:
            self._inflight += 1

    async def _faults_and_limits(
        self, request: web.Request, record: RecordedRequest
    ) -> web.StreamResponse | None:
        """The outage switch, injected faults and Discord's rate limits, in that order:
        the answer if one of them refuses the request, else ``None`` (serve it)."""
        if self._outage:
            record.fault = flt.OUTAGE
            if self._outage_status is None:
                return self._drop(request, record)
            body = {"message": "Service Unavailable", "code": 0}
            return self._answer(record, self._outage_status, body)
        rate_limited = flt.is_rate_limited(record.method, record.path, self.application_id)
        for rule in self.faults:
            if not rule.matches(record, rate_limited) or rule.is_retry(record):
                continue
            if rule.rate < 1.0 and self.fault_rng.random() >= rule.rate:
                continue
            rule.refused(record)
            record.fault = rule.kind
            if rule.kind == flt.RATE_LIMIT:
                body, headers = flt.rate_limit_answer(
                    record.method, record.path, rule.retry_after, is_global=rule.is_global
                )
                return self._answer(record, 429, body, headers)
            if rule.kind == flt.SERVER_ERROR:
                body = {"message": f"{rule.status}: Server Error", "code": 0}
                return self._answer(record, rule.status, body)
            if rule.processed:  # Discord did it; the answer is lost
                record.status, record.response = await self._process(request, record)
            if rule.kind == flt.TIMEOUT:
                await self._wait_or_stop(rule.delay)
            return self._drop(request, record)
        now = self.clock()
        hit = self._limiter.check(
            record.method, record.path, now, rate_limited, self.enforce_limits
        )
        if hit is not None:
            kind, retry_after = hit
            record.over_limit = kind
            if self.enforce_limits:
                record.fault = kind
                is_global = kind == flt.GLOBAL_LIMIT_HIT
                body, headers = flt.rate_limit_answer(
                    record.method,
                    record.path,
                    retry_after,
                    is_global=is_global,
                    limit=flt.GLOBAL_LIMIT if is_global else flt.CHANNEL_POSTS,
                )
                return self._answer(record, 429, body, headers)
        return None

    # ------------------------------------------------------------------ held requests

    def hold(
        self,
        predicate: Callable[[RecordedRequest], bool] | None = None,
        *,
        channel: FakeChannel | int | None = None,
        methods: Iterable[str] = ("POST", "PATCH"),
        webhooks: bool = False,
    ) -> None:
        """From now on, accept matching requests but neither process nor answer them
        until ``release()``. Without ``predicate``: new messages and message edits
        (``methods`` of ``/channels/{id}/messages[/{id}]``), in ``channel`` if given;
        with ``webhooks=True`` also interaction followups and their edits
        (``/webhooks/{application_id}/{token}...``) of interactions in that channel.
        A predicate sees the ``RecordedRequest`` with its body (``json``).
        Held requests do not count as in flight for ``settle()`` (an in-process bot's
        handler waiting on one still does)."""
        if predicate is None:
            wanted = {m.upper() for m in methods}
            cid = None if channel is None else self._channel_id(channel)

            def predicate(record: RecordedRequest) -> bool:
                if record.method not in wanted:
                    return False
                if webhooks and record.path.startswith("/webhooks/"):
                    inter = self.interactions.get(record.interaction_id or 0)
                    return inter is not None and (cid is None or inter.channel.id == cid)
                found = flt.post_channel("POST", record.path)
                if found is None:
                    found = flt.edit_channel("PATCH", record.path)
                return found is not None and (cid is None or found == cid)

        self._hold_predicate = predicate

    @property
    def held(self) -> list[RecordedRequest]:
        """The requests being held now, in arrival order."""
        return [h.record for h in self._held]

    async def wait_held(self, n: int = 1, timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """Wait until at least ``n`` requests are being held."""
        await self.wait_for(lambda: len(self._held) >= n, timeout, f"{n} held request(s)")

    async def release(self, *, drop: bool = False, keep_holding: bool = False) -> int:
        """Process the held requests in arrival order and answer them (or, ``drop=True``,
        close their connections unprocessed); returns how many. Processing does not
        need the client: a message is created or edited even if the bot was killed.
        Holding stops unless ``keep_holding``."""
        if not keep_holding:
            self._hold_predicate = None
        held, self._held = self._held, []
        for h in held:
            if drop:
                h.record.fault = flt.HOLD_DROPPED
                outcome = None
            else:
                h.record.fault = None
                outcome = await self._process(h.request, h.record)
                h.record.status, h.record.response = outcome
            if not h.future.done():
                h.future.set_result(outcome)
        if held:
            self._last_activity = asyncio.get_running_loop().time()
        return len(held)

    async def _hold_request(self, request: web.Request, record: RecordedRequest) -> web.Response:
        held = _Held(request, record)
        record.fault = flt.HELD
        self._held.append(held)
        self._inflight -= 1  # held: not "in flight" for settle()
        try:
            outcome = await held.future
        finally:
            self._inflight += 1
        if outcome is None:
            return self._drop(request, record)
        return self._answer(record, *outcome)

    # ------------------------------------------------------------------ serving

    async def _serve(self, request: web.Request, record: RecordedRequest) -> tuple[int, Any]:
        method, path = record.method, record.path
        found = [
            (func, m)
            for route_method, pattern, func in self._routes
            if route_method == method and (m := pattern.match(path))
        ]
        if not found:
            self._violate(
                Violation(
                    "unsupported_route",
                    "the fake does not implement this route",
                    None,
                    method,
                    path,
                )
            )
            raise ApiError(404, 0, "404: Not Found")
        func, m = found[0]
        webhook_route = path.startswith(("/webhooks/", "/interactions/"))
        if not webhook_route and request.headers.get("Authorization") != f"Bot {self.token}":
            raise ApiError(401, 0, "401: Unauthorized")
        # Discord's limits first: their violations read better than the spec's.
        self._check_limits(record, limits.check_request(method, path, record.json))
        if self.spec is not None:
            op = self.spec.match(method, path)
            if op is not None:
                record.template = op.template
                problems = [
                    p
                    for p in self.spec.validate(op, record.json)
                    if not _spec_exception(method, op.template, p)
                ]
                if problems and (record.json is not None or self.spec.has_body(op)):
                    self._violate(
                        Violation(
                            "spec",
                            "request body does not match the Discord OpenAPI spec: "
                            + "; ".join(problems),
                            50035,
                            method,
                            path,
                            self._interaction_for_path(path),
                        )
                    )
                    raise ApiError(400, 50035, "Invalid Form Body", {"_spec": problems})
        record.processed = True
        result = await func(record, **m.groupdict())
        if isinstance(result, tuple):
            return result
        return (204, None) if result is None else (200, result)

    def _interaction_for_path(self, path: str) -> int | None:
        parts = path.split("/")
        if len(parts) > 3 and parts[1] in ("webhooks", "interactions"):
            rec = self._by_token.get(parts[3])
            return None if rec is None else rec.id
        return None

    def _check_limits(self, record: RecordedRequest, problems: list[limits.Problem]) -> None:
        if problems:
            self._violate(
                Violation(
                    "limit",
                    "; ".join(str(p) for p in problems),
                    50035,
                    record.method,
                    record.path,
                    self._interaction_for_path(record.path),
                )
            )
            raise ApiError(400, 50035, "Invalid Form Body", limits.form_errors(problems))

    async def _attachment_handler(self, request: web.Request) -> web.StreamResponse:
        data = self.files.get(int(request.match_info["id"]))
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    def _get_channel(self, channel_id: str) -> FakeChannel:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _get_message(self, channel: FakeChannel, message_id: str) -> dict[str, Any]:
        mid = int(message_id)
        data = self._message_data.get(mid)
        if (
            data is None
            or mid in self._deleted_messages
            or int(data["channel_id"]) != channel.id
            or mid in self._ephemeral_owner
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return data

    def _need(self, channel: FakeChannel, **perms: bool) -> None:
        if not self.bot_can(channel, **perms):
            raise ApiError(403, 50013, "Missing Permissions")

    def _guild(self, guild_id: str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild


def _spec_exception(method: str, template: str, problem: str) -> bool:
    return any(
        m == method and t == template and fragment in problem
        for m, t, fragment, _ in SPEC_EXCEPTIONS
    )
