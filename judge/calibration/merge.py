"""``simjudge labels merge A.jsonl B.jsonl …``: several reviewers' labels of judged pairs in one
labels file, with their agreement (Krippendorff's α) and the pairs they disagree on.

Inputs are the JSONL files the audit page exports (one row per reviewed pair: ``id``, ``pred``,
``truth``, ``label`` 0/1, and since provenance was added ``reviewer``, ``reviewed_at``,
``note``, ``blind``) or any labels file with ``pred``, ``truth`` and a numeric ``label``. A pair
is identified by ``(id, pred, truth)`` — the item id when the rows carry one — never by its
position in a file. A row's reviewer is its ``reviewer`` field, else its file's name; when one
reviewer labelled a pair twice, the later row counts (by ``reviewed_at`` when both have one,
else by file order) and the earlier one is reported as superseded.

Output: one row per pair with ``label`` = the list of the reviewers' labels (the
several-annotator form ``simjudge calibrate`` and ``leaderboard`` read: majority rule, and a
``humans`` reference row), ``reviewers``, ``notes``, ``reviewed_at`` and ``blind`` (true: labelled
on a blind page; null: not recorded) in the same order. A merged file read again keeps them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import io
from judge.calibration.labelevents import effective
from judge.calibration.labelsdb import LabelsDB, is_labels_db
from judge.errors import InputError
from metrics import krippendorff_alpha

PairKey = tuple[str | None, str, str]


@dataclass
class Review:
    """One reviewer's label of one pair (the row that counts)."""

    reviewer: str
    label: float
    reviewed_at: str | None
    note: str
    blind: bool | None
    where: str


@dataclass
class Merged:
    """The result of :func:`merge_labels`.

    Attributes:
        pairs: pair → reviews, in the reviewers' order.
        reviewers: the reviewers, in order of first appearance.
        alpha: Krippendorff's α (nominal) over the pairs at least two reviewers labelled; NaN
            when undefined (one reviewer, no shared pair, or every label equal).
        disagreements: the pairs whose reviewers gave different labels.
        superseded: rows replaced by a later row of the same reviewer, as ``file:line``.
    """

    pairs: dict[PairKey, list[Review]]
    reviewers: list[str]
    alpha: float
    disagreements: list[PairKey] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        """The merged labels file's rows (see the module docstring)."""
        out = []
        for (iid, pred, truth), reviews in self.pairs.items():
            row: dict[str, Any] = {"pred": pred, "truth": truth} if iid is None else {
                "id": iid, "pred": pred, "truth": truth}
            row.update({"label": [_plain(r.label) for r in reviews],
                        "reviewers": [r.reviewer for r in reviews],
                        "reviewed_at": [r.reviewed_at for r in reviews],
                        "notes": [r.note for r in reviews],
                        "blind": [r.blind for r in reviews]})
            out.append(row)
        return out


def _plain(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _label(rec: io.Record) -> float:
    raw = io.get_field(rec, "label")
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, str):
        try:
            raw = float(raw)
        except ValueError:
            raise rec.error(f"expected a number, got {raw!r}", "label") from None
    if not isinstance(raw, (int, float)) or not math.isfinite(raw):
        raise rec.error(f"expected one number (0/1 or a grade), got {raw!r}", "label")
    return float(raw)


def _optional_text(rec: io.Record, name: str) -> str | None:
    value = rec.data.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise rec.error(f"expected a string, got {type(value).__name__}", name)
    return value


@dataclass
class Reviews:
    """Every reviewer's latest label of every pair in some label files (:func:`read_reviews`).

    Attributes:
        pairs: pair → reviews, in the reviewers' order.
        reviewers: in order of first appearance.
        superseded: rows replaced by a later row of the same reviewer, as ``file:line``.
    """

    pairs: dict[PairKey, list[Review]]
    reviewers: list[str]
    superseded: list[str]


def _row_reviews(rec: io.Record, path: Path) -> list[Review]:
    """The reviews one row holds: one, or — a row of a merged file, whose ``label`` is a list
    with a ``reviewers`` list beside it — one per reviewer."""
    raw = rec.data.get("label")
    if isinstance(raw, list):
        who = rec.data.get("reviewers")
        if not isinstance(who, list) or len(who) != len(raw) or not all(
                isinstance(x, str) and x for x in who):
            raise rec.error("a list of labels needs a 'reviewers' list of the same length "
                            "(a file written by 'simjudge labels merge')", "reviewers")
        times = rec.data.get("reviewed_at") or [None] * len(raw)
        notes = rec.data.get("notes") or [""] * len(raw)
        blinds = rec.data.get("blind")  # absent in files merged before it was kept
        if blinds is None:
            blinds = [None] * len(raw)
        if not isinstance(blinds, list) or len(blinds) != len(raw):
            raise rec.error("expected a list of true/false/null beside 'reviewers', of the same "
                            "length", "blind")
        out = []
        for k, (r, x) in enumerate(zip(who, raw, strict=True)):
            one = io.Record(rec.path, rec.line, {**rec.data, "label": x, "reviewer": r,
                                                 "reviewed_at": times[k] if k < len(times)
                                                 else None,
                                                 "note": notes[k] if k < len(notes) else "",
                                                 "blind": blinds[k]})
            out += _row_reviews(one, path)
        return out
    reviewer = _optional_text(rec, "reviewer") or Path(path).stem
    return [Review(reviewer, _label(rec), _optional_text(rec, "reviewed_at"),
                   _optional_text(rec, "note") or "", _blind(rec), f"{path}:{rec.line}")]


