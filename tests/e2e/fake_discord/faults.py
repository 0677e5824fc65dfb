"""Discord's rate limits, injected faults and REST statistics for the fake Discord.

Nearly everything here is pure bookkeeping (no I/O); ``rest.py`` consults it for every
REST request. Its parts:

* :func:`is_rate_limited`: which calls count against a bot token's global budget of 50
  requests per second. Interaction callbacks (``POST /interactions/{id}/{token}/callback``)
  and interaction webhooks (``/webhooks/{application_id}/{token}...``: followups, edits
  of the original response) are exempt, as on Discord.
* :class:`Limiter`: Discord's limits as the fake enforces them, with **sliding windows**
  (a request is refused when the window ending now already holds the maximum): at most
  ``CHANNEL_POSTS`` new messages (``POST /channels/{id}/messages``) per
  ``CHANNEL_WINDOW`` seconds per channel, and at most ``GLOBAL_LIMIT`` rate-limited
  requests per ``GLOBAL_WINDOW`` second per token. Only requests that passed the limiter
  count (a refused one is not processed, as on Discord).
* :class:`FaultRule`: an injected fault (429, 5xx, timeout, dropped connection) for the
  calls it matches, at a rate drawn from the fake's seeded RNG.
* :func:`rest_stats`: counts over recorded requests (:class:`RestStats`).
* :class:`FaultsMixin`: the switches and counts on ``FakeDiscord`` (``inject``,
  ``clear_faults``, ``rest_outage``, ``limit_hits``, ``check_within_limits``,
  ``rest_stats``); ``rest.py`` applies them to each request, and holds requests.
"""

from __future__ import annotations

import json
import math
import re
import time
import zlib
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .model import RecordedRequest

CHANNEL_POSTS = 5  # new messages per channel ...
CHANNEL_WINDOW = 5.0  # ... per this many seconds (sliding window)
GLOBAL_LIMIT = 50  # rate-limited REST requests per token ...
GLOBAL_WINDOW = 1.0  # ... per this many seconds (sliding window)
NONCE_WINDOW = 5 * 60.0  # enforce_nonce: a repeated nonce returns the message this long
DEFAULT_TIMEOUT_HOLD = 330.0  # past aiohttp's default total timeout (300 s), which
# discord.py keeps: a "timeout" fault outlasts the client unless the bot waits less
RATE_LIMIT_MESSAGE = "You are being rate limited."

# Fault kinds (RecordedRequest.fault); the injected ones first.
RATE_LIMIT = "rate_limit"  # injected 429
SERVER_ERROR = "server_error"  # injected 500/502/503/...
TIMEOUT = "timeout"  # held without an answer, then the connection is closed
DISCONNECT = "disconnect"  # the connection is closed at once, without an answer
OUTAGE = "outage"  # the REST outage switch was on
CHANNEL_LIMIT = "channel_limit"  # over Discord's 5 posts / 5 s per channel
GLOBAL_LIMIT_HIT = "global_limit"  # over Discord's 50 / s per token
HELD = "held"  # held by fake.hold(), not released yet
HOLD_DROPPED = "hold_dropped"  # held, then dropped by release(drop=True)
INJECTED_KINDS = (RATE_LIMIT, SERVER_ERROR, TIMEOUT, DISCONNECT)
LIMIT_KINDS = (CHANNEL_LIMIT, GLOBAL_LIMIT_HIT)

_API_PREFIX = "/api/v10"
_POST_PATH = re.compile(r"^/channels/(\d+)/messages$")
_EDIT_PATH = re.compile(r"^/channels/(\d+)/messages/(\d+)$")


def _strip(path: str) -> str:
    path = path.split("?", 1)[0]
    if path.startswith(_API_PREFIX):
        path = path[len(_API_PREFIX) :]
    return path


def is_exempt(method: str, path: str, application_id: int | str | None = None) -> bool:
    """An interaction callback or an interaction webhook call: exempt from the global
    budget. ``application_id``: only that application's webhooks count as interaction
    webhooks (without it, any ``/webhooks/{id}/{token}`` path does: the bot sends no
    others)."""
    path = _strip(path)
    if path.startswith("/interactions/"):
        return path.endswith("/callback")
    if path.startswith("/webhooks/"):
        parts = path.split("/")
        if len(parts) < 4:  # /webhooks/{id} without a token: a bot-authenticated call
            return False
        return application_id is None or parts[2] == str(application_id)
    return False


