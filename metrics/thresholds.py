"""Threshold sweep for calibrating τ against binary human labels.

DESIGN.md "Calibration": candidate thresholds are the midpoints between consecutive distinct
scores; a pair is predicted positive when its score is **strictly greater** than τ (the same
rule as :func:`metrics.fuzzy_match`); for each candidate we report the confusion counts,
precision, recall, F1, Cohen's κ, accuracy, TPR, FPR and Youden's J; the best τ maximises the
chosen objective and ties go to the **larger** τ ("宁可少说，不可说错": prefer fewer, surer
matches).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from metrics._validation import as_bool_vector, as_score_vector, check_same_length, safe_div
from metrics.agreement import kappa_from_counts

OBJECTIVES = ("f1", "kappa", "accuracy", "youden")
"""Objectives accepted by :func:`best_threshold`."""


@dataclass(frozen=True)
class ThresholdPoint:
    """Scores of the rule ``score > tau`` against the labels.

    Attributes:
        tau: the threshold (a midpoint between two consecutive distinct scores).
        tp, fp, fn, tn: confusion counts.
        precision, recall, f1, accuracy: in [0, 1] (``zero_division`` where undefined).
        kappa: Cohen's κ in [−1, 1] (NaN where undefined).
        tpr, fpr: true/false positive rates (tpr = recall).
        youden: Youden's J = TPR − FPR, in [−1, 1].
    """

    tau: float
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f1: float
    kappa: float
    accuracy: float
    tpr: float
    fpr: float
    youden: float

    def to_dict(self) -> dict[str, float | int]:
        """The fields as a plain ``dict``."""
        return asdict(self)


def candidate_thresholds(scores: Any) -> np.ndarray:
    """Midpoints between consecutive distinct values of ``scores``, ascending.

    Raises:
        ValueError: fewer than two distinct scores (no threshold separates anything).
    """
    s = as_score_vector(scores, "scores")
    u = np.unique(s)
    if u.size < 2:
        raise ValueError("scores: fewer than two distinct scores; no candidate threshold")
    return (u[:-1] + u[1:]) / 2.0


def threshold_sweep(scores: Any, labels: Any, zero_division: float = 0.0) -> list[ThresholdPoint]:
    """Evaluate every candidate threshold.

    Args:
        scores: 1-D finite judge scores, length N.
        labels: 1-D boolean (0/1) human labels, length N.
        zero_division: value for an undefined precision/recall/F1 (0.0, 1.0 or NaN).

    Returns:
        One :class:`ThresholdPoint` per candidate τ, ascending in τ.

    Raises:
        ValueError: unequal lengths, bad values, fewer than two distinct scores.
    """
    s = as_score_vector(scores, "scores")
    y = as_bool_vector(labels, "labels")
    check_same_length(s, y, "scores", "labels")
    taus = candidate_thresholds(s)
    order = np.sort(s)
    pos_scores = np.sort(s[y])
    n, n_pos = len(s), int(y.sum())
    n_neg = n - n_pos
    # number of scores strictly above each tau
    above = n - np.searchsorted(order, taus, side="right")
    tps = n_pos - np.searchsorted(pos_scores, taus, side="right")
    points = []
    for tau, a, tp in zip(taus.tolist(), above.tolist(), tps.tolist(), strict=True):
        fp = a - tp
        fn = n_pos - tp
        tn = n_neg - fp
        tpr = safe_div(tp, n_pos, zero_division)
        fpr = safe_div(fp, n_neg, zero_division)
        points.append(ThresholdPoint(
            tau=float(tau), tp=tp, fp=fp, fn=fn, tn=tn,
            precision=safe_div(tp, tp + fp, zero_division),
            recall=tpr,
            f1=safe_div(2 * tp, 2 * tp + fp + fn, zero_division),
            kappa=kappa_from_counts(tp, fp, fn, tn),
            accuracy=safe_div(tp + tn, n, zero_division),
            tpr=tpr, fpr=fpr, youden=tpr - fpr,
        ))
    return points


def best_threshold(scores: Any, labels: Any, objective: str = "f1",
                   zero_division: float = 0.0) -> ThresholdPoint:
    """The candidate τ maximising ``objective``; ties go to the larger τ.

    Args:
        scores, labels, zero_division: as in :func:`threshold_sweep`.
        objective: ``"f1"``, ``"kappa"``, ``"accuracy"`` or ``"youden"``. NaN values never win.

    Returns:
        The winning :class:`ThresholdPoint`.

    Raises:
        ValueError: unknown objective, or the errors of :func:`threshold_sweep`.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: expected one of {OBJECTIVES}, got {objective!r}")
    points = threshold_sweep(scores, labels, zero_division)
    values = np.array([getattr(p, objective) for p in points], dtype=np.float64)
    values = np.where(np.isnan(values), -np.inf, values)
    best = values.max()
    return points[int(np.flatnonzero(values == best)[-1])]
