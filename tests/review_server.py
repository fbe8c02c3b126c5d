"""Helpers for the ``simjudge review`` tests: a selection run whose scores are known (a
``table:`` judge, made in-process), the server started as a real subprocess (``simjudge review``
serves until SIGTERM: its signal handling and its one URL line are part of what is tested), and
plain HTTP calls to it."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.cli_runs import CLI, ENV
from tests.clirun import run_cli

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


@dataclass
class Server:
    """A running ``simjudge review`` subprocess."""

    proc: subprocess.Popen[str]
    url: str
    token: str

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
        """Terminate the server (SIGTERM, then SIGKILL)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def start(args: list[str], cwd: Path, timeout: float = 120.0, prefix: list[str] | None = None,
          ) -> Server:
    """Start ``simjudge review ARGS --port 0`` (run by ``PREFIX… 'COMMAND'`` when given: a
    shell script's last word) and wait for the URL it prints; the token is read from the page's
    configuration."""
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
    base = url.split("?")[0]
    with _OPENER.open(url, timeout=30) as r:
        page = r.read().decode()
    token = json.loads(re.search(r'id="config">(.*?)</script>', page, re.S).group(1))["token"]  # type: ignore[union-attr]
    return Server(proc, base, token)


def free_port() -> int:
    """A TCP port free on loopback now (for a server that must come back on the same port)."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def serve_on(run: Path, db: Path, port: int, *more: str) -> subprocess.Popen[str]:
    """``simjudge review RUN --labels DB --port PORT MORE…`` on a fixed port (a restart must
    keep the page's URL); returns once it listens."""
    proc = subprocess.Popen([*CLI, "review", str(run), "--labels", str(db), "--port",
                             str(port), *more], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = ""
    while "http://" not in line:
        line = proc.stdout.readline()
        assert line or proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    return proc


def stop(proc: subprocess.Popen[str]) -> None:
    """Stop a server started by :func:`serve_on` (SIGTERM) and wait for it."""
    proc.terminate()
    proc.wait(10)


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
