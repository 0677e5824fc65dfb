"""A fake Discord (REST + gateway) that the real discord.py client connects to."""

from .client import start_bot, stop_bot
from .faults import RestStats, is_rate_limited
from .model import (
    FakeChannel,
    FakeFile,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    HarnessError,
    InteractionResult,
    RecordedRequest,
    Violation,
    ViolationError,
)
from .server import FakeDiscord
from .spec import SPEC_MISSING_REASON, SPEC_PATH

__all__ = [
    "SPEC_MISSING_REASON",
    "SPEC_PATH",
    "FakeChannel",
    "FakeDiscord",
    "FakeFile",
    "FakeGuild",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "HarnessError",
    "InteractionResult",
    "RecordedRequest",
    "RestStats",
    "Violation",
    "ViolationError",
    "is_rate_limited",
    "start_bot",
    "stop_bot",
]
