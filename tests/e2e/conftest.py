"""Fixtures for end-to-end tests against the fake Discord (see README.md here)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .fake_discord import FakeDiscord, ViolationError


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A running fake Discord with discord.py pointed at it.

    At teardown every bot started with ``fake.start_bot`` is stopped, and any violation
    of Discord's rules that no helper raised (and no test took with
    ``fake.take_violations()``) fails the test.
    """
    async with FakeDiscord() as server:
        yield server
        leftover = server.take_violations()
    if leftover:
        raise ViolationError(leftover)
