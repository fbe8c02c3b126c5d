"""Label events and what they mean, without a database: the pair key, the scale, one event, and
how a sequence of events folds into the labels that count (DESIGN.md, "Labels, calibration and
the review loop"). :mod:`judge.calibration.labelsdb` stores the events in SQLite.

* ``label``: a reviewer's label of a pair (0/1; a grade on a graded scale);
* ``skip``: the reviewer passed on the pair (no label; not offered to them again);
* ``undo``: withdraws the event named in ``undoes`` (a ``label`` or ``skip`` of the same
  reviewer); the pair's state falls back to that reviewer's event before it, if any.

A reviewer's later ``label`` or ``skip`` of a pair supersedes the earlier one.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from judge.errors import InputError

Action = Literal["label", "skip", "undo"]
PairKey = tuple[str | None, str, str]
"""``(item id or None, prediction, gold)``: the pair a label is for."""


@dataclass(frozen=True)
class Scale:
    """The labels' scale.

    Attributes:
        top: 1 for binary labels (0 = no match, 1 = match), else the top grade of a graded
            scale ``0..top`` (``--scale 0-5``: 5).
        positive: the least grade that counts as a match (binary: 1).
    """

    top: int = 1
    positive: float = 1.0

    @property
    def graded(self) -> bool:
        """Whether labels are grades (``top > 1``)."""
        return self.top > 1

    @property
    def name(self) -> str:
        """``binary`` or ``0-TOP``."""
        return "binary" if not self.graded else f"0-{self.top}"

    @classmethod
    def parse(cls, text: str, positive: float | None = None) -> Scale:
        """``binary`` or ``0-N`` (2 <= N <= 9: one key per grade) → a scale; ``positive`` (the
        least matching grade) defaults to the upper half, ``ceil(N / 2)`` (``0-5``: 3).

        Raises:
            InputError: another spelling, or ``positive`` outside ``(0, N]``.
        """
        t = text.strip().lower()
        if t == "binary":
            if positive not in (None, 1, 1.0):
                raise InputError("--positive-threshold applies to a graded --scale only",
                                 field="positive-threshold")
            return cls()
        lo, _, hi = t.partition("-")
        if lo != "0" or not hi.isdigit() or not 2 <= int(hi) <= 9:
            raise InputError(f"expected 'binary' or a graded scale '0-N' with N in 2..9, got "
                             f"{text!r}", field="scale")
        top = int(hi)
        pos = float(math.ceil(top / 2)) if positive is None else float(positive)
        if not (math.isfinite(pos) and 0 < pos <= top):
            raise InputError(f"expected a grade in (0, {top}], got {positive!r}",
                             field="positive-threshold")
        return cls(top, pos)

    def binary(self, grade: float) -> int:
        """The 0/1 label of a grade (``grade >= positive``)."""
        return int(grade >= self.positive)


@dataclass(frozen=True)
class Event:
    """One row of the ``events`` table (see the module docstring).

    Attributes:
        id: its position in the table (1-based, increasing).
        reviewer: who made it (non-empty).
        key: the pair ``(item id or None, pred, truth)``.
        action: ``label``, ``skip`` or ``undo``.
        label: 0/1 for ``label`` events, else None.
        grade: the grade on a graded scale, else None.
        note: the reviewer's note ('' for none).
        created_at: ISO 8601 UTC time (``2026-11-25T09:30:00.123456+00:00``).
        blind: whether the judge's output was withheld from the reviewer.
        shown: what the page showed (JSON object: view kind, fields, sha256 of the payload).
        source: the review source (run directory, pool or suggestions file, with its sha256).
        undoes: the event an ``undo`` withdraws.
        simjudge_version: the version of simjudge that wrote it.
    """

    id: int
    reviewer: str
    key: PairKey
    action: Action
    label: int | None
    grade: float | None
    note: str
    created_at: str
    blind: bool
    shown: dict[str, Any]
    source: str
    undoes: int | None
    simjudge_version: str

    @property
    def value(self) -> float:
        """The label as ``labels merge`` writes it: the grade on a graded scale, else 0/1."""
        return float(self.grade) if self.grade is not None else float(self.label or 0)


def effective(events: Sequence[Event]) -> dict[tuple[str, PairKey], Event]:
    """Each (reviewer, pair)'s event that counts: its latest ``label`` or ``skip`` that no
    ``undo`` withdrew, in order of that event (see the module docstring)."""
    undone = {e.undoes for e in events if e.action == "undo"}
    out: dict[tuple[str, PairKey], Event] = {}
    for e in events:
        if e.action != "undo" and e.id not in undone:
            out.pop((e.reviewer, e.key), None)  # keep insertion order = latest event's order
            out[(e.reviewer, e.key)] = e
    return out


def latest_undoable(events: Sequence[Event], reviewer: str) -> Event | None:
    """The reviewer's most recent ``label``/``skip`` event no ``undo`` withdrew (what ``u``
    withdraws), or None."""
    undone = {e.undoes for e in events if e.action == "undo"}
    for e in reversed(events):
        if e.reviewer == reviewer and e.action != "undo" and e.id not in undone:
            return e
    return None


def labelled(events: Sequence[Event]) -> dict[PairKey, list[Event]]:
    """Pair → the ``label`` events that count, one per reviewer, in order of each pair's first
    counted label (skips left out)."""
    out: dict[PairKey, list[Event]] = {}
    for (_, key), e in sorted(effective(events).items(), key=lambda kv: kv[1].id):
        if e.action == "label":
            out.setdefault(key, []).append(e)
    return out


def content_sha256(rows: Sequence[dict[str, Any]]) -> str:
    """sha256 of labels rows as canonical JSONL (sorted keys): the identity of a set of labels
    that does not change when SQLite reorganises its file."""
    h = hashlib.sha256()
    for r in rows:
        h.update(json.dumps(r, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n")
    return h.hexdigest()
