"""Games for the web tests: stored through real storage, played by random legal moves
(seeded), with players whose names try to break the page."""

from __future__ import annotations

import random

from engine import get_game
from storage import LoadedGame, Storage

HOSTILE = ["Aino", "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>']
NAMES = [*HOSTILE, "Dmitri", "Esperanza", "Fatou"]


async def new_game(
    store: Storage,
    kind: str,
    players: int,
    *,
    channel: int = 1,
    guild: int = 1,
    settings: dict[str, object] | None = None,
) -> LoadedGame:
    lobby = await store.create_lobby(
        guild_id=guild,
        channel_id=channel,
        kind=kind,
        options=None,
        host_id=10,
        host_name=NAMES[0],
        settings=settings,
    )
    for seat in range(1, players):
        await store.join(lobby.id, 10 + seat, NAMES[seat])
    return await store.start(lobby.id, seed=5)


async def play(store: Storage, game: LoadedGame, moves: int, seed: int = 3) -> LoadedGame:
    """``moves`` random legal moves (fewer if the game ends first)."""
    rules = get_game(game.kind)
    chance = random.Random(seed)
    for _ in range(moves):
        if game.status != "active":
            break
        player = sorted(rules.to_act(game.state))[0]
        action = chance.choice(list(rules.legal_actions(game.state, player)))
        await store.submit(game.id, player, action, game.version)
        game = await store.load(game.id)
    return game


async def finish(store: Storage, game: LoadedGame, seed: int = 3) -> LoadedGame:
    return await play(store, game, 100_000, seed)
