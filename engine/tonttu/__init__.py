"""Workshop Tonttu (docs/rules.md T-1 … T-6): tactical and speed modes for 3–6 players."""

from __future__ import annotations

from engine.tonttu.game import GAME, TonttuGame
from engine.tonttu.models import TonttuOptions, TonttuState, TonttuView

__all__ = ["GAME", "TonttuGame", "TonttuOptions", "TonttuState", "TonttuView"]
