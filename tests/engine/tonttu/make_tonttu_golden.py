"""Write the golden Workshop Tonttu playthroughs (one per mode).

Run from the project root: ``python tests/engine/tonttu/make_tonttu_golden.py``.

Each file is a public-format record (game, seed, players, options, actions, outcome)
plus ``events`` (the exact JSON text of every event of every action, as storage keeps
it), ``log`` (every public log line, with display names) and ``final_state``.
Regenerate only when a rule or a text changes on purpose, and review the diff: the
engine's speed work must leave these files as they are, byte for byte.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from engine.core import TIMER, Rng
from engine.records import pick_random
from engine.tonttu import GAME

FOLDER = Path(__file__).with_name("golden")
PLAYERS = ["alice", "bob", "carol", "dave"]
NAMES = {"alice": "Alice", "bob": "Bob", "carol": "Carol", "dave": "Dave"}
SEED = 2024
MODES = ("tactical", "speed")


def golden_path(mode: str) -> Path:
    return FOLDER / f"tonttu-{mode}-4p-seed-{SEED}.json"


def build_golden(mode: str) -> dict[str, Any]:
    """Random legal actions from a fixed seed; now and then a seat replaces its choice
    (tactical) or the timer closes the point phase (speed)."""
    options = GAME.parse_options({"mode": mode})
    state = GAME.new_game(PLAYERS, SEED, options)
    rng = Rng(SEED)
    actions: list[dict[str, Any]] = []
    events_json: list[list[str]] = []
    log: list[str] = []
    while GAME.outcome(state) is None:
        roll = rng.below(20)
        chosen = [p for p, c in zip(state.players, state.choices, strict=True) if c is not None]
        if mode == "speed" and state.phase == "point" and roll == 0:
            player, action = TIMER, GAME.legal_actions(state, TIMER)[0]
        elif mode == "tactical" and chosen and roll < 3:
            player = chosen[rng.below(len(chosen))]
            legal = GAME.legal_actions(state, player)
            action = legal[rng.below(len(legal))]
        else:
            player, action = pick_random(GAME, state, rng)
        state, events = GAME.apply(state, player, action)
        actions.append({"player": player, "action": action.model_dump(mode="json")})
        events_json.append([event.model_dump_json() for event in events])
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
        "events": events_json,
        "log": log,
        "final_state": state.model_dump(mode="json"),
    }


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for mode in MODES:
        path = golden_path(mode)
        path.write_text(json.dumps(build_golden(mode), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path.name}")


if __name__ == "__main__":
    main()
