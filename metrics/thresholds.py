"""Threshold sweep for calibrating τ against binary human labels.

Rules: candidate thresholds are the midpoints between consecutive distinct
scores; a pair is predicted positive when its score is **strictly greater** than τ (the same
rule as :func:`metrics.fuzzy_match`); for each candidate we report the confusion counts,
precision, recall, F1, Cohen's κ, accuracy, TPR, FPR and Youden's J; the best τ maximises the
chosen objective and ties go to the **larger** τ (prefer fewer, surer matches). Youden's J is
Youden (1950); κ is Cohen (1960). Midpoints reach every distinct operating point of the rule
``score > τ`` exactly once, and never sit on a score.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

import numpy as np

from metrics._validation import (
    as_bool_vector,
    as_score_vector,
    as_weight_vector,
    check_same_length,
)

Objective = Literal["f1", "kappa", "accuracy", "youden"]
"""What a threshold sweep maximises."""
OBJECTIVES: tuple[str, ...] = get_args(Objective)
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

    Examples:
        >>> [round(float(t), 4) for t in candidate_thresholds([0.8, 0.2, 0.4, 0.4])]
        [0.3, 0.6]
    """
    s = as_score_vector(scores, "scores")
    u = np.unique(s)
    if u.size < 2:
        raise ValueError("scores: fewer than two distinct scores; no candidate threshold")
    return (u[:-1] + u[1:]) / 2.0


def sweep_arrays(scores: Any, labels: Any, zero_division: float = 0.0,
                 weights: Any = None) -> dict[str, np.ndarray]:
    """Vectorised sweep: every :class:`ThresholdPoint` field as an array over candidate τs.

    Args, Raises: as :func:`threshold_sweep`, and:
        weights: optional per-pair weights (finite, >= 0, same length as ``scores``): each pair
            counts ``weights[i]`` times in the confusion counts — the inverse-probability
            (Horvitz–Thompson) weights ``N_h / n_h`` of a stratified sample estimate the
            population's counts (Cochran 1977, *Sampling Techniques*, ch. 5). The counts are
            then floats; candidate τs are still the midpoints of the sample's scores. Integer
            weights give the sweep of the data with each pair repeated that many times.

    Returns:
        ``{"tau", "tp", "fp", "fn", "tn", "precision", "recall", "f1", "kappa", "accuracy",
        "tpr", "fpr", "youden"}`` → arrays of equal length, ascending in τ.

    Raises:
        ValueError: also for weights of another length, negative, NaN or infinite, or summing
            to 0.
    """
    s = as_score_vector(scores, "scores")
    y = as_bool_vector(labels, "labels")
    check_same_length(s, y, "scores", "labels")
    taus = candidate_thresholds(s)
    n: float
    n_pos: float
    above: np.ndarray
    tp: np.ndarray
    if weights is None:
        n, n_pos = len(s), int(y.sum())
        above = n - np.searchsorted(np.sort(s), taus, side="right")  # scores strictly above τ
        tp = n_pos - np.searchsorted(np.sort(s[y]), taus, side="right")
    else:
        w = as_weight_vector(weights, s)
        order = np.argsort(s, kind="stable")
        at = np.searchsorted(s[order], taus, side="right")  # pairs with score <= τ
        cum = np.concatenate(([0.0], np.cumsum(w[order])))
        cum_pos = np.concatenate(([0.0], np.cumsum((w * y)[order])))
        n, n_pos = float(cum[-1]), float(cum_pos[-1])
        above, tp = n - cum[at], n_pos - cum_pos[at]
    fp = above - tp
    fn = n_pos - tp
    tn = (n - n_pos) - fp
    return {"tau": taus, **rates_from_counts(tp, fp, fn, tn, zero_division, n=n, n_pos=n_pos)}


def rates_from_counts(tp: Any, fp: Any, fn: Any, tn: Any, zero_division: float = 0.0,
                      n: Any = None, n_pos: Any = None) -> dict[str, np.ndarray]:
    """Every rate of :class:`ThresholdPoint` from confusion counts, element-wise over arrays of
    any (broadcastable) shape — one row of a sweep, or a matrix of sweeps (e.g. one per
    bootstrap resample, counts possibly weighted floats).

    Args:
        tp, fp, fn, tn: confusion counts (>= 0), ints or floats.
        zero_division: value of an undefined precision, recall or F1 (0.0, 1.0 or NaN).
        n, n_pos: the totals when already known (default ``tp + fp + fn + tn`` and
            ``tp + fn``), broadcastable against the counts.

    Returns:
        ``{"tp", "fp", "fn", "tn", "precision", "recall", "f1", "kappa", "accuracy", "tpr",
        "fpr", "youden"}`` → arrays of the counts' broadcast shape; κ is NaN where its chance
        agreement is 1 (Cohen 1960), F1 = 2TP / (2TP + FP + FN).

    Examples:
        The point τ = 0.3 of :func:`threshold_sweep`'s example, and a second row at once:

        >>> r = rates_from_counts(np.array([2, 1]), np.array([1, 0]), np.array([0, 1]),
        ...                       np.array([1, 2]))
        >>> [round(float(x), 4) for x in r["f1"]], [float(x) for x in r["accuracy"]]
        ([0.8, 0.6667], [0.75, 0.75])
    """
    return {name: rate_from_counts(name, tp, fp, fn, tn, zero_division, n, n_pos)
            for name in RATES}


