"""Item labels: what a person accepts for one item of a run, read from a JSONL file or a labels
database and checked against the run before anything is estimated.

A JSONL line is ``{"id": ITEM_ID, <the task's truth>, "pi"?, "stratum"?, "reviewer"?,
"run_sha256"?}``; the task's truth is, for a selection item, ``"matches": [[PRED, TRUTH], ...]``
(or ``"match": true|false`` for a 1×1 item). ``pi`` is the item's inclusion probability under
the design that chose it, in (0, 1]; without it on every line, the labelled items are taken as
a simple random sample of the run's items (of each ``stratum``'s, when the lines name strata:
``pi`` = n_h/N_h).
``run_sha256`` (written by :func:`write_item_labels`) must be the run's: labels made for another
run are refused. A reviewer labels an item at most once per file; several reviewers' labels of
one item are averaged by the estimate.

From a ``labels.db`` (``simjudge review RUN --items``) the standing label events of this run's
items are read (:mod:`judge.calibration.itemevents`), each with its design's ``pi`` and stratum.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.tasks.humantruth import ItemTruth, LabelPlace

GENERIC = ("id", "pi", "stratum", "reviewer", "run_sha256", "design", "time", "blind")
"""The fields of an item label line that are not the task's truth (``design``, ``time`` and
``blind`` are what ``labels export --items`` adds for the record; the estimate ignores them)."""


@dataclass(frozen=True)
class ItemLabel:
    """One reviewer's label of one item, as read (not yet checked against the run).

    Attributes:
        item_id: the item's id.
        truth: the task's fields (``matches`` / ``match`` / ``correct``).
        reviewer: who labelled it ("" when the file does not say).
        pi: its inclusion probability in (0, 1], or None (a simple random sample).
        stratum: its stratum under a stratified design, or None.
        run_sha256: the run it was made for, or None.
        place: where it was read (file and line, or database event).
    """

    item_id: str
    truth: dict[str, Any]
    reviewer: str
    pi: float | None
    stratum: str | None
    run_sha256: str | None
    place: LabelPlace


def _pi(value: Any, place: LabelPlace) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise place.error(f"expected an inclusion probability in (0, 1], got {value!r}", "pi")
    return float(value)


def read_item_labels(path: str | Path, run_sha256: str | None = None) -> list[ItemLabel]:
    """The item labels of a JSONL file (see the module docstring) or of a ``labels.db``.

    Args:
        path: the file or database.
        run_sha256: the run the labels are for: of a database (which may hold several runs'
            item labels) only that run's are read. A file's lines are all read (and
            :func:`check_labels` refuses those made for another run).

    Raises:
        InputError: an unreadable file, malformed JSON, a line without ``id``, an id that is
            not a string or an integer, ``pi`` outside (0, 1] or given on some lines only, a
            reviewer or stratum that is not a string, an item labelled twice by one reviewer,
            no label at all (in a database: none of this run) — each naming the file, the
            line and the field.
    """
    from judge.calibration.labelsdb import is_labels_db

    if is_labels_db(path):
        return _from_db(Path(path), run_sha256)
    from judge import io

    return _checked_lines([(LabelPlace(rec.path, rec.line), rec.data)
                           for rec in io.read_records(path)], path)


def labels_from_dicts(rows: Sequence[Mapping[str, Any]], name: str = "<human>"
                      ) -> list[ItemLabel]:
    """Item labels given as dicts (the Python API: :func:`judge.api.estimate`), each as a
    JSONL line would hold it; messages name ``NAME:N`` (the dict's 1-based position).

    Raises:
        InputError: as :func:`read_item_labels`.
    """
    return _checked_lines([(LabelPlace(name, k), dict(r)) for k, r in enumerate(rows, 1)],
                          name)


def _checked_lines(lines: list[tuple[LabelPlace, dict[str, Any]]], path: str | Path
                   ) -> list[ItemLabel]:
    out: list[ItemLabel] = []
    seen: dict[tuple[str, str], int | None] = {}
    for place, d in lines:
        if "id" not in d:
            raise place.error("missing: every item label names its item", "id")
        if isinstance(d["id"], bool) or not isinstance(d["id"], (str, int)):
            raise place.error(f"expected a string or an integer, got {d['id']!r}", "id")
        for key in ("reviewer", "stratum", "run_sha256"):
            if d.get(key) is not None and not isinstance(d[key], str):
                raise place.error(f"expected a string, got {d[key]!r}", key)
        item_id, reviewer = str(d["id"]), str(d.get("reviewer") or "")
        if (item_id, reviewer) in seen:
            raise place.error(f"item {item_id!r} is labelled twice"
                              + (f" by {reviewer!r}" if reviewer else "")
                              + f" (first at line {seen[item_id, reviewer]})", "id")
        seen[item_id, reviewer] = place.line
        out.append(ItemLabel(item_id, {k: v for k, v in d.items() if k not in GENERIC},
                             reviewer, None if d.get("pi") is None else _pi(d["pi"], place),
                             d.get("stratum"), d.get("run_sha256"), place))
    if not out:
        raise InputError("no item label in the file", path)
    with_pi = [x.pi is not None for x in out]
    if any(with_pi) and not all(with_pi):
        first = out[with_pi.index(not with_pi[0])]
        raise first.place.error('"pi" is given on some lines only: give every labelled '
                                "item's inclusion probability, or none (a simple random "
                                "sample)", "pi")
    return out


def _from_db(path: Path, run_sha256: str | None) -> list[ItemLabel]:
    """The standing item labels of a labels database (of the run with ``run_sha256``, or every
    run's; checked later)."""
    return [ItemLabel(e.item_id, dict(e.truth or {}), e.reviewer, e.pi, e.stratum,
                      e.run.rpartition("@sha256:")[2] or None,
                      LabelPlace(f"{path}#item-event-{e.id}"))
            for e in _db_events(path, run_sha256)]


def _db_events(path: Path, run_sha256: str | None) -> list[Any]:
    """The standing item label events of a labels database (:func:`_from_db`)."""
    from judge.calibration.itemevents import current_item_labels
    from judge.calibration.labelsdb import LabelsDB

    with LabelsDB(path, create=False) as db:
        events = current_item_labels(db.item_events())
    if not events:
        raise InputError("the labels database holds no item label (simjudge review RUN "
                         "--items writes them)", path)
    if run_sha256:
        mine = [e for e in events if run_sha256.startswith(e.run.rpartition("@sha256:")[2])]
        if not mine:
            others = sorted({e.run.rpartition("@sha256:")[0] or e.run for e in events})
            raise InputError(f"the labels database holds item labels of other runs only "
                             f"({', '.join(others)}), none of this run (sha256 "
                             f"{run_sha256[:16]}…)", path, field="run")
        events = mine
    return events


@dataclass(frozen=True)
class CheckedLabels:
    """Item labels checked against a run.

    Attributes:
        truths: row index → one :class:`ItemTruth` per reviewer.
        pi: row index → the item's inclusion probability, or None for every item (a simple
            random sample).
        strata: row index → the item's stratum, or None for every item.
        reviewers: the reviewers named (sorted; "" for unnamed ones).
        places: row index → where its (first) label was read, for messages.
    """

    truths: dict[int, list[ItemTruth]]
    pi: dict[int, float] | None
    strata: dict[int, str] | None
    reviewers: list[str]
    places: dict[int, LabelPlace]


def check_labels(labels: Sequence[ItemLabel], ids: Sequence[str],
                 strings: Sequence[tuple[Any, Any]], task: Any, run_sha256: str | None,
                 run_name: str) -> CheckedLabels:
    """Check every label against the run's items (before any estimate; for ``eval --human``,
    before any judge call).

    Args:
        labels: as :func:`read_item_labels` read them.
        ids: the run's item ids, in order; strings: each item's (pred, truth).
        task: the run's task (:class:`judge.tasks.base.Task`): it checks each label's truth.
        run_sha256: the run's sha256 (labels naming another are refused); None before the run
            exists (``eval --human``: a label's ``run_sha256`` is then not checked).
        run_name: how messages name the run.

    Raises:
        InputError: an id that is no item of the run, a truth that does not fit its item, a
            label made for another run, reviewers of one item that disagree on its ``pi`` or
            stratum, strata given for some items only.
    """
    index = {item_id: k for k, item_id in enumerate(ids)}
    truths: dict[int, list[ItemTruth]] = {}
    places: dict[int, LabelPlace] = {}
    pi: dict[int, Any] = {}
    strata: dict[int, Any] = {}
    for lab in labels:
        if lab.run_sha256 and run_sha256 and not run_sha256.startswith(lab.run_sha256):
            raise lab.place.error(f"these labels were made for another run (sha256 "
                                  f"{lab.run_sha256[:16]}…); {run_name} is "
                                  f"{run_sha256[:16]}…", "run_sha256")
        k = index.get(lab.item_id)
        if k is None:
            raise lab.place.error(f"{lab.item_id!r} is not an item of {run_name}", "id")
        truths.setdefault(k, []).append(task.item_truth(lab.item_id, *strings[k], lab.truth,
                                                        lab.place))
        places.setdefault(k, lab.place)
        seen: dict[int, Any]
        for field, value, seen in (("pi", lab.pi, pi), ("stratum", lab.stratum, strata)):
            if value is not None and seen.setdefault(k, value) != value:
                raise lab.place.error(f"item {lab.item_id!r} has another {field} in another "
                                      f"label ({seen[k]!r}): one item, one design", field)
    if strata and len(strata) != len(truths):
        raise labels[0].place.error("strata are given for some labelled items only: name "
                                    "every labelled item's stratum, or none", "stratum")
    return CheckedLabels(truths, pi or None, strata or None,
                         sorted({lab.reviewer for lab in labels}), places)


def export_rows(path: Path, run_sha256: str | None = None
                ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The standing item labels of a ``labels.db`` as JSONL rows (``labels export --items``):
    ``{"id", <truth>, "reviewer", "pi"?, "stratum"?, "design", "run_sha256", "time",
    "blind"}`` per reviewer and item, oldest first — what :func:`read_item_labels` reads back
    (the same labels, inclusion probabilities and strata as reading the database itself).

    Args:
        path: a labels database written by ``simjudge review RUN --items``.
        run_sha256: only that run's labels (as :func:`read_item_labels`); None: every run's.

    Returns:
        ``(rows, runs)``: the rows and, per run source id (``PATH@sha256:…``), its row count.

    Raises:
        InputError: the database holds no item label.
    """
    rows: list[dict[str, Any]] = []
    runs: dict[str, int] = {}
    for e in _db_events(path, run_sha256):
        row = {"id": e.item_id, **(e.truth or {}), "reviewer": e.reviewer, "pi": e.pi,
               "stratum": e.stratum, "design": e.design or None,
               "run_sha256": e.run.rpartition("@sha256:")[2] or None, "time": e.created_at,
               "blind": e.blind}
        rows.append({k: v for k, v in row.items() if v is not None})
        runs[e.run] = runs.get(e.run, 0) + 1
    return rows, runs
