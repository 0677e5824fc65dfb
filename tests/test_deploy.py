"""The systemd unit in ``deploy/`` is one systemd accepts: ``systemd-analyze verify``
reads it (with the paths pointed at this checkout, since verify checks that the
program exists) and finds nothing to say."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "deploy" / "workshop-bot.service"


def test_the_service_unit_verifies(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: install systemd to verify deploy/"
    text = UNIT.read_text(encoding="utf-8")
    assert "ExecStart=/opt/workshop-bot/.venv/bin/python bot.py" in text
    here = text.replace("/opt/workshop-bot/.venv/bin/python", sys.executable)
    here = here.replace("/opt/workshop-bot", str(ROOT))
    unit = tmp_path / UNIT.name
    unit.write_text(here, encoding="utf-8")
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    said = [line for line in (done.stdout + done.stderr).splitlines() if UNIT.name in line]
    assert done.returncode == 0 and not said, done.stdout + done.stderr


def test_a_broken_unit_would_be_caught(tmp_path: Path) -> None:
    """The check above can fail: a unit with a wrong type and no program is refused."""
    analyze = shutil.which("systemd-analyze")
    assert analyze
    unit = tmp_path / UNIT.name
    unit.write_text(
        UNIT.read_text(encoding="utf-8").replace("Type=exec", "Type=bogus"), encoding="utf-8"
    )
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert any(UNIT.name in line for line in (done.stdout + done.stderr).splitlines())
