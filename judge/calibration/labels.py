"""Reading human-labelled pairs for τ calibration.

A labels file (JSONL, CSV or TSV) has one row per pair — or per pair and annotator — with the
two sides (``--pred-field``/``--truth-field``, default ``pred``/``truth``) and a label
(``--label-field``, default ``label``):

* binary: 0/1, true/false, T/F, yes/no;
* graded: any numbers (e.g. a 0–4 similarity rating); binarised at ``positive_threshold``
  (label ≥ threshold is positive) for precision/recall/F1, kept raw for correlations.

A pair is its two strings — and its item's ``id`` when the row carries one: two items with the
same strings are two labelled pairs (a judge still scores their text once). Several annotators
per pair: a list in the label cell (``[1, 0, 1]``) and/or repeated rows of the same pair.
Binary labels are aggregated by majority (a tie is negative: a pair counts as "the same" only
when most annotators say so); graded labels by their mean. Inter-annotator agreement is
Krippendorff's α (nominal for binary labels, interval for graded ones).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from judge import io
from judge.errors import InputError
from judge.io import Record
from metrics import krippendorff_alpha

ID_FIELD = "id"
"""The field naming a row's item (as in the audit page's exports and ``labels merge``)."""
_TRUE = {"1", "true", "t", "yes", "y"}
_FALSE = {"0", "false", "f", "no", "n"}


@dataclass(frozen=True)
class LabelledPair:
    """One labelled pair.

    Attributes:
        pred, truth: the two strings.
        value: aggregated label: majority share of positives (binary) or mean grade (graded).
        positive: the binarised label.
        annotations: the individual annotations (1.0/0.0 for binary labels).
        source: ``FILE:LINE`` of the first row of this pair.
        item_id: the rows' ``id`` (their item), None when they carry none.
        annotators: who gave each annotation, in the order of ``annotations`` (a row's
            ``reviewer``, or the ``reviewers`` list beside a list of labels, as ``labels
            merge`` and a ``labels.db`` write them); None when any annotation is unnamed.
    """

    pred: str
    truth: str
    value: float
    positive: bool
    annotations: tuple[float, ...]
    source: str
    item_id: str | None = None
    annotators: tuple[str, ...] | None = None


@dataclass(frozen=True)
class LabelSet:
    """All labelled pairs of a file.

    Attributes:
        pairs: the pairs, in first-seen order.
        graded: True when any label is a number other than 0/1.
        positive_threshold: the binarisation threshold used (None for plain majority).
        alpha: inter-annotator Krippendorff's α, None when no pair has two annotations.
        path, sha256: the file.
        rows: rows read (after ``--where``); more than ``len(pairs)`` when pairs repeat.
    """

    pairs: list[LabelledPair]
    graded: bool
    positive_threshold: float | None
    alpha: float | None
    path: str
    sha256: str
    rows: int = 0

    @property
    def positives(self) -> int:
        """Number of positive pairs."""
        return sum(p.positive for p in self.pairs)

    @property
    def max_annotators(self) -> int:
        """Most annotations on one pair."""
        return max(len(p.annotations) for p in self.pairs)

    @property
    def min_annotators(self) -> int:
        """Fewest annotations on one pair."""
        return min(len(p.annotations) for p in self.pairs)

    @property
    def annotations(self) -> int:
        """Annotations read in all (a list in a cell counts each of its elements)."""
        return sum(len(p.annotations) for p in self.pairs)

    def describe(self) -> str:
        """One line saying how rows became labelled pairs, e.g. ``labels: 120 rows → 40 pairs
        (18 positive), 3 annotations per pair merged by majority (a tie is negative);
        inter-annotator Krippendorff's α (nominal) 0.712``."""
        lo, hi = self.min_annotators, self.max_annotators
        per = f"{lo}" if lo == hi else f"{lo}–{hi}"
        noun = "annotation" if hi == 1 else "annotations"
        if self.graded:
            rule = f"mean (positive when ≥ {self.positive_threshold:g})"
        elif self.positive_threshold is not None:
            rule = f"share of positive annotations (positive when ≥ {self.positive_threshold:g})"
        else:
            rule = "majority (a tie is negative)"
        text = (f"labels: {self.rows} rows → {len(self.pairs)} pairs ({self.positives} "
                f"positive), {per} {noun} per pair")
        if hi == 1:
            return text + (" (graded)" if self.graded else "")
        kind = "interval" if self.graded else "nominal"
        alpha = "undefined" if self.alpha is None or not math.isfinite(self.alpha) else (
            f"{self.alpha:.3f}")
        return (text + f" merged by {rule}; inter-annotator Krippendorff's α ({kind}) "
                f"{alpha}")


def _one_label(rec: Record, field: str, v: Any) -> tuple[float, bool]:
    """(value, is_boolean_like) of one annotation."""
    if isinstance(v, bool):
        return float(v), True
    if isinstance(v, (int, float)):
        if not math.isfinite(v):
            raise rec.error(f"expected a finite number, got {v!r}", field)
        return float(v), v in (0, 1)
    if isinstance(v, str):
        s = v.strip().lower()
        if s in _TRUE:
            return 1.0, True
        if s in _FALSE:
            return 0.0, True
        try:
            x = float(s)
        except ValueError:
            raise rec.error(f"expected a number or a boolean label (0/1, true/false, T/F), "
                            f"got {v!r}", field) from None
        if not math.isfinite(x):
            raise rec.error(f"expected a finite number, got {v!r}", field)
        return x, x in (0.0, 1.0)
    raise rec.error(f"expected a number or a boolean label, got {type(v).__name__}", field)


