"""A throwaway PostgreSQL server for tests and benchmarks, and fresh databases on it.

``start()`` runs ``initdb`` and ``pg_ctl`` in a new temporary directory, listening
on 127.0.0.1 on a free port, with trust authentication for local connections
only. PostgreSQL refuses to run as root, so when this process is root the server
programs run as the ``postgres`` system user (``runuser``), which owns the
directory. The server programs are looked up as ``$POSTGRES_BIN``, then on
``PATH``, then in ``/usr/lib/postgresql/<version>/bin`` (Debian's place; ``./dev
test`` installs the ``postgresql`` package when they are missing).

``TEST_POSTGRES_URL`` (``postgresql://user@host:port/postgres``, a role that may
create databases) makes the tests use that server instead of starting one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class ServerUnavailable(RuntimeError):
    """The server could not be found or started; the message says why."""


def _run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion on a fresh loop in a thread (callable from
    inside or outside a running event loop)."""
    result: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coroutine))
        except BaseException as error:
            failure.append(error)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]


def find_bin() -> Path:
    candidates = []
    if os.environ.get("POSTGRES_BIN"):
        candidates.append(Path(os.environ["POSTGRES_BIN"]))
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).parent)
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    raise ServerUnavailable(
        "PostgreSQL's server programs (initdb, pg_ctl) were not found: install the"
        " postgresql package (Debian: apt-get install postgresql), or set POSTGRES_BIN"
        " to their folder, or TEST_POSTGRES_URL to a server the tests may use."
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """A running server: ``new_database()`` gives the URL of an empty database."""

    _names = itertools.count(1)

    def __init__(self, admin_url: str, folder: Path | None = None, as_user: str | None = None):
        self.admin_url = admin_url  # ends in /postgres
        self.folder = folder
        self.as_user = as_user
        self.prefix = f"t{os.getpid()}_"

    def url(self, database: str) -> str:
        return self.admin_url.rsplit("/", 1)[0] + "/" + database

    def new_database(self) -> str:
        name = f"{self.prefix}{next(self._names)}"

        async def create() -> None:
            import asyncpg

            admin = await asyncpg.connect(self.admin_url)
            try:
                await admin.execute(f'CREATE DATABASE "{name}"')
            finally:
                await admin.close()

        _run_coroutine(create())
        return self.url(name)

    def _command(self, *args: str) -> list[str]:
        if self.as_user is None:
            return list(args)
        return ["runuser", "-u", self.as_user, "--", *args]

    def stop(self) -> None:
        if self.folder is None:
            return  # not ours
        bin_dir = find_bin()
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            subprocess.run(
                self._command(str(bin_dir / "pg_ctl"), "-D", str(self.folder / "data"), "-m",
                              "immediate", "stop"),
                capture_output=True,
                timeout=60,
            )  # fmt: skip
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None


def start(*, durable: bool = False) -> PostgresServer:
    """Start a server in a temporary directory (or use ``TEST_POSTGRES_URL``).

    ``durable=False`` (tests) turns off ``fsync``: the server itself is never killed
    in a test, and every commit is still a real commit visible to other processes.
    Benchmarks pass ``durable=True`` so that commits cost what they cost in production.
    """
    if os.environ.get("TEST_POSTGRES_URL"):
        return PostgresServer(os.environ["TEST_POSTGRES_URL"])
    bin_dir = find_bin()
    as_user = None
    if os.geteuid() == 0:
        as_user = "postgres"
        if shutil.which("runuser") is None:
            raise ServerUnavailable("running as root, but runuser is missing to run as postgres")
    folder = Path(tempfile.mkdtemp(prefix="pgtest-"))
    server = PostgresServer("", folder, as_user)
    data, sockets = folder / "data", folder / "sockets"
    sockets.mkdir()
    if as_user is not None:
        shutil.chown(folder, as_user, as_user)
        shutil.chown(sockets, as_user, as_user)
    port = _free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets}"
    options += " -c max_connections=300 -c shared_buffers=64MB"
    if not durable:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    steps = [
        [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
         "--no-sync", "--locale=C"],
        [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "server.log"), "-w", "-t",
         "60", "-o", options, "start"],
    ]  # fmt: skip
    for step in steps:
        try:
            done = subprocess.run(
                server._command(*step), capture_output=True, text=True, timeout=120
            )
        except (OSError, subprocess.SubprocessError) as error:
            server.stop()
            raise ServerUnavailable(f"{Path(step[0]).name} could not run: {error}") from None
        if done.returncode != 0:
            log_file = folder / "server.log"
            server_log = log_file.read_text() if log_file.exists() else ""
            server.stop()
            raise ServerUnavailable(
                f"{Path(step[0]).name} failed ({done.returncode}): {done.stdout}{done.stderr}"
                f"{server_log}"
            )
    server.admin_url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    return server
