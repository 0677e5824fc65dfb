"""Ends a test process that does not exit after its run.

A thread a test leaves running keeps the process alive after pytest is done: Python
waits for every non-daemon thread before it exits. An aiosqlite connection that was
never closed is such a thread (a failing test that skipped its ``close()`` once hung
CI until its time limit, with every result already printed). So once the session has
finished, a daemon thread waits ``TEST_EXIT_GRACE_SECONDS`` (default 60); if the
process is still there, it names the threads left running and exits with the run's
status, or 1 if every test passed (the leak is a bug too).

Not in an xdist worker: one whose share of the tests is done finishes its session and
then waits, alive, until the controller ends every worker at the end of the run (the
controller's own session finishes only then, and is watched).
"""

from __future__ import annotations

import os

import pytest

from tables.workers import exit_within

DEFAULT_GRACE = 60.0


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker
        return
    grace = float(os.environ.get("TEST_EXIT_GRACE_SECONDS", DEFAULT_GRACE))
    exit_within(grace, int(exitstatus) or 1, "The test process", "its tests")
