"""τ-aware metric intervals: ``calibrate`` records its bootstrap τ̂ values, ``eval --tau-from``
resamples items × τ (:func:`judge.pipeline.uncertainty.joint_tau_cis`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.pipeline.uncertainty import bootstrap_cis, joint_tau_cis

REPO = Path(__file__).resolve().parents[2]
AM2ICO = REPO / "examples" / "am2ico_word_pairs.tsv"
GLOSSARY = REPO / "examples" / "glossary_en_zh.jsonl"
runner = CliRunner()


def _mean_value(rows: Any) -> dict[str, float]:
    return {"m": sum(r["v"] for r in rows) / len(rows)}


def test_constant_tau_gives_the_item_only_intervals() -> None:
    # with every τ sample equal, each resample draws the same items as bootstrap_cis (same
    # seed) at the same τ, so the two intervals are identical
    values = [0.1, 0.5, 0.2, 0.9, 0.4, 0.3]

    def rows_at(t: float) -> list[dict[str, float]]:
        return [{"v": v + t} for v in values]

    joint = joint_tau_cis(rows_at, _mean_value, len(values), [0.25] * 7, 500, 3)
    item = bootstrap_cis(_mean_value, rows_at(0.25), 500, 3)
    assert joint["ci95"] == item["ci95"]
    assert (joint["distinct_taus"], joint["tau_samples"]) == (1, 7)


def test_tau_only_uncertainty_by_hand() -> None:
    # items all alike, so the metric of a resample is its τ*: the interval is the 2.5th and
    # 97.5th percentiles of the drawn τ values; drawing uniformly from {0.2, 0.8} 1000 times
    # both occur, so the interval is [0.2, 0.8] exactly (numpy's linear percentile of a sample
    # whose lowest 2.5 % and highest 2.5 % are all 0.2 and 0.8)
    joint = joint_tau_cis(lambda t: [{"v": t}] * 4, _mean_value, 4, [0.2, 0.8], 1000, 0)
    assert joint["ci95"]["m"] == [pytest.approx(0.2), pytest.approx(0.8)]
    assert joint["distinct_taus"] == 2
    with pytest.raises(ValueError, match="no τ samples"):
        joint_tau_cis(lambda t: [], _mean_value, 4, [], 10, 0)
    assert joint_tau_cis(lambda t: [{"v": t}], _mean_value, 1, [0.5], 10, 0)["ci95"] == {}


def test_calibrate_then_eval_reports_both_intervals(tmp_path: Path) -> None:
    cache = tmp_path / "c"
    res = runner.invoke(app, ["calibrate", str(AM2ICO), "--judge", "local", "--out",
                              str(tmp_path / "cal"), "--cache-dir", str(cache), "--bootstrap",
                              "200"])
    assert res.exit_code == 0, res.output
    cal_path = tmp_path / "cal" / "calibration.json"
    boot = json.loads(cal_path.read_text())["judges"]["local"]["bootstrap"]
    samples = boot["tau_samples"]
    assert len(samples) == boot["resamples"] - boot["skipped"] == 200  # both classes always
    # the recorded τ̂ values are the ones the τ interval was taken from
    import numpy as np

    assert [float(x) for x in np.percentile(samples, [2.5, 97.5])] == pytest.approx(
        boot["tau_ci95"], abs=1e-6)
    res = runner.invoke(app, ["eval", str(GLOSSARY), "--judge", "local", "--tau-from",
                              str(cal_path), "--out", str(tmp_path / "run"), "--cache-dir",
                              str(cache), "--bootstrap", "300"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())  # rich wraps lines at the terminal width
    assert "95% CI items × τ" in text and "200 bootstrap τ̂ values" in text
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["tau_from"]["tau_samples"] == 200
    bt = summary["bootstrap_tau"]
    assert bt["resamples"] == 300 and bt["tau_samples"] == 200 and bt["distinct_taus"] >= 2
    assert set(bt["ci95"]) == set(summary["bootstrap"]["ci95"])
    for k, (lo, hi) in bt["ci95"].items():
        assert lo <= hi, k
    # rescoring at each drawn τ is what widens it: not identical to the item-only one
    assert bt["ci95"] != summary["bootstrap"]["ci95"]
    # a calibration without bootstrap has no samples: item-only intervals alone
    res = runner.invoke(app, ["calibrate", str(AM2ICO), "--judge", "local", "--out",
                              str(tmp_path / "cal0"), "--cache-dir", str(cache), "--bootstrap",
                              "0"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["eval", str(GLOSSARY), "--judge", "local", "--tau-from",
                              str(tmp_path / "cal0" / "calibration.json"), "--out",
                              str(tmp_path / "run0"), "--cache-dir", str(cache)])
    assert res.exit_code == 0, res.output
    assert "bootstrap_tau" not in json.loads((tmp_path / "run0" / "summary.json").read_text())


def test_bad_tau_samples_exit_2_before_any_call(tmp_path: Path) -> None:
    from judge.judges.identity import judge_identity
    from judge.judges.registry import parse_judge_spec

    cal = tmp_path / "calibration.json"  # the local judge's own calibration, but for its samples
    cal.write_text(json.dumps({"objective": "f1", "judges": {"local": {
        "tau": 0.6, "identity": judge_identity(parse_judge_spec("local")),
        "bootstrap": {"tau_samples": [0.5, 1.5]}}}}), encoding="utf-8")
    res = runner.invoke(app, ["eval", str(GLOSSARY), "--judge", "local", "--tau-from", str(cal),
                              "--out", str(tmp_path / "run")])
    assert res.exit_code == 2
    assert "judges.local.bootstrap.tau_samples" in res.output
    assert not (tmp_path / "run").exists()