def _blind(rec: io.Record) -> bool | None:
    """A row's ``blind`` flag: true/false (a CSV/TSV cell: ``true``/``false`` in any case),
    None when absent, null or empty."""
    value = rec.data.get("blind")
    if isinstance(value, str) and value.strip().lower() in ("true", "false", ""):
        value = {"true": True, "false": False}.get(value.strip().lower())
    if value is not None and not isinstance(value, bool):
        raise rec.error(f"expected true, false or null, got {value!r}", "blind")
    return value


def _file_reviews(path: Path, superseded: list[str]) -> Iterator[tuple[PairKey, Review]]:
    """``(pair, review)`` of every row of a label file, or of every label that counts in a
    ``labels.db`` (:mod:`judge.calibration.labelsdb`: undone events left out, labels replaced
    by the same reviewer's later event added to ``superseded``)."""
    if is_labels_db(path):
        with LabelsDB(path, create=False) as db:
            events = list(db.events())
        counted = effective(events)
        undone = {e.undoes for e in events if e.action == "undo"}
        kept = {e.id for e in counted.values()}
        superseded += [f"{path}:event{e.id}" for e in events
                       if e.action == "label" and e.id not in kept and e.id not in undone]
        for e in sorted(counted.values(), key=lambda e: e.id):
            if e.action == "label":
                yield e.key, Review(e.reviewer, e.value, e.created_at, e.note, e.blind,
                                    f"{path}:event{e.id}")
        return
    for rec in io.read_records(path):
        key: PairKey = (_optional_text(rec, "id"), io.text(rec, "pred"), io.text(rec, "truth"))
        for review in _row_reviews(rec, path):
            yield key, review


def read_reviews(paths: Sequence[Path]) -> Reviews:
    """Read label files: the audit page's exports, labels files, merged files, or
    ``labels.db`` databases (``simjudge review``).

    Args:
        paths: JSONL/CSV/TSV files.

    Returns:
        :class:`Reviews` (see the module docstring for pairing and superseding).

    Raises:
        InputError: an unreadable file; a row without ``pred``, ``truth`` or a numeric
            ``label``, with a non-string ``reviewer``/``id``/``reviewed_at``/``note``, or a
            ``blind`` that is not true/false/null (a merged row: a list of them as long as
            its labels) (file, line and field named); a labels file with no label at all (an
            empty file: a mistake, never read as "no labels").
    """
    latest: dict[tuple[PairKey, str], tuple[Review, int]] = {}
    superseded: list[str] = []
    reviewers: list[str] = []
    order = 0
    for path in paths:
        before = order
        for key, review in _file_reviews(Path(path), superseded):
            order += 1
            if review.reviewer not in reviewers:
                reviewers.append(review.reviewer)
            old = latest.get((key, review.reviewer))
            if old is not None:
                newer = (review.reviewed_at > old[0].reviewed_at
                         if review.reviewed_at and old[0].reviewed_at else True)
                superseded.append(old[0].where if newer else review.where)
                if not newer:
                    continue
            latest[(key, review.reviewer)] = (review, order)
        if order == before and not is_labels_db(Path(path)):
            raise InputError("no labels in this file (it is empty)", path)
    pairs: dict[PairKey, list[Review]] = {}
    for (key, _), _ in sorted(latest.items(), key=lambda kv: kv[1][1]):
        pairs.setdefault(key, [])
    for (key, _), (review, _) in latest.items():
        pairs[key].append(review)
    rank = {r: i for i, r in enumerate(reviewers)}
    for reviews in pairs.values():
        reviews.sort(key=lambda r: rank[r.reviewer])
    return Reviews(pairs, reviewers, superseded)


def merge_labels(paths: Sequence[Path]) -> Merged:
    """Merge reviewers' label files (see the module docstring).

    Args:
        paths: two or more JSONL/CSV/TSV label files (merged files too).

    Returns:
        :class:`Merged`.

    Raises:
        InputError: fewer than two files, or as :func:`read_reviews`.
    """
    if len(paths) < 2:
        raise InputError("labels merge needs two or more files (one per reviewer or more)",
                         field="files")
    return merge_reviews(read_reviews(paths))


def merge_reviews(got: Reviews) -> Merged:
    """The merged labels of :func:`read_reviews`' result: what ``labels merge`` and ``labels
    export`` write (:meth:`Merged.rows`), with Krippendorff's α (nominal) over the pairs two or
    more reviewers labelled and the pairs they disagree on."""
    pairs, reviewers = got.pairs, got.reviewers
    matrix = [[next((r.label for r in reviews if r.reviewer == who), math.nan)
               for reviews in pairs.values()] for who in reviewers]
    alpha = krippendorff_alpha(matrix, "nominal") if len(reviewers) >= 2 else math.nan
    disagreements = [k for k, reviews in pairs.items() if len({r.label for r in reviews}) > 1]
    return Merged(pairs, reviewers, float(alpha), disagreements, got.superseded)
