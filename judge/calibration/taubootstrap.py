"""Bootstrap distribution of the chosen τ (``simjudge calibrate``): τ̂ = the objective-best cut
of the labelled scores, recomputed on resamples of the labelled pairs (percentile bootstrap,
Efron & Tibshirani 1993, ch. 13).

A resample counts its draws of each (distinct score, class) (:func:`metrics.counts_per_resample`),
so its sweep — the confusion counts at every cut between two of its drawn scores, as
:func:`metrics.sweep_arrays` of the resampled pairs — is a cumulative sum of those counts, and
the sweeps of many resamples are one array operation.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from metrics import (
    best_index,
    bootstrap_indices,
    counts_per_resample,
    percentile_ci,
    rate_from_counts,
    sweep_arrays,
)

CELLS = 250_000
"""Resamples × distinct scores per pass of :func:`bootstrap_taus` (2 MB per array)."""


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
    u, group = np.unique(scores, return_inverse=True)  # ascending distinct scores
    if u.size < 2:  # no cut in any resample
        return [], [], n_boot
    codes = 2 * group.ravel() + labels.astype(np.int64)
    indices = bootstrap_indices(len(scores), n_boot, seed)
    taus: list[float] = []
    objs: list[float] = []
    step = max(1, CELLS // u.size)
    for lo in range(0, n_boot, step):
        t, v = _best_cuts(counts_per_resample(indices[lo:lo + step], codes, 2 * u.size), u,
                          objective)
        taus.extend(t[np.isfinite(t)].tolist())
        objs.extend(v[np.isfinite(t)].tolist())
    return taus, objs, n_boot - len(taus)


def _best_cuts(counts: NDArray[np.int64], u: NDArray[np.float64], objective: str,
               ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """τ̂ and the objective at τ̂ of each resample (NaN: none) from its draws of each
    (distinct score ``u[k]``, class) (counts of shape (B, 2 · len(u)), negatives first):
    cut k predicts the scores above ``u[k]`` positive; a candidate cut has drawn scores on
    both sides, τ̂ is the midpoint of the two nearest, the best ties to the larger τ
    (:func:`metrics.best_index`), NaN never wins."""
    per = counts.reshape(len(counts), u.size, 2)
    pos, drawn = per[..., 1], per.sum(axis=2)
    n, n_pos = drawn.sum(axis=1, keepdims=True), pos.sum(axis=1, keepdims=True)
    tp = n_pos - np.cumsum(pos, axis=1)[:, :-1]
    fp = (n - np.cumsum(drawn, axis=1)[:, :-1]) - tp
    values = rate_from_counts(objective, tp, fp, n_pos - tp, (n - n_pos) - fp, n=n,
                              n_pos=n_pos)
    present = drawn > 0
    above = np.cumsum(present[:, ::-1], axis=1)[:, ::-1][:, 1:]  # drawn scores above cut k
    v = np.where(present[:, :-1] & (above > 0) & ~np.isnan(values), values, -np.inf)
    k = v.shape[1] - 1 - np.argmax(v[:, ::-1], axis=1)  # the last maximum: the larger τ
    rows = np.arange(len(v))
    index = np.arange(u.size)
    nxt = np.minimum.accumulate(np.where(present, index, u.size - 1)[:, ::-1], axis=1)[:, ::-1]
    ok = (n_pos[:, 0] > 0) & (n_pos[:, 0] < n[:, 0]) & (v[rows, k] > -np.inf)
    tau = (u[k] + u[nxt[rows, k + 1]]) / 2.0
    return np.where(ok, tau, np.nan), np.where(ok, v[rows, k], np.nan)


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