def is_rate_limited(method: str, path: str, application_id: int | str | None = None) -> bool:
    """Whether ``method path`` counts against the global 50/s budget of a bot token.

    ``path`` may carry the ``/api/v10`` prefix and a query string."""
    return not is_exempt(method, path, application_id)


def post_channel(method: str, path: str) -> int | None:
    """The channel id of a new-message request (``POST /channels/{id}/messages``)."""
    if method != "POST":
        return None
    m = _POST_PATH.match(_strip(path))
    return int(m.group(1)) if m else None


def edit_channel(method: str, path: str) -> int | None:
    """The channel id of a message edit (``PATCH /channels/{id}/messages/{id}``)."""
    if method != "PATCH":
        return None
    m = _EDIT_PATH.match(_strip(path))
    return int(m.group(1)) if m else None


def route_key(method: str, path: str) -> str:
    """``METHOD /template`` with ids as ``{id}`` and tokens as ``{token}``."""
    parts = _strip(path).split("/")
    if len(parts) > 3 and parts[1] in ("webhooks", "interactions"):
        parts[3] = "{token}"
    return method + " " + "/".join("{id}" if p.isdigit() else p for p in parts)


def compile_template(template: str) -> re.Pattern[str]:
    """A spec-style path template (``/channels/{channel_id}/messages``; any placeholder
    name) as a regex over paths without the API prefix."""
    segments = []
    for segment in _strip(template).strip("/").split("/"):
        if segment.startswith("{") and segment.endswith("}"):
            segments.append("[^/]+")
        else:
            segments.append(re.escape(segment))
    return re.compile("^/" + "/".join(segments) + "$")


def bucket_hash(method: str, path: str) -> str:
    """A stable stand-in for Discord's X-RateLimit-Bucket of a route."""
    return f"{zlib.crc32(route_key(method, path).encode()):08x}"


