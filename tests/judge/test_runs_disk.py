"""Issue 11, "Disk and concurrency": the run directory and the cache on real disks.

Every test drives the CLI against real files: in-process (:func:`tests.clirun.run_cli`) where the
process is not what is tested, and in a process of its own where it is — a resource limit, a
private mount namespace, SIGKILL, two processes sharing a cache (several commands that need
such a process share one interpreter: :func:`tests.clirun.batch_command`). LLM calls go to the
loopback fake server (tests/fake_openai.py), whose request log counts what a provider would
bill. Full disks are real: a file size limit (``RLIMIT_FSIZE`` → ``EFBIG``, no
privileges needed) and, where this process may create a private mount namespace (root with
``unshare``), a small tmpfs (``ENOSPC``) or a read-only bind mount (``EROFS``; ``chmod`` does not
stop root). Tests needing a mount skip with the reason when that is impossible.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

import diskcache
import pytest

from judge.cache import JudgeCache
from tests.cli_runs import CLI, ENV, letter_pairs, write_items
from tests.clirun import CliResult, batch_command, read_batch, run_cli
from tests.conftest import REPO
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig


def _llm_args(data: Path, srv: FakeOpenAIServer, cache: Path, *more: str) -> list[str]:
    return ["eval", str(data), "--id-field", "id", "--judge", "openai:fake-model",
            "--base-url", srv.base_url, "--cache-dir", str(cache), "--bootstrap", "0", *more]


def _cli(args: list[str], cwd: Path = REPO) -> CliResult:
    """``simjudge ARGS`` in-process (with the key of tests/cli_runs.py's ENV)."""
    return run_cli(*args, cwd=cwd, env={"OPENAI_API_KEY": ENV["OPENAI_API_KEY"]})


def _limited(commands: list[list[str]], nbytes: int, tmp_path: Path) -> list[CliResult]:
    """``commands`` run one after the other in one process whose files may not grow past
    ``nbytes`` (``RLIMIT_FSIZE``: a write past it fails with EFBIG)."""
    results = tmp_path / "limited-results.json"
    subprocess.run(batch_command(commands, results), cwd=REPO, env=ENV, timeout=300,
                   preexec_fn=_file_size_limit(nbytes), check=True)
    return read_batch(results)


def _one_error_line(stderr: str) -> str:
    """The single line the CLI printed on stderr (no traceback, no second message)."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert "Traceback" not in stderr and len(lines) == 1, stderr
    assert lines[0].startswith("simjudge: error: "), stderr
    return lines[0]


def _summary(run: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((run / "summary.json").read_text())  # type: ignore[no-any-return]


def _chat_requests(srv: FakeOpenAIServer) -> list[str]:
    return [r.body["messages"][1]["content"] for r in srv.log
            if r.path.endswith("/chat/completions")]


def _hidden(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@cache
def _mount_namespace_reason() -> str | None:
    """None when this process can make private mounts (``unshare -m`` + ``mount``), else why
    not."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare/mount not installed"
    res = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                          "mount -t tmpfs -o size=64k tmpfs /mnt && touch /mnt/x"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        return f"cannot create a private mount namespace here: {res.stderr.strip()[:200]}"
    return None


def _in_mount_ns(script: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run a shell script in a private mount namespace (its mounts vanish with it)."""
    reason = _mount_namespace_reason()
    if reason is not None:
        pytest.skip(reason)
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                          cwd=REPO, env=ENV, capture_output=True, text=True, timeout=timeout)


def _cmd(args: list[str]) -> str:
    return shlex.join([*CLI, *args])


def _batch_cmd(commands: list[list[str]], results: Path) -> str:
    """The shell command of one interpreter running ``commands`` in-process in turn."""
    return shlex.join(batch_command(commands, results))


def _file_size_limit(nbytes: int) -> Callable[[], None]:
    def limit() -> None:  # in the child before exec: writes past nbytes fail with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
    return limit


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


# --------------------------------------------------------------- 1. early output checks
def test_unusable_out_is_refused_before_any_judge_call(tmp_path: Path) -> None:
    data = write_items(tmp_path / "d.jsonl", letter_pairs(30))
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory\n")
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("x")
    cases = [
        (["--out", str(a_file / "run")], f"{a_file} is not a directory"),  # NotADirectoryError
        (["--out", str(a_file / "deeper" / "run")], f"{a_file} is not a directory"),
        (["--out", str(a_file), "--overwrite"], "replaces only a run directory, never a file"),
        (["--out", str(a_file)], "exists and is not a directory"),
        (["--out", str(full)], "exists and is not empty (use --overwrite)"),
    ]
    with FakeOpenAIServer() as srv:
        for extra, message in cases:
            res = _cli(_llm_args(data, srv, tmp_path / "cache", *extra))
            assert res.returncode == 2, (extra, res.stderr)
            assert message in _one_error_line(res.stderr), extra
        assert _chat_requests(srv) == []  # nothing paid for
    assert a_file.read_text() == "not a directory\n" and (full / "keep.txt").exists()
    assert _hidden(tmp_path) == [] and sorted(p.name for p in full.iterdir()) == ["keep.txt"]


def test_out_on_a_read_only_mount_is_refused_before_any_judge_call(tmp_path: Path) -> None:
    data = write_items(tmp_path / "d.jsonl", letter_pairs(30))
    ro = tmp_path / "ro"
    ro.mkdir()
    with FakeOpenAIServer() as srv:
        # root ignores chmod, so the parent is a read-only bind mount of itself
        res = _in_mount_ns(
            f"mount --bind {ro} {ro} && mount -o remount,bind,ro {ro} && "
            f"! touch {ro}/probe 2>/dev/null && "
            + _cmd(_llm_args(data, srv, tmp_path / "cache", "--out", str(ro / "run"))))
        assert res.returncode == 2, res.stderr
        assert "Read-only file system" in _one_error_line(res.stderr)
        assert _chat_requests(srv) == []
    assert list(ro.iterdir()) == []


def test_out_at_a_mount_point_is_written_into_not_renamed(tmp_path: Path) -> None:
    # a Docker volume (-v …:/out --out /out) is a mount point: rename(2) onto it fails with
    # EBUSY. Before, every call was paid, then the final rename failed and the message blamed
    # disk room, on every rerun. Now the run is written inside it and moved in file by file.
    n = 20
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    vol, out = tmp_path / "vol", tmp_path / "out"
    vol.mkdir()
    out.mkdir()
    (vol / "lost+found").mkdir()  # a volume's own entry: never touched
    with FakeOpenAIServer() as srv:
        args = _llm_args(data, srv, tmp_path / "cache", "--out", str(out))
        # the first run, a rerun with --overwrite, then one without it; the folder's listing
        # after the first is read by a fourth step of the same script
        res = _in_mount_ns("; ".join([
            f"mount --bind {vol} {out} || exit 99",
            _batch_cmd([[*args, "--overwrite"]], tmp_path / "r1.json"),
            f"ls -A {out} > {tmp_path}/ls1",
            _batch_cmd([[*args, "--overwrite"], args], tmp_path / "r23.json")]))
        assert res.returncode == 0, res.stderr
        requests = len(_chat_requests(srv))
    runs = read_batch(tmp_path / "r1.json") + read_batch(tmp_path / "r23.json")
    assert [r.returncode for r in runs] == [0, 0, 2], [r.stderr for r in runs]
    listed = (tmp_path / "ls1").read_text().split()
    assert {"config.json", "summary.json", "verdicts.jsonl", "lost+found"} <= set(listed)
    assert not [x for x in listed if x.startswith(".")]  # no temp dir left inside
    assert _summary(vol)["n_items"] == n and _summary(vol)["cache_hits"] == n  # the 2nd run
    assert requests == n  # paid once: the rerun was all cache hits
    assert (vol / "lost+found").is_dir() and _hidden(tmp_path) == []
    assert "not empty (use --overwrite)" in _one_error_line(runs[2].stderr)


def _refuse_rename(monkeypatch: pytest.MonkeyPatch, out: Path, code: int) -> None:
    """``os.rename`` fails with ``code`` for ``out`` (as for a mount point: EBUSY) while the
    test runs; every other rename goes through."""
    real = os.rename

    def rename(src, dst, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(dst) == str(out) or os.fspath(src) == str(out):
            raise OSError(code, os.strerror(code), os.fspath(src), None, os.fspath(dst))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "rename", rename)


def test_out_whose_rename_fails_with_ebusy_is_filled_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a mount that /proc/self/mountinfo does not list: the final rename fails with EBUSY,
    # and the run is moved into the directory instead (with --overwrite too)
    out = tmp_path / "out"
    out.mkdir()
    _refuse_rename(monkeypatch, out, errno.EBUSY)
    for k, n in ((1, 5), (2, 7)):
        data = write_items(tmp_path / f"d{k}.jsonl", letter_pairs(n))
        res = _cli(["eval", str(data), "--judge", "lexical", "--out", str(out), "--bootstrap",
                    "0", *(["--overwrite"] if k == 2 else [])])
        assert res.returncode == 0, res.stderr
        assert _summary(out)["n_items"] == n
        assert not [p for p in out.iterdir() if p.name.startswith(".")]
        assert _hidden(tmp_path) == []


def test_a_write_error_other_than_room_does_not_blame_room(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the final rename failing with EACCES-like errors is not a full disk: the message says
    # what happened and does not ask for room
    out = tmp_path / "out"
    _refuse_rename(monkeypatch, out, errno.EPERM)
    data = write_items(tmp_path / "d.jsonl", letter_pairs(3))
    res = _cli(["eval", str(data), "--judge", "lexical", "--out", str(out), "--bootstrap", "0"])
    assert res.returncode == 1
    line = _one_error_line(res.stderr)
    assert f"cannot write {out}: Operation not permitted" in line and "room" not in line
    assert not out.exists() and _hidden(tmp_path) == []


# --------------------------------------------------------------- 2. full disk
def _two_lines(stderr: str) -> tuple[str, str]:
    """The warning printed when the cache first refused, and the closing line saying where the
    refused answers are (nothing else, no traceback)."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert "Traceback" not in stderr and len(lines) == 2, stderr
    assert lines[0].startswith("simjudge: warning: the judge-call cache in "), stderr
    assert lines[1].startswith("simjudge: the judge-call cache refused writes ("), stderr
    return lines[0], lines[1]


def _unstored_keys(run: Path) -> list[str]:
    path = run / "unstored_answers.jsonl"
    return [json.loads(x)["key"] for x in path.read_text().splitlines()] if path.exists() else []


def _import(*files: Path, cache: Path) -> CliResult:
    return _cli(["cache", "import", *map(str, files), "--cache-dir", str(cache)])


def test_cache_hits_file_size_limit_keeps_answers_in_the_run(tmp_path: Path) -> None:
    # the cache's SQLite files reach the 1 MB file size limit after some dozens of answers
    # (37 measured): the run goes on, keeps the refused answers in memory and writes them into
    # the run. 120 pairs leave about 80 refused (300 paid 2.5 times as many calls for nothing)
    n = 120
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    cache_dir, out = tmp_path / "cache", tmp_path / "run"
    with FakeOpenAIServer() as srv:
        res, = _limited([_llm_args(data, srv, cache_dir, "--out", str(out), "--concurrency",
                                   "4")], 1_000_000, tmp_path)
        assert res.returncode == 1, res.stderr
        _, last = _two_lines(res.stderr)
        stored = JudgeCache(cache_dir).stats()["entries"]
        s = _summary(out)
        assert 0 < stored < n and len(_chat_requests(srv)) == n == s["judge_calls"]
        assert s["outcomes"]["ok"] == n  # the run is complete
        assert s["cache_refused"]["stored"] == stored
        assert s["cache_refused"]["unstored"] == n - stored == len(_unstored_keys(out))
        assert f"{n - stored} paid answer(s) it refused are kept in {out}" in last
        print(f"cache stored {stored}, run kept {n - stored} of {n} paid answers")
        # a rerun with as little room (a new process): its stored answers are reused, it
        # completes again
        srv.log.clear()
        res, = _limited([_llm_args(data, srv, cache_dir, "--out", str(tmp_path / "r2"))],
                        1_000_000, tmp_path)
        s2 = _summary(tmp_path / "r2")
        assert res.returncode == 1 and s2["outcomes"]["ok"] == n, res.stderr
        assert s2["cache_hits"] >= stored and s2["judge_calls"] == n - s2["cache_hits"]
        # with room again, the kept answers go into the cache: a rerun pays for none
        res = _import(out, tmp_path / "r2" / "unstored_answers.jsonl", cache=cache_dir)
        assert res.returncode == 0 and "stored" in res.stdout, res.stderr
        srv.log.clear()
        res = _cli(_llm_args(data, srv, cache_dir, "--out", str(tmp_path / "r3")))
        assert res.returncode == 0, res.stderr
        assert _summary(tmp_path / "r3")["cache_hits"] == n and _chat_requests(srv) == []


def test_local_judge_cache_hits_file_size_limit_recomputes_free_vectors(
        tmp_path: Path) -> None:
    # the embedded judge stores its vectors per batch of 64 strings, each batch one transaction
    n = 300  # 600 distinct strings
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    cache_dir, out = tmp_path / "cache", tmp_path / "run"
    args = ["eval", str(data), "--judge", "local", "--cache-dir", str(cache_dir), "--out",
            str(out), "--bootstrap", "0"]
    res, = _limited([args], 1_000_000, tmp_path)
    assert res.returncode == 1, res.stderr
    _, last = _two_lines(res.stderr)
    stored = JudgeCache(cache_dir).stats()["entries"]
    assert 0 < stored < 2 * n and stored % 64 == 0  # whole batches
    # free vectors are not held (recomputed by a rerun): the run is written, nothing kept
    s = _summary(out)
    assert s["n_items"] == n and _unstored_keys(out) == []
    assert s["cache_refused"]["dropped"] == 2 * n - stored and "recomputed by a rerun" in last
    res = _cli([*args[:-4], "--out", str(tmp_path / "r2"), "--bootstrap", "0"])
    assert res.returncode == 0, res.stderr
    s2 = _summary(tmp_path / "r2")
    assert s2["cache_hits"] == stored and s2["judge_calls"] == 2 * n - stored
    assert s2["metrics"] == s["metrics"]


def test_run_dir_hits_file_size_limit_one_message_nothing_left(tmp_path: Path) -> None:
    # the lexical judge needs no cache: the first file over 64 kB is in the run directory
    data = write_items(tmp_path / "d.jsonl", letter_pairs(400))
    out = tmp_path / "run"
    res, = _limited([["eval", str(data), "--judge", "lexical", "--out", str(out),
                      "--bootstrap", "0"]], 64_000, tmp_path)
    assert res.returncode == 1, res.stderr
    line = _one_error_line(res.stderr)
    assert f"cannot write {out}: File too large" in line
    assert not out.exists() and _hidden(tmp_path) == []
    res = _cli(["eval", str(data), "--judge", "lexical", "--out", str(out), "--bootstrap", "0"])
    assert res.returncode == 0 and _summary(out)["n_items"] == 400


def test_cache_on_full_tmpfs_enospc_keeps_answers_in_the_run(tmp_path: Path) -> None:
    n = 300
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    mnt, copy, out = tmp_path / "mnt", tmp_path / "cache_copy", tmp_path / "run"
    mnt.mkdir()
    with FakeOpenAIServer() as srv:
        res = _in_mount_ns(
            f"mount -t tmpfs -o size=400k tmpfs {mnt} || exit 99; "
            + _cmd(_llm_args(data, srv, mnt / "cache", "--out", str(out), "--concurrency", "4"))
            + f"; rc=$?; cp -a {mnt}/cache {copy}; exit $rc")
        assert res.returncode == 1, res.stderr
        first, _ = _two_lines(res.stderr)
        assert "disk is full" in first or "No space left" in first
        stored = JudgeCache(copy).stats()["entries"]
        assert 0 < stored < n and len(_chat_requests(srv)) == n
        assert len(_unstored_keys(out)) == n - stored and _summary(out)["outcomes"]["ok"] == n
        res = _import(out / "unstored_answers.jsonl", cache=copy)
        assert res.returncode == 0, res.stderr
        srv.log.clear()
        res = _cli(_llm_args(data, srv, copy, "--out", str(tmp_path / "r2")))
        assert res.returncode == 0, res.stderr
        assert _summary(tmp_path / "r2")["cache_hits"] == n and _chat_requests(srv) == []


def test_run_dir_on_full_tmpfs_enospc_cache_complete_rerun_pays_none(tmp_path: Path) -> None:
    n = 200
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    mnt, cache_dir = tmp_path / "mnt", tmp_path / "cache"
    mnt.mkdir()
    with FakeOpenAIServer() as srv:
        res = _in_mount_ns(
            f"mount -t tmpfs -o size=64k tmpfs {mnt} || exit 99; "
            + _cmd(_llm_args(data, srv, cache_dir, "--out", str(mnt / "run")))
            + f"; rc=$?; ls -A {mnt} > {tmp_path}/left.txt; exit $rc")
        assert res.returncode == 1, res.stderr
        line = _one_error_line(res.stderr)
        assert f"cannot write {mnt / 'run'}: No space left on device" in line
        assert (tmp_path / "left.txt").read_text() == ""  # no run, no hidden temp directory
        assert len(_chat_requests(srv)) == n and JudgeCache(cache_dir).stats()["entries"] == n
        srv.log.clear()
        res = _cli(_llm_args(data, srv, cache_dir, "--out", str(tmp_path / "run")))
        assert res.returncode == 0, res.stderr
        s = _summary(tmp_path / "run")
        assert s["judge_calls"] == 0 and s["cache_hits"] == n and _chat_requests(srv) == []


def _filled_tmpfs(mnt: Path) -> str:
    """Shell: mount a 64 kB tmpfs on ``mnt`` and fill its blocks with one file; directories
    can still be created there (a tmpfs directory takes an inode, no block)."""
    return (f"mount -t tmpfs -o size=64k tmpfs {mnt} || exit 99; "
            f"dd if=/dev/zero of={mnt}/fill bs=4k 2>/dev/null; mkdir {mnt}/probe-dir || exit 98; "
            f"rmdir {mnt}/probe-dir; ")


def test_out_on_a_full_disk_that_still_makes_directories_is_refused_before_any_call(
        tmp_path: Path) -> None:
    # before: the probe created (and removed) a directory, which a full disk still allows:
    # all calls were paid, then writing the run failed, exit 1. Now 4 KiB are written and
    # synced there first: one line, exit 2, no call
    data = write_items(tmp_path / "d.jsonl", letter_pairs(20))
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    with FakeOpenAIServer() as srv:
        res = _in_mount_ns(_filled_tmpfs(mnt) + _cmd(_llm_args(
            data, srv, tmp_path / "cache", "--out", str(mnt / "run")))
            + f"; rc=$?; ls -A {mnt} > {tmp_path}/left.txt; exit $rc")
        assert res.returncode == 2, res.stderr
        line = _one_error_line(res.stderr)
        assert "cannot write the output directory here: No space left on device" in line
        assert _chat_requests(srv) == []
    assert (tmp_path / "left.txt").read_text().split() == ["fill"]  # no probe left behind


def test_a_cache_that_cannot_be_created_is_one_line_and_no_call(tmp_path: Path) -> None:
    # before: "no such table: Cache", a 346-line traceback (diskcache created an empty
    # database file on the full disk, which was then opened read-only)
    data = write_items(tmp_path / "d.jsonl", letter_pairs(20))
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    with FakeOpenAIServer() as srv:
        res = _in_mount_ns(_filled_tmpfs(mnt) + _cmd(_llm_args(
            data, srv, mnt / "cache", "--out", str(tmp_path / "run"))))
        assert res.returncode == 2, res.stderr
        line = _one_error_line(res.stderr)
        assert "cannot open the cache for writing" in line and str(mnt / "cache") in line
        assert _chat_requests(srv) == []
    assert not (tmp_path / "run").exists()


# --------------------------------------------------------------- 3. read-only cache
def test_cache_on_read_only_mount_serves_read_only_and_cache_only(tmp_path: Path) -> None:
    n = 40
    old, new = letter_pairs(n), letter_pairs(10, tag="new")
    data = write_items(tmp_path / "d.jsonl", old)
    more = write_items(tmp_path / "more.jsonl", old + new)
    cache_dir = tmp_path / "cache"
    with FakeOpenAIServer() as srv:
        res = _cli(_llm_args(data, srv, cache_dir, "--out", str(tmp_path / "warm")))
        assert res.returncode == 0, res.stderr
        assert len(_chat_requests(srv)) == n
        srv.log.clear()
        ro = f"mount --bind {cache_dir} {cache_dir} && mount -o remount,bind,ro {cache_dir} && "
        names = ("only", "ro", "stats", "rw", "clear")
        commands = [
            _llm_args(data, srv, cache_dir, "--cache-mode", "cache-only", "--out",
                      str(tmp_path / "only")),
            _llm_args(more, srv, cache_dir, "--cache-mode", "read-only", "--out",
                      str(tmp_path / "ro")),
            ["cache", "stats", "--cache-dir", str(cache_dir)],
            _llm_args(data, srv, cache_dir, "--out", str(tmp_path / "rw")),
            ["cache", "clear", "--yes", "--cache-dir", str(cache_dir)]]
        script = ro + "; ".join([
            f"touch {cache_dir}/probe 2>/dev/null; echo $? > {tmp_path}/touch_rc",
            _batch_cmd(commands, tmp_path / "results.json")])
        res = _in_mount_ns(script)
        assert res.returncode == 0, res.stderr
        got = dict(zip(names, read_batch(tmp_path / "results.json"), strict=True))
        rc = {k: r.returncode for k, r in got.items()}
        assert int((tmp_path / "touch_rc").read_text()) != 0  # genuinely read-only, as root
        # clear on a read-only cache: one line, exit 1 (storage refused), no traceback
        assert rc == {"only": 0, "ro": 0, "stats": 0, "rw": 2, "clear": 1}, got
        clear = _one_error_line(got["clear"].stderr)
        assert "cannot clear the cache" in clear
        only, ro_run = _summary(tmp_path / "only"), _summary(tmp_path / "ro")
        assert only["judge_calls"] == 0 and only["cache_hits"] == n
        # read-only: the 40 stored answers are read, only the 10 new pairs are called
        assert ro_run["cache_hits"] == n and ro_run["judge_calls"] == 10
        assert sorted(_chat_requests(srv)) == sorted(
            r for r in _chat_requests(srv) if "new" in r) and len(_chat_requests(srv)) == 10
        assert f"entries   {n}" in got["stats"].stdout
        rw = _one_error_line(got["rw"].stderr)
        assert "cannot open the cache for writing" in rw and "--cache-mode read-only" in rw
    assert JudgeCache(cache_dir).stats()["entries"] == n  # nothing was written meanwhile


# --------------------------------------------------------------- 4. kills while writing
def test_stale_temp_dirs_of_dead_processes_are_cleaned_only_those(tmp_path: Path) -> None:
    data = write_items(tmp_path / "d.jsonl", letter_pairs(5))
    parent = tmp_path / "runs"
    parent.mkdir()
    dead = _dead_pid()
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        for name in (f".a.tmp-{dead}", f".b.tmp-{sleeper.pid}", f".c.old-{dead}",
                     f".d.old-{dead}", ".e.tmp-notapid", ".f", f".g.tmp-{dead}"):
            (parent / name).mkdir()
            (parent / name / "summary.json").write_text(json.dumps({"from": name}))
        (parent / f".g.tmp-{dead}" / "notes.txt").write_text("another tool's file")
        (parent / f".h.tmp-{dead}").write_text("a file, not a run")
        (parent / "d").mkdir()  # d exists: its .old copy is stale
        res = _cli(["eval", str(data), "--judge", "lexical", "--out", str(parent / "new")])
        assert res.returncode == 0, res.stderr
        # dead .tmp removed; live process's .tmp kept; orphaned .old of c restored as c;
        # .old of d (d present) removed; names not of the pattern, and matching entries that
        # are not simjudge output (g holds a .txt, h is a file), untouched
        assert _hidden(parent) == [f".b.tmp-{sleeper.pid}", ".e.tmp-notapid", ".f",
                                   f".g.tmp-{dead}", f".h.tmp-{dead}"]
        assert json.loads((parent / "c" / "summary.json").read_text()) == {
            "from": f".c.old-{dead}"}
        assert sorted(p.name for p in parent.iterdir() if not p.name.startswith(".")) == [
            "c", "d", "new"]
    finally:
        sleeper.kill()
        sleeper.wait()


def _kill_at_rename(args: list[str], parent: Path, name: str, overwrite: bool) -> int:
    """Start the CLI with the pause hook, SIGKILL it once it sits right before renaming the
    new run into place; returns its pid."""
    env = {**ENV, "SIMJUDGE_TEST_PAUSE_BEFORE_RENAME_S": "60"}
    proc = subprocess.Popen([*CLI, *args], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    tmp = parent / f".{name}.tmp-{proc.pid}"
    old = parent / f".{name}.old-{proc.pid}"
    deadline = time.time() + 60
    while time.time() < deadline and not (
            tmp.exists() and (tmp / "summary.json").exists() and (not overwrite or old.exists())):
        time.sleep(0.05)
    time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert tmp.is_dir() and (old.is_dir() if overwrite else not old.exists())
    return proc.pid


def test_overwrite_killed_between_renames_keeps_the_old_run(tmp_path: Path) -> None:
    old_data = write_items(tmp_path / "old.jsonl", letter_pairs(5))
    new_data = write_items(tmp_path / "new.jsonl", letter_pairs(9))
    parent = tmp_path / "runs"
    run = parent / "run"
    res = _cli(["eval", str(old_data), "--judge", "lexical", "--out", str(run)])
    assert res.returncode == 0, res.stderr
    before = (run / "summary.json").read_bytes()
    args = ["eval", str(new_data), "--judge", "lexical", "--out", str(run), "--overwrite"]
    pid = _kill_at_rename(args, parent, "run", overwrite=True)
    # the state a kill between the two renames leaves: no run, the old one hidden aside
    assert not run.exists() and _hidden(parent) == [f".run.old-{pid}", f".run.tmp-{pid}"]
    # the next run into the same parent restores the old run and removes the temp dir
    res = _cli(["eval", str(new_data), "--judge", "lexical", "--out", str(parent / "other")])
    assert res.returncode == 0, res.stderr
    assert (run / "summary.json").read_bytes() == before and _hidden(parent) == []
    # and a completed --overwrite replaces it, leaving nothing hidden
    res = _cli(args)
    assert res.returncode == 0, res.stderr
    assert _summary(run)["n_items"] == 9 and _hidden(parent) == []


def test_run_killed_before_its_rename_leaves_temp_dir_cleaned_by_rerun(tmp_path: Path) -> None:
    data = write_items(tmp_path / "d.jsonl", letter_pairs(5))
    parent = tmp_path / "runs"
    args = ["eval", str(data), "--judge", "lexical", "--out", str(parent / "run")]
    pid = _kill_at_rename(args, parent, "run", overwrite=False)
    assert not (parent / "run").exists() and _hidden(parent) == [f".run.tmp-{pid}"]
    res = _cli(args)  # the same --out, without --overwrite: nothing is in the way
    assert res.returncode == 0, res.stderr
    assert _summary(parent / "run")["n_items"] == 5 and _hidden(parent) == []


# --------------------------------------------------------------- 5. two processes, one cache
def test_two_evals_on_one_cache_pay_once_per_pair(tmp_path: Path) -> None:
    # one eval in a process of its own, one in this process (the cross-process leases are
    # what is tested), started once the first has sent its first request: no race against an
    # interpreter's start-up. At 0.1 s a call and 8 at a time, the first alone would need
    # 200 / 8 × 0.1 s = 2.5 s; the second starts judging at once.
    n = 200
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    cache_dir = tmp_path / "cache"
    with FakeOpenAIServer(FakeServerConfig(latency_s=0.1)) as srv:
        args = _llm_args(data, srv, cache_dir, "--concurrency", "8")
        # no --out: both write default run directories under tmp_path/runs in the same second
        proc = subprocess.Popen([*CLI, *args], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not srv.log and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        here = _cli(args, cwd=tmp_path)
        out = proc.communicate(timeout=300)
        requests = _chat_requests(srv)
    assert [proc.returncode, here.returncode] == [0, 0], (out, here.stderr)
    runs = sorted((tmp_path / "runs").iterdir())
    assert len(runs) == 2  # distinct default names
    a, b = (_summary(r) for r in runs)
    # each distinct pair reached the server exactly once, shared between the two processes
    assert len(requests) == n and len(set(requests)) == n
    assert a["judge_calls"] + b["judge_calls"] == n and a["cache_hits"] + b["cache_hits"] == n
    assert a["judge_calls"] > 0 and b["judge_calls"] > 0  # they really ran concurrently
    assert a["metrics"] == b["metrics"] and a["outcomes"] == b["outcomes"]
    print(f"server requests {len(requests)} for {n} pairs; judge_calls "
          f"{a['judge_calls']} + {b['judge_calls']}")


class _SlowAfterFirst(FakeOpenAIServer):
    """The fake server, answering every request after the first ``slow_s`` late (the CLI sends
    its first call alone, to stop early on a dead endpoint); ``seen`` counts requests."""

    slow_s = 30.0
    seen = 0

    async def _answer(self, path, body):  # type: ignore[no-untyped-def]
        self.seen += 1
        if self.seen > 1:
            await asyncio.sleep(self.slow_s)
        return await super()._answer(path, body)


def test_leases_of_a_killed_process_do_not_stall_the_next(tmp_path: Path) -> None:
    n = 16
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    cache_dir = tmp_path / "cache"
    with _SlowAfterFirst() as srv:
        args = _llm_args(data, srv, cache_dir, "--concurrency", "16")
        proc = subprocess.Popen([*CLI, *args, "--out", str(tmp_path / "r1")], cwd=REPO,
                                env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while srv.seen < n and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)  # dies holding 15 leases (lease TTL 30 s)
        proc.wait()
        assert JudgeCache(cache_dir).stats()["entries"] == 1  # the first answer only
        with diskcache.Cache(str(cache_dir / "leases")) as leases:
            held = [leases.get(k, expire_time=True) for k in leases.iterkeys()]
        assert len(held) == n - 1 and {h["pid"] for h, _ in held} == {proc.pid}
        lapse = min(t for _, t in held)  # when the first would expire (time.time())
        srv.slow_s = 0.0
        srv.log.clear()
        res = _cli([*args, "--out", str(tmp_path / "r2")])
        done = time.time()
    assert res.returncode == 0, res.stderr
    s = _summary(tmp_path / "r2")
    assert s["judge_calls"] == n - 1 and s["cache_hits"] == 1
    assert len(_chat_requests(srv)) == n - 1
    # the dead holder is seen at once: the rerun was done while its leases were still live,
    # not after their 30 s TTL (an event, not a wall-time bound)
    assert done < lapse, (done, lapse)
