"""What a review's labels say: τ̂ with its interval, the expected loss and the stopping rule
(:func:`run_estimate`, run off the event loop by the server), and the agreement between
reviewers (:func:`agreement`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.calibration.labelevents import Event


@dataclass(frozen=True)
class EstimateJob:
    """The labels an estimate is computed from (:func:`run_estimate`).

    Attributes:
        labelled: population indices of the labelled pairs; positive: their labels.
        objective, n_boot, seed, target_loss: as :class:`ReviewOptions`.
    """

    labelled: NDArray[np.intp]
    positive: NDArray[np.bool_]
    objective: str
    n_boot: int
    seed: int
    target_loss: float


@dataclass(frozen=True)
class Estimate:
    """What the labels so far say (:func:`run_estimate`).

    Attributes:
        page: what the page shows (see :func:`run_estimate`).
        shares: each score stratum's share of the next labels for the decision's loss
            (:func:`judge.calibration.allocation.loss_shares`), shape (H,); None while τ is
            undefined (the design then uses Neyman's shares).
        confirm: the loss is within the target (the rule's bound): the strata below the
            stopping rule's minimum
            (:data:`judge.calibration.stratified.STOP_MINIMUM`) are topped up first.
    """

    page: dict[str, Any]
    shares: NDArray[np.float64] | None = None
    confirm: bool = False


def run_estimate(scores: NDArray[np.float64], strata: NDArray[np.intp],
                 job: EstimateJob) -> Estimate:
    """τ̂, its 95 % interval, the expected loss and the stopping rule of a labelled sample of
    the population (:func:`judge.calibration.stratified.decision_loss`), and the strata's
    shares of the next labels (:func:`judge.calibration.allocation.loss_shares`): the
    bootstrap work of a label, done off the server's event loop.

    Args:
        scores: the population's scores in [0, 1], NaN = unscored; strata: their score strata.
        job: the labels.

    Returns:
        An :class:`Estimate` whose ``page`` is ``{"available", "labels", "positives",
        "target_loss", "objective", "strata", "min_per_stratum"}`` plus ``"tau", "low",
        "high", "loss", "loss_upper", "upper_level", "minimums_met", "stop"`` when
        available (the loss's posterior mean and the rule's bound: the loss is at most
        ``loss_upper`` with probability ``upper_level``), else ``"why"``.
    """
    from judge.calibration.allocation import loss_shares
    from judge.calibration.stratified import STOP_MINIMUM, Design, decision_loss

    design = Design(strata, job.labelled, job.positive)
    n = int(job.labelled.size)
    n_pos = int(job.positive.sum())
    base = {"available": False, "labels": n, "positives": n_pos,
            "target_loss": job.target_loss, "objective": job.objective,
            "strata": design.n_strata, "min_per_stratum": STOP_MINIMUM}
    if n_pos == 0 or n_pos == n:
        return Estimate({**base, "why": "the labels hold one class so far"})
    try:
        est = decision_loss(scores, design, job.objective, job.n_boot, job.seed)
    except ValueError as exc:
        return Estimate({**base, "why": str(exc)})
    loss = None if math.isnan(est.loss) else max(0.0, float(est.loss))
    upper = None if math.isnan(est.upper) else max(0.0, float(est.upper))
    page = {**base, "available": True, "tau": est.tau, "low": est.low, "high": est.high,
            "loss": loss, "loss_upper": upper, "upper_level": est.level,
            "minimums_met": bool(est.minimums_met), "stop": est.stop(job.target_loss)}
    shares = loss_shares(scores, design, est) if est.taus else None
    return Estimate(page, shares, est.within(job.target_loss))


def agreement(votes: Mapping[int, Mapping[str, Event]], graded: bool) -> dict[str, Any]:
    """Krippendorff's α over the pairs two or more reviewers labelled (nominal for binary
    labels, interval for grades; Krippendorff 2011, :func:`metrics.krippendorff_alpha`, checked
    against the ``krippendorff`` package) and how many such pairs there are.

    Args:
        votes: pair index → reviewer → that reviewer's counted label event.
        graded: compare grades (interval) instead of 0/1 labels (nominal).

    Returns:
        ``{"alpha": float or None (undefined), "level", "shared_pairs", "reviewers"}``.
    """
    from metrics import krippendorff_alpha

    reviewers = sorted({r for v in votes.values() for r in v})
    shared = [i for i, v in votes.items() if len(v) >= 2]
    alpha = None
    if len(reviewers) >= 2 and shared:
        units = sorted(votes)
        data = [[(e.value if graded else float(e.label or 0)) if (e := votes[i].get(r))
                 else math.nan for i in units] for r in reviewers]
        a = krippendorff_alpha(data, "interval" if graded else "nominal")
        alpha = None if math.isnan(a) else float(a)
    return {"alpha": alpha, "level": "interval" if graded else "nominal",
            "shared_pairs": len(shared), "reviewers": len(reviewers)}
