"""The per-pair statistics of a judge at a fixed τ, shared by the leaderboard's judge rows and
its ``humans`` row: one row per scored pair (:func:`pair_rows`) and the metric function given to
the bootstrap (:func:`metrics_at_tau`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from judge.calibration.labels import LabelSet
from metrics import Confusion, kappa_from_counts, pr_auc, roc_auc, scores_from_counts

METRICS = ("roc_auc", "pr_auc", "kappa", "f1")
"""The metrics with bootstrap and paired 95 % CIs."""
AT_TAU = ("kappa", "f1")
"""The metrics that need τ: left out where a judge's τ is undefined."""


def metrics_at_tau(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """ROC-AUC, PR-AUC, Cohen's κ and F1 of scored pairs at a fixed τ (a pair is "same" when
    score > τ); the metric function given to the bootstrap.

    Args:
        rows: ``{"score": float, "label": bool, "tau": float}`` per scored pair, all with the
            same ``tau`` (the judge's calibrated τ).

    Returns:
        ``{"roc_auc", "pr_auc", "kappa", "f1"}``; NaN for a metric undefined on these rows
        (one class: no AUC; κ with chance agreement 1), as NaN replicates are dropped by
        :func:`metrics.percentile_ci`.
    """
    s = np.array([float(r["score"]) for r in rows], dtype=np.float64)
    y = np.array([bool(r["label"]) for r in rows], dtype=bool)
    c = Confusion.at(s, y, float(rows[0]["tau"]) if rows else 0.0)
    two = bool(y.any() and not y.all())
    return {"roc_auc": roc_auc(y, s) if two else math.nan,
            "pr_auc": pr_auc(y, s) if two else math.nan,
            "kappa": kappa_from_counts(*c), "f1": float(scores_from_counts(*c).f1)}


def pair_rows(scores: np.ndarray, labels: LabelSet, tau: float) -> list[dict[str, Any]]:
    """One row ``{"index", "score", "label", "tau"}`` per pair with a score (NaN = none)."""
    return [{"index": k, "score": float(s), "label": p.positive, "tau": tau}
            for k, (s, p) in enumerate(zip(scores, labels.pairs, strict=True)) if not np.isnan(s)]
