"""The fake's injected faults, Discord's rate limits, REST counts, enforce_nonce and
held requests, proven with raw HTTP and with discord.py (what the bot will see)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from .demo_bot import DemoBot
from .fake_discord import FakeDiscord, RestStats, is_rate_limited
from .fake_discord import faults as flt


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[DemoBot]:
    yield await fake.start_bot(DemoBot())


@pytest.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession(fake.api_base + "/", headers=headers) as session:
        yield session


async def call(
    http: aiohttp.ClientSession, method: str, path: str, body: Any = None
) -> tuple[int, dict[str, str], Any]:
    async with http.request(method, path.lstrip("/"), json=body) as response:
        return response.status, dict(response.headers), await response.json()


def text_channel(bot: DemoBot, fake: FakeDiscord) -> discord.TextChannel:
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    return channel


def test_callbacks_and_interaction_webhooks_are_exempt_from_the_global_budget() -> None:
    assert not is_rate_limited("POST", "/interactions/1/tok/callback")
    assert not is_rate_limited("POST", "/api/v10/interactions/1/tok/callback?with_response=1")
    assert not is_rate_limited("PATCH", "/webhooks/7/tok/messages/@original")
    assert not is_rate_limited("POST", "/webhooks/7/tok?wait=true")
    assert is_rate_limited("POST", "/webhooks/8/tok", application_id=7)  # another webhook
    assert is_rate_limited("POST", "/channels/1/messages")
    assert is_rate_limited("PATCH", "/channels/1/messages/2")
    assert is_rate_limited("GET", "/users/@me")
    assert is_rate_limited("GET", "/webhooks/5")  # a webhook by id, bot-authenticated


# ------------------------------------------------------------------ injected faults


async def test_injected_429_has_discords_headers_and_is_not_processed(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.inject("rate_limit", route="/channels/{id}/messages", method="POST", retry_after=2.5)
    status, headers, body = await call(
        http, "POST", f"/channels/{fake.channel.id}/messages", {"content": "hi"}
    )
    assert status == 429
    assert body == {"message": "You are being rate limited.", "retry_after": 2.5, "global": False}
    assert headers["Retry-After"] == "3"
    assert headers["X-RateLimit-Remaining"] == "0"
    assert headers["X-RateLimit-Reset-After"] == "2.500"
    assert headers["X-RateLimit-Scope"] == "user"
    assert {"X-RateLimit-Limit", "X-RateLimit-Reset", "X-RateLimit-Bucket", "Via"} <= set(headers)
    assert "X-RateLimit-Global" not in headers
    assert fake.messages(fake.channel) == []  # not processed
    [record] = [r for r in fake.requests if r.method == "POST"]
    assert (record.fault, record.processed, record.answered) == ("rate_limit", False, True)
    # other routes are untouched
    assert (await call(http, "GET", "/users/@me"))[0] == 200


async def test_injected_global_429(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    fake.inject("rate_limit", is_global=True, times=1)
    status, headers, body = await call(http, "GET", "/users/@me")
    assert status == 429 and body["global"] is True
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    assert (await call(http, "GET", "/users/@me"))[0] == 200  # times=1: spent


async def test_discord_py_retries_a_429_and_posts_once(fake: FakeDiscord, bot: DemoBot) -> None:
    route = "/channels/{channel_id}/messages"
    rule = fake.inject("rate_limit", method="POST", route=route, times=2, retry_passes=False)
    sent = await text_channel(bot, fake).send("after two 429s")
    assert rule.hits == 2
    assert [m.id for m in fake.messages(fake.channel)] == [sent.id]
    posts = [r for r in fake.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert [r.status for r in posts] == [429, 429, 200]
    assert fake.rest_stats().injected == {"rate_limit": 2}


async def test_the_retry_of_a_refused_call_passes_by_default(
    fake: FakeDiscord, bot: DemoBot
) -> None:
    rule = fake.inject("rate_limit", method="POST")  # every post, but each once only
    channel = text_channel(bot, fake)
    for text in ("one", "two", "three"):
        await channel.send(text)
    assert [m.content for m in fake.messages(fake.channel)] == ["one", "two", "three"]
    posts = [r for r in fake.requests if r.method == "POST"]
    assert [r.status for r in posts] == [429, 200] * 3 and rule.hits == 3


async def test_faults_at_a_rate_are_reproducible_with_a_seed() -> None:
    async def pattern(seed: int) -> list[int]:
        async with FakeDiscord(fault_seed=seed) as fake:
            fake.enforce_limits = False  # 60 quick calls would pass the global 50/s
            fake.inject("rate_limit", rate=0.2)
            fake.inject("server_error", status=502, rate=0.05)
            headers = {"Authorization": f"Bot {fake.token}"}
            async with aiohttp.ClientSession(headers=headers) as session:
                for _ in range(60):
                    async with session.get(fake.api_base + "/users/@me") as response:
                        await response.read()
            return [r.status for r in fake.requests]

    first, again, other = await pattern(7), await pattern(7), await pattern(8)
    assert first == again
    assert first != other
    assert 0 < first.count(429) < 30 and set(first) <= {200, 429, 502}


async def test_exempt_calls_are_spared_unless_asked(fake: FakeDiscord, bot: DemoBot) -> None:
    channel = text_channel(bot, fake)
    alice = fake.add_user("alice")
    fake.inject("server_error", status=503)  # calls="rate_limited" by default
    assert (await fake.slash(alice, fake.channel, "secret")).ephemeral  # a callback
    with pytest.raises(discord.DiscordServerError):  # discord.py's HTTP client: no retry
        await channel.send("refused")
    fake.clear_faults()
    rule = fake.inject("server_error", status=503, calls="exempt", times=1)
    # discord.py's webhook client retries any 5xx after 1 s: still within the 3 s
    assert (await fake.slash(alice, fake.channel, "secret")).ephemeral
    assert rule.hits == 1
    await channel.send("fine")
    assert [m.content for m in fake.messages(fake.channel)] == ["fine"]


async def test_502_is_retried_by_discord_py_and_503_is_not(fake: FakeDiscord, bot: DemoBot) -> None:
    channel = text_channel(bot, fake)
    fake.inject("server_error", status=502, method="POST", times=1)
    await channel.send("after one 502")  # discord.py sleeps 1 s and retries
    fake.inject("server_error", status=503, method="POST", times=1)
    with pytest.raises(discord.DiscordServerError):
        await channel.send("lost to a 503")
    assert [m.content for m in fake.messages(fake.channel)] == ["after one 502"]
    assert [r.fault for r in fake.requests if r.method == "POST"] == [
        "server_error",
        None,
        "server_error",
    ]


async def test_disconnect_without_an_answer(fake: FakeDiscord, bot: DemoBot) -> None:
    channel = text_channel(bot, fake)
    fake.inject("disconnect", method="POST", times=1)
    with pytest.raises(aiohttp.ServerDisconnectedError):  # discord.py does not retry it
        await channel.send("never processed")
    assert fake.messages(fake.channel) == []
    fake.inject("disconnect", method="POST", times=1, processed=True)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await channel.send("processed, answer lost")
    assert [m.content for m in fake.messages(fake.channel)] == ["processed, answer lost"]
    lost = [r for r in fake.requests if r.method == "POST"]
    assert [(r.fault, r.processed, r.answered) for r in lost] == [
        ("disconnect", False, False),
        ("disconnect", True, False),
    ]
    assert fake.rest_stats().unanswered == 2


async def test_timeout_holds_past_the_clients_wait(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.inject("timeout", method="POST", delay=30.0, times=1)
    path = f"channels/{fake.channel.id}/messages"
    with pytest.raises(TimeoutError):
        async with http.post(path, json={"content": "x"}, timeout=aiohttp.ClientTimeout(0.2)):
            pass
    assert fake.messages(fake.channel) == []
    # a short hold then the connection is closed: the client sees a disconnect
    fake.inject("timeout", method="POST", delay=0.1, times=1, processed=True)
    with pytest.raises(aiohttp.ServerDisconnectedError):
        async with http.post(path, json={"content": "y"}):
            pass
    assert [m.content for m in fake.messages(fake.channel)] == ["y"]
    # the fake stops without waiting out the first 30 s hold (the fixture's teardown)


async def test_rest_outage_fails_every_call_but_the_gateway_stays(
    fake: FakeDiscord, bot: DemoBot, http: aiohttp.ClientSession
) -> None:
    fake.rest_outage()
    assert (await call(http, "GET", "/users/@me"))[0] == 503
    status, _, _ = await call(http, "POST", "/interactions/1/tok/callback", {"type": 1})
    assert status == 503  # callbacks too
    late = fake.add_channel("late")  # CHANNEL_CREATE still reaches the bot
    await fake.wait_for(lambda: bot.get_channel(late.id) is not None, what="CHANNEL_CREATE")
    fake.rest_outage(status=None)
    with pytest.raises(aiohttp.ServerDisconnectedError):  # a POST: aiohttp does not retry
        await call(http, "POST", f"/channels/{fake.channel.id}/messages", {"content": "x"})
    fake.rest_outage(False)
    assert (await call(http, "GET", "/users/@me"))[0] == 200
    stats = fake.rest_stats()
    assert stats.injected == {"outage": 3} and stats.unanswered == 1
    assert not any(r.processed for r in fake.requests if r.fault == "outage")


# ------------------------------------------------------------------ Discord's limits


async def test_sixth_post_in_five_seconds_is_a_429_and_not_processed(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.enforce_limits = True
    other = fake.add_channel("other")
    now = [1000.0]
    fake.clock = lambda: now[0]  # type: ignore[method-assign]
    for i in range(5):
        status, _, _ = await call(
            http, "POST", f"/channels/{fake.channel.id}/messages", {"content": str(i)}
        )
        assert status == 200
        now[0] += 0.5
    status, headers, body = await call(
        http, "POST", f"/channels/{fake.channel.id}/messages", {"content": "sixth"}
    )
    assert status == 429 and body["global"] is False
    assert body["retry_after"] == pytest.approx(2.5)  # the first post leaves the window
    assert headers["X-RateLimit-Limit"] == "5" and headers["X-RateLimit-Scope"] == "user"
    assert len(fake.messages(fake.channel)) == 5
    assert (await call(http, "POST", f"/channels/{other.id}/messages", {"content": "x"}))[0] == 200
    now[0] += 2.5  # sliding window: the first post (t=1000) has left it
    assert (await call(http, "POST", f"/channels/{fake.channel.id}/messages", {"content": "7"}))[
        0
    ] == 200
    [hit] = fake.limit_hits()
    assert hit.fault == "channel_limit"
    with pytest.raises(AssertionError, match="channel_limit"):
        fake.check_within_limits()
    stats = fake.rest_stats()
    assert stats.limit_429s == stats.channel_limit_hits == 1
    assert stats.max_posts_per_channel_5s == 5
    assert stats.busiest_post_channel == fake.channel.id


async def test_global_budget_is_50_per_second_and_callbacks_are_exempt(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.enforce_limits = True
    fake.clock = lambda: 500.0  # type: ignore[method-assign]  # every call in one instant
    statuses = [(await call(http, "GET", "/users/@me"))[0] for _ in range(51)]
    assert statuses == [200] * 50 + [429]
    status, headers, body = await call(http, "GET", "/gateway/bot")
    assert status == 429 and body["global"] is True and headers["X-RateLimit-Global"] == "true"
    # exempt: reaches the route (an unknown interaction: 404, not 429)
    status, _, body = await call(http, "POST", "/interactions/1/tok/callback", {"type": 1})
    assert status == 404 and body["code"] == 10062
    fake.take_violations()  # the unknown interaction
    stats = fake.rest_stats()
    assert stats.global_limit_hits == stats.limit_429s == 2
    assert stats.rate_limited == 52 and stats.callbacks == 1


async def test_unenforced_limits_still_record_a_flood(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.enforce_limits = False  # the default unless FAKE_DISCORD_ENFORCE_LIMITS=1
    fake.clock = lambda: 1.0  # type: ignore[method-assign]
    path = f"/channels/{fake.channel.id}/messages"
    statuses = [(await call(http, "POST", path, {"content": str(i)}))[0] for i in range(7)]
    assert statuses == [200] * 7 and len(fake.messages(fake.channel)) == 7
    assert [r.over_limit for r in fake.limit_hits()] == ["channel_limit"] * 2
    stats = fake.rest_stats()
    assert stats.channel_limit_hits == 2 and stats.limit_429s == 0
    assert stats.max_posts_per_channel_5s == 7
    with pytest.raises(AssertionError, match="2 request"):
        fake.check_within_limits()


async def test_discord_py_waits_out_the_channel_limit(fake: FakeDiscord, bot: DemoBot) -> None:
    fake.enforce_limits = True
    now = [0.0]
    fake.clock = lambda: now[0]  # type: ignore[method-assign]
    channel = text_channel(bot, fake)
    for i in range(5):
        await channel.send(str(i))
    now[0] = 4.9  # the sixth is 429 with retry_after 0.1; discord.py retries after it
    original = fake.clock

    def later() -> float:  # once refused, time moves on past the window
        if fake.limit_hits():
            return 5.5
        return original()

    fake.clock = later  # type: ignore[method-assign]
    await channel.send("sixth")
    assert [m.content for m in fake.messages(fake.channel)][-1] == "sixth"
    assert len(fake.limit_hits()) == 1


async def test_bucket_headers_let_discord_py_throttle_itself(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    fake.bucket_headers = True
    fake.clock = lambda: 10.0  # type: ignore[method-assign]
    _, headers, _ = await call(
        http, "POST", f"/channels/{fake.channel.id}/messages", {"content": "a"}
    )
    assert headers["X-RateLimit-Limit"] == "5" and headers["X-RateLimit-Remaining"] == "4"
    assert float(headers["X-RateLimit-Reset-After"]) == pytest.approx(5.0)


# ------------------------------------------------------------------ counting


async def test_rest_stats_classify_and_count(fake: FakeDiscord, bot: DemoBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob", dms_open=False)
    since = fake.clock()
    await fake.slash(alice, fake.channel, "ponder")  # callback + a channel post
    await fake.slash(alice, fake.channel, "slow")  # callback + 2 webhooks
    await fake.slash(bob, fake.channel, "dm")  # open DM, refused DM post, callback
    stats = fake.rest_stats(since=since)
    assert isinstance(stats, RestStats)
    assert stats.callbacks == 3 and stats.webhooks == 2 and stats.exempt == 5
    assert stats.rate_limited == stats.total - 5
    assert stats.by_route["POST /channels/{id}/messages"] == 2
    assert stats.posts == 1  # the refused DM post is not counted as a post
    assert stats.status_4xx == {403: 1} and stats.error_codes == {50007: 1}
    assert stats.invalid_requests == 1 and stats.limit_429s == 0
    assert fake.rest_stats(since=fake.clock()).total == 0


def test_max_in_any_window_counts_a_burst_not_a_spread() -> None:
    assert flt._max_in_window([0.0, 1.0, 2.0, 3.0, 4.0, 4.9], 5.0) == 6
    assert flt._max_in_window([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 5.0) == 5
    assert flt._max_in_window([], 5.0) == 0


# ------------------------------------------------------------------ enforce_nonce


async def test_enforce_nonce_returns_the_existing_message(fake: FakeDiscord, bot: DemoBot) -> None:
    channel = text_channel(bot, fake)
    first = await channel.send("board v3", nonce=123456)  # discord.py adds enforce_nonce
    again = await channel.send("board v3", nonce=123456)
    assert again.id == first.id and fake.nonce_repeats == [first.id]
    other = await channel.send("board v4", nonce=123457)
    assert other.id != first.id
    assert [m.content for m in fake.messages(fake.channel)] == ["board v3", "board v4"]
    post = next(r for r in fake.requests if r.method == "POST")
    assert post.json["enforce_nonce"] is True


async def test_a_nonce_without_enforce_or_past_the_window_posts_anew(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    path = f"/channels/{fake.channel.id}/messages"
    now = [0.0]
    fake.clock = lambda: now[0]  # type: ignore[method-assign]
    a = (await call(http, "POST", path, {"content": "a", "nonce": "n1"}))[2]
    b = (await call(http, "POST", path, {"content": "a", "nonce": "n1"}))[2]
    assert a["id"] != b["id"]  # no enforce_nonce: Discord only echoes the nonce
    c = (await call(http, "POST", path, {"content": "c", "nonce": "n2", "enforce_nonce": True}))[2]
    now[0] = flt.NONCE_WINDOW + 1
    d = (await call(http, "POST", path, {"content": "c", "nonce": "n2", "enforce_nonce": True}))[2]
    assert c["id"] != d["id"] and c["nonce"] == "n2"


# ------------------------------------------------------------------ held requests


async def test_hold_then_release_processes_and_answers(fake: FakeDiscord, bot: DemoBot) -> None:
    channel = text_channel(bot, fake)
    fake.hold(channel=fake.channel)
    sending = asyncio.create_task(channel.send("held board"))
    await fake.wait_held(1)
    assert fake.messages(fake.channel) == [] and not sending.done()
    await fake.settle(timeout=2)  # a held request is not "in flight"
    assert [r.fault for r in fake.held] == ["held"]
    assert await fake.release() == 1
    sent = await sending
    assert [m.id for m in fake.messages(fake.channel)] == [sent.id]
    assert fake.held == [] and [r.fault for r in fake.requests if r.method == "POST"] == [None]
    await channel.send("not held any more")  # release() ended the hold


async def test_release_can_drop_what_it_held(fake: FakeDiscord, bot: DemoBot) -> None:
    channel = text_channel(bot, fake)
    elsewhere = fake.add_channel("elsewhere")
    fake.hold(channel=fake.channel)
    await fake.wait_for(lambda: bot.get_channel(elsewhere.id) is not None, what="the channel")
    other = bot.get_channel(elsewhere.id)
    assert isinstance(other, discord.TextChannel)
    await other.send("another channel is not held")
    sending = asyncio.create_task(channel.send("dropped"))
    await fake.wait_held(1)
    assert await fake.release(drop=True) == 1
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await sending
    assert fake.messages(fake.channel) == []
    assert [r.fault for r in fake.requests if r.method == "POST"] == [None, "hold_dropped"]


async def test_hold_can_take_interaction_followups_too(fake: FakeDiscord, bot: DemoBot) -> None:
    alice = fake.add_user("alice")
    fake.hold(channel=fake.channel, webhooks=True)
    # the helper waits for the deferred response to be filled: run it beside
    running = asyncio.create_task(fake.slash(alice, fake.channel, "slow"))
    await fake.wait_held(1)
    [record] = fake.interactions.values()
    assert record.callback is not None and not record.completed.is_set()  # "thinking"
    assert await fake.release() == 1
    result = await running
    assert [m.content for m in result.messages] == ["Done after thinking", "A second followup"]


@pytest.mark.slow
async def test_held_post_is_processed_after_the_bot_process_is_killed(fake: FakeDiscord) -> None:
    """The bot dies with a public post in flight; Discord still makes
    it (the worst case for a duplicate when the restarted bot catches up)."""
    alice = fake.add_user("alice")
    process = await fake.start_bot_process(Path(__file__).with_name("demo_bot.py"))
    fake.hold(channel=fake.channel)
    result = await fake.slash(alice, fake.channel, "ponder")  # answers, then posts
    assert result.content == "Thinking it over"
    await fake.wait_held(1)
    await fake.kill_bot_process(process)
    assert fake.messages(fake.channel) == []
    assert await fake.release() == 1
    assert [m.content for m in fake.messages(fake.channel)] == ["Pondered"]


# ------------------------------------------------------------------ interaction tokens


async def test_editing_the_original_after_15_minutes_is_flagged(
    fake: FakeDiscord, bot: DemoBot, http: aiohttp.ClientSession
) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, fake.channel, "secret")
    fake.token_lifetime = 0.0  # as if 15 minutes had passed
    path = f"/webhooks/{fake.application_id}/{result.record.token}/messages/@original"
    status, _, body = await call(http, "PATCH", path, {"content": "too late"})
    assert status == 401 and body["code"] == 50027
    [violation] = fake.take_violations()
    assert violation.kind == "token_expired"
    fake.token_lifetime = FakeDiscord.token_lifetime
    assert (await fake.slash(alice, fake.channel, "secret")).ephemeral  # a new token works
