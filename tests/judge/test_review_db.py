"""The labels database (judge.calibration.labelsdb): append-only events, superseding, undo,
export = merge, and calibrate reading it directly."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.calibration.labelevents import (
    Scale,
    content_sha256,
    effective,
    labelled,
    latest_undoable,
)
from judge.calibration.labels import load_labels
from judge.calibration.labelsdb import LabelsDB
from judge.cli import app
from judge.errors import InputError

runner = CliRunner()
A = ("item-1", "职位信息", "Job Information")
B = ("item-2", "用户登录", "User Logout")
C = (None, "报表", "Report")


def test_events_supersede_skip_and_undo(tmp_path: Path) -> None:
    with LabelsDB(tmp_path / "l.db") as db:
        db.append("ann", A, "label", 0)
        db.append("ann", A, "label", 1, note="same meaning")  # supersedes ann's 0
        db.append("bob", A, "label", 1)
        db.append("ann", B, "skip")
        e5 = db.append("ann", C, "label", 1)
        db.append("ann", C, "undo", undoes=e5.id)  # C is unlabelled again
        db.append("bob", B, "label", 0)
        events = list(db.events())
    assert [e.id for e in events] == [1, 2, 3, 4, 5, 6, 7]
    counted = effective(events)
    # by hand: ann/A = event 2, bob/A = 3, ann/B = skip 4, bob/B = 7; ann/C undone
    assert {(r, k[1]): e.id for (r, k), e in counted.items()} == {
        ("ann", "职位信息"): 2, ("bob", "职位信息"): 3, ("ann", "用户登录"): 4,
        ("bob", "用户登录"): 7}
    got = labelled(events)
    assert {k[1]: [(e.reviewer, e.label) for e in es] for k, es in got.items()} == {
        "职位信息": [("ann", 1), ("bob", 1)], "用户登录": [("bob", 0)]}
    assert got[A][0].note == "same meaning"
    # ann's latest undoable event is the skip of B (event 4): the label of C was undone
    last = latest_undoable(events, "ann")
    assert last is not None and last.id == 4


def test_append_only_and_committed(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    db = LabelsDB(path)
    db.append("ann", A, "label", 1)
    # a second connection (another process would do the same) sees the committed event
    other = sqlite3.connect(path)
    assert other.execute("SELECT count(*) FROM events").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        other.execute("UPDATE events SET label = 0")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        other.execute("DELETE FROM events")
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()
    with pytest.raises(ValueError, match="label must be 0 or 1"):
        db.append("ann", A, "label", 2)
    with pytest.raises(ValueError, match="reviewer"):
        db.append("", A, "label", 1)
    assert db.count() == 1
    db.close()


def test_scale_is_fixed_and_foreign_files_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    with LabelsDB(path, Scale.parse("0-5")) as db:
        assert db.scale == Scale(5, 3.0)
        db.append("ann", A, "label", 1, grade=4.0)
        with pytest.raises(ValueError, match="grade"):
            db.append("ann", A, "label", 1, grade=6.0)
    with pytest.raises(InputError, match="scale 0-5"):
        LabelsDB(path, Scale())
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match=r"not a labels\.db"):
        LabelsDB(other)
    text = tmp_path / "x.db"
    text.write_text("hello")
    with pytest.raises(InputError, match="not an SQLite database"):
        LabelsDB(text)
    with pytest.raises(InputError, match="scale"):
        Scale.parse("1-5")
    with pytest.raises(InputError, match="positive-threshold"):
        Scale.parse("0-5", 6)


def _audit_row(key: tuple[str | None, str, str], label: int, reviewer: str, at: str,
               note: str = "") -> dict[str, object]:
    """A row as the audit page exports it."""
    row: dict[str, object] = {"pred": key[1], "truth": key[2], "label": label,
                              "reviewer": reviewer, "reviewed_at": at, "note": note,
                              "blind": True}
    if key[0] is not None:
        row["id"] = key[0]
    return row


def test_export_writes_what_merge_writes(tmp_path: Path) -> None:
    db_path = tmp_path / "labels.db"
    with LabelsDB(db_path) as db:
        db.append("ann", A, "label", 1, note="同义")
        db.append("ann", B, "label", 0)
        db.append("bob", A, "label", 1)
        db.append("bob", B, "label", 1)
        db.append("bob", C, "label", 0)
        events = list(db.events())
    # the same labels as two audit-page exports, one per reviewer, with the same times
    for who in ("ann", "bob"):
        rows = [_audit_row(e.key, e.label or 0, who, e.created_at, e.note) for e in events
                if e.reviewer == who]
        (tmp_path / f"{who}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    res = runner.invoke(app, ["labels", "merge", str(tmp_path / "ann.jsonl"),
                              str(tmp_path / "bob.jsonl"), "--out", str(tmp_path / "m.jsonl")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["labels", "export", str(db_path), "-o", str(tmp_path / "e.jsonl")])
    assert res.exit_code == 0, res.output
    merged = (tmp_path / "m.jsonl").read_text()
    assert (tmp_path / "e.jsonl").read_text() == merged
    rows = [json.loads(x) for x in merged.splitlines()]
    # by hand: A both 1; B ann 0, bob 1; C bob 0 only
    assert [(r.get("id"), r["label"], r["reviewers"]) for r in rows] == [
        ("item-1", [1, 1], ["ann", "bob"]), ("item-2", [0, 1], ["ann", "bob"]),
        (None, [0], ["bob"])]
    assert "3 labelled pairs from 2 reviewers" in res.output
    # Krippendorff's α (nominal) on A (1,1), B (0,1): values 1,1,0,1 → D_o = 2/4 · … = 0.5,
    # D_e = 2·3·1/(4·3) = 0.5 → α = 1 − 0.5/0.5 = 0.000
    assert "α (nominal) 0.000" in res.output


def test_calibrate_reads_the_database(tmp_path: Path) -> None:
    db_path = tmp_path / "labels.db"
    with LabelsDB(db_path) as db:
        for k, (p, t, y) in enumerate([("a", "A", 1), ("abc", "abd", 1), ("x", "y", 0),
                                       ("cat", "dog", 0)]):
            db.append("ann", (f"i{k}", p, t), "label", y)
    res = runner.invoke(app, ["labels", "export", str(db_path), "-o", str(tmp_path / "e.jsonl")])
    assert res.exit_code == 0, res.output
    from_db = load_labels(db_path)
    from_file = load_labels(tmp_path / "e.jsonl")
    assert [(p.pred, p.truth, p.value, p.positive) for p in from_db.pairs] == [
        (p.pred, p.truth, p.value, p.positive) for p in from_file.pairs]
    rows = [json.loads(x) for x in (tmp_path / "e.jsonl").read_text().splitlines()]
    assert from_db.sha256 == content_sha256(rows)
    assert from_db.positives == 2 and from_db.path == str(db_path)


def test_graded_database_exports_grades_and_keeps_its_threshold(tmp_path: Path) -> None:
    db_path = tmp_path / "g.db"
    with LabelsDB(db_path, Scale.parse("0-5", 4)) as db:
        db.append("ann", ("i1", "a", "b"), "label", 1, grade=5.0)
        db.append("ann", ("i2", "c", "d"), "label", 0, grade=3.0)
        db.append("ann", ("i3", "e", "f"), "label", 1, grade=4.0)
    got = load_labels(db_path)  # no --positive-threshold: the database's (4) applies
    assert got.graded and got.positive_threshold == 4.0
    assert [(p.value, p.positive) for p in got.pairs] == [(5.0, True), (3.0, False),
                                                         (4.0, True)]


def test_leaderboard_reads_the_database_as_its_export(tmp_path: Path) -> None:
    """leaderboard LABELS.db ranks the judges exactly as on the exported JSONL (same pairs,
    same labels; only the label file's name differs)."""
    db_path = tmp_path / "labels.db"
    pairs = [("apple", "apples", 1), ("book", "books", 1), ("cake", "lake", 0),
             ("car", "automobile", 1), ("dog", "cat", 0), ("sun", "moon", 0)]
    with LabelsDB(db_path) as db:
        for k, (p, t, y) in enumerate(pairs):
            db.append("ann", (f"i{k}", p, t), "label", y)
            db.append("bob", (f"i{k}", p, t), "label", y if k != 4 else 1 - y)
    export = tmp_path / "labels.jsonl"
    assert runner.invoke(app, ["labels", "export", str(db_path), "-o", str(export)]
                         ).exit_code == 0
    tables = []
    for src, out in ((db_path, tmp_path / "a"), (export, tmp_path / "b")):
        # 6 doubly-annotated pairs: the humans row needs --min-human-pairs below its 30
        res = runner.invoke(app, ["leaderboard", str(src), "--judge", "lexical", "--bootstrap",
                                  "50", "--folds", "2", "--min-human-pairs", "6",
                                  "--out", str(out)])
        assert res.exit_code == 0, res.output
        lb = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
        tables.append([{k: v for k, v in r.items() if k not in ("seconds_per_1k",)}
                       for t in lb["tables"] for r in t["rows"]])
    assert tables[0] == tables[1] and len(tables[0]) == 2  # lexical, humans (two annotators)
