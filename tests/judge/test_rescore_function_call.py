"""``rescore --arg-tau`` and ``calibrate --run`` on function-call runs: the calls are re-checked
with the argument judge's stored verdicts at another threshold, no judge call."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.record.store import load_run
from judge.runs.rescore import rescore

REPO = Path(__file__).resolve().parents[2]
SEED003 = REPO / "examples" / "seed003_home_automation.jsonl"
AM2ICO = REPO / "examples" / "am2ico_word_pairs.tsv"
runner = CliRunner()


@pytest.fixture()
def fc_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(SEED003, tmp_path / "calls.jsonl")
    monkeypatch.chdir(tmp_path)
    args = ["eval", "calls.jsonl", "--task", "function-call", "--format", "seed",
            "--arg-judge", "local", "--arg-tau", "0.6", "--out", "run", "--cache-dir", "c",
            "--bootstrap", "0"]
    monkeypatch.setattr(sys, "argv", ["simjudge", *args])
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return tmp_path / "run"


def test_rescore_at_another_arg_tau(fc_run: Path) -> None:
    record = load_run(fc_run)
    summary = json.loads((fc_run / "summary.json").read_text())
    # the two judged string pairs: 开启 vs 打开 (humidifier action, local score 0.874) and
    # 关闭 vs 打开 (light action, 0.166)
    judged = sorted((r["function"], r["pred"], r["truth"], round(r["score"], 3))
                    for r in record.verdict_rows() if r.get("function"))
    assert judged == [("humidifier_control", "开启", "打开", 0.874),
                      ("light_control", "关闭", "打开", 0.166)]
    own = rescore(record, n_boot=0)
    assert own["tau"] == 0.6 and own["tau_source"] == "run" and own["threshold"] == "arg_tau"
    for k in ("accuracy", "fn_acc_all", "fn_acc_name", "rouge-l", "bleu-4"):
        assert own["metrics"][k] == summary["metrics"][k], k
    assert own["metrics"]["accuracy"] == pytest.approx(9 / 11)  # 开启 ≈ 打开 accepted
    # below 0.166 关闭 ≈ 打开 is accepted too (a wrong acceptance): 10 of 11
    assert rescore(record, arg_tau=0.1, n_boot=0)["metrics"]["accuracy"] == pytest.approx(10 / 11)
    # above 0.874 the pair is no longer equivalent: that item fails too, 8 of 11 correct
    # (the value README gives for this file without an argument judge)
    high = rescore(record, arg_tau=0.9, n_boot=0)
    assert high["metrics"]["accuracy"] == pytest.approx(8 / 11)
    assert high["metrics"]["error_types"]["value_mismatch"] == 3
    assert rescore(record, arg_tau=0.87, n_boot=0)["metrics"]["accuracy"] == pytest.approx(9 / 11)
    res = runner.invoke(app, ["rescore", str(fc_run), "--arg-tau", "0.9"])
    assert res.exit_code == 0 and "arg τ 0.9 (--arg-tau)" in res.output, res.output
    res = runner.invoke(app, ["rescore", str(fc_run), "--tau", "0.9"])
    assert res.exit_code == 2 and "--tau does not apply to function-call runs" in res.output


def test_rescore_needs_the_unchanged_input(fc_run: Path) -> None:
    (fc_run.parent / "calls.jsonl").write_text("{}\n", encoding="utf-8")
    res = runner.invoke(app, ["rescore", str(fc_run), "--arg-tau", "0.9"])
    assert res.exit_code == 2
    assert "field 'data'" in res.output and "changed since the run" in " ".join(
        res.output.split())
    (fc_run.parent / "calls.jsonl").unlink()
    res = runner.invoke(app, ["rescore", str(fc_run)])
    assert res.exit_code == 2 and "not found" in res.output


def test_calibrate_run_curve_of_a_function_call_run(fc_run: Path) -> None:
    res = runner.invoke(app, ["calibrate", str(AM2ICO), "--judge", "local", "--run",
                              str(fc_run), "--out", "cal", "--cache-dir", "c", "--bootstrap",
                              "0", "--folds", "2"])
    assert res.exit_code == 0, res.output
    cal = json.loads((fc_run.parent / "cal" / "calibration.json").read_text())
    curve = cal["run"]["curve"]
    assert cal["run"]["tau"] == 0.6
    at = dict(zip(curve["tau"], curve["accuracy"], strict=True))
    assert at[0.6] == pytest.approx(9 / 11) and at[0.9] == pytest.approx(8 / 11)
    assert (fc_run.parent / "cal" / "run_tau.png").exists()
