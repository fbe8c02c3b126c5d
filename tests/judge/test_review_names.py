"""Issue 36, item 16: reviewer names are self-asserted, so look-alikes made of invisible or
compatibility characters are one reviewer — in the progress, in α and in the vote — not two."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.calibration.labelsdb import LabelsDB
from judge.review.bodies import normalise_name
from tests.review_server import start, write_table_run


@pytest.mark.parametrize(("given", "stored"), [
    ("probe", "probe"), ("pro\u200bbe", "probe"), ("ｐｒｏｂｅ", "probe"),
    ("\u202eprobe\u200d", "probe"), ("  pro\tbe\n", "pro be"), ("\ufeffAnn\u00a0Lee", "Ann Lee"),
    ("\u3164", ""), ("\u2066\u2069\u200b", ""), ("Zoë", "Zoë"), ("Zoe\u0308", "Zoë"),
    ("李\U000e0041明", "李明"),
])
def test_names_are_normalised(given: str, stored: str) -> None:
    assert normalise_name(given) == stored


def test_look_alike_names_are_one_reviewer(tmp_path: Path) -> None:
    run, _ = write_table_run(tmp_path, 4)
    db = tmp_path / "labels.db"
    # --overlap 1: a second reviewer is shown the first one's pairs, so two names would vote
    s = start([str(run), "--labels", str(db), "--overlap", "1"], tmp_path)
    try:
        first = s.post("/api/next", {"reviewer": "probe"})
        assert first["reviewer"] == "probe"
        pair = s.label("probe", first["pair"], 1)["pair"]
        pair = s.label("probe", pair, 1)["pair"]
        again = s.post("/api/next", {"reviewer": "pro\u200bbe"})
        assert again["reviewer"] == "probe" and again["pair"] == pair  # the same current pair
        s.label("ｐｒｏｂｅ", pair, 0)
        s.post("/api/undo", {"reviewer": "\u202eprobe"})  # undoes probe's latest label
        s.label("probe\u2060", pair, 1)
        stats = s.call("GET", "/api/stats")[1]
    finally:
        s.stop()
    assert stats["progress"]["reviewers"] == {"probe": {"labels": 3, "skips": 0}}
    assert stats["agreement"]["reviewers"] <= 1 and stats["agreement"]["shared_pairs"] == 0
    with LabelsDB(db, create=False) as d:
        assert {e.reviewer for e in d.events()} == {"probe"}
