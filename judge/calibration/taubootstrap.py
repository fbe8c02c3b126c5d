"""Bootstrap distribution of the chosen τ (``simjudge calibrate``): τ̂ = the objective-best cut
of the labelled scores, recomputed on resamples of the labelled pairs (percentile bootstrap,
Efron & Tibshirani 1993, ch. 13).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from metrics import best_index, bootstrap_indices, percentile_ci, sweep_arrays


def bootstrap_taus(scores: NDArray[np.float64], labels: NDArray[np.bool_], objective: str,
                   n_boot: int, seed: int) -> tuple[list[float], list[float], int]:
    """τ̂ and the objective at τ̂ in each bootstrap resample of the labelled pairs.

    Args:
        scores: judge scores in [0, 1] of the labelled pairs (no NaN).
        labels: their binary labels.
        objective: a :data:`metrics.OBJECTIVES` name (``f1``, ``kappa``…).
        n_boot: resamples (>= 1); seed: their seed.

    Returns:
        ``(taus, objective values, skipped)``: resamples with one class only or one distinct
        score have no τ̂ and are skipped (counted).
    """
    taus: list[float] = []
    objs: list[float] = []
    skipped = 0
    for idx in bootstrap_indices(len(scores), n_boot, seed):
        sb, yb = scores[idx], labels[idx]
        if yb.all() or not yb.any() or np.unique(sb).size < 2:
            skipped += 1
            continue
        sw = sweep_arrays(sb, yb)
        try:
            j = best_index(sw[objective])
        except ValueError:
            skipped += 1
            continue
        taus.append(float(sw["tau"][j]))
        objs.append(float(sw[objective][j]))
    return taus, objs, skipped


def tau_interval(scores: NDArray[np.float64], labels: NDArray[np.bool_], objective: str = "f1",
                 n_boot: int = 200, seed: int = 0) -> tuple[float, float, float]:
    """``(τ̂, low, high)``: the best cut and its bootstrap 95 % percentile interval.

    Raises:
        ValueError: the labels hold one class only, or every score is equal.
    """
    if labels.all() or not labels.any() or np.unique(scores).size < 2:
        raise ValueError("τ needs both classes and two distinct scores")
    sw = sweep_arrays(scores, labels)
    tau = float(sw["tau"][best_index(sw[objective])])
    taus = bootstrap_taus(scores, labels, objective, n_boot, seed)[0] if n_boot > 0 else []
    lo, hi = percentile_ci(taus) if taus else (tau, tau)
    return tau, float(lo), float(hi)