def _annotators(rec: Record, raw: Any, n: int) -> list[str | None]:
    """Who gave the ``n`` annotations of a row: its ``reviewers`` list beside a list of labels,
    its ``reviewer`` beside one label; None for each annotation without a name."""
    who = rec.data.get("reviewers") if isinstance(raw, list) else [rec.data.get("reviewer")]
    if isinstance(who, list) and len(who) == n and all(isinstance(w, str) and w for w in who):
        return list(who)
    return [None] * n


def _label_records(path: Path) -> tuple[list[Record], str, float | None]:
    """``(records, sha256, stored positive threshold)`` of a labels file, or of a ``labels.db``
    (:mod:`judge.calibration.labelsdb`): its labels as ``simjudge labels export`` writes them
    (one row per pair, ``LINE`` = the row's number there), their content sha256 (the file's
    bytes change as SQLite reorganises it; the labels do not), and the grade from which a
    graded database's labels count as a match."""
    from judge.calibration.labelevents import content_sha256
    from judge.calibration.labelsdb import LabelsDB, is_labels_db

    if not is_labels_db(path):
        return io.read_records(path), io.file_sha256(path), None
    from judge.calibration.merge import merge_reviews, read_reviews

    with LabelsDB(path, create=False) as db:
        scale = db.scale
    rows = merge_reviews(read_reviews([path])).rows()
    records = [Record(str(path), n, row) for n, row in enumerate(rows, start=1)]
    return records, content_sha256(rows), scale.positive if scale.graded else None


def load_labels(path: str | Path, pred_field: str = "pred", truth_field: str = "truth",
                label_field: str = "label", positive_threshold: float | None = None,
                where: Sequence[str] = (), max_chars: int = 4096) -> LabelSet:
    """Read and aggregate a labels file: rows are grouped into pairs by ``(id, pred, truth)``
    when they carry an ``id``, else by ``(pred, truth)`` (see the module docstring).

    Args:
        path: JSONL/CSV/TSV file.
        pred_field, truth_field, label_field: field names.
        positive_threshold: binarise labels at ``value >= threshold``; required for graded
            labels; for binary labels the default is the majority rule (share > 0.5).
        where: ``FIELD=VALUE`` row filters.
        max_chars: longest pair string accepted (characters; 0 = no limit); a longer one is an
            error, never truncated (as ``simjudge eval --max-chars``).

    Raises:
        InputError: unreadable file; a missing pair side; a label that is neither a number nor
            a boolean, or an ``id`` that is a list or object (file, line and field named); a
            pair string over ``max_chars``; a ``positive_threshold`` that is not a finite number
            (NaN, ±inf: field ``positive-threshold``); graded labels without it; fewer
            than two pairs; only one class after binarising (ROC-AUC would be undefined).
    """
    if positive_threshold is not None and not math.isfinite(positive_threshold):
        raise InputError(f"--positive-threshold must be a finite number, got "
                         f"{positive_threshold}", field="positive-threshold")
    records, sha, stored_threshold = _label_records(Path(path))
    records = io.filter_records(records, io.parse_where(where))
    if positive_threshold is None:
        positive_threshold = stored_threshold
    grouped: dict[tuple[str | None, str, str], list[float]] = {}
    first: dict[tuple[str | None, str, str], Record] = {}
    names: dict[tuple[str | None, str, str], list[str | None]] = {}
    graded = False
    for rec in records:
        pair = (io.text(rec, pred_field), io.text(rec, truth_field))
        for name, side in zip((pred_field, truth_field), pair, strict=True):
            io.check_string_sizes(side, max_chars, rec.path, rec.line, name)
        # the item id joins rows of one pair (as `labels merge` does): two items with the same
        # strings are two pairs, never one pair of both items' annotations
        key = (io.record_id(rec, (ID_FIELD,)) if rec.data.get(ID_FIELD) not in (None, "")
               else None, *pair)
        raw = io.get_field(rec, label_field)
        if isinstance(raw, str) and raw.strip().startswith("["):
            raw = io.maybe_json(rec, label_field, raw)
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            raise rec.error("empty list of annotations", label_field)
        for v in values:
            x, boolean_like = _one_label(rec, label_field, v)
            graded = graded or not boolean_like
            grouped.setdefault(key, []).append(x)
        names.setdefault(key, []).extend(_annotators(rec, raw, len(values)))
        first.setdefault(key, rec)
    if len(grouped) < 2:
        raise InputError(f"need at least two labelled pairs, found {len(grouped)}", path)
    if graded and positive_threshold is None:
        raise InputError("graded labels (numbers other than 0/1) need --positive-threshold "
                         "to binarise them for precision/recall/F1", path,
                         field=label_field)
    pairs = []
    for (iid, pred, truth), anns in grouped.items():
        value = float(np.mean(anns))
        positive = value >= positive_threshold if positive_threshold is not None else value > 0.5
        rec = first[(iid, pred, truth)]
        who = names[(iid, pred, truth)]
        pairs.append(LabelledPair(pred, truth, value, bool(positive), tuple(anns),
                                  f"{rec.path}:{rec.line}", iid,
                                  None if None in who else tuple(str(w) for w in who)))
    n_pos = sum(p.positive for p in pairs)
    if n_pos in (0, len(pairs)):
        cls = "positive" if n_pos else "negative"
        raise InputError(f"every pair is {cls} after binarising; ROC-AUC and the threshold "
                         "choice are undefined with one class: add pairs of the other class"
                         + (" or change --positive-threshold" if graded else ""), path,
                         field=label_field)
    alpha = None
    width = max(len(p.annotations) for p in pairs)
    if width >= 2:
        data = np.full((width, len(pairs)), np.nan)
        for j, p in enumerate(pairs):
            data[: len(p.annotations), j] = p.annotations
        alpha = krippendorff_alpha(data, "interval" if graded else "nominal")
    return LabelSet(pairs, graded, positive_threshold, alpha, str(path), sha, len(records))
