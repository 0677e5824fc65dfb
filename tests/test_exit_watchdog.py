"""The test run's exit watchdog (``tests/exit_watchdog.py``): a test process kept alive
by a thread a test left running ends with a sentence naming it, and a failing status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LEAKY = """
import threading

def test_leaves_a_thread_running():
    threading.Thread(target=threading.Event().wait, name="left-behind").start()
"""

TIDY = """
def test_leaves_nothing_running():
    assert True
"""


def run_pytest(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    test_file = tmp_path / "test_sample.py"
    test_file.write_text(source)
    plugins = ["-p", "no:cacheprovider", "-p", "tests.exit_watchdog"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *plugins, str(test_file)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "TEST_EXIT_GRACE_SECONDS": "5", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=120,  # without the watchdog the run would never end
    )


def test_a_thread_left_running_ends_the_process_with_its_name_and_a_failure(
    tmp_path: Path,
) -> None:
    result = run_pytest(tmp_path, LEAKY)
    assert "1 passed" in result.stdout
    assert result.returncode == 1
    assert "threads left running: left-behind" in result.stderr


def test_a_tidy_run_exits_with_its_own_status(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, TIDY)
    assert result.returncode == 0, result.stderr
    assert "threads left running" not in result.stderr
