"""One review server per ``labels.db``: a lock held for as long as the server runs.

Two servers on one database would each keep their own view of the labels (which pairs are
labelled, leased, which reviewer's vote counts) and offer the same pairs twice, each counting
only its own half. So ``simjudge review`` holds an exclusive ``flock`` on a lock file next to the
database (``labels.db.lock``, holding the server's PID and start time) and a second server on
the same database is refused with one line naming that PID. The operating system drops the lock
when the process ends, however it ends (``kill -9`` included): a killed server never leaves it
stuck. Several reviewers share one server (one URL); readers (``calibrate``, ``labels export``)
take no lock.

Where ``fcntl`` is missing (Windows) no lock is taken.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from judge.errors import InputError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(labels: Path) -> Path:
    """The lock file of ``labels`` (``labels.db`` → ``labels.db.lock``)."""
    return labels.with_name(labels.name + ".lock")


class ServerLock:
    """The lock of one review server on one labels database (module docstring); release it
    with :meth:`release` (or leave it to the process's end)."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path, self._fd = path, fd

    @classmethod
    def acquire(cls, labels: Path) -> ServerLock:
        """Take the lock of ``labels`` (its folder is created when missing).

        Raises:
            InputError: another live process holds it (``… is in use by PID N (started
                T)``), or the lock file cannot be created.
        """
        path = lock_path(labels)
        if fcntl is None:  # pragma: no cover - Windows
            return cls(path, None)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            for _ in range(10):
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    raise InputError(_in_use(labels, path)) from None
                with contextlib.suppress(FileNotFoundError):  # the file locked is still the
                    if os.stat(path).st_ino == os.fstat(fd).st_ino:  # one there (not removed)
                        break
                os.close(fd)
            else:
                raise InputError(f"{labels}: cannot take the lock {path}: it keeps changing")
            started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps({"pid": os.getpid(), "started": started}).encode())
        except OSError as exc:
            raise InputError(f"cannot create the lock file {path}: {exc.strerror or exc}",
                             labels) from None
        return cls(path, fd)

    @staticmethod
    def check(labels: Path) -> None:
        """Refuse early — before a pool is scored — when another server holds ``labels``;
        creates nothing (the lock itself is taken by :meth:`acquire` once listening).

        Raises:
            InputError: as :meth:`acquire`.
        """
        path = lock_path(labels)
        if fcntl is None or not path.is_file():
            return
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(_in_use(labels, path)) from None
        finally:
            os.close(fd)  # closing drops a lock taken here

    def release(self) -> None:
        """Remove the lock file, then drop the lock (a server starting meanwhile finds the
        file gone and makes its own)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None


def _in_use(labels: Path, path: Path) -> str:
    """The refusal's one line, with the holder's PID and start time when it wrote them."""
    holder: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        holder = json.loads(path.read_text(encoding="utf-8") or "{}")
    who = (f"PID {holder['pid']} (started {holder.get('started', '?')})"
           if isinstance(holder, dict) and "pid" in holder else "another process")
    return (f"{labels} is in use by {who}: another simjudge review serves it; label in that "
            "server's page (any number of reviewers may share it), stop it first, or give "
            "another --labels")
