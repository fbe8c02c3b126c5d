"""``simjudge leaderboard``: the alternative annotator test (Calderon et al. 2025) on labels
whose reviewers are named, and "not enough annotators" where the paper's minimum is not met.

The ``lexical`` judge scores 1.0 when pred equals truth and 0.0 for ``abc``/``xyz``, so its τ
is 0.5 and its verdict is 1 exactly on the identical pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.clirun import run_cli


def _rows() -> list[tuple[tuple[int, int, int], int]]:
    """The worked example of tests/metrics/test_alttest.py, (A, B, C) labels and the judge's
    verdict, with the 15 all-agree items flipped to 0 so that both classes occur (flipping every
    label of an item leaves its accuracy alignments, hence d, unchanged): 15 × (0, 0, 0; 0),
    3 × (1, 1, 1; 0), 9 × (0, 1, 1; 1), 3 × (1, 0, 1; 1)."""
    return ([((0, 0, 0), 0)] * 15 + [((1, 1, 1), 0)] * 3 + [((0, 1, 1), 1)] * 9
            + [((1, 0, 1), 1)] * 3)


def _merged(path: Path, reviewers: list[str] | None, rows: Any = None) -> Path:
    lines = []
    for k, (labels, verdict) in enumerate(rows or _rows()):
        pred, truth = ("same", "same") if verdict else ("abc", "xyz")
        row: dict[str, Any] = {"id": f"i{k}", "pred": pred, "truth": truth, "label": list(labels)}
        if reviewers is not None:
            row["reviewers"] = reviewers[: len(labels)]
        lines.append(json.dumps(row) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _table(tmp_path: Path, labels: Path, *extra: str) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / "lb"
    res = run_cli("leaderboard", str(labels), "--judge", "lexical", "--swap", "0",
                  "--bootstrap", "0", "--folds", "2", "--out", str(out), "--cache-dir",
                  str(tmp_path / "c"), *extra)
    assert res.returncode == 0, (res.stdout + res.stderr)
    lb = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    return res, lb["tables"][0]


@pytest.mark.parametrize("epsilon, omega, wins", [("0.1", 1 / 3, [True, False, False]),
                                                  ("0.2", 2 / 3, [True, True, False])])
def test_named_reviewers_give_the_worked_example(tmp_path: Path, epsilon: str, omega: float,
                                                 wins: list[bool]) -> None:
    # as derived by hand in tests/metrics/test_alttest.py: ρ = 0.9; ω = 1/3 (fail) at ε 0.1 and
    # 2/3 (pass) at ε 0.2
    labels = _merged(tmp_path / "merged.jsonl", ["A", "B", "C"])
    res, table = _table(tmp_path, labels, "--alt-test-epsilon", epsilon)
    got = table["rows"][0]["alt_test"]
    assert table["rows"][0]["tau"] == pytest.approx(0.5)
    assert got["winning_rate"] == pytest.approx(omega)
    assert got["advantage_probability"] == pytest.approx(0.9)
    assert got["passed"] is (omega >= 0.5) and got["epsilon"] == float(epsilon)
    assert [a["annotator"] for a in got["annotators"]] == ["A", "B", "C"]
    assert [a["wins"] for a in got["annotators"]] == wins
    assert [a["mean_difference"] for a in got["annotators"]] == pytest.approx([-0.2, 0.0, 0.1])
    verdict = "pass" if omega >= 0.5 else "fail"
    assert f"ω {omega:.2f} {verdict} (ρ 0.90)" in (res.stdout + res.stderr)
    assert any(n.startswith(f"alt-test at ε {float(epsilon):g}") for n in table["notes"])


def test_unnamed_or_too_few_reviewers_say_not_enough_annotators(tmp_path: Path) -> None:
    # lists of labels without a 'reviewers' list: no one can be left out by name
    res, table = _table(tmp_path, _merged(tmp_path / "anon.jsonl", None))
    assert "alt_test" not in table["rows"][0]
    assert any("not enough annotators: the annotations name no reviewers" in n
               for n in table["notes"])
    assert "not enough annotators" in (res.stdout + res.stderr)
    # two named reviewers: fewer than the paper's three; no ω printed, the reason instead
    two = [((a, b), v) for (a, b, _), v in _rows()]
    _, table = _table(tmp_path, _merged(tmp_path / "two.jsonl", ["A", "B"], two),
                      "--overwrite")
    got = table["rows"][0]["alt_test"]
    assert got["winning_rate"] is None and got["reason"].startswith("not enough annotators: 2 ")
    md = (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| not enough annotators |" in md


def test_bad_epsilon_exits_2(tmp_path: Path) -> None:
    labels = _merged(tmp_path / "merged.jsonl", ["A", "B", "C"])
    res = run_cli("leaderboard", str(labels), "--judge", "lexical", "--alt-test-epsilon",
                  "1.5", "--out", str(tmp_path / "lb"))
    assert res.returncode == 2
    assert "--alt-test-epsilon must be in [0, 1], got 1.5" in res.stderr
    assert not (tmp_path / "lb").exists()


def test_a_labels_db_names_its_reviewers(tmp_path: Path) -> None:
    # the review app's labels.db: each event carries its reviewer; the same worked example
    from judge.calibration.labelsdb import LabelsDB

    db_path = tmp_path / "labels.db"
    with LabelsDB(db_path) as db:
        for k, (labels, verdict) in enumerate(_rows()):
            pred, truth = ("same", "same") if verdict else ("abc", "xyz")
            for name, y in zip("ABC", labels, strict=True):
                db.append(name, (f"i{k}", pred, truth), "label", label=y)
    _, table = _table(tmp_path, db_path, "--alt-test-epsilon", "0.2")
    got = table["rows"][0]["alt_test"]
    assert (got["winning_rate"], got["passed"]) == (pytest.approx(2 / 3), True)
    assert got["advantage_probability"] == pytest.approx(0.9)
