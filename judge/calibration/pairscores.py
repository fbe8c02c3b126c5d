"""The per-pair scores a calibration keeps for the drift canary (``calibrate --check CAL
--rejudge N``, :mod:`judge.calibration.canary`), and reading them back.

Each judge's report in ``calibration.json`` holds ``pair_scores``: ``{"pairs_sha256",
"values"}`` — the judge's score of every labelled pair in the order the labels were read (None
where it gave no ``ok`` verdict), and the sha256 of those pairs as read (pred, truth and the
binarised label of each, in order). No text is stored: the canary reads the pairs again from
the labels file and refuses them when their digest differs (other labels, or other
``--where``/``--positive-threshold``/field options).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.calibration.labels import LabelSet
from judge.errors import InputError


def pairs_sha256(labels: LabelSet) -> str:
    """sha256 (hex) of the labelled pairs as read: the UTF-8 JSON array of ``[pred, truth,
    positive]`` for each pair in order (compact separators, non-ASCII kept)."""
    rows = [[p.pred, p.truth, bool(p.positive)] for p in labels.pairs]
    text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def labels_record(scores: NDArray[np.float64], labels: LabelSet) -> dict[str, Any]:
    """What a judge's report records of the labelled pairs it was calibrated on.

    Args:
        scores: the judge's score of each labelled pair, shape ``(len(labels.pairs),)``, in
            [0, 1], NaN where it gave no ``ok`` verdict.
        labels: the labelled pairs scored.

    Returns:
        ``{"labels_source": {"path", "sha256", "count"}, "pair_scores": {"pairs_sha256":
        hex, "values": [float | None, ...]}}`` (NaN written as None). ``labels_source`` is
        what ``calibrate --check LABELS`` compares (:mod:`judge.calibration.check`).
    """
    return {"labels_source": {"path": labels.path, "sha256": labels.sha256,
                              "count": len(labels.pairs)},
            "pair_scores": {"pairs_sha256": pairs_sha256(labels),
                            "values": [None if math.isnan(s) else float(s)
                                       for s in scores.tolist()]}}


def stored_pair_scores(entry: dict[str, Any], judge_id: str, path: Path,
                       labels: LabelSet) -> NDArray[np.float64]:
    """A judge's stored score of each labelled pair (NaN where it had no ``ok`` verdict),
    aligned with ``labels.pairs``.

    Args:
        entry: the judge's report in the calibration.
        judge_id: its id, for messages.
        path: the calibration file, for messages.
        labels: the labels read now, with the options given.

    Raises:
        InputError: a calibration made before per-pair scores were kept (calibrate again);
            a malformed ``pair_scores``; labels whose pairs are not those the calibration
            scored.
    """
    rec = entry.get("pair_scores")
    if rec is None:
        raise InputError(f"the calibration of {judge_id!r} keeps no per-pair scores (it was "
                         "made by an older simjudge): --rejudge compares fresh scores with "
                         "them, so run simjudge calibrate again on these labels", path,
                         field="pair_scores")
    values = rec.get("values") if isinstance(rec, dict) else None
    if (not isinstance(values, list) or not isinstance(rec.get("pairs_sha256"), str)
            or not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)
                                     and 0.0 <= v <= 1.0) for v in values)):
        raise InputError(f"judge {judge_id!r}: expected {{\"pairs_sha256\": hex, \"values\": "
                         "[score in [0, 1] or null, ...]}", path, field="pair_scores")
    if rec["pairs_sha256"] != pairs_sha256(labels) or len(values) != len(labels.pairs):
        raise InputError(f"the pairs read from {labels.path} ({len(labels.pairs)}) are not "
                         f"the {len(values)} pairs the calibration of {judge_id!r} scored: "
                         "give the labels file and the --where/--positive-threshold/field "
                         "options it was made with", path, field="pair_scores")
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
