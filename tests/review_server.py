"""Helpers for the ``simjudge review`` tests: a selection run whose scores are known (a
``table:`` judge, made in-process), the server started, and plain HTTP calls to it.

The server runs in this interpreter by default: ``judge.cli.main(["review", …])`` in a daemon
thread under a :class:`~judge.review.launch.ServeControl` (the URL handed over instead of
printed, stopped without a signal), the command line the tests give unchanged. A test whose
subject is the process — SIGTERM and SIGKILL, the one URL line on stdout, the lock a killed
process drops, a private mount namespace, relative paths against its own working folder —
starts a real ``simjudge review`` subprocess (``process=True``, or a ``prefix``) and says why in
its docstring."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import shutil
import subprocess
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.review.launch import SERVE_CONTROL, ServeControl
from tests.cli_runs import CLI, ENV
from tests.clirun import CliResult, captured_streams, exit_status, run_cli

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy


def item_strings(k: int) -> tuple[list[str], list[str]]:
    """Item ``k``'s three predictions and three gold strings: prediction ``i`` and gold ``j``
    name the same thing exactly when ``i == j`` (the hand labels)."""
    return ([f"pred {k}-{i} ⟨{'αβγ'[i]}⟩" for i in range(3)],
            [f"gold {k}-{j} ⟨{'αβγ'[j]}⟩" for j in range(3)])


def cell_score(k: int, i: int, j: int) -> float:
    """The table judge's score of item ``k``'s cell (i, j): matches 0.55–0.95, non-matches
    0.30–0.70, so the classes overlap and τ is not trivial."""
    return round(0.30 + 0.05 * ((k + i + 2 * j) % 9) + (0.25 if i == j else 0.0), 2)


def is_match(pred: str, truth: str) -> bool:
    """The hand label of a pair of :func:`item_strings`: same item and same Greek letter."""
    return pred.split(" ")[1] == truth.split(" ")[1] and pred[-2] == truth[-2]


def write_items(path: Path, n_items: int) -> Path:
    """A selection JSONL file of ``n_items`` 3×3 items (:func:`item_strings`, ids ``item-K``)."""
    with path.open("w") as d:
        for k in range(n_items):
            preds, truths = item_strings(k)
            d.write(json.dumps({"id": f"item-{k}", "pred": preds, "truth": truths},
                               ensure_ascii=False) + "\n")
    return path


def write_table(path: Path, n_items: int,
                score: Callable[[int, int, int], float | None] = cell_score) -> Path:
    """A ``table:`` judge's score file for :func:`write_items`' items: ``score(k, i, j)`` for
    item ``k``'s cell (i, j), no row where it is None."""
    with path.open("w") as t:
        for k in range(n_items):
            preds, truths = item_strings(k)
            for i, p in enumerate(preds):
                for j, g in enumerate(truths):
                    s = score(k, i, j)
                    if s is not None:
                        t.write(json.dumps({"pred": p, "truth": g, "score": s},
                                           ensure_ascii=False) + "\n")
    return path


def write_table_run(tmp: Path, n_items: int = 12) -> tuple[Path, Path]:
    """``(run directory, scores table)``: a selection run of ``n_items`` 3×3 items judged by a
    ``table:`` judge with :func:`cell_score` (9 × ``n_items`` pairs, none exact)."""
    data = write_items(tmp / "items.jsonl", n_items)
    table = write_table(tmp / "scores.jsonl", n_items)
    run = tmp / "run"
    res = run_cli("eval", data, "--task", "selection", "--judge", f"table:{table}", "--out",
                  run, "--bootstrap", "0", "--cache-mode", "off")
    assert res.returncode == 0, res.stderr
    return run, table


