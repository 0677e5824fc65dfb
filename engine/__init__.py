"""Pure game rules for the bot's games. Import nothing from Discord or storage here."""

from __future__ import annotations

import importlib

from engine.core import (
    TIMER,
    AnyGame,
    Game,
    GameOver,
    IllegalAction,
    InvalidSetup,
    NotInGame,
    NotYourTurn,
    Outcome,
    PlayerId,
    Rng,
    RuleError,
    StateBase,
)

__all__ = [
    "GAME_MODULES",
    "TIMER",
    "AnyGame",
    "Game",
    "GameOver",
    "IllegalAction",
    "InvalidSetup",
    "NotInGame",
    "NotYourTurn",
    "Outcome",
    "PlayerId",
    "Rng",
    "RuleError",
    "StateBase",
    "get_game",
    "register_game",
]

GAME_MODULES: dict[str, str] = {
    "workshop": "engine.workshop",
    "tonttu": "engine.tonttu",
}
"""Game name → module that defines ``GAME``, imported on first use."""

_loaded: dict[str, AnyGame] = {}


def get_game(name: str) -> AnyGame:
    """The rules object for a game name; raises ``KeyError`` with the known names.

    The name is a run-time string, so its state, action, view and event types are
    ``Any``; import the game's own ``GAME`` (``engine.workshop.GAME``) for its types."""
    game = _loaded.get(name)
    if game is None:
        if name not in GAME_MODULES:
            known = ", ".join(sorted(set(GAME_MODULES) | set(_loaded)))
            raise KeyError(f"Unknown game {name!r}; known games: {known}.")
        loaded: AnyGame = importlib.import_module(GAME_MODULES[name]).GAME
        game = _loaded[name] = loaded
    return game


def register_game(game: AnyGame) -> None:
    """Make a game available to ``get_game`` (tests register small fake games)."""
    _loaded[game.name] = game
