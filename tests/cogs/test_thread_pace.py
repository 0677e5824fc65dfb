"""A thread's pace of posts (``cogs/helpers/thread.py``): every post a process makes is
counted in the one record other posts wait on (found by the chaos soak: a post answered
late re-sorted the record into a new one, so a post waiting on the old record went
uncounted and the thread got a sixth post in 5 s)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cogs.helpers import thread
from cogs.helpers.thread import ThreadPublisher


def publisher() -> ThreadPublisher:
    async def english(guild: int | None) -> str:
        return "en"

    client: Any = None  # a channel it made: nothing to ask Discord
    store: Any = None
    return ThreadPublisher(
        client, store, owner="test", spawn=lambda work, name: work.close(),
        stopping=asyncio.Event(), lang_of=english,
    )  # fmt: skip


async def test_a_post_waiting_for_the_window_is_counted_when_another_is_answered_late(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(thread, "POST_WINDOW", 0.6)  # Discord's 5 s, shortened
    monkeypatch.setattr(thread, "DISCORD_WINDOW", 0.5)
    pace = publisher()
    pace.new_channel(1)
    slots = [await pace.post_slot(1) for _ in range(thread.POSTS_PER_WINDOW)]  # full
    waiting = asyncio.ensure_future(pace.post_slot(1))
    await asyncio.sleep(0.2)
    pace.posted(1, slots[0])  # answered late (discord.py sent it again): counts from now
    slot = await asyncio.wait_for(waiting, 5)
    assert slot in pace._posts[1]  # the next post waits for this one too
