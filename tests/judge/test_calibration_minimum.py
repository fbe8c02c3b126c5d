"""Too few labels for a calibration (issue 27, item 5): below 30 labelled pairs or 5 of either
class ``simjudge calibrate`` warns before its table and records the warning in
calibration.json (``labels.minimum``; the numbers are justified in
judge/calibration/adequacy.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.calibration.adequacy import MIN_PAIRS, MIN_PER_CLASS, label_shortfall
from judge.cli import app
from tests.conftest import EXAMPLES

runner = CliRunner()

THREE = [("job info", "job information", 1), ("user login", "user logout", 0),
         ("开灯", "打开灯", 1)]
WARNING = ("only 3 labelled pairs (2 positive, 1 negative): below the minimum of 30 pairs "
           "with at least 5 of each class, so τ and every statistic here are unreliable (a "
           "judge without an error on them scores 1.000 [1.000, 1.000] whatever their "
           "number); label more pairs")


@pytest.mark.parametrize(("pairs", "positives", "met"), [
    (30, 15, True),   # the minimum exactly
    (29, 15, False),  # one pair short
    (30, 25, True),   # 5 negatives: the per-class floor exactly
    (30, 26, False),  # 4 negatives
    (30, 4, False),   # 4 positives
    (500, 242, True),
    (3, 2, False),
])
def test_minimum_boundaries(pairs: int, positives: int, met: bool) -> None:
    got = label_shortfall(pairs, positives)
    assert (MIN_PAIRS, MIN_PER_CLASS) == (30, 5)
    assert got["met"] is met and (got["warning"] is None) is met
    assert got["pairs"] == 30 and got["per_class"] == 5


def test_three_labels_warn_before_the_table_and_in_calibration_json(tmp_path: Path) -> None:
    labels = tmp_path / "three.jsonl"
    labels.write_text("".join(json.dumps({"pred": p, "truth": t, "label": y},
                                         ensure_ascii=False) + "\n" for p, t, y in THREE),
                      encoding="utf-8")
    res = runner.invoke(app, ["calibrate", str(labels), "--judge", "lexical", "--out",
                              str(tmp_path / "cal"), "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output  # a warning, not a refusal
    assert f"warning: {WARNING}" in " ".join(res.stdout.split())  # folded at the width
    assert res.stdout.index("warning:") < res.stdout.index("\nstatistic ")
    report = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))
    assert report["labels"]["minimum"] == {"pairs": 30, "per_class": 5, "met": False,
                                           "warning": WARNING}


def test_enough_labels_no_warning(tmp_path: Path) -> None:
    # the shipped AM2iCo sample: 490 pairs, 242 positive (README), well above the minimum
    res = runner.invoke(app, ["calibrate", str(EXAMPLES / "am2ico_word_pairs.tsv"), "--judge",
                              "lexical", "--bootstrap", "0", "--out", str(tmp_path / "cal"),
                              "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert "warning:" not in res.stdout
    report = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))
    assert report["labels"]["pairs"] == 490 and report["labels"]["positives"] == 242
    assert report["labels"]["minimum"] == {"pairs": 30, "per_class": 5, "met": True,
                                           "warning": None}
