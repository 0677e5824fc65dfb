"""The chaos soak, short (``benchmarks/chaos.py``; issue 46): three bot processes on one
PostgreSQL through every kind of fault at least once — SIGKILLs and restarts, a SIGTERM
in a burst, ``pg_ctl stop -m immediate`` and a start, 429s and 502s throughout, a REST
outage, the gateway closed on every process (RESUME and a new IDENTIFY), a player
clicking without pause, reminders and turn limits falling due — and every verdict
passes: nothing lost, done twice, wrong, stuck or leaked. About 90 s."""

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


@pytest.mark.xfail(
    reason="open findings of the soak (docs/reliability.md, Known limits): posts over the"
    " per-channel limit when two processes post in one thread; Tonttu status edits not"
    " fenced by the publishing claim (a status went back); a Tonttu DM panel sent twice"
    " for one phase. Remove this mark once they are fixed: the test must then pass.",
    strict=False,
)
def test_a_short_chaos_soak_passes_every_verdict(tmp_path: Path) -> None:
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
    assert done.returncode == 0, shown
    assert "PASSED" in done.stdout, shown
    injected = re.search(r"faults injected +(.*)", done.stdout)
    assert injected is not None, shown
    counts = dict(re.findall(r"([a-z-]+) (\d+)", injected[1]))
    assert all(int(counts.get(kind, 0)) >= 1 for kind in KINDS), injected[1]
    answered = re.search(r"REST faults answered +(.*)", done.stdout)
    assert answered is not None
    assert all(kind in answered[1] for kind in ("rate_limit", "server_error", "outage"))
    opened = re.search(r"games opened \(lobbies that did not start\) +(\d+)", done.stdout)
    assert opened is not None and int(opened[1]) >= 24, shown
