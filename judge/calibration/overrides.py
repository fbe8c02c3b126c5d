"""Read human overrides (``simjudge eval/rescore --overrides FILE``) from label files: the audit
page's exports, labels files, ``labels merge``/``labels export`` output and ``labels.db``
databases — whatever :func:`judge.calibration.merge.read_reviews` reads — into the plain
:class:`judge.tasks.overrides.HumanOverrides` the tasks apply.

Scale: a label file's labels are 0/1 (or a score in [0, 1]) and are used as they are; a
``labels.db`` records its scale, and a grade ``g`` on ``0..top`` counts as ``g / top``. A label
file's label outside [0, 1] is refused: its scale is unknown (give the ``labels.db`` itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judge.calibration.labelsdb import LabelsDB, is_labels_db
from judge.calibration.merge import read_reviews
from judge.errors import InputError
from judge.tasks.overrides import HumanLabel, HumanOverrides


def read_overrides(paths: Sequence[Path]) -> HumanOverrides:
    """The human labels of ``paths`` by pair: each pair's score is the mean of its
    reviewers' latest labels scaled to [0, 1] (see the module docstring).

    Args:
        paths: JSONL/CSV/TSV label files or ``labels.db`` databases, in order (a reviewer's
            later label of a pair supersedes the earlier one).

    Raises:
        InputError: as :func:`~judge.calibration.merge.read_reviews`; a label file's label
            outside [0, 1] (file, line and field ``label`` named).
    """
    tops: dict[str, int] = {}
    for p in paths:
        if is_labels_db(p):
            with LabelsDB(p, create=False) as db:
                tops[str(p)] = db.scale.top
    got = read_reviews(paths)
    pairs = {}
    for key, reviews in got.pairs.items():
        scaled = []
        for r in reviews:
            path, _, line = r.where.rpartition(":")
            top = tops.get(path, 1)
            if not 0.0 <= r.label <= top:
                raise InputError(
                    f"label {r.label:g} is outside [0, 1]: --overrides reads 0/1 labels (or "
                    "scores in [0, 1]); for a graded scale give the labels.db, which records "
                    "its scale", path, int(line) if line.isdigit() else None, field="label")
            scaled.append(r.label / top)
        pairs[key] = HumanLabel(sum(scaled) / len(scaled), tuple(r.reviewer for r in reviews),
                                tuple(r.label for r in reviews), reviews[0].where)
    return HumanOverrides(pairs, [str(p) for p in paths])
