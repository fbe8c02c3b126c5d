"""judge.numbers.finite_or_none and the one list of recorded versions."""

from __future__ import annotations

import json
import math
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import judge
from judge.cli import app
from judge.numbers import finite_or_none
from judge.versions import VERSIONED, package_versions


@pytest.mark.parametrize(("x", "expected"), [
    (None, None), (float("nan"), None), (np.nan, None), (math.inf, None), (-np.inf, None),
    (np.float64(0.25), 0.25), (3, 3.0), (np.int64(-2), -2.0), (0.0, 0.0),
])
def test_finite_or_none(x: object, expected: float | None) -> None:
    got = finite_or_none(x)
    assert got == expected and (got is None or type(got) is float)


def test_version_is_the_installed_metadata() -> None:
    assert judge.__version__ == metadata.version("simjudge")


def test_one_list_of_versions_for_runs_and_the_version_command(tmp_path: Path) -> None:
    versions = package_versions()
    assert list(versions) == ["python", *VERSIONED]
    res = CliRunner().invoke(app, ["version"])
    assert res.exit_code == 0
    printed = res.stdout.splitlines()
    assert printed[0] == f"simjudge {versions['simjudge']} (Python {versions['python']})"
    assert printed[1:] == [f"  {d} {versions[d]}" for d in VERSIONED if d != "simjudge"]
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"pred": ["a"], "truth": ["b"]}) + "\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["eval", str(data), "--judge", "lexical", "--bootstrap", "0",
                                   "--out", str(tmp_path / "r"), "--cache-dir",
                                   str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["versions"] == versions  # the same list in every run
