"""The walk of one Santa's Workshop click through the bot's modules.

    python -m benchmarks.click_walk [--show]

The bot runs in this process against the fake Discord (a 2-player table, the first
player's panel open). One choice button is pressed while a profiler records every call
into a module of the project (``bot.py``, ``cogs``, ``tables``, ``engine``, ``storage``,
``render``, ``i18n``); the fake's own code and the libraries are left out. It prints the
modules in the order they were first entered, and how many:

- before the player is answered (the interaction's callback reaches Discord);
- before the thread shows the move (the next request to Discord after the callback: the
  prompt's followup or the board's edit).

A "hop" is a module entered for the first time on the way: a module called again later
is not counted twice. Run it on two revisions (a git worktree of the other) to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

from tests.e2e.bot_helpers import make_bot, open_panel, open_table
from tests.e2e.fake_discord import FakeDiscord

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cogs", "tables", "engine", "storage", "render", "i18n")


def module_of(frame: FrameType) -> str | None:
    """The project module ``frame`` runs in, or ``None`` (a library, the fake, a test)."""
    name = frame.f_globals.get("__name__", "")
    if name == "bot" or name.split(".")[0] in PACKAGES:
        return str(name)
    return None


def chain(frame: FrameType | None) -> list[str]:
    """The project modules on ``frame``'s stack, outermost first, a module's frames in a
    row counted once: the hops a call went through to get here."""
    found: list[str] = []
    while frame is not None:
        name = module_of(frame)
        if name is not None and (not found or found[-1] != name):
            found.append(name)
        frame = frame.f_back
    return found[::-1]


class Walk:
    """Modules entered, in order, and the longest chain of hops, each with the number of
    Discord requests seen at the time."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.entered: list[tuple[str, int]] = []
        self.chains: list[tuple[list[str], int]] = []
        self._seen: set[str] = set()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        name = module_of(frame)
        if name is None:
            return
        seen = len(self.fake.requests)
        if name not in self._seen:
            self._seen.add(name)
            self.entered.append((name, seen))
        self.chains.append((chain(frame), seen))

    def deepest(self, start: int, first: int, last: int) -> list[str]:
        """The longest chain of hops among the calls made after request ``first`` was
        seen and before request ``last`` (counted from ``start``)."""
        return max(
            (c for c, seen in self.chains if first <= seen - start <= last), key=len, default=[]
        )


async def run(show: bool) -> tuple[list[str], list[str], tuple[list[str], list[str]]]:
    with tempfile.TemporaryDirectory() as folder:
        async with FakeDiscord() as fake:
            bot = await fake.start_bot(make_bot(fake, f"sqlite:///{folder}/bot.db", seed=7))
            alice, bob = fake.add_user("alice"), fake.add_user("bob")
            await open_table(fake, alice, [bob])
            (thread,) = fake.threads(fake.channel)
            await fake.settle()
            first = None
            for user in (alice, bob):
                panel = await open_panel(fake, user, thread)
                if panel.message is not None and any(
                    b["custom_id"].startswith("act:") for b in panel.message.buttons()
                ):
                    first = (user, panel.message)
                    break
            assert first is not None, "nobody's panel offers a choice"
            user, message = first
            button = next(b for b in message.buttons() if b["custom_id"].startswith("act:"))
            await fake.settle()
            start = len(fake.requests)
            walk = Walk(fake)
            sys.setprofile(walk)
            try:
                await fake.click(user, message, button["custom_id"])
                await fake.settle()
            finally:
                sys.setprofile(None)
            after = fake.requests[start:]
            answer = next(i for i, r in enumerate(after) if r.path.endswith("/callback"))
            shown = answer + 1
            answered = [m for m, seen in walk.entered if seen - start <= answer]
            showing = [m for m, seen in walk.entered if seen - start <= shown]
            chains = walk.deepest(start, 0, answer), walk.deepest(start, answer + 1, shown)
            await fake.stop_bot(bot)
    if show:
        print("modules before the answer:", " ".join(answered))
        print("more before the thread shows it:", " ".join(showing[len(answered) :]))
        print("deepest chain before the answer:", " → ".join(chains[0]))
        print("deepest chain after the answer:", " → ".join(chains[1]))
    return answered, showing, chains


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list the modules too")
    args = parser.parse_args()
    answered, showing, (to_answer, to_show) = asyncio.run(run(args.show))
    print(
        f"modules entered before the answer: {len(answered)}, before the thread shows it: "
        f"{len(showing)}"
    )
    hops, more = len(to_answer) - 1, max(len(to_show) - 1, 0)
    print(
        f"hops on the deepest chain before the answer: {hops}; after it, before the thread "
        f"shows the move: {more} more ({hops + more} in all)"
    )


if __name__ == "__main__":
    main()