class InProcess:
    """``simjudge ARGV`` (a ``review`` command) run by :func:`judge.cli.main` in a daemon thread
    of this interpreter, under a :class:`~judge.review.launch.ServeControl` set in that
    thread's context: the URL comes to :attr:`url` instead of stdout, :meth:`stop` ends the
    server as SIGTERM would (database closed, lock released).

    Attributes:
        url: the URL once the server listens (None before, or when it never did).
        returncode: the exit status once the command ended (0–255: ``SystemExit``'s code as a
            process would exit with it; 1 with the traceback on :attr:`stderr` for an
            uncaught exception), None while it runs.
        stdout, stderr: what the command printed until it listened or ended (the standard
            streams are the process's: after that, what the server prints goes wherever
            they point then — nothing, unless a request fails).
    """

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.url: str | None = None
        self.returncode: int | None = None
        self.stdout = self.stderr = ""
        self._settled = threading.Event()  # listening, or ended
        self._control = ServeControl(self._listening)
        self._thread = threading.Thread(target=self._run, name="simjudge review", daemon=True)

    def _listening(self, url: str) -> None:
        self.url = url
        self._settled.set()

    def _run(self) -> None:
        from judge.cli import main

        SERVE_CONTROL.set(self._control)  # this thread's context: main → serve sees it
        code = 1
        try:
            main(self.argv)
            code = 0
        except SystemExit as exc:
            code = exit_status(exc.code)
        except BaseException:  # what a process prints before it exits 1
            traceback.print_exc()
        finally:
            self.returncode = code
            self._settled.set()

    def begin(self, timeout: float) -> None:
        """Start the command and return once it listens or has ended, or after ``timeout``
        seconds (then it is stopped); meanwhile this thread waits and the standard streams
        hold what the command prints (:attr:`stdout`, :attr:`stderr`)."""
        with captured_streams(None) as (out, err):
            self._thread.start()
            settled = self._settled.wait(timeout)
        self.stdout = out.getvalue().decode("utf-8", "replace")
        self.stderr = err.getvalue().decode("utf-8", "replace")
        if not settled:
            self.stop(check=False)

    def stop(self, timeout: float = 30.0, check: bool = True) -> None:
        """Stop the server and wait (at most ``timeout`` s) for the command to end; with
        ``check``, a command that does not end or ends with a status other than 0 fails the
        test (AssertionError)."""
        self._control.stop()
        self._thread.join(timeout)
        if check:
            assert not self._thread.is_alive(), f"simjudge {shlex.join(self.argv)} did not stop"
            assert self.returncode == 0, (self.returncode, self.stderr)


@dataclass
class Server:
    """A running ``simjudge review``: in this interpreter (``command``, an :class:`InProcess`;
    ``proc`` None) or a real subprocess (``proc``)."""

    proc: subprocess.Popen[str] | None
    url: str
    token: str
    command: InProcess | None = None

    def call(self, method: str, path: str, body: Any = None, token: bool = True,
             headers: dict[str, str] | None = None, raw: bytes | None = None,
             ) -> tuple[int, Any]:
        """``(HTTP status, parsed JSON or text)`` of one request (token header by default)."""
        h = dict(headers or {})
        if token:
            h["X-Simjudge-Token"] = self.token
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            h.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, headers=h,
                                     method=method)
        try:
            with _OPENER.open(req, timeout=30) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def post(self, path: str, body: Any) -> Any:
        """POST that must succeed; its JSON."""
        status, got = self.call("POST", path, body)
        assert status == 200, (status, got)
        return got

    def label(self, reviewer: str, pair: dict[str, Any], value: int, note: str = "") -> Any:
        """Label ``pair`` (as the server sent it) and return the reply."""
        return self.post("/api/label", {"reviewer": reviewer, "index": pair["index"],
                                        "key": pair["key"], "action": "label", "value": value,
                                        "note": note})

    def stop(self) -> None:
        """Stop the server: in-process through its control (it must end, status 0); a
        subprocess by SIGTERM (then SIGKILL after 10 s)."""
        if self.command is not None:
            self.command.stop()
        elif self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def _token(url: str) -> str:
    """The review token, read from the configuration of the page at ``url``."""
    with _OPENER.open(url, timeout=30) as r:
        page = r.read().decode()
    return str(json.loads(re.search(r'id="config">(.*?)</script>', page, re.S)  # type: ignore[union-attr]
                          .group(1))["token"])


def _in_process(argv: list[str], timeout: float) -> Server:
    """``simjudge ARGV`` served in this interpreter (:class:`InProcess`), once it listens."""
    command = InProcess(argv)
    command.begin(timeout)
    if command.url is None:
        raise AssertionError(f"simjudge {shlex.join(argv)} printed no URL (exit status "
                             f"{command.returncode}): {command.stderr}")
    return Server(None, command.url.split("?")[0], _token(command.url), command)


