"""Fixtures every test folder may use: a throwaway PostgreSQL server, started once per
test run (see ``tests/postgres_server.py``), and a fresh database on it per test.

If the server cannot be started, every test that needs it FAILS with the reason
(never skipped): CI must not pass without having run the PostgreSQL tests.

Ctrl-C: a test run started in the background by a non-interactive shell (``cmd &``)
inherits SIGINT ignored, and so would every process it starts; the tests that press
Ctrl-C in a bot or the CLI would then see it ignored. So an ignored SIGINT gets
Python's own handler back here, and the processes the tests start have the default.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Protocol, TypeVar

import pytest

from tests import postgres_server
from tests.exit_watchdog import pytest_sessionfinish  # noqa: F401  (a hook, by its name)
from tests.postgres_server import PostgresServer, ServerUnavailable

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def postgres_server_or_reason() -> Iterator[PostgresServer | str]:
    try:
        server = postgres_server.start()
    except ServerUnavailable as error:
        yield str(error)
        return
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres(postgres_server_or_reason: PostgresServer | str) -> PostgresServer:
    """The session's PostgreSQL server; ``postgres.new_database()`` for more databases."""
    if isinstance(postgres_server_or_reason, str):
        pytest.fail(f"PostgreSQL is needed for this test: {postgres_server_or_reason}")
    return postgres_server_or_reason


@pytest.fixture
def postgres_url(postgres: PostgresServer) -> str:
    """A fresh, empty PostgreSQL database for this test: ``postgresql://…``."""
    return postgres.new_database()


class Closable(Protocol):
    def close(self) -> Awaitable[Any]: ...


C = TypeVar("C", bound=Closable)


@pytest.fixture
async def closing() -> AsyncIterator[Callable[[C], C]]:
    """``store = closing(await storage.open(url))``: closed after the test, passed or
    failed. A store left open keeps its connection's thread, and so the whole test
    process, alive after the run (see ``tests/exit_watchdog.py``)."""
    opened: list[Closable] = []

    def close_after(resource: C) -> C:
        opened.append(resource)
        return resource

    yield close_after
    for resource in reversed(opened):
        await resource.close()
