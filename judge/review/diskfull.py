"""A full disk under ``labels.db``: refused at start, and a label the disk cannot take answered
with 507 and a message the page shows — never a 500 and a traceback per request.

At start ``simjudge review`` needs :data:`MIN_FREE` bytes free on the disk that holds (or will
hold) the database. While it serves, a write SQLite refuses for lack of room (``SQLITE_FULL``, or
``ENOSPC``/``EDQUOT`` from the system) is answered 507 ``{"error": DISK_FULL}``: nothing was
stored (the insert is its own transaction), the page says so and the reviewer presses the key
again once there is room. One line goes to stderr when the disk is found full, and again only
after a write succeeded in between.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

from aiohttp import web

from judge.errors import InputError

MIN_FREE = 1 << 20
"""Bytes that must be free on the database's disk for ``simjudge review`` to start (1 MiB:
about a thousand labels)."""

_SQLITE_FULL = 13  # sqlite3.SQLITE_FULL from Python 3.11

DISK_FULL = "the disk holding labels.db is full: this label was not saved"
"""The 507 reply's message (the page shows it as is)."""


def check_room(labels: Path) -> None:
    """Refuse to start when the disk of ``labels`` (or of its nearest existing folder) has
    fewer than :data:`MIN_FREE` bytes free.

    Raises:
        InputError: too little room (field ``labels``).
    """
    folder = labels if labels.is_dir() else labels.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return  # no answer: the first write will tell
    if free < MIN_FREE:
        raise InputError(f"the disk holding labels.db is full ({free:,} bytes free; review "
                         f"needs {MIN_FREE >> 20} MiB): free some space or give another "
                         "--labels", labels, field="labels")


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` is a write refused for lack of room (SQLite's ``SQLITE_FULL``, or the
    system's ``ENOSPC``/``EDQUOT``)."""
    if isinstance(exc, sqlite3.Error):
        return (getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL
                or "database or disk is full" in str(exc))
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def storage_middleware(labels: Path) -> Any:
    """The aiohttp middleware that turns a full disk into 507 ``{"error": DISK_FULL}`` with
    one line on stderr (module docstring); any other error passes through."""
    said = False

    @web.middleware
    async def middleware(request: web.Request, handler: Any) -> web.StreamResponse:
        nonlocal said
        try:
            resp = await handler(request)
        except (sqlite3.Error, OSError) as exc:
            if not is_disk_full(exc):
                raise
            if not said:
                print(f"simjudge review: the disk holding {labels} is full: labels are "
                      "refused (HTTP 507) until there is room", file=sys.stderr, flush=True)
                said = True
            return web.json_response({"error": DISK_FULL}, status=507)
        if request.method == "POST" and resp.status < 400 and not request.path.endswith(
                "/next"):  # a label or an undo was stored: the next full disk is said again
            said = False
        return resp
    return middleware
