"""The local judge's BLAS threads: automatic choice from the measured rule, --threads on eval
and calibrate, validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.errors import InputError
from judge.judges.embedding.local import LocalJudge, auto_threads
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec

runner = CliRunner()


@pytest.mark.parametrize(("cores", "load", "expected"), [
    (2, 0.1, 2),   # idle 2-core machine: 2 threads (1.48x faster than 1, measured)
    (2, 1.0, 1),   # the other core busy: 1 thread (1.50x faster than 2, measured)
    (2, 3.7, 1),   # overloaded: never below 1
    (1, 0.0, 1),   # one core: one thread
    (8, 2.0, 2),   # plenty free: capped at 2
    (4, 2.6, 1),   # round(2.6) = 3 busy of 4 → 1 free
])
def test_auto_threads_rule(cores: int, load: float, expected: int) -> None:
    assert auto_threads(cores, load) == expected


def test_threads_reach_the_judge_and_are_validated() -> None:
    assert parse_judge_spec("local", JudgeOptions(threads=1)).threads == 1  # type: ignore[attr-defined]
    assert LocalJudge(threads=2).describe()["threads"] == 2
    with pytest.raises(InputError) as info:
        JudgeOptions(threads=0)
    assert info.value.field == "threads"
    with pytest.raises(ValueError, match="threads must be >= 1"):
        LocalJudge(threads=0)


def test_eval_and_calibrate_take_threads(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "pred": ["职位信息"], "truth": ["Job Information"]},
                               ensure_ascii=False) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["eval", str(data), "--threads", "1", "--out", str(tmp_path / "r"),
                              "--cache-dir", str(tmp_path / "c"), "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["judge"]["threads"] == 1  # recorded with the judge's identity
    res = runner.invoke(app, ["eval", str(data), "--threads", "0", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "--threads must be an integer >= 1" in res.stderr
    assert not (tmp_path / "x").exists()
    res = runner.invoke(app, ["calibrate", str(data), "--threads", "0"])
    assert res.exit_code == 2 and "--threads" in res.stderr
