"""Playing Workshop Tonttu through the fake Discord as its players would: DM selects,
the "Choose privately" fallback, race buttons; and a secrecy scan of what each user saw."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from cogs.tonttu.text import encode
from engine.tonttu import GAME
from engine.tonttu.data import GIFT_NAMES, MATERIAL_NAMES
from engine.tonttu.text import HINT

from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .fake_discord.model import InteractionResult

FACE_DOWN_SHOWN = re.compile(r"\[(" + "|".join(MATERIAL_NAMES) + r")\]")
"""How a face-down workbench card is drawn in its owner's private board."""
CARD_WORDS = re.compile(
    "|".join(re.escape(w) for w in (*MATERIAL_NAMES, *GIFT_NAMES, "face-down material"))
)
"""Any card's name: none may appear in the thread between a phase start and its reveal."""


async def open_tonttu(
    fake: FakeDiscord, host: FakeUser, others: list[FakeUser], **options: Any
) -> Any:
    """/newgame game:tonttu, everyone joins, the host starts; returns the new thread."""
    result = await fake.slash(host, fake.channel, "newgame", game="tonttu", **options)
    lobby = result.message
    assert lobby is not None
    for user in others:
        await fake.click(user, lobby, "Join")
    await fake.click(host, lobby, "Start")
    return fake.threads(fake.channel)[-1]


def status_message(fake: FakeDiscord, thread: Any) -> FakeMessage:
    """The live status message of the current phase (it has the phase's buttons)."""
    found = [
        m
        for m in fake.messages(thread)
        if any(b["custom_id"].startswith(("ttp:", "ttr:")) for b in m.buttons())
        and not m.content.startswith("Reminder")
    ]
    assert found, "no status message with buttons in the thread"
    return found[-1]


def choice_select(message: FakeMessage, round_: int, phase: str) -> dict[str, Any] | None:
    for select in message.selects():
        if re.fullmatch(rf"tt:\d+:{round_}:{phase}", select["custom_id"]):
            return select
    return None


def dm_panel(
    fake: FakeDiscord, user: FakeUser, round_: int, phase: str, *, dms_only: bool = False
) -> FakeMessage | None:
    """The user's private panel carrying the select for ``round_``'s ``phase``: a DM, or
    the panel the user last chose on (the bot shows the next phase's choices there,
    DM or ephemeral, by editing it through the user's last interaction). ``dms_only``:
    DMs alone (a click on an ephemeral panel goes to the shard of the game's server)."""
    panels = [*fake.dm_messages(user), *([] if dms_only else fake.ephemeral_messages(user))]
    for message in sorted(panels, key=lambda m: m.id, reverse=True):
        if choice_select(message, round_, phase) is not None:
            return message
    return None


async def select_in(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, state: Any, action: Any
) -> InteractionResult:
    select = choice_select(message, state.round, state.phase)
    assert select is not None, message.text()
    return await fake.select(user, message, select["custom_id"], [encode(action)])


async def choose_by_dm(
    fake: FakeDiscord, user: FakeUser, state: Any, action: Any
) -> InteractionResult:
    panel = dm_panel(fake, user, state.round, state.phase)
    assert panel is not None, f"{user.name} has no DM for round {state.round} {state.phase}"
    return await select_in(fake, user, panel, state, action)


async def choose_privately(
    fake: FakeDiscord, user: FakeUser, thread: Any, state: Any, action: Any
) -> InteractionResult:
    """The fallback: "Choose privately" in the thread, then the ephemeral select."""
    opened = await fake.click(user, status_message(fake, thread), "Choose privately")
    assert opened.ephemeral and opened.message is not None, opened.text
    return await select_in(fake, user, opened.message, state, action)


def confirmation_of(state: Any, player: str, action: Any) -> str:
    """The private confirmation the chooser is shown (a secret until the reveal): made,
    as the bot makes it, from the position after the choice (after the reveal, for the
    last one, when a point's label no longer describes the position)."""
    if action.kind == "pick":
        return f"You picked {action.material}."
    after, _ = GAME.apply(state, player, action)
    label = GAME.describe_action(after, player, action)
    return "You pointed at " + label.removeprefix("Point at ").split(HINT)[0] + "."


class SecrecyScan:
    """T-6 over what each user could read: checks every version of every message.

    ``mark()`` at a phase start; ``check(secrets)`` before its reveal, with the
    confirmation sentences each player was shown in this phase (all secret).
    """

    def __init__(self, fake: FakeDiscord, users: dict[str, FakeUser]) -> None:
        self.fake, self.users = fake, users
        self.checks = 0
        self._before: dict[str, Counter[str]] = {}
        self._public_before: Counter[str] = Counter()
        self._public_lines: set[str] = set()
        """Lines public before the phase (a phase's message repeats the reveal that
        started it above its live status: those lines are not news)."""
        self._requests_before = 0

    def mark(self) -> None:
        self._public_before = Counter(self.fake.public_texts())
        self._public_lines = {line for t in self._public_before for line in t.splitlines()}
        self._before = {p: Counter(self.fake.texts_seen_by(u)) for p, u in self.users.items()}
        self._requests_before = len(self.fake.requests)

    def _news(self, text: str) -> str:
        """The lines of ``text`` that were not public before the phase started."""
        return "\n".join(line for line in text.splitlines() if line not in self._public_lines)

    def check(self, secrets: dict[str, set[str]], round_: int) -> None:
        fake = self.fake
        public_new = Counter(fake.public_texts()) - self._public_before
        dm_channels = {c.id for u in self.users.values() if (c := fake.dm_channel(u))}
        # Until the reveal, what the thread shows may depend only on who has chosen: no
        # card at all may be named (a pick is a material, a point a gift or a slot).
        for text in public_new:
            news = self._news(text)
            named = CARD_WORDS.findall(news)
            assert not named, f"{named} in a public message before the reveal: {text}"
            assert f"Round {round_} picks" not in news and f"Round {round_} points" not in news
        # every body posted or edited in a guild channel, as sent
        for request in fake.requests[self._requests_before :]:
            match = re.fullmatch(r"/channels/(\d+)/messages(/\d+)?", request.path)
            if match is None or int(match[1]) in dm_channels or request.method == "GET":
                continue
            body = request.json
            if isinstance(body, dict) and isinstance(body.get("content"), str):
                body = {**body, "content": self._news(body["content"])}
            text = json.dumps(body)
            assert not CARD_WORDS.search(text), text[:300]
        for player, user in self.users.items():
            seen = Counter(fake.texts_seen_by(user)) - self._before[player]
            own = secrets.get(player, set())
            others = {s for p, shown in secrets.items() if p != player for s in shown} - own
            for text in seen:
                leaked = [s for s in others if s in text]
                assert not leaked, f"{user.name} saw another player's secret {leaked}: {text}"
        self.checks += 1

    def check_face_down(self) -> None:
        """A face-down card is drawn only in its owner's own row, for its owner."""
        fake = self.fake
        for text in fake.public_texts():
            assert not FACE_DOWN_SHOWN.search(text), text[:300]
        public = Counter(fake.public_texts())
        for user in self.users.values():
            private = Counter(fake.texts_seen_by(user)) - public
            for text in private:
                for line in text.splitlines():
                    if FACE_DOWN_SHOWN.search(line):
                        assert line.lstrip().startswith(user.name), (user.name, line)
