"""``simjudge calibrate`` with a judge whose calls fail: the failures are counted per judge,
said on the terminal, recorded in calibration.json, and the exit status is 1 (like ``eval``);
the terminal table fits 80 columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from tests.fake_openai import closed_port

runner = CliRunner()

# 6 positive and 6 negative labelled pairs, no two normalise to the same string (so every pair
# needs a judge call); the lexical judge scores them all.
PAIRS = [("job information", "job info", 1), ("user login", "sign in", 1),
         ("order list", "order lists", 1), ("职位信息", "job information", 1),
         ("screen security", "screen safety", 1), ("开灯", "打开灯", 1),
         ("user login", "user logout", 0), ("开灯", "关灯", 0), ("price", "prize", 0),
         ("order list", "invoice", 0), ("job title", "salary", 0), ("red", "green", 0)]


def _labels(tmp_path: Path) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps({"pred": p, "truth": t, "label": y}, ensure_ascii=False)
                            + "\n" for p, t, y in PAIRS), encoding="utf-8")
    return path


def test_calibrate_reports_a_dead_judge_and_exits_1(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # the SDK reads its endpoint from OPENAI_BASE_URL: a port nothing listens on
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-not-a-secret")
    monkeypatch.setenv("COLUMNS", "80")
    res = runner.invoke(app, ["calibrate", str(_labels(tmp_path)), "--judge", "openai:m",
                              "--judge", "lexical", "--out", str(tmp_path / "cal"),
                              "--cache-dir", str(tmp_path / "cache"), "--bootstrap", "50"])
    assert res.exit_code == 1, res.output
    report = json.loads((tmp_path / "cal" / "calibration.json").read_text())
    dead = report["judges"]["openai:m"]
    # 12 distinct pairs: 8 sent (one at a time, all refused), then the judge stopped and the
    # other 4 were not attempted; every one is a transport_error, none is a score
    assert dead["outcomes"] == {"transport_error": 12}
    # no scored pair is left: statistics undefined, reported (not fatal for the others)
    assert dead["pairs_scored"] == 0 and dead["tau"] is None and dead["roc_auc"] is None
    assert dead["stopped_early"][0]["consecutive_failures"] == 8
    assert dead["first_error"].startswith("connection refused to ")
    assert report["judges"]["lexical"]["outcomes"] == {"ok": 12}
    assert report["judges"]["lexical"]["tau"] is not None  # the other judge is calibrated
    out = res.stdout
    assert "openai:m: 12 judged pair(s) failed (transport_error 12)" in " ".join(out.split())
    assert "stopped early" in out and "openai:m: τ undefined — the 0 pairs it scored" in \
        " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 80, out
