""":class:`judge.review.launch.ServeControl`: ``simjudge review`` run off the main thread and
stopped from another (how the review tests run their servers in this interpreter)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from judge.calibration.labelsdb import LabelsDB
from judge.review.dblock import lock_path
from judge.review.launch import SERVE_CONTROL, ServeControl
from tests.review_server import start, write_table_run


def test_a_stop_asked_before_it_listens_stops_it_once_it_listens(tmp_path: Path) -> None:
    """The control is stopped before the command starts: the server still binds and hands
    its URL over (once, to ``on_url``, not stdout), then ends with status 0, its database
    created and closed and its lock released as on SIGTERM; the control set in the serving
    thread never reaches this one."""
    from judge.cli import main

    run, _ = write_table_run(tmp_path, 2)
    db = tmp_path / "labels.db"
    urls: list[str] = []
    control = ServeControl(urls.append)
    control.stop()
    ended: dict[str, object] = {}

    def serve() -> None:
        SERVE_CONTROL.set(control)
        try:
            main(["review", str(run), "--labels", str(db), "--port", "0"])
            ended["code"] = 0
        except SystemExit as exc:
            ended["code"] = exc.code

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive() and ended == {"code": 0}
    assert len(urls) == 1 and re.fullmatch(r"http://127\.0\.0\.1:[1-9]\d*/", urls[0]), urls
    assert db.is_file() and not lock_path(db).exists()
    with LabelsDB(db, create=False) as labels:
        assert labels.count() == 0
    assert SERVE_CONTROL.get() is None
    control.stop()  # after the end: nothing to stop, no error


def test_a_server_stopped_mid_session_keeps_its_labels_and_frees_the_database(
        tmp_path: Path) -> None:
    """Stopped through its control while serving: the command ends with status 0
    (:meth:`tests.review_server.InProcess.stop` checks it), the acknowledged label is in the
    database, the lock file is gone, and a new server on the same database starts."""
    run, _ = write_table_run(tmp_path, 2)
    db = tmp_path / "labels.db"
    s = start([str(run), "--labels", str(db)], tmp_path)
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        assert s.label("ann", pair, 1)["event"]["id"] == 1
        assert lock_path(db).is_file()
    finally:
        s.stop()
    assert not lock_path(db).exists()
    again = start([str(run), "--labels", str(db)], tmp_path)
    try:
        assert again.call("GET", "/api/stats")[1]["progress"]["labelled"] == 1
    finally:
        again.stop()
