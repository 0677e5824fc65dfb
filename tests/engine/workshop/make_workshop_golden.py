"""Write the golden Santa's Workshop playthrough.

Run from the project root: ``python tests/engine/workshop/make_workshop_golden.py``.

The file is a public-format record (game, seed, players, options, actions, outcome)
plus ``log`` (every public log line, with display names) and ``final_state``.
Regenerate it only when a rule or a text changes on purpose, and review the diff.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from engine.core import Rng
from engine.records import pick_random
from engine.workshop import GAME

GOLDEN = Path(__file__).with_name("golden") / "workshop-3p-seed-2024.json"
PLAYERS = ["alice", "bob", "carol"]
NAMES = {"alice": "Alice", "bob": "Bob", "carol": "Carol"}
SEED = 2024


def build_golden() -> dict[str, Any]:
    """Play the golden game: random legal actions from a fixed seed."""
    options = GAME.parse_options({})
    state = GAME.new_game(PLAYERS, SEED, options)
    rng = Rng(SEED)
    actions: list[dict[str, Any]] = []
    log: list[str] = []
    while GAME.outcome(state) is None:
        player, action = pick_random(GAME, state, rng)
        state, events = GAME.apply(state, player, action)
        actions.append({"player": player, "action": action.model_dump(mode="json")})
        log.extend(line for e in events if (line := GAME.describe_event(e, NAMES)))
    outcome = GAME.outcome(state)
    assert outcome is not None
    return {
        "game": GAME.name,
        "seed": SEED,
        "players": PLAYERS,
        "options": options.model_dump(mode="json"),
        "actions": actions,
        "outcome": outcome.model_dump(mode="json"),
        "log": log,
        "final_state": state.model_dump(mode="json"),
    }


def main() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(build_golden(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.name}")


if __name__ == "__main__":
    main()
