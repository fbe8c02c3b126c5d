"""The suite's own timeout (pytest-timeout, ``timeout`` in pyproject.toml): a test that hangs
fails with its stack instead of stalling the run (issue 34: CI must finish; a hang in an
in-process server call would otherwise wait for CI's 90-minute limit).

A pytest process is what is tested here (the timeout interrupts a test of its own run), so it
is one subprocess: a test file that sleeps for a minute, run with ``-o timeout=2``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO


def test_the_suite_has_a_per_test_timeout(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert float(pytestconfig.getini("timeout")) == 600  # pyproject.toml


def test_a_hung_test_fails_with_a_timeout_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "test_hang.py").write_text(
        "import time\n\n\ndef test_hangs():\n    time.sleep(60)\n\n\n"
        "def test_after():\n    assert True\n", encoding="utf-8")
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-c", str(REPO / "pyproject.toml"), "--rootdir", str(tmp_path), "-o", "timeout=2",
         "-o", "addopts=", str(tmp_path / "test_hang.py")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    took = time.monotonic() - t0
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "Timeout" in out and "1 failed, 1 passed" in out, out
    assert took < 55, took  # generous: the sleep alone would take 60 s
