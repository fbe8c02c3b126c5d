"""Item label events in ``labels.db`` (issue 35): for one item of a run, what a reviewer accepts
— a selection item's one-to-one matches, a 1×1 item's match, a function call's correctness —
with the inclusion probability the sampling design gave the item.

They live beside the pair label events (:mod:`judge.calibration.labelsdb`) in a table of their
own, ``item_events``, with the same rules: events are only inserted (triggers refuse ``UPDATE``
and ``DELETE``), each is committed before :func:`append_item_event` returns, and a reviewer's
later event for an item supersedes the earlier (``label``; ``skip``: no label, not offered
again; ``undo``: withdraws the named event, the item falls back to that reviewer's event before
it). The table is created by the first item event, so reading a database never changes it.

Columns: reviewer, run (the run's source id, ``PATH@sha256:…`` of its record), item id,
action, truth (JSON: ``{"matches": [[PRED, TRUTH], ...]}``, ``{"match": bool}`` or
``{"correct": bool}``), the design (``uniform``, ``stratified``…), the item's stratum and
inclusion probability ``pi`` in (0, 1], UTC time, blind or not, the undone event, the simjudge
version.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

ItemAction = Literal["label", "skip", "undo"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS item_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reviewer TEXT NOT NULL CHECK (length(reviewer) > 0),
    run TEXT NOT NULL,
    item_id TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('label', 'skip', 'undo')),
    truth TEXT,
    design TEXT NOT NULL DEFAULT '',
    stratum TEXT,
    pi REAL CHECK (pi IS NULL OR (pi > 0 AND pi <= 1)),
    created_at TEXT NOT NULL,
    blind INTEGER NOT NULL CHECK (blind IN (0, 1)),
    undoes INTEGER REFERENCES item_events(id),
    simjudge_version TEXT NOT NULL,
    CHECK ((action = 'label') = (truth IS NOT NULL)),
    CHECK ((action = 'undo') = (undoes IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS item_events_run ON item_events (run, reviewer, id);
CREATE TRIGGER IF NOT EXISTS item_events_no_update BEFORE UPDATE ON item_events
BEGIN SELECT RAISE(ABORT, 'item label events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS item_events_no_delete BEFORE DELETE ON item_events
BEGIN SELECT RAISE(ABORT, 'item label events are append-only'); END;
"""


@dataclass(frozen=True)
class ItemEvent:
    """One row of ``item_events`` (see the module docstring)."""

    id: int
    reviewer: str
    run: str
    item_id: str
    action: ItemAction
    truth: dict[str, Any] | None
    design: str
    stratum: str | None
    pi: float | None
    created_at: str
    blind: bool
    undoes: int | None


def append_item_event(db: sqlite3.Connection, version: str, reviewer: str, run: str,
                      item_id: str, action: ItemAction, truth: Mapping[str, Any] | None = None,
                      design: str = "", stratum: str | None = None, pi: float | None = None,
                      blind: bool = True, undoes: int | None = None) -> ItemEvent:
    """Insert one item event and commit it before returning (the table is created first if
    the database has none yet).

    Raises:
        sqlite3.IntegrityError: a row the table's checks refuse (an empty reviewer, ``pi``
            outside (0, 1], a label without truth…).
    """
    db.executescript(SCHEMA)
    created = dt.datetime.now(dt.timezone.utc).isoformat()
    text = None if truth is None else json.dumps(dict(truth), ensure_ascii=False,
                                                 sort_keys=True)
    cur = db.execute(
        "INSERT INTO item_events (reviewer, run, item_id, action, truth, design, stratum, pi, "
        "created_at, blind, undoes, simjudge_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?)", (reviewer, run, item_id, action, text, design, stratum, pi, created, int(blind),
               undoes, version))
    return ItemEvent(int(cur.lastrowid or 0), reviewer, run, item_id, action,
                     None if text is None else json.loads(text), design, stratum, pi, created,
                     blind, undoes)


def item_events(db: sqlite3.Connection, run: str | None = None) -> list[ItemEvent]:
    """Every item event (of ``run``, a source id, when given), oldest first; [] when the
    database has no item events table."""
    has = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                     "name = 'item_events'").fetchone()
    if not has:
        return []
    rows = db.execute("SELECT id, reviewer, run, item_id, action, truth, design, stratum, pi, "
                      "created_at, blind, undoes FROM item_events"
                      + (" WHERE run = ?" if run is not None else "") + " ORDER BY id",
                      (run,) if run is not None else ()).fetchall()
    return [ItemEvent(r[0], r[1], r[2], r[3], r[4], None if r[5] is None else json.loads(r[5]),
                      r[6], r[7], r[8], r[9], bool(r[10]), r[11]) for r in rows]


def current_item_labels(events: list[ItemEvent]) -> list[ItemEvent]:
    """Each reviewer's standing ``label`` event per (run, item), in the order of the events:
    a later event supersedes an earlier one, ``skip`` leaves no label, ``undo`` withdraws the
    event it names (the item falls back to that reviewer's event before it)."""
    undone = {e.undoes for e in events if e.action == "undo"}
    standing: dict[tuple[str, str, str], ItemEvent] = {}
    for e in events:
        if e.action == "undo" or e.id in undone:
            continue
        standing[(e.run, e.reviewer, e.item_id)] = e
    return sorted((e for e in standing.values() if e.action == "label"), key=lambda e: e.id)
