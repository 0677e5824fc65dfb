"""Fixtures for end-to-end tests against the fake Discord (see README.md here)."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from .fake_discord import FakeDiscord, ViolationError


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A running fake Discord with discord.py pointed at it.

    At teardown every bot started with ``fake.start_bot`` is stopped, and any violation
    of Discord's rules that no helper raised (and no test took with
    ``fake.take_violations()``) fails the test. Requests over Discord's rate limits are
    reported as a warning (pytest's warnings summary names the test).
    """
    async with FakeDiscord() as server:
        yield server
        leftover = server.take_violations()
        hits = server.limit_hits()
    if hits:  # not a failure (Discord slows a flooding bot down), but worth seeing
        kinds = Counter(r.over_limit for r in hits)
        warnings.warn(
            f"{len(hits)} request(s) over Discord's limits {dict(kinds)}"
            f"{' (refused: enforce_limits)' if server.enforce_limits else ''}",
            stacklevel=1,
        )
    if leftover:
        raise ViolationError(leftover)