RATES = ("tp", "fp", "fn", "tn", "precision", "recall", "f1", "kappa", "accuracy", "tpr",
         "fpr", "youden")
"""The names :func:`rates_from_counts` returns."""


def rate_from_counts(name: str, tp: Any, fp: Any, fn: Any, tn: Any,
                     zero_division: float = 0.0, n: Any = None, n_pos: Any = None
                     ) -> np.ndarray:
    """One rate of :func:`rates_from_counts`, computing only it (a bootstrap's matrix of
    sweeps needs its objective alone).

    Args:
        name: one of :data:`RATES`.
        tp, fp, fn, tn, zero_division, n, n_pos: as :func:`rates_from_counts`.

    Returns:
        An array of the counts' broadcast shape (floats, the counts as given).

    Raises:
        ValueError: an unknown name.

    Examples:
        >>> round(float(rate_from_counts("f1", 2, 1, 0, 1)), 4)
        0.8
    """
    tp, fp, fn, tn = np.broadcast_arrays(*(np.asarray(x) for x in (tp, fp, fn, tn)))
    counts = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    if name in counts:
        return counts[name]
    if n is None:
        n = tp + fp + fn + tn
    if n_pos is None:
        n_pos = tp + fn

    def ratio(num: Any, den: Any) -> np.ndarray:
        num_arr = np.asarray(num, dtype=np.float64)
        den_arr = np.broadcast_to(np.asarray(den, dtype=np.float64), num_arr.shape)
        out = np.full(num_arr.shape, float(zero_division))
        np.divide(num_arr, den_arr, out=out, where=den_arr > 0)
        return out

    if name == "precision":
        return ratio(tp, tp + fp)
    if name in ("recall", "tpr"):
        return ratio(tp, n_pos)
    if name == "fpr":
        return ratio(fp, n - n_pos)
    if name == "youden":
        return ratio(tp, n_pos) - ratio(fp, n - n_pos)
    if name == "f1":
        return ratio(2.0 * tp, 2 * tp + fp + fn)
    if name == "accuracy":
        return ratio(tp + tn, n)
    if name == "kappa":
        with np.errstate(divide="ignore", invalid="ignore"):
            po = (tp + tn) / n
            pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
            return np.asarray(np.where(pe < 1.0, (po - pe) / (1.0 - pe), np.nan))
    raise ValueError(f"unknown rate {name!r}; expected one of {RATES}")


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

    Examples:
        Scores 0.2, 0.4, 0.6, 0.8 with labels 0, 1, 0, 1. At τ = 0.3 three are predicted
        positive (TP 2, FP 1): P = 2/3, R = 1, F1 = 0.8; at τ = 0.7 only 0.8 is (TP 1):
        P = 1, R = 1/2, F1 = 2/3.

        >>> pts = threshold_sweep([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1])
        >>> [(round(p.tau, 4), p.tp, p.fp, round(p.f1, 4)) for p in pts]
        [(0.3, 2, 1, 0.8), (0.5, 1, 1, 0.5), (0.7, 1, 0, 0.6667)]
    """
    a = sweep_arrays(scores, labels, zero_division)
    return [_point(a, i) for i in range(len(a["tau"]))]


def _point(a: dict[str, np.ndarray], i: int) -> ThresholdPoint:
    return ThresholdPoint(
        tau=float(a["tau"][i]), tp=int(a["tp"][i]), fp=int(a["fp"][i]), fn=int(a["fn"][i]),
        tn=int(a["tn"][i]), precision=float(a["precision"][i]), recall=float(a["recall"][i]),
        f1=float(a["f1"][i]), kappa=float(a["kappa"][i]), accuracy=float(a["accuracy"][i]),
        tpr=float(a["tpr"][i]), fpr=float(a["fpr"][i]), youden=float(a["youden"][i]))


def best_index(values: np.ndarray) -> int:
    """Index of the maximum, NaN never winning, ties to the **last** (largest τ) index.

    Raises:
        ValueError: every value is NaN.

    Examples:
        >>> import numpy as np
        >>> best_index(np.array([0.5, np.nan, 0.7, 0.7]))
        3
    """
    v = np.where(np.isnan(values), -np.inf, values)
    if np.all(v == -np.inf):
        raise ValueError("objective: undefined at every candidate threshold")
    return int(np.flatnonzero(v == v.max())[-1])


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

    Examples:
        With the data of :func:`threshold_sweep`'s example, F1 peaks at τ = 0.3; accuracy is
        3/4 at both τ = 0.3 and τ = 0.7, and the tie goes to the larger τ.

        >>> round(best_threshold([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1]).tau, 4)
        0.3
        >>> p = best_threshold([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1], objective="accuracy")
        >>> round(p.tau, 4), p.accuracy
        (0.7, 0.75)
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: expected one of {OBJECTIVES}, got {objective!r}")
    a = sweep_arrays(scores, labels, zero_division)
    return _point(a, best_index(a[objective]))
