"""``simjudge calibrate`` with a judge whose calls fail: the failures are counted per judge,
said on the terminal, recorded in calibration.json, and the exit status is 1 (like ``eval``);
the terminal table fits 80 columns."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from judge.calibration.calibrate import calibrate_judge
from judge.calibration.labels import LabelledPair, LabelSet
from judge.calibration.scoring import JudgeScores
from judge.cli import app
from judge.display import calibrate_failures
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
    # the SDK reads its endpoint from OPENAI_BASE_URL: a port nothing listens on. No retries:
    # the SDK's backoff (0.4-0.5 s, then 0.75-1 s) on each of the 8 calls made this test 12 s;
    # the default policy's 2 retries are checked by the next test
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-not-a-secret")
    monkeypatch.setenv("COLUMNS", "80")
    res = runner.invoke(app, ["calibrate", str(_labels(tmp_path)), "--judge", "openai:m",
                              "--judge", "lexical", "--out", str(tmp_path / "cal"),
                              "--cache-dir", str(tmp_path / "cache"), "--bootstrap", "50",
                              "--max-retries", "0"])
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
    assert "openai:m: judge calls FAILED for 12 of 12 labelled pairs (transport_error 12)" in \
        " ".join(out.split())
    assert "stopped early" in out and "openai:m: τ undefined — no judge call succeeded" in \
        " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 80, out


# Exact pairs of both classes, as in examples/am2ico_word_pairs.tsv ("TED"/"TED" 1, "RM"/"RM" 0):
# scored 1.0 by the exact rule without a call, they alone made a dead judge read as ROC-AUC
# 0.500 and "the judge cannot discriminate these pairs" (issue 27).
EXACT = [("TED", "TED", 1), ("ABC", "ABC", 1), ("RM", "RM", 0), ("n", "n", 0)]


def test_a_dead_server_is_reported_before_the_table_not_as_a_weak_judge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"pred": p, "truth": t, "label": y},
                                         ensure_ascii=False) + "\n"
                              for p, t, y in EXACT + PAIRS), encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-not-a-secret")
    monkeypatch.setenv("COLUMNS", "80")
    port = closed_port()
    # the default retry policy (2 SDK retries, said in the message); --stop-after 1 stops the
    # judge after its first call (the previous test checks the default 8), so the backoff is
    # paid once, not 8 times: the other 11 pairs are "not attempted", transport_error alike
    res = runner.invoke(app, ["calibrate", str(labels), "--judge", "openai:m", "--base-url",
                              f"http://127.0.0.1:{port}/v1", "--out", str(tmp_path / "cal"),
                              "--cache-dir", str(tmp_path / "cache"), "--bootstrap", "50",
                              "--stop-after", "1"])
    assert res.exit_code == 1, res.output  # some judge calls failed, as eval
    out = res.stdout
    flat = " ".join(out.split())
    failure = (f"openai:m: judge calls FAILED for 12 of 16 labelled pairs (transport_error 12); "
               f"first error: connection refused to http://127.0.0.1:{port}/v1 (after 2 "
               "retries); no call succeeded: no statistic of this judge is reported (the 4 "
               "pairs scored are exact matches, 1.0 without a call)")
    assert failure in flat
    assert out.index("FAILED") < out.index("\nstatistic ")  # before the table
    assert "cannot discriminate" not in out and "0.500" not in out
    assert re.search(r"^ROC-AUC +–$", out, re.M)  # no number from the 4 exact pairs
    dead = json.loads((tmp_path / "cal" / "calibration.json").read_text())["judges"]["openai:m"]
    assert dead["pairs_scored"] == 4 and dead["pairs_exact"] == 4
    assert dead["roc_auc"] is None and dead["pr_auc"] is None and dead["tau"] is None
    assert dead["note"].startswith("no judge call succeeded, so nothing is known about this "
                                   "judge (the 4 pairs scored are exact matches")
    assert "12 labelled pair(s) have no score: their judge calls failed" in res.stderr


def test_some_calls_failed_no_discrimination_verdict() -> None:
    # 2 exact pairs (one per class, 1.0 without a call) + 4 judged pairs: 2 answered 1.0, 2
    # failed. All 4 scored pairs tie at 1.0: the failures, not the judge, leave no threshold
    labels = LabelSet(pairs=[
        LabelledPair(p, t, float(y), bool(y), (float(y),), f"l.jsonl:{k + 1}")
        for k, (p, t, y) in enumerate([("a", "a", 1), ("b", "b", 0), ("x", "y", 1),
                                       ("u", "v", 0), ("p", "q", 1), ("r", "s", 0)])],
        graded=False, positive_threshold=None, alpha=None, path="l.jsonl", sha256="0")
    js = JudgeScores("j", np.array([1.0, 1.0, 1.0, 1.0, np.nan, np.nan]), [""] * 6, 2, 0,
                     {"id": "j"}, outcomes={"ok": 2, "parse_error": 2},
                     first_error="unparseable reply", exact=2)
    report, sweep = calibrate_judge(js, labels, n_boot=0)
    assert sweep is None and report["tau"] is None
    assert report["roc_auc"] == 0.5  # 4 scored pairs, 2 per class, all tied: (2*2*0.5)/4
    assert report["note"] == ("every scored pair has the score 1: no threshold separates "
                              "anything (the judge's calls failed for 2 pairs, so this says "
                              "nothing about it: fix the failure (first_error) and rerun)")
    lines = calibrate_failures({"labels": {"pairs": 6}, "judges": {"j": {
        **report, "pairs_without_verdict": 2}}})
    assert [str(t) for t in lines] == [
        "j: judge calls FAILED for 2 of 6 labelled pairs (parse_error 2); first error: "
        "unparseable reply; its statistics below use the 4 scored pairs only"]
