"""The test harness's Ray start (tests/conftest.py): a start that timed out leaves its node processes running;
the retry kills those of this driver's sessions, and only those."""
from __future__ import annotations

import subprocess
import sys

from conftest import kill_ray_leftovers

SLEEPER = "import sys, time; time.sleep(120)"


def test_ray_harness_kills_only_the_failed_sessions_of_its_own_driver(tmp_path):
    root = str(tmp_path / "ray")
    session = f"{root}/session_2026-11-29_03-41-54_657438"
    ours = subprocess.Popen([sys.executable, "-c", SLEEPER, f"--log_dir={session}_4242/logs"])
    other = subprocess.Popen([sys.executable, "-c", SLEEPER, f"--log_dir={session}_42421/logs"])
    try:
        assert kill_ray_leftovers(4242, root=root) == 1
        assert ours.wait(timeout=30) != 0  # killed: waits for the event, not a clock
        assert other.poll() is None  # another driver's session (pid 42421) is left alone
    finally:
        for process in (ours, other):
            process.kill()
            process.wait(timeout=30)