def start(args: list[str], cwd: Path, timeout: float = 120.0, prefix: list[str] | None = None,
          process: bool = False) -> Server:
    """Start ``simjudge review ARGS --port 0`` and return once it listens; the token is read
    from the page's configuration.

    By default the server runs in this interpreter (:class:`InProcess`): it shares this
    process's working folder, so SOURCE and ``--labels`` must be absolute paths
    (AssertionError otherwise) and ``cwd`` is not used. With ``process=True``, or a
    ``prefix`` (``PREFIX… 'COMMAND'``: a shell script's last word, e.g. :func:`in_tmpfs`), it
    is a real subprocess in ``cwd``, waited for by the URL line it prints on stdout.

    Raises:
        AssertionError: the command ended, or printed no URL within ``timeout`` seconds (with
            its exit status and stderr).
    """
    if process or prefix is not None:
        return _subprocess(args, cwd, timeout, prefix)
    paths = [args[0]] + [v for k, v in itertools.pairwise(args) if k == "--labels"]
    assert all(Path(p).is_absolute() for p in paths), (
        f"an in-process server shares this process's working folder: give absolute paths "
        f"(or process=True), not {paths}")
    return _in_process(["review", *args, "--port", "0"], timeout)


def _subprocess(args: list[str], cwd: Path, timeout: float, prefix: list[str] | None
                ) -> Server:
    """``simjudge review ARGS --port 0`` as a real subprocess (see :func:`start`)."""
    command = [*CLI, "review", *args, "--port", "0"]
    if prefix is not None:
        command = [*prefix[:-1], prefix[-1] + " exec " + shlex.join(command)]
    proc = subprocess.Popen(command, cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    url = None
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.match(r"(http://\S+)", line.strip())
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        err = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"simjudge review printed no URL: {err}")
    return Server(proc, url.split("?")[0], _token(url))


def review_exits(*args: str, timeout: float = 120.0) -> CliResult:
    """``simjudge review ARGS`` expected to end by itself before serving (refused input), run
    in this interpreter (:class:`InProcess`): its exit status and what it printed. One that
    serves instead is stopped and reported as status 0 with its URL on stdout, so the test's
    check of the status fails; one still running after ``timeout`` s is stopped, status None
    (-1 here)."""
    command = InProcess(["review", *args])
    command.begin(timeout)
    if command.url is not None:
        command.stop(check=False)
        return CliResult(command.argv, 0, command.stdout + command.url + "\n", command.stderr)
    code = -1 if command.returncode is None else command.returncode
    return CliResult(command.argv, code, command.stdout, command.stderr)


def free_port() -> int:
    """A TCP port free on loopback now (for a server that must come back on the same port)."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def serve_on(run: Path, db: Path, port: int, *more: str) -> Server:
    """``simjudge review RUN --labels DB --port PORT MORE…`` on a fixed port (a restart must
    keep the page's URL), in this interpreter (paths absolute); returns once it listens."""
    assert run.is_absolute() and db.is_absolute(), (run, db)
    return _in_process(["review", str(run), "--labels", str(db), "--port", str(port), *more],
                       120.0)


def stop(server: Server) -> None:
    """Stop a server started by :func:`serve_on` (:meth:`Server.stop`) and wait for it."""
    server.stop()


def mount_namespace_reason() -> str | None:
    """None when this process can make private mounts (``unshare -m`` + ``mount``, as root),
    else why not (as tests/judge/test_runs_disk.py)."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare/mount not installed"
    res = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                          "mount -t tmpfs -o size=64k tmpfs /mnt && touch /mnt/x"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        return f"cannot create a private mount namespace here: {res.stderr.strip()[:200]}"
    return None


def in_tmpfs(mnt: Path, size: str) -> list[str]:
    """The prefix of :func:`start` that runs the server in a private mount namespace with a
    ``size`` tmpfs at ``mnt`` (seen from outside as ``/proc/PID/root/MNT``; it vanishes with
    the server)."""
    mnt.mkdir(parents=True, exist_ok=True)
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            f"mount -t tmpfs -o size={size} tmpfs {shlex.quote(str(mnt))} &&"]


def fill(path: Path) -> int:
    """Write ``path`` until its disk is full (ENOSPC); the bytes written."""
    import errno

    n = 0
    with open(path, "wb", buffering=0) as fh:
        for chunk in (1 << 16, 1 << 12, 1 << 8, 1):
            try:
                while True:
                    n += fh.write(b"\0" * chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    return n
