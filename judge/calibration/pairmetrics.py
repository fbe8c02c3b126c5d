"""The per-pair statistics of a judge at a fixed τ, shared by the leaderboard's judge rows and
its ``humans`` row: one row per scored pair (:func:`pair_rows`) and the metric function given to
the bootstrap (:func:`metrics_at_tau`, and :func:`replicates_at_tau` for all its resamples at
once)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.calibration.labels import LabelSet
from metrics import (
    Confusion,
    auc_replicates,
    counts_per_resample,
    gwet_ac1_from_counts,
    kappa_from_counts,
    mcc_from_counts,
    pr_auc,
    roc_auc,
    scores_from_counts,
)

METRICS = ("roc_auc", "pr_auc", "kappa", "f1", "ac1", "mcc", "tpr", "tnr")
"""The metrics with bootstrap and paired 95 % CIs."""
AT_TAU = ("kappa", "f1", "ac1", "mcc", "tpr", "tnr")
"""The metrics that need τ: left out where a judge's τ is undefined."""


def metrics_at_tau(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """ROC-AUC, PR-AUC, and at a fixed τ (a pair is "same" when score > τ) Cohen's κ, F1,
    Gwet's AC1, MCC, TPR (recall of the human positives) and TNR (of the negatives) of scored
    pairs; the metric function given to the bootstrap.

    Args:
        rows: ``{"score": float, "label": bool, "tau": float}`` per scored pair, all with the
            same ``tau`` (the judge's calibrated τ).

    Returns:
        ``{"roc_auc", "pr_auc", "kappa", "f1", "ac1", "mcc", "tpr", "tnr"}``; NaN for a
        metric undefined on these rows (one class: no AUC, no TPR or TNR; κ with chance
        agreement 1; MCC with an empty margin), as NaN replicates are dropped by
        :func:`metrics.percentile_ci`.
    """
    s, y, tau = _arrays(rows)
    return _at(s, y, tau)


def replicates_at_tau(rows: Sequence[Mapping[str, Any]],
                      ) -> Callable[[NDArray[np.intp]], dict[str, NDArray[np.float64]]]:
    """:func:`metrics_at_tau` of many bootstrap resamples at once (the bootstrap's
    ``replicates``, :data:`judge.pipeline.uncertainty.Replicates`): the rows' scores and labels
    are read into arrays once, the AUCs of all resamples come from one sort
    (:func:`metrics.auc_replicates`) and each resample's confusion at τ from counting its
    draws of each cell (:func:`metrics.counts_per_resample`).

    Returns:
        ``indices`` (B, M) of row indices → ``{metric: (B,) values}``, metric by metric the
        numbers :func:`metrics_at_tau` gives for ``[rows[i] for i in indices[b]]`` (NaN where
        undefined).
    """
    s, y, tau = _arrays(rows)
    pred = s > tau
    cell = np.where(pred, np.where(y, 0, 1), np.where(y, 2, 3))  # Confusion's order

    def of(indices: NDArray[np.intp]) -> dict[str, NDArray[np.float64]]:
        roc, ap = auc_replicates(y, s, indices)
        out = {"roc_auc": roc, "pr_auc": ap,
               **{m: np.empty(len(indices)) for m in AT_TAU}}
        for b, c in enumerate(counts_per_resample(indices, cell, 4).tolist()):
            for m, v in _at_counts(Confusion(*c)).items():
                out[m][b] = v
        return out

    return of


def _arrays(rows: Sequence[Mapping[str, Any]]) -> tuple[NDArray[np.float64], NDArray[np.bool_],
                                                         float]:
    s = np.array([float(r["score"]) for r in rows], dtype=np.float64)
    y = np.array([bool(r["label"]) for r in rows], dtype=bool)
    return s, y, float(rows[0]["tau"]) if rows else 0.0


def _at(s: NDArray[np.float64], y: NDArray[np.bool_], tau: float) -> dict[str, float]:
    two = bool(y.any() and not y.all())
    return {"roc_auc": roc_auc(y, s) if two else math.nan,
            "pr_auc": pr_auc(y, s) if two else math.nan, **_at_counts(Confusion.at(s, y, tau))}


def _at_counts(c: Confusion) -> dict[str, float]:
    """The metrics at τ of one confusion (:data:`AT_TAU`)."""
    return {"kappa": kappa_from_counts(*c), "f1": float(scores_from_counts(*c).f1),
            "ac1": gwet_ac1_from_counts(*c), "mcc": mcc_from_counts(*c),
            "tpr": c.tp / (c.tp + c.fn) if c.tp + c.fn else math.nan,
            "tnr": c.tn / (c.tn + c.fp) if c.tn + c.fp else math.nan}


def pair_rows(scores: np.ndarray, labels: LabelSet, tau: float) -> list[dict[str, Any]]:
    """One row ``{"index", "score", "label", "tau"}`` per pair with a score (NaN = none)."""
    return [{"index": k, "score": float(s), "label": p.positive, "tau": tau}
            for k, (s, p) in enumerate(zip(scores, labels.pairs, strict=True)) if not np.isnan(s)]


def wilson_rates(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[float | None]]:
    """Wilson 95 % intervals (Wilson 1927) of TPR and TNR at τ over :func:`pair_rows` rows:
    ``{"tpr_wilson95": [lo, hi], "tnr_wilson95": [lo, hi]}`` (``[None, None]`` without a
    positive, resp. negative, pair)."""
    from judge.probes.stats import wilson_ci

    hit_pos = [float(r["score"]) > float(r["tau"]) for r in rows if r["label"]]
    hit_neg = [float(r["score"]) <= float(r["tau"]) for r in rows if not r["label"]]
    return {"tpr_wilson95": wilson_ci(sum(hit_pos), len(hit_pos)),
            "tnr_wilson95": wilson_ci(sum(hit_neg), len(hit_neg))}
