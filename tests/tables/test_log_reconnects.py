"""discord.py's attempts to reach the gateway again are one warning line each, not an
error with a traceback (found by the chaos soak, ``benchmarks/chaos.py``: every gateway
drop filled the bot's log with tracebacks of an expected, retried fault)."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator

import pytest

from cogs.helpers.logs import setup_logging


@pytest.fixture
def root() -> Iterator[logging.Logger]:
    logger = logging.getLogger()
    handlers, level = list(logger.handlers), logger.level
    yield logger
    for handler in logger.handlers:
        if handler not in handlers:
            logger.removeHandler(handler)
    logger.setLevel(level)


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_gateway_reconnect_is_one_warning_line(root: logging.Logger, log_format: str) -> None:
    stream = io.StringIO()
    setup_logging(log_format, token="t" * 30, database_url="", env={}, stream=stream)
    try:
        raise ConnectionResetError("Cannot write to closing transport")
    except ConnectionResetError as error:
        logging.getLogger("discord.shard").error(
            "Attempting a reconnect for shard ID %s in %.2fs", 0, 1.05, exc_info=error
        )
    (line,) = stream.getvalue().splitlines()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
    assert "WARNING" in plain and "ERROR" not in plain
    assert "Attempting a reconnect for shard ID 0 in 1.05s (ConnectionResetError(" in plain
    assert "Traceback" not in stream.getvalue()


def test_other_errors_keep_their_traceback(root: logging.Logger) -> None:
    stream = io.StringIO()
    setup_logging("text", token="t" * 30, database_url="", env={}, stream=stream)
    try:
        raise ValueError("a bug")
    except ValueError:
        logging.getLogger("discord.shard").exception("something else")
    assert "Traceback" in stream.getvalue() and "ERROR" in stream.getvalue()
