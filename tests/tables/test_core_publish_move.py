"""What follows a player's move (``Core.publish_move``) when its round lost the game's
publishing claim (found by the full chaos soak: with every attempt of a post fenced, a
click's round met a newer move stored meanwhile more often, and 139 clicks whose moves
were stored were answered with an apology and a traceback). Another round shows it:
nothing is raised to the front end, and the computer seats still move."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from tables.core import Core
from tables.publishing import ClaimLost
from tables.service import Played


class LostClaim:
    """A publisher whose round for the move lost the game's claim."""

    def __init__(self) -> None:
        self.synced: list[int] = []

    async def sync(self, game_id: int, *, flush: bool = False, known: Any = None) -> None:
        self.synced.append(game_id)
        raise ClaimLost(game_id)


async def test_a_move_whose_round_lost_the_claim_is_not_an_error() -> None:
    publisher: Any = LostClaim()
    store: Any = None
    tables: Any = None
    core = Core(store, tables, publisher, clock=lambda: datetime.now(UTC),
                stopping=asyncio.Event())  # fmt: skip
    computers: list[int] = []

    async def run_computers(game_id: int) -> None:
        computers.append(game_id)

    core.run_computers = run_computers  # type: ignore[method-assign]
    seats = (SimpleNamespace(is_ai=False), SimpleNamespace(is_ai=True))
    game: Any = SimpleNamespace(id=7, seats=seats)
    await core.publish_move(Played(game))
    assert publisher.synced == [7] and computers == [7]
