"""Human labels in SQLite (``labels.db``): an append-only table of label events.

``simjudge review`` writes here; ``simjudge calibrate``, ``leaderboard`` and ``labels merge``
read a ``labels.db`` wherever they read a labels file, and ``simjudge labels export`` writes the
same rows ``labels merge`` writes (:func:`judge.calibration.merge.merge_reviews`).

A label is an **event** (DESIGN.md, "Labels, calibration and the review loop"): reviewer, pair
key (item id, prediction, gold), action, binary label, optional grade, note, UTC time, whether
the reviewer saw the judge's output (``blind``), what was shown, the review source and the
simjudge version. Events are only ever inserted — triggers refuse ``UPDATE`` and ``DELETE`` —
and a reviewer's later event for a pair supersedes the earlier one:

* ``label``: the reviewer's label of the pair (``label`` 0/1; ``grade`` on a graded scale);
* ``skip``: the reviewer passed on the pair (it counts as no label, and is not offered to that
  reviewer again);
* ``undo``: withdraws the event named in ``undoes`` (a ``label`` or ``skip`` of the same
  reviewer); the pair's state falls back to that reviewer's event before it, if any.

The database runs in WAL mode with ``synchronous=FULL``, and :meth:`LabelsDB.append` commits
before it returns, so a label acknowledged to the browser survives a ``kill -9`` of the server
(and a power cut). Several processes may read it while one writes. The scale of the labels
(``binary`` or a graded ``0-5``) and the grade at which a pair counts as a match are fixed when
the database is created (table ``meta``); a later session with another scale is refused.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judge.calibration.itemevents import ItemAction, ItemEvent
from judge.calibration.labelevents import Action, Event, PairKey, Scale
from judge.errors import InputError

SCHEMA_VERSION = 1
"""Version of the ``labels.db`` schema (table ``meta``, key ``schema_version``)."""

_MAGIC = b"SQLite format 3\x00"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reviewer TEXT NOT NULL CHECK (length(reviewer) > 0),
    item_id TEXT,
    pred TEXT NOT NULL,
    truth TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('label', 'skip', 'undo')),
    label INTEGER CHECK (label IN (0, 1)),
    grade REAL,
    note TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    blind INTEGER NOT NULL CHECK (blind IN (0, 1)),
    shown TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL DEFAULT '',
    undoes INTEGER REFERENCES events(id),
    simjudge_version TEXT NOT NULL,
    CHECK ((action = 'label') = (label IS NOT NULL)),
    CHECK ((action = 'undo') = (undoes IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS events_reviewer ON events (reviewer, id);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'label events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'label events are append-only'); END;
"""


