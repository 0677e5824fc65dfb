"""Several bot processes on one database (each backend): simultaneous choices from
different processes all land, and each timer fires exactly once, also when the
process holding it is killed.

The children are real processes (``worker_child.py``), released at once, so the
races are real: each has its own connections, cache and write lock, and only the
SQL guards stand between them.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import storage
from tests.storage.conftest import FakeClock, started

pytestmark = pytest.mark.serial  # several processes, signals or timing: run alone (see dev)


ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 3


def spawn(url: str, *args: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.worker_child", url, *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    first = child.stdout.readline()
    assert first == "ready\n", first + (child.stderr.read() if child.stderr else "")
    return child


def release(children: list[subprocess.Popen[str]]) -> list[list[str]]:
    """Start every child's work at once; their output lines once they are done."""
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    outputs = []
    for child in children:
        stdout, stderr = child.communicate(timeout=300)
        assert child.returncode == 0, stderr
        lines = stdout.splitlines()
        assert lines[-1] == "done", stderr
        outputs.append(lines[:-1])
    return outputs


@pytest.mark.slow
async def test_simultaneous_choices_from_several_processes_all_land(db_url: str) -> None:
    # Tonttu's choices with no expected version (tables/service.py submit_checked): a
    # process that loses a version race re-reads, re-checks and applies again.
    per_process, limit = 25, 60
    async with await storage.open(db_url) as store:
        game = await started(store, 10, options={"target": 200})
        await store.load(game.id)
    children = [
        spawn(db_url, "choices", str(game.id), str(per_process), str(limit))
        for _ in range(PROCESSES)
    ]
    outputs = release(children)
    results = Counter(line.split()[0] for output in outputs for line in output)
    # Exactly `limit` choices land, the rest are refused by the precondition on the
    # state they would apply to; none is lost to a version race.
    assert results == {"applied": limit, "refused": PROCESSES * per_process - limit}
    versions = sorted(int(line.split()[1]) for out in outputs for line in out if "applied" in line)
    assert versions == list(range(1, limit + 1))
    assert all(any("applied" in line for line in output) for output in outputs)
    async with await storage.open(db_url) as store:
        assert [entry.seq for entry in await store.log(game.id)] == list(range(1, limit + 1))
        assert (await store.load(game.id)).state.moves == limit
        assert (await store.replay(game.id)).ok


@pytest.mark.slow
async def test_each_due_timer_fires_once_across_processes(db_url: str) -> None:
    clock = FakeClock()
    clock.now = clock.now.replace(year=2000)  # everything is long due for the children
    async with await storage.open(db_url, clock=clock) as store:
        games = [await started(store, channel) for channel in range(10, 15)]
        scheduled = {
            (await store.schedule(game.id, "remind", clock.now)).id
            for game in games
            for _ in range(12)
        }
    children = [spawn(db_url, "timers", f"owner{n}", "600") for n in range(PROCESSES)]
    outputs = release(children)
    fired = [int(line.split()[1]) for output in outputs for line in output]
    assert sorted(fired) == sorted(scheduled)  # every one, each exactly once
    assert sum(1 for output in outputs if output) >= 2  # the work was shared
    async with await storage.open(db_url) as store:
        assert await store.due_timers() == []


@pytest.mark.slow
async def test_timers_held_by_a_killed_process_fire_elsewhere_after_the_lease(
    db_url: str,
) -> None:
    clock = FakeClock()
    clock.now = clock.now.replace(year=2000)
    async with await storage.open(db_url, clock=clock) as store:
        game = await started(store, 10)
        scheduled = {(await store.schedule(game.id, "remind", clock.now)).id for _ in range(5)}
    holder = spawn(db_url, "hold", "doomed", "20")
    assert holder.stdin is not None and holder.stdout is not None
    holder.stdin.write("go\n")
    holder.stdin.flush()
    claimed = {int(holder.stdout.readline().split()[1]) for _ in scheduled}
    assert claimed == scheduled
    holder.kill()  # SIGKILL while it holds every claim (a 20-second lease)
    holder.wait(timeout=30)
    # While the lease runs, nobody else may take them ...
    assert release([spawn(db_url, "timers", "rescuer", "600")]) == [[]]
    # ... and once it has run out (here: claiming as if 25 s later), another process
    # fires each exactly once.
    (late,) = release([spawn(db_url, "timers", "rescuer", "600", "25")])
    assert sorted(int(line.split()[1]) for line in late) == sorted(scheduled)
