"""The chaos soak, short (``benchmarks/chaos.py``): three bot processes on one
PostgreSQL through every kind of fault at least once — SIGKILLs and restarts, a SIGTERM
in a burst, ``pg_ctl stop -m immediate`` and a start, 429s and 502s throughout, a REST
outage, the gateway closed on every process (RESUME and a new IDENTIFY), a player
clicking without pause, reminders and turn limits falling due. About 90 s.

Every verdict must pass: nothing acknowledged lost, no stored action no player sent
beyond the turn limits', nothing posted or fired twice, every game replayed to its
snapshot, no board or status going back, every thread caught up, every game played to
the end finished, no traceback, no request over Discord's limits; and the SIGTERM in the
burst is a graceful stop."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.serial  # several processes, signals and a database restart

ROOT = Path(__file__).resolve().parents[2]
SHORT = (
    "--games 24 --minutes 0.9 --players 6 --outage 8 --jump 5 --drain 60 --full-share 0.5 --seed 46"
)
KINDS = ("kill", "sigterm", "database", "outage", "gateway-resume", "gateway-identify")


ROW = re.compile(r"^nothing (?:stuck|lost|done twice|wrong|leaked) +(.+?) +(ok|FAIL)\b(.*)$")


def verdicts(stdout: str) -> dict[str, tuple[bool, str]]:
    """The verdict table's rows: check -> (passed, what was found)."""
    rows = {}
    for line in stdout.splitlines():
        row = ROW.match(line)
        if row:
            rows[row[1]] = (row[2] == "ok", row[3].strip())
    return rows


def test_a_short_chaos_soak_loses_nothing_and_replays_every_game(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TEST_POSTGRES_URL"}  # its own server
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.chaos", *SHORT.split(), "--logs", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    shown = done.stdout[-6000:] + done.stderr[-3000:]
    findings = tmp_path / "findings.txt"
    if findings.exists():
        shown += "\nfindings:\n" + findings.read_text()[:4000]
    rows = verdicts(done.stdout)
    assert len(rows) >= 12, shown  # the soak ran to its verdict
    failed = [check for check, (passed, _) in rows.items() if not passed]
    assert not failed, shown
    injected = re.search(r"faults injected +(.*)", done.stdout)
    assert injected is not None, shown
    counts = dict(re.findall(r"([a-z-]+) (\d+)", injected[1]))
    assert all(int(counts.get(kind, 0)) >= 1 for kind in KINDS), injected[1]
    stopped = re.search(r"SIGTERM exit status +\[(.*)\]", done.stdout)
    assert stopped is not None and stopped[1] == "0", shown  # a graceful stop, in the burst
    answered = re.search(r"REST faults answered +(.*)", done.stdout)
    assert answered is not None
    assert all(kind in answered[1] for kind in ("rate_limit", "server_error", "outage"))
    opened = re.search(r"games opened \(lobbies that did not start\) +(\d+)", done.stdout)
    assert opened is not None and int(opened[1]) >= 24, shown
