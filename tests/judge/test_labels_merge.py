"""``simjudge labels merge``: reviewers' labels by pair (never by position), Krippendorff's α
computed by hand, superseded labels, bad input, and the merged file read by ``calibrate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.calibration.labels import load_labels
from judge.calibration.merge import merge_labels
from judge.cli import app

runner = CliRunner()


def _jsonl(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def test_merge_by_pair_with_alpha_by_hand(tmp_path: Path) -> None:
    a = _jsonl(tmp_path / "ann.jsonl", [
        {"id": "1", "pred": "User Login", "truth": "User Logout", "label": 0,
         "reviewer": "ann", "reviewed_at": "2026-11-22T10:00:00Z", "note": "opposites"},
        {"id": "1", "pred": "开灯", "truth": "关灯", "label": 1, "reviewer": "ann"},
        {"id": "2", "pred": "x", "truth": "y", "label": 1, "reviewer": "ann"}])
    # bob's file lists the pairs in another order, and relabels 开灯/关灯 later
    b = _jsonl(tmp_path / "bob.jsonl", [
        {"id": "2", "pred": "x", "truth": "y", "label": 1},
        {"id": "1", "pred": "开灯", "truth": "关灯", "label": 1, "reviewed_at": "2026-11-22T09"},
        {"id": "1", "pred": "User Login", "truth": "User Logout", "label": 0},
        {"id": "1", "pred": "开灯", "truth": "关灯", "label": 0, "reviewed_at": "2026-11-22T11",
         "note": "on second look"}])
    m = merge_labels([a, b])
    assert m.reviewers == ["ann", "bob"]  # bob: the file name, his rows carry no reviewer
    assert m.superseded == [f"{b}:2"]  # his earlier 开灯/关灯 label
    rows = {(r["id"], r["pred"]): r for r in m.rows()}
    assert rows[("1", "开灯")]["label"] == [1, 0]
    assert rows[("1", "开灯")]["notes"] == ["", "on second look"]
    assert rows[("2", "x")]["label"] == [1, 1]
    assert m.disagreements == [("1", "开灯", "关灯")]
    # nominal α by hand: units (0,0), (1,0), (1,1); n = 6 values, three 0s and three 1s;
    # D_o = (1/6)·(2/(2−1)) = 1/3; D_e = 2·3·3/(6·5) = 0.6; α = 1 − (1/3)/0.6 = 4/9
    assert m.alpha == pytest.approx(4 / 9)


def test_cli_writes_merged_and_disagreements_and_calibrate_reads_it(tmp_path: Path) -> None:
    pairs = [("狗", "dog", 1), ("猫", "cat", 1), ("狗", "cat", 0), ("汽车", "car", 1),
             ("汽车", "dog", 0), ("猫", "car", 0)]
    a = _jsonl(tmp_path / "a.jsonl", [{"pred": p, "truth": t, "label": y} for p, t, y in pairs])
    flipped = [(p, t, 1 - y if k == 0 else y) for k, (p, t, y) in enumerate(pairs)]
    b = _jsonl(tmp_path / "b.jsonl", [{"pred": p, "truth": t, "label": y}
                                     for p, t, y in reversed(flipped)])
    out = tmp_path / "merged.jsonl"
    res = runner.invoke(app, ["labels", "merge", str(a), str(b), "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "6 pairs from 2 reviewers (a, b); 6 labelled by two or more" in text
    # one disagreement in 6 units of 2; 12 values, five 1s (a: 3, b: 2) and seven 0s:
    # D_o = (1/12)·2 = 1/6, D_e = 2·5·7/(12·11) = 70/132, α = 1 − (1/6)/(70/132) = 48/70
    assert f"α (nominal) {48 / 70:.3f}; 1 disagreements" in text
    dis = [json.loads(x) for x in (tmp_path / "merged-disagreements.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert [(d["pred"], d["truth"], d["label"]) for d in dis] == [("狗", "dog", [1, 0])]
    labels = load_labels(out)  # the several-annotator form: majority rule
    assert labels.max_annotators == 2 and len(labels.pairs) == 6
    # a merged file merges again with a third reviewer: each list expands to its reviewers
    c = _jsonl(tmp_path / "c.jsonl", [{"pred": "狗", "truth": "dog", "label": 1}])
    again = merge_labels([out, c])
    assert again.reviewers == ["a", "b", "c"]
    assert [r.label for r in again.pairs[(None, "狗", "dog")]] == [1, 0, 1]


def test_bad_rows_exit_2_and_write_nothing(tmp_path: Path) -> None:
    a = _jsonl(tmp_path / "a.jsonl", [{"pred": "x", "truth": "y", "label": 1}])
    for row, field in (({"pred": "x", "label": 1}, "truth"),
                       ({"pred": "x", "truth": "y", "label": "yes"}, "label"),
                       ({"pred": "x", "truth": "y", "label": [1, 0]}, "reviewers"),
                       ({"pred": "x", "truth": "y", "label": 1, "reviewer": 7}, "reviewer")):
        b = _jsonl(tmp_path / "b.jsonl", [{"pred": "q", "truth": "r", "label": 0}, row])
        res = runner.invoke(app, ["labels", "merge", str(a), str(b), "--out",
                                  str(tmp_path / "m.jsonl")])
        assert res.exit_code == 2, res.output
        assert f"b.jsonl:2: field '{field}'" in res.output
        assert not list(tmp_path.glob("m*.jsonl"))
    res = runner.invoke(app, ["labels", "merge", str(a), "--out", str(tmp_path / "m.jsonl")])
    assert res.exit_code == 2 and "two or more files" in res.output
    # an empty input file is a mistake (a wrong path, an export that failed), never "no labels"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    res = runner.invoke(app, ["labels", "merge", str(a), str(empty), "--out",
                              str(tmp_path / "m.jsonl")])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == f"simjudge: error: {empty}: no labels in this file (it is empty)"
    assert not list(tmp_path.glob("m*.jsonl"))


def test_an_unwritable_out_is_one_line_exit_1(tmp_path: Path) -> None:
    a = _jsonl(tmp_path / "a.jsonl", [{"pred": "狗", "truth": "dog", "label": 1}])
    b = _jsonl(tmp_path / "b.jsonl", [{"pred": "狗", "truth": "dog", "label": 0}])
    (tmp_path / "afile").write_text("not a directory", encoding="utf-8")
    out = tmp_path / "afile" / "merged.jsonl"  # its parent is a file
    res = runner.invoke(app, ["labels", "merge", str(a), str(b), "--out", str(out)])
    assert res.exit_code == 1 and isinstance(res.exception, SystemExit)  # not a raised OSError
    assert f"cannot write {out}" in res.output and "Traceback" not in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "afile", "b.jsonl"]


def test_blind_flag_kept_per_reviewer_and_read_back(tmp_path: Path) -> None:
    # ann labelled on a blind page, bob on the normal one, cy's labels file says nothing:
    # the merged row keeps one flag per reviewer beside `reviewers` (None = not recorded)
    a = _jsonl(tmp_path / "ann.jsonl", [
        {"id": "1", "pred": "开灯", "truth": "打开灯", "label": 1, "reviewer": "ann",
         "blind": True},
        {"id": "2", "pred": "x", "truth": "y", "label": 0, "reviewer": "ann", "blind": True}])
    b = _jsonl(tmp_path / "bob.jsonl", [
        {"id": "1", "pred": "开灯", "truth": "打开灯", "label": 1, "reviewer": "bob",
         "blind": False}])
    c = _jsonl(tmp_path / "cy.jsonl", [{"id": "2", "pred": "x", "truth": "y", "label": 1}])
    out = tmp_path / "merged.jsonl"
    res = runner.invoke(app, ["labels", "merge", str(a), str(b), str(c), "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert (rows["1"]["reviewers"], rows["1"]["blind"]) == (["ann", "bob"], [True, False])
    assert (rows["2"]["reviewers"], rows["2"]["blind"]) == (["ann", "cy"], [True, None])
    # read back: a merged file merged again (and the audit page's human labels) keeps them
    d = _jsonl(tmp_path / "dee.jsonl", [{"id": "1", "pred": "开灯", "truth": "打开灯",
                                        "label": 0, "reviewer": "dee", "blind": True}])
    again = merge_labels([out, d])
    assert [(r.reviewer, r.blind) for r in again.pairs[("1", "开灯", "打开灯")]] == [
        ("ann", True), ("bob", False), ("dee", True)]
    assert again.rows()[0]["blind"] == [True, False, True]
    # a malformed blind list is an error naming the field, nothing written
    bad = _jsonl(tmp_path / "bad.jsonl", [{**rows["1"], "blind": [True]}])
    res = runner.invoke(app, ["labels", "merge", str(bad), str(d), "--out",
                              str(tmp_path / "m2.jsonl")])
    assert res.exit_code == 2 and "bad.jsonl:1: field 'blind'" in res.output
    bad = _jsonl(tmp_path / "bad.jsonl", [{"pred": "x", "truth": "y", "label": 1,
                                           "blind": "yes"}])
    res = runner.invoke(app, ["labels", "merge", str(bad), str(d), "--out",
                              str(tmp_path / "m2.jsonl")])
    assert res.exit_code == 2 and "bad.jsonl:1: field 'blind'" in res.output
    assert not (tmp_path / "m2.jsonl").exists()
