"""Issue 36, items 7, 9 and 16: ``simjudge review`` on a database another server holds, on an
address it cannot listen on, and on a full disk — real locks, a real tmpfs (in a private mount
namespace; skipped with the reason where none can be made). The servers whose process is the
subject (killed, stopped by SIGTERM, in a mount namespace) are real subprocesses; the commands
that must be refused run in this interpreter (tests/review_server.py)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from judge.calibration.labelsdb import LabelsDB
from judge.review.diskfull import DISK_FULL
from tests.cli_runs import CLI, ENV, letter_pairs
from tests.fake_openai import FakeOpenAIServer
from tests.review_server import (
    fill,
    in_tmpfs,
    is_match,
    mount_namespace_reason,
    review_exits,
    start,
    write_table_run,
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_table_run(tmp_path_factory.mktemp("guard"), 4)[0]


def _one_line(stderr: str) -> str:
    lines = [x for x in stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def _events(db: Path) -> list[tuple[str, str]]:
    with LabelsDB(db, create=False) as d:
        return [(e.reviewer, e.action) for e in d.events()]


def test_a_second_server_on_one_database_is_refused(run: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The first server and the one after it are real subprocesses: the lock must hold
    against another process (its PID named), drop when that process is killed by SIGKILL (no
    clean-up runs), and its file be removed by a SIGTERM'd server's clean stop. The refused
    commands run in this interpreter (bounded: one that served would be stopped and fail)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")  # the fake server ignores it
    db = tmp_path / "labels.db"
    a = start([str(run), "--labels", str(db)], tmp_path, process=True)
    try:
        pair = a.post("/api/next", {"reviewer": "ann"})["pair"]
        a.label("ann", pair, int(is_match(pair["pred"], pair["truth"])))
        pool = tmp_path / "pool.jsonl"
        pool.write_text("".join(json.dumps({"pred": p, "truth": t}) + "\n"
                                for p, t in letter_pairs(5)))
        with FakeOpenAIServer() as srv:
            for source in ([str(run)], [str(run), "--items"], [str(run), "--queue", "all"],
                           [str(pool), "--judge", "openai:fake-model", "--base-url",
                            srv.base_url, "--cache-dir", str(tmp_path / "cache")]):
                got = review_exits(*source, "--labels", str(db), "--port", "0")
                assert got.returncode == 2 and got.stdout == "", (source, got.stdout)
                line = _one_line(got.stderr)
                assert f"{db} is in use by PID {a.proc.pid} (started 20" in line, line
            assert srv.log == []  # refused before the pool was scored: nothing paid
        assert _events(db) == [("ann", "label")]  # the refused servers wrote nothing
        a.post("/api/next", {"reviewer": "bob"})  # the first one serves on
    finally:
        os.kill(a.proc.pid, signal.SIGKILL)  # a killed server leaves no lock stuck
        a.proc.wait(10)
    b = start([str(run), "--labels", str(db)], tmp_path, process=True)
    try:
        stats = b.call("GET", "/api/stats")[1]
        assert stats["progress"]["labelled"] == 1  # the database's labels, all of them
        assert stats["progress"]["reviewers"] == {"ann": {"labels": 1, "skips": 0}}
    finally:
        b.stop()
    assert not (tmp_path / "labels.db.lock").exists()  # a clean stop removes the lock file


@pytest.mark.parametrize("more", [[], ["--items"]])
def test_an_address_it_cannot_listen_on_creates_nothing(run: Path, tmp_path: Path,
                                                        more: list[str]) -> None:
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: bind fails, nothing is sent
    got = review_exits(str(run), "--labels", str(tmp_path / "new" / "labels.db"), "--host",
                       "192.0.2.1", "--port", "0", *more)
    assert got.returncode == 2
    assert "field 'port': cannot listen on 192.0.2.1:0" in _one_line(got.stderr)
    assert list(tmp_path.iterdir()) == []  # no labels.db, no lock file, no folder


def _need_mounts() -> None:
    reason = mount_namespace_reason()
    if reason is not None:
        pytest.skip(reason)


def test_a_full_disk_at_start_is_refused(run: Path, tmp_path: Path) -> None:
    """A real subprocess: the command runs in a private mount namespace with a small tmpfs."""
    _need_mounts()
    mnt = tmp_path / "small"
    prefix = in_tmpfs(mnt, "512k")  # under the 1 MiB review needs
    # `timeout`: a server that starts anyway is stopped (rc 124), never left behind
    script = (prefix[-1] + " timeout 60 " + shlex.join([*CLI, "review", str(run), "--labels",
                                                        f"{mnt}/labels.db", "--port", "0"])
              + f"; echo \"rc=$?\"; ls -A {mnt}")
    got = subprocess.run([*prefix[:-1], script], cwd=tmp_path, env=ENV, capture_output=True,
                         text=True, timeout=120)
    assert "rc=2" in got.stdout and got.stdout.strip().endswith("rc=2"), got.stdout  # ls: empty
    line = _one_line(got.stderr)
    assert f"{mnt}/labels.db: field 'labels': the disk holding labels.db is full" in line, line


def test_a_full_disk_mid_session_gets_507_and_one_line(run: Path, tmp_path: Path) -> None:
    """A real subprocess: the server runs in a private mount namespace with a small tmpfs
    (filled from outside through /proc/PID/root), and its one stderr line is the process's."""
    _need_mounts()
    mnt = tmp_path / "disk"
    s = start([str(run), "--labels", f"{mnt}/labels.db"], tmp_path, prefix=in_tmpfs(mnt, "2m"))
    inside = Path(f"/proc/{s.proc.pid}/root{mnt}")  # the server's tmpfs, seen from here
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        pair = s.label("ann", pair, 1)["pair"]
        assert fill(inside / "filler") > 0
        for _ in range(5):  # the page would send it again and again: one line on stderr
            status, got = s.call("POST", "/api/label", {
                "reviewer": "ann", "index": pair["index"], "key": pair["key"],
                "action": "label", "value": 0})
            assert (status, got) == (507, {"error": DISK_FULL})
        assert s.call("POST", "/api/undo", {"reviewer": "ann"}) == (507, {"error": DISK_FULL})
        assert s.call("POST", "/api/next", {"reviewer": "ann"})[1]["pair"] == pair
        (inside / "filler").unlink()  # room again: the same label is stored
        assert s.label("ann", pair, 0)["event"]["id"] == 2
        for name in ("labels.db", "labels.db-wal"):  # a copy: SQLite would resolve /proc/…
            shutil.copyfile(inside / name, tmp_path / name)
        with LabelsDB(tmp_path / "labels.db", create=False) as db:
            rows = [(e.id, e.action, e.label) for e in db.events()]
        assert rows == [(1, "label", 1), (2, "label", 0)]  # nothing from the refused ones
    finally:
        s.stop()
    err = s.proc.stderr.read() if s.proc.stderr else ""
    assert "Traceback" not in err, err
    full = [x for x in err.splitlines() if "is full" in x]
    assert full == [f"simjudge review: the disk holding {mnt}/labels.db is full: labels are "
                    "refused (HTTP 507) until there is room"], err
