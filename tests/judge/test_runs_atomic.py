"""``judge.record.atomic``: output directories written atomically, crash leftovers recovered,
``--out`` checked before any judge call. (The same machinery through the real CLI, with full
disks and killed processes, is exercised in test_runs_disk.py.)"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from judge.errors import InputError
from judge.record.atomic import RunWriteError, atomic_dir, dumps
from judge.record.outdir import (
    check_out_dir,
    default_run_dir,
    pid_alive,
    prepare_out_dir,
    recover_leftovers,
)


def _hidden(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_default_run_dir_name() -> None:
    p = default_run_dir("selection")
    stamp, task, pid = p.name.rsplit("-", 2)
    assert p.parent == Path("runs") and task == "selection" and pid == str(os.getpid())
    assert len(stamp) == 15 and stamp[8] == "-" and stamp.replace("-", "").isdigit()


def test_default_run_dir_of_a_second_run_in_the_same_second(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """Two runs of one process (two evaluate() calls in a notebook, two in-process commands)
    in one second: the second gets "-2", the third "-3", never the first one's folder."""
    import datetime as dt

    import judge.record.outdir as outdir

    class Frozen(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> Frozen:
            return cls(2026, 11, 28, 1, 2, 3, tzinfo=tz)

    monkeypatch.setattr(outdir.dt, "datetime", Frozen)
    first = default_run_dir("selection", tmp_path)
    assert first == tmp_path / f"20261128-010203-selection-{os.getpid()}"
    first.mkdir()
    second = default_run_dir("selection", tmp_path)
    assert second == Path(f"{first}-2")
    second.mkdir()
    assert default_run_dir("selection", tmp_path) == Path(f"{first}-3")


def test_atomic_dir_fills_a_hidden_sibling_then_renames_it(tmp_path: Path) -> None:
    out = tmp_path / "parent" / "run"  # the parent is created too
    with atomic_dir(out) as tmp:
        assert tmp == tmp_path / "parent" / f".run.tmp-{os.getpid()}"
        (tmp / "summary.json").write_text("{}")
        assert not out.exists()  # nothing visible until the end
    assert (out / "summary.json").read_text() == "{}"
    assert _hidden(tmp_path / "parent") == []


def _old_run(out: Path) -> None:
    """A folder that is a run (config.json and summary.json validate), which --overwrite may
    replace, holding a marker file."""
    out.mkdir()
    (out / "config.json").write_text('{"task": "selection"}')
    (out / "summary.json").write_text('{"task": "selection", "n_items": 0}')
    (out / "marker.txt").write_text("old")


def test_atomic_dir_overwrite_replaces_and_leaves_nothing_hidden(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _old_run(out)
    with atomic_dir(out, overwrite=True) as tmp:
        (tmp / "summary.json").write_text("new")
    assert (out / "summary.json").read_text() == "new" and _hidden(tmp_path) == []
    assert not (out / "marker.txt").exists()  # the old run is gone, not merged


def test_an_exception_while_filling_leaves_the_old_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _old_run(out)
    with pytest.raises(KeyError), atomic_dir(out, overwrite=True) as tmp:
        (tmp / "marker.txt").write_text("half")
        raise KeyError("boom")
    assert (out / "marker.txt").read_text() == "old" and _hidden(tmp_path) == []


def test_an_os_error_becomes_run_write_error_and_nothing_is_left(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(RunWriteError) as info, atomic_dir(out) as tmp:
        (tmp / "items.jsonl").write_text("{}\n")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert str(info.value).startswith(f"cannot write {out}: No space left on device. "
                                      "Nothing was left there")
    assert not out.exists() and _hidden(tmp_path) == []


def test_without_overwrite_a_non_empty_run_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(InputError, match=r"exists and is not empty \(use --overwrite\)"), \
            atomic_dir(out):
        pass
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"] and _hidden(tmp_path) == []
    prepare_out_dir(tmp_path / "empty", overwrite=False)  # a missing directory is fine
    (tmp_path / "empty").mkdir()
    check_out_dir(tmp_path / "empty", overwrite=False)  # so is an empty one


@pytest.mark.parametrize("case, message", [
    ("file", "exists and is not a directory"),
    ("file_overwrite", "--overwrite replaces only a run directory, never a file"),
    ("under_file", "is not a directory"),
    ("cwd", "refusing to --overwrite the root, home or current directory"),
    ("root", "refusing to --overwrite the root, home or current directory"),
])
def test_check_out_dir_refuses_bad_targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           case: str, message: str) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory\n")
    monkeypatch.chdir(tmp_path)
    target, overwrite = {
        "file": (a_file, False), "file_overwrite": (a_file, True),
        "under_file": (a_file / "deeper" / "run", False), "cwd": (tmp_path, True),
        "root": (Path("/"), True)}[case]
    with pytest.raises(InputError) as info:
        check_out_dir(target, overwrite)
    assert message in str(info.value)
    assert a_file.read_text() == "not a directory\n" and _hidden(tmp_path) == []


def test_recover_leftovers_cleans_only_dead_simjudge_output(tmp_path: Path) -> None:
    dead = _dead_pid()
    live = os.getppid()  # pytest's parent: alive for the whole test
    for name in (f".a.tmp-{dead}", f".b.tmp-{live}", f".c.old-{dead}", f".d.old-{dead}",
                 ".e.tmp-notapid", ".f", f".g.tmp-{dead}"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(json.dumps({"from": name}))
    (tmp_path / f".g.tmp-{dead}" / "notes.txt").write_text("another tool's file")
    (tmp_path / f".h.tmp-{dead}").write_text("a file, not a run")
    (tmp_path / "d").mkdir()  # d exists: its .old copy is stale
    done = recover_leftovers(tmp_path)
    # dead .tmp removed; the live process's .tmp kept; orphaned .old of c restored as c; .old
    # of d removed; names not of the pattern and entries that are not simjudge output untouched
    assert _hidden(tmp_path) == [f".b.tmp-{live}", ".e.tmp-notapid", ".f", f".g.tmp-{dead}",
                                 f".h.tmp-{dead}"]
    assert json.loads((tmp_path / "c" / "summary.json").read_text()) == {
        "from": f".c.old-{dead}"}
    assert len(done) == 3 and sum(x.startswith("restored") for x in done) == 1


def test_pid_alive() -> None:
    assert pid_alive(os.getpid()) and not pid_alive(_dead_pid())
    assert pid_alive(0) and pid_alive(-1)  # never declared dead


def test_dumps_keeps_text_and_converts_arrays() -> None:
    assert dumps({"p": "职位 ‹x›", "m": np.array([[1.0, 0.5]])}) == \
        '{"p": "职位 ‹x›", "m": [[1.0, 0.5]]}'
    assert dumps([float("nan")]) == "[NaN]"  # as Python's json writes it
    with pytest.raises(TypeError, match="not JSON-serialisable: object"):
        dumps(object())