def rate_limit_answer(
    method: str,
    path: str,
    retry_after: float,
    *,
    is_global: bool = False,
    limit: int = 1,
    scope: str | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """Discord's 429: the JSON body and headers. ``Via`` matters: discord.py treats a
    429 without it as a Cloudflare ban and raises instead of retrying."""
    retry_after = round(max(retry_after, 0.001), 3)
    body = {"message": RATE_LIMIT_MESSAGE, "retry_after": retry_after, "global": is_global}
    headers = {
        "Retry-After": str(max(1, math.ceil(retry_after))),  # whole seconds, as Discord
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
        "X-RateLimit-Reset-After": f"{retry_after:.3f}",
        "X-RateLimit-Bucket": bucket_hash(method, path),
        "X-RateLimit-Scope": scope or ("global" if is_global else "user"),
        "Via": "1.1 google",
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    return body, headers


class Limiter:
    """Discord's per-channel post limit and global budget, as sliding windows."""

    def __init__(self) -> None:
        self._global: deque[float] = deque()
        self._posts: dict[int, deque[float]] = defaultdict(deque)

    def check(
        self, method: str, path: str, now: float, rate_limited: bool, enforce: bool = True
    ) -> tuple[str, float] | None:
        """``None`` if the request may pass (it is then counted), else ``(limit kind,
        retry_after)``. The global budget is checked first, as Discord does. With
        ``enforce=False`` a request over a limit is reported and counted all the same
        (the fake serves it)."""
        window = self._global
        if rate_limited:
            while window and window[0] <= now - GLOBAL_WINDOW:
                window.popleft()
            if len(window) >= GLOBAL_LIMIT:
                hit = GLOBAL_LIMIT_HIT, window[0] + GLOBAL_WINDOW - now
                if enforce:
                    return hit
                window.append(now)
                channel = post_channel(method, path)
                if channel is not None:
                    self._posts[channel].append(now)
                return hit
        channel = post_channel(method, path)
        posts = None
        if channel is not None:
            posts = self._posts[channel]
            while posts and posts[0] <= now - CHANNEL_WINDOW:
                posts.popleft()
            if len(posts) >= CHANNEL_POSTS:
                hit = CHANNEL_LIMIT, posts[0] + CHANNEL_WINDOW - now
                if not enforce:
                    posts.append(now)
                    if rate_limited:
                        window.append(now)
                return hit
        if rate_limited:
            window.append(now)
        if posts is not None:
            posts.append(now)
        return None

    def posts_remaining(self, channel_id: int, now: float) -> tuple[int, float]:
        """(posts left in the channel's window, seconds until the oldest leaves it)."""
        posts = self._posts.get(channel_id) or deque()
        live = [t for t in posts if t > now - CHANNEL_WINDOW]
        reset_after = (live[0] + CHANNEL_WINDOW - now) if live else CHANNEL_WINDOW
        return max(0, CHANNEL_POSTS - len(live)), reset_after


@dataclass
class FaultRule:
    """One injected fault; made by :meth:`FakeDiscord.inject` (see its docstring)."""

    kind: str
    rate: float = 1.0
    method: str | None = None
    route: str | None = None
    predicate: Callable[[RecordedRequest], bool] | None = None
    calls: str = "rate_limited"  # "rate_limited", "exempt" or "all"
    status: int = 502
    retry_after: float = 0.05
    is_global: bool = False
    delay: float = DEFAULT_TIMEOUT_HOLD
    processed: bool = False
    times: int | None = None  # at most this many faults, then the rule stays quiet
    retry_passes: bool = True  # the retry of a request this rule refused passes it
    hits: int = 0
    _pattern: re.Pattern[str] | None = field(default=None, repr=False)
    _refused: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in INJECTED_KINDS:
            raise ValueError(f"fault kind must be one of {INJECTED_KINDS}, not {self.kind!r}")
        if self.calls not in ("rate_limited", "exempt", "all"):
            raise ValueError("calls must be 'rate_limited', 'exempt' or 'all'")
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError("rate is a probability: 0.0 to 1.0")
        if self.kind == SERVER_ERROR and not 500 <= self.status <= 599:
            raise ValueError("a server_error's status is 5xx")
        if self.processed and self.kind in (RATE_LIMIT, SERVER_ERROR):
            raise ValueError("a 429 or 5xx answer is never processed (as on Discord)")
        if self.route is not None:
            self._pattern = compile_template(self.route)
        if self.method is not None:
            self.method = self.method.upper()

    @property
    def spent(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def is_retry(self, record: RecordedRequest) -> bool:
        """With ``retry_passes``: whether ``record`` repeats (same method, path and
        body) a request this rule refused; it is then let through, once."""
        if not self.retry_passes or not self._refused:
            return False
        key = self._key(record)
        if key in self._refused:
            self._refused.discard(key)
            return True
        return False

    def refused(self, record: RecordedRequest) -> None:
        self.hits += 1
        if self.retry_passes:
            self._refused.add(self._key(record))

    @staticmethod
    def _key(record: RecordedRequest) -> str:
        body = json.dumps(record.json, sort_keys=True, default=str)
        return f"{record.method} {record.path} {body}"

    def matches(self, record: RecordedRequest, rate_limited: bool) -> bool:
        if self.spent:
            return False
        if self.calls == "rate_limited" and not rate_limited:
            return False
        if self.calls == "exempt" and rate_limited:
            return False
        if self.method is not None and record.method != self.method:
            return False
        if self._pattern is not None and not self._pattern.match(record.path):
            return False
        return self.predicate is None or bool(self.predicate(record))


@dataclass(frozen=True)
class RestStats:
    """Counts over the recorded REST requests of a time span (see :func:`rest_stats`).

    "Sent" is every request the bot made; posts and edits per channel count only those
    the fake processed (a refused or faulted one changed nothing)."""

    total: int  # every REST request sent
    rate_limited: int  # sent and counted against the global budget
    exempt: int  # interaction callbacks + interaction webhooks
    callbacks: int
    webhooks: int
    by_route: dict[str, int]  # "METHOD /template" -> requests sent
    posts: int  # processed POST /channels/{id}/messages
    edits: int  # processed PATCH /channels/{id}/messages/{id}
    max_posts_per_channel_5s: int  # most processed posts in one channel in any 5 s
    max_edits_per_channel_5s: int
    busiest_post_channel: int | None  # the channel of max_posts_per_channel_5s
    max_rate_limited_per_second: int  # most rate-limited requests sent in any 1 s
    status_4xx: dict[int, int]  # 4xx answers by status (429s included)
    error_codes: dict[int, int]  # Discord JSON error code of 4xx answers -> count
    # Over Discord's limits (5 posts / 5 s per channel; 50 / s per token): answered 429
    # when the fake enforces them, else served but still counted here.
    channel_limit_hits: int
    global_limit_hits: int
    limit_429s: int  # of those, refused with a 429 (enforce_limits on)
    injected: dict[str, int]  # injected fault kind (and "outage") -> count
    invalid_requests: int  # 401, 403 and 429 answers (Discord bans 10,000 in 10 min)
    unanswered: int  # no answer (timeout, disconnect, still held or dropped)

    @property
    def limit_hits(self) -> int:
        return self.channel_limit_hits + self.global_limit_hits


def _max_in_window(times: Iterable[float], window: float) -> int:
    ordered = sorted(times)
    best, start = 0, 0
    for end, t in enumerate(ordered):
        while ordered[start] <= t - window:
            start += 1
        best = max(best, end - start + 1)
    return best


def rest_stats(
    records: Iterable[RecordedRequest],
    *,
    since: float | None = None,
    until: float | None = None,
    application_id: int | str | None = None,
) -> RestStats:
    """Counts over ``records`` whose loop time ``at`` is in ``[since, until]``."""
    chosen = [
        r for r in records if (since is None or r.at >= since) and (until is None or r.at <= until)
    ]
    by_route: Counter[str] = Counter()
    posts: dict[int, list[float]] = defaultdict(list)
    edits: dict[int, list[float]] = defaultdict(list)
    limited_times: list[float] = []
    status_4xx: Counter[int] = Counter()
    codes: Counter[int] = Counter()
    injected: Counter[str] = Counter()
    callbacks = webhooks = unanswered = invalid = 0
    for r in chosen:
        by_route[route_key(r.method, r.path)] += 1
        if is_exempt(r.method, r.path, application_id):
            if r.path.startswith("/interactions/"):
                callbacks += 1
            else:
                webhooks += 1
        else:
            limited_times.append(r.at)
        if r.processed:  # status: what the fake did (even if the answer was lost)
            channel = post_channel(r.method, r.path)
            if channel is not None and r.status < 400:
                posts[channel].append(r.at)
            channel = edit_channel(r.method, r.path)
            if channel is not None and r.status < 400:
                edits[channel].append(r.at)
        if 400 <= r.status < 500:
            status_4xx[r.status] += 1
            if isinstance(r.response, dict) and isinstance(r.response.get("code"), int):
                codes[r.response["code"]] += 1
        if r.status in (401, 403, 429):
            invalid += 1
        if r.fault in INJECTED_KINDS or r.fault == OUTAGE:
            injected[r.fault] += 1
        if not r.answered:
            unanswered += 1
    post_max = {c: _max_in_window(t, CHANNEL_WINDOW) for c, t in posts.items()}
    busiest = max(post_max, key=post_max.__getitem__) if post_max else None
    return RestStats(
        total=len(chosen),
        rate_limited=len(limited_times),
        exempt=callbacks + webhooks,
        callbacks=callbacks,
        webhooks=webhooks,
        by_route=dict(by_route),
        posts=sum(len(t) for t in posts.values()),
        edits=sum(len(t) for t in edits.values()),
        max_posts_per_channel_5s=max(post_max.values(), default=0),
        max_edits_per_channel_5s=max(
            (_max_in_window(t, CHANNEL_WINDOW) for t in edits.values()), default=0
        ),
        busiest_post_channel=busiest,
        max_rate_limited_per_second=_max_in_window(limited_times, GLOBAL_WINDOW),
        status_4xx=dict(status_4xx),
        error_codes=dict(codes),
        channel_limit_hits=sum(1 for r in chosen if r.over_limit == CHANNEL_LIMIT),
        global_limit_hits=sum(1 for r in chosen if r.over_limit == GLOBAL_LIMIT_HIT),
        limit_429s=sum(1 for r in chosen if r.fault in LIMIT_KINDS),
        injected=dict(injected),
        invalid_requests=invalid,
        unanswered=unanswered,
    )


# ---------------------------------------------------------------------- on FakeDiscord


class FaultsMixin:
    """The switches that make the fake Discord misbehave, and what it counted: injected
    faults (``inject``), a REST outage (``rest_outage``), requests over Discord's limits
    (``limit_hits``, ``rest_stats``). ``rest.py`` applies them to every REST request;
    holding requests in flight (``hold``/``release``) is there too."""

    # FakeState's (state.py), which FakeDiscord combines with this
    requests: list[RecordedRequest]
    application_id: int
    faults: list[FaultRule]
    _outage: bool
    _outage_status: int | None

    def inject(
        self,
        kind: str,
        *,
        rate: float = 1.0,
        method: str | None = None,
        route: str | None = None,
        predicate: Callable[[RecordedRequest], bool] | None = None,
        calls: str = "rate_limited",
        status: int = 502,
        retry_after: float = 0.05,
        is_global: bool = False,
        delay: float = DEFAULT_TIMEOUT_HOLD,
        processed: bool = False,
        times: int | None = None,
        retry_passes: bool = True,
    ) -> FaultRule:
        """Inject a fault into a share (``rate``, drawn from ``fault_rng``, seeded by
        ``FakeDiscord(fault_seed=...)``) of the REST calls that match: ``method``,
        ``route`` (a path template such as ``"/channels/{channel_id}/messages"``, any
        placeholder names), ``predicate(record)`` and ``calls`` (``"rate_limited"``, the
        default: not interaction callbacks or webhooks; ``"exempt"``; ``"all"``).
        ``times``: at most that many faults. The first matching rule that fires wins.
        ``retry_passes``: a request repeating (same method, path and body) one that this
        rule refused passes it once, so discord.py's retry is accepted ("20 % answered
        429, then accepted on retry"); ``False``: every attempt draws anew.

        ``kind``:
        - ``"rate_limit"``: a 429 with Discord's headers and body (``retry_after`` s,
          ``is_global``); not processed.
        - ``"server_error"``: a ``status`` (500/502/503/...) answer; not processed.
        - ``"timeout"``: no answer for ``delay`` s (default 330 s, past the 300 s that
          discord.py's HTTP session waits), then the connection is closed.
        - ``"disconnect"``: the connection is closed at once, without an answer.
        Timeouts and disconnects are processed first when ``processed=True`` (Discord
        did it, the answer was lost), else not at all."""
        rule = FaultRule(
            kind,
            rate=rate,
            method=method,
            route=route,
            predicate=predicate,
            calls=calls,
            status=status,
            retry_after=retry_after,
            is_global=is_global,
            delay=delay,
            processed=processed,
            times=times,
            retry_passes=retry_passes,
        )
        self.faults.append(rule)
        return rule

    def clear_faults(self) -> None:
        """Remove every injected fault rule (the outage switch and holds stay)."""
        self.faults.clear()

    def rest_outage(self, on: bool = True, *, status: int | None = 503) -> None:
        """While on, every REST call (interaction callbacks and webhooks included) fails
        and is not processed: answered with ``status`` (503: discord.py's HTTP client
        raises DiscordServerError at once, its webhook client retries 5 times), or, with
        ``status=None``, the connection is closed without an answer. The gateway stays up."""
        self._outage = on
        self._outage_status = status

    def limit_hits(self, since: float | None = None) -> list[RecordedRequest]:
        """Requests over Discord's limits (``over_limit``): refused with a 429 when
        ``enforce_limits`` is on, served but recorded when it is off."""
        return [r for r in self.requests if r.over_limit and (since is None or r.at >= since)]

    def check_within_limits(self, since: float | None = None) -> None:
        """Raise AssertionError if the bot hit Discord's per-channel or global limit."""
        hits = self.limit_hits(since)
        if hits:
            lines = "\n  ".join(f"{r.over_limit}: {r.method} {r.path}" for r in hits[:20])
            raise AssertionError(f"{len(hits)} request(s) over Discord's limits:\n  {lines}")

    def rest_stats(self, since: float | None = None, until: float | None = None) -> RestStats:
        """Counts over the REST requests recorded between ``since`` and ``until`` (loop
        time, see ``clock()``): rate-limited vs exempt, per route, posts and edits per
        channel in any 5 s, 4xx answers by status and Discord error code, 429s from
        the limits, injected faults (see ``faults.RestStats``)."""
        return rest_stats(
            self.requests, since=since, until=until, application_id=self.application_id
        )