def is_labels_db(path: str | Path) -> bool:
    """Whether ``path`` is an SQLite file (by its 16-byte header; a labels DB or not)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == _MAGIC
    except OSError:
        return False


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat()


class LabelsDB:
    """An open ``labels.db`` (see the module docstring).

    Args:
        path: the database file; created (with its folder) unless ``create`` is False.
        scale: the scale of this session's labels: recorded when the database is new; refused
            when the database holds another (None = read whatever it holds).
        create: create a missing database (``simjudge review``); False to read only an existing
            one (``calibrate``, ``labels export``).

    Raises:
        InputError: not an SQLite file, an SQLite file that is not a simjudge labels database,
            a newer schema, another scale than ``scale``, or a missing file with ``create``
            False.
    """

    def __init__(self, path: str | Path, scale: Scale | None = None, create: bool = True):
        self.path = Path(path)
        exists = self.path.exists()
        if exists and self.path.stat().st_size and not is_labels_db(self.path):
            raise InputError("not an SQLite database (expected a labels.db written by "
                             "simjudge review)", self.path)
        if not exists and not create:
            raise InputError("no such labels database", self.path)
        if not exists:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(f"cannot create the labels database's folder: "
                                 f"{exc.strerror or exc}", self.path) from None
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0,
                                       check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            tables = {r[0] for r in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and not {"events", "meta"} <= tables:  # item_events: made when used
                raise InputError("an SQLite database without simjudge's 'events' table (not a "
                                 "labels.db written by simjudge review)", self.path)
            if not tables:
                self._db.executescript(_SCHEMA)
            self.scale = self._init_meta(scale)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"cannot open labels database: {exc}", self.path) from None

    @staticmethod
    def preflight(path: str | Path, scale: Scale | None = None) -> None:
        """Check, without creating anything, that ``path`` can be opened as this session's
        labels database: an existing one is opened (and its scale checked against ``scale``)
        and closed; for a new one the nearest existing folder above it must be a writable
        folder. ``simjudge review`` calls it before reading its source, and creates the
        database only once the source is read — bad input leaves no empty database behind.

        Raises:
            InputError: as :class:`LabelsDB`, or a path whose folder cannot be created.
        """
        p = Path(path)
        if p.exists():
            LabelsDB(p, scale, create=False).close()
            return
        parent = p.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(f"cannot create the labels database: {parent} is not a writable "
                             "folder", p)

    def _init_meta(self, scale: Scale | None) -> Scale:
        from judge.versions import version_of

        self.version = version_of("simjudge")
        """The simjudge version recorded with each event (looked up once)."""
        meta = dict(self._db.execute("SELECT key, value FROM meta"))
        if not meta:
            s = scale or Scale()
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)), ("scale", s.name),
                ("positive", repr(s.positive)), ("created_at", _now()),
                ("created_by", f"simjudge {self.version}")])
            self._db.execute("COMMIT")
            meta = dict(self._db.execute("SELECT key, value FROM meta"))
        version = int(meta.get("schema_version", "0"))
        if version > SCHEMA_VERSION:
            raise InputError(f"labels database schema {version} is newer than this simjudge "
                             f"reads ({SCHEMA_VERSION}); upgrade simjudge", self.path,
                             field="schema_version")
        stored = Scale.parse(meta["scale"], float(meta["positive"])
                             if meta["scale"] != "binary" else None)
        if scale is not None and scale != stored:
            raise InputError(f"the database holds labels on scale {stored.name} (match at grade "
                             f"≥ {stored.positive:g}); this session asks for {scale.name} (≥ "
                             f"{scale.positive:g}): use another --labels file", self.path,
                             field="scale")
        return stored

    def close(self) -> None:
        """Close the connection (every event is already committed)."""
        self._db.close()

    def __enter__(self) -> LabelsDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    def append(self, reviewer: str, key: PairKey, action: Action, label: int | None = None,
               grade: float | None = None, note: str = "", blind: bool = True,
               shown: dict[str, Any] | None = None, source: str = "",
               undoes: int | None = None) -> Event:
        """Insert one event and commit it before returning.

        Args:
            reviewer: non-empty name.
            key: ``(item id or None, pred, truth)``.
            action: ``label`` (needs ``label`` 0/1, and ``grade`` in ``0..top`` on a graded
                scale), ``skip`` or ``undo`` (needs ``undoes``).
            note, blind, shown, source: see :class:`Event`.

        Returns:
            The stored :class:`Event`.

        Raises:
            ValueError: an event the table's rules refuse (no reviewer, a label outside 0/1,
                a grade off the scale, an undo without its target); nothing is stored.
        """
        if not reviewer:
            raise ValueError("reviewer must be a non-empty string")
        if action == "label":
            if label not in (0, 1):
                raise ValueError(f"label must be 0 or 1, got {label!r}")
            if self.scale.graded:
                if grade is None or not 0 <= grade <= self.scale.top:
                    raise ValueError(f"grade must be in 0..{self.scale.top}, got {grade!r}")
            elif grade is not None:
                raise ValueError("a binary scale takes no grade")
        elif label is not None or grade is not None:
            raise ValueError(f"a {action} event carries no label")
        if (action == "undo") != (undoes is not None):
            raise ValueError("an undo names the event it withdraws, and only an undo does")
        created = _now()
        shown_json = json.dumps(shown or {}, ensure_ascii=False, sort_keys=True)
        version = self.version
        row = (reviewer, key[0], key[1], key[2], action, label, grade, note, created,
               int(blind), shown_json, source, undoes, version)
        try:
            cur = self._db.execute(
                "INSERT INTO events (reviewer, item_id, pred, truth, action, label, grade, note, "
                "created_at, blind, shown, source, undoes, simjudge_version) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
        except sqlite3.IntegrityError as exc:
            raise ValueError(f"event refused by the labels database: {exc}") from None
        # isolation_level=None: the INSERT was its own transaction, committed (and, with
        # synchronous=FULL, on disk) when execute returned
        return Event(int(cur.lastrowid or 0), reviewer, key, action, label, grade, note,
                     created, blind, shown or {}, source, undoes, version)

    # ------------------------------------------------------------------ reading
    def events(self, after: int = 0) -> Iterator[Event]:
        """Every event with ``id > after``, in insertion order."""
        cur = self._db.execute(
            "SELECT id, reviewer, item_id, pred, truth, action, label, grade, note, created_at, "
            "blind, shown, source, undoes, simjudge_version FROM events WHERE id > ? ORDER BY id",
            (after,))
        for r in cur:
            yield Event(r[0], r[1], (r[2], r[3], r[4]), r[5], r[6], r[7], r[8], r[9],
                        bool(r[10]), json.loads(r[11]), r[12], r[13], r[14])

    def count(self) -> int:
        """Number of events stored (of every action)."""
        return int(self._db.execute("SELECT count(*) FROM events").fetchone()[0])

    # ------------------------------------------------------------------ item labels
    def append_item(self, reviewer: str, run: str, item_id: str, action: ItemAction, **kw: Any
                    ) -> ItemEvent:
        """Insert one item label event and commit it before returning
        (:func:`judge.calibration.itemevents.append_item_event`; ``kw``: truth, design,
        stratum, pi, blind, undoes).

        Raises:
            ValueError: an event the table refuses (no reviewer, ``pi`` outside (0, 1], a
                label without truth); nothing is stored.
        """
        from judge.calibration.itemevents import append_item_event

        try:
            return append_item_event(self._db, self.version, reviewer, run, item_id, action,
                                     **kw)
        except sqlite3.IntegrityError as exc:
            raise ValueError(f"item event refused by the labels database: {exc}") from None

    def item_events(self, run: str | None = None) -> list[ItemEvent]:
        """Every item label event (of the run with source id ``run``), oldest first."""
        from judge.calibration.itemevents import item_events

        return item_events(self._db, run)

    def review_token(self) -> str:
        """The review server's session token, made once per database and kept in its ``meta``
        table: a server restarted on the same ``labels.db`` keeps it, so an open page goes on
        labelling (the database itself is never served)."""
        import secrets

        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('review_token', ?)",
                         (secrets.token_urlsafe(24),))
        return str(self._db.execute(
            "SELECT value FROM meta WHERE key = 'review_token'").fetchone()[0])
