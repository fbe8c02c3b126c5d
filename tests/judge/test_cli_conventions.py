"""Issue 27, item 5 "Missing conventions": ``--version``, ``-h``, shell completion, ``eval
--limit/--quiet/--json``, the grouped ``eval --help``, the report path, ``simjudge runs``, and
``compare`` of three runs at 80 columns.

Runs use the ``lexical`` judge on a small English file written here (no network, seconds)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from tests.conftest import REPO

runner = CliRunner()
SCRIPT = Path(sys.executable).with_name("simjudge")


def _cli(*args: str | Path, columns: int = 80, cwd: Path = REPO
         ) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess, output piped (so rich uses COLUMNS, 80 by default)."""
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1",
           "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "judge.cli", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


# ------------------------------------------------------------------ --version, -h, completion

def test_version_option_prints_the_version_of_the_version_command() -> None:
    from importlib.metadata import version

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.output == f"simjudge {version('simjudge')}\n"
    full = runner.invoke(app, ["version"])
    assert full.output.splitlines()[0].startswith(res.output.strip() + " (Python ")


@pytest.mark.parametrize("argv", [[], ["eval"], ["calibrate"], ["compare"],
                                  ["cache"], ["cache", "stats"], ["labels", "merge"],
                                  ["batches"]])
def test_dash_h_is_help_everywhere(argv: list[str]) -> None:
    short = runner.invoke(app, [*argv, "-h"], prog_name="simjudge")
    long = runner.invoke(app, [*argv, "--help"], prog_name="simjudge")
    assert short.exit_code == 0 and long.exit_code == 0, short.output
    assert "Usage: simjudge" in short.output
    assert short.output == long.output


def test_completion_script_and_completions_offline() -> None:
    script = runner.invoke(app, ["--show-completion", "bash"], prog_name="simjudge")
    assert script.exit_code == 0
    assert "_SIMJUDGE_COMPLETE=complete_bash" in script.output
    # what the script asks the program for: the commands starting with "ev", then eval's flags
    env = {"_SIMJUDGE_COMPLETE": "complete_bash", "COMP_WORDS": "simjudge ev",
           "COMP_CWORD": "1"}
    res = runner.invoke(app, [], prog_name="simjudge", env=env)
    assert (res.exit_code, res.output) == (0, "eval\n")
    env = {**env, "COMP_WORDS": "simjudge eval --bootst", "COMP_CWORD": "2"}
    assert runner.invoke(app, [], prog_name="simjudge", env=env).output == "--bootstrap\n"


@pytest.mark.skipif(not SCRIPT.exists() or shutil.which("bash") is None,
                    reason="needs the simjudge console script and bash")
def test_bash_completion_round_trip_without_network(tmp_path: Path) -> None:
    """The script bash sources, run in bash with every proxy pointing at a closed port: the
    completion is computed by simjudge itself, offline."""
    dead = "http://127.0.0.1:9"
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "http_proxy": dead,
           "https_proxy": dead, "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
           "PATH": f"{SCRIPT.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    code = ('source <(simjudge --show-completion bash); COMP_WORDS=(simjudge cal); '
            'COMP_CWORD=1; _simjudge_completion simjudge; echo "${COMPREPLY[@]}"')
    res = subprocess.run(["bash", "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["calibrate"]
