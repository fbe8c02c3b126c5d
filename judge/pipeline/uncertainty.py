"""Bootstrap confidence intervals of dataset metrics, resampling items.

* :func:`bootstrap_cis`: 95 % percentile interval of each metric of one run;
* :func:`joint_tau_cis`: the same intervals with τ resampled too, from a calibration's
  bootstrap τ̂ values (``eval --tau-from``), so they include the uncertainty of the chosen τ;
* :func:`paired_bootstrap`: for two runs over the same items, the difference B − A of each
  metric with a 95 % percentile interval, both runs resampled with the **same** item indices in
  every replicate (a paired bootstrap: item difficulty cancels out).

Both take the task's ``metric_fn`` (:meth:`judge.tasks.base.Task.metrics_from_rows`: typed item
rows → ``{metric: value}``), so the intervals are of the very numbers the run reports. The rows
are the task's typed rows, made once (the run's own, or its re-scored ones); with ``resample``
(:meth:`judge.tasks.base.Task.resampled`) the task reads what its metrics need from them once
and each resample indexes that (selection: arrays), else each resample is a list of references
to the rows; with ``replicates`` (:data:`Replicates`) the metrics of all resamples come from one
call. The resampling
is the nonparametric percentile bootstrap (Efron & Tibshirani, *An Introduction to the
Bootstrap*, 1993, ch. 13): :func:`metrics.bootstrap_indices` draws the indices,
:func:`metrics.percentile_ci` takes the 2.5th and 97.5th percentiles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from metrics import bootstrap_indices, percentile_ci

R = TypeVar("R")
"""An item row (a task's row model, :mod:`judge.record.itemrows`)."""
MetricFn = Callable[[Sequence[R]], Mapping[str, float]]
"""``rows -> {metric name: value}``: a task's dataset metrics recomputed from item rows."""
Resample = Callable[[Sequence[R]], Callable[[NDArray[np.intp]], Mapping[str, float]]]
"""``rows -> (idx -> metric_fn([rows[i] for i in idx]))``, preparing the rows once
(:meth:`judge.tasks.base.Task.resampled`)."""
Replicates = Callable[[Sequence[R]],
                      Callable[[NDArray[np.intp]], Mapping[str, NDArray[np.float64]]]]
"""``rows -> (indices (B, N) -> {metric: (B,) values})``: the metrics of all B resamples at
once, metric by metric those of ``metric_fn([rows[i] for i in indices[b]])``
(:func:`judge.calibration.pairmetrics.replicates_at_tau`)."""


def _resampler(metric_fn: MetricFn[R], rows: Sequence[R], resample: Resample[R] | None,
               ) -> Callable[[NDArray[np.intp]], Mapping[str, float]]:
    if resample is not None:
        return resample(rows)
    return lambda idx: metric_fn([rows[i] for i in idx])


def _all_resamples(metric_fn: MetricFn[R], rows: Sequence[R], indices: NDArray[np.intp],
                   resample: Resample[R] | None, replicates: Replicates[R] | None,
                   ) -> Mapping[str, Sequence[float] | NDArray[np.float64]]:
    """``{metric: one value per row of indices}``, from ``replicates`` when given."""
    if replicates is not None:
        return replicates(rows)(indices)
    reps: dict[str, list[float]] = {}
    metrics_of = _resampler(metric_fn, rows, resample)
    for idx in indices:
        for k, v in metrics_of(idx).items():
            reps.setdefault(k, []).append(v)
    return reps


def bootstrap_cis(metric_fn: MetricFn[R], rows: Sequence[R], n_boot: int = 1000,
                  seed: int = 0, *, resample: Resample[R] | None = None,
                  replicates: Replicates[R] | None = None) -> dict[str, Any]:
    """95 % percentile bootstrap intervals of each dataset metric (resampling items).

    Args:
        metric_fn: item rows → ``{metric: value}`` (the task's ``metrics_from_rows``).
        rows: the run's item rows (one per item).
        n_boot: resamples, >= 0 (0 = no intervals).
        seed: seed of the resampling (the same seed gives the same intervals).
        resample: the task's prepared resample metrics (:data:`Resample`); None = call
            ``metric_fn`` on each resample's rows.
        replicates: the metrics of all resamples in one call (:data:`Replicates`); used
            instead of ``resample`` when given.

    Returns:
        ``{"resamples": n, "seed": s, "ci95": {metric: [low, high]}}``; ``resamples`` 0 and no
        intervals when ``n_boot`` is 0 or there are fewer than two items.
    """
    if n_boot <= 0 or len(rows) < 2:
        return {"resamples": 0, "seed": seed, "ci95": {}}
    reps = _all_resamples(metric_fn, rows, bootstrap_indices(len(rows), n_boot, seed), resample,
                          replicates)
    return {"resamples": n_boot, "seed": seed,
            "ci95": {k: list(percentile_ci(v)) for k, v in reps.items()}}


def joint_tau_cis(rows_at: Callable[[float], Sequence[R]], metric_fn: MetricFn[R], n_items: int,
                  tau_samples: Sequence[float], n_boot: int = 1000, seed: int = 0, *,
                  resample: Resample[R] | None = None) -> dict[str, Any]:
    """95 % percentile intervals of each dataset metric that carry τ's uncertainty too: resample
    b draws the items with replacement (:func:`metrics.bootstrap_indices`, as
    :func:`bootstrap_cis` with the same seed) *and* a τ*_b uniformly from ``tau_samples`` (the
    calibration's own bootstrap distribution of τ̂), and computes the metrics of those items
    matched at τ*_b.

    Args:
        rows_at: τ → the run's item rows re-matched at that τ (called once per distinct τ*).
        metric_fn: item rows → ``{metric: value}`` (the task's ``metrics_from_rows``).
        n_items: items in the run.
        tau_samples: bootstrap τ̂ values in [0, 1] from ``simjudge calibrate`` (non-empty).
        n_boot: resamples, >= 0 (0 = no intervals); seed: their seed.
        resample: as in :func:`bootstrap_cis` (prepared once per distinct τ*).

    Returns:
        ``{"resamples", "seed", "tau_samples" (how many), "distinct_taus", "ci95": {metric:
        [low, high]}}``; no intervals when ``n_boot`` is 0 or there are fewer than two items.

    Raises:
        ValueError: ``tau_samples`` is empty.

    Source: the joint (two-stage) bootstrap of a plug-in estimate with an estimated nuisance
    parameter — Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 6 and 13.
    """
    if not tau_samples:
        raise ValueError("joint_tau_cis: no τ samples")
    if n_boot <= 0 or n_items < 2:
        return {"resamples": 0, "seed": seed, "tau_samples": len(tau_samples),
                "distinct_taus": 0, "ci95": {}}
    rng = np.random.default_rng([seed, 1])
    taus = [float(tau_samples[i]) for i in rng.integers(0, len(tau_samples), n_boot)]
    at: dict[float, Callable[[NDArray[np.intp]], Mapping[str, float]]] = {}
    reps: dict[str, list[float]] = {}
    for t, idx in zip(taus, bootstrap_indices(n_items, n_boot, seed), strict=True):
        metrics_of = at.get(t)
        if metrics_of is None:
            metrics_of = at[t] = _resampler(metric_fn, rows_at(t), resample)
        for k, v in metrics_of(idx).items():
            reps.setdefault(k, []).append(v)
    return {"resamples": n_boot, "seed": seed, "tau_samples": len(tau_samples),
            "distinct_taus": len(at), "ci95": {k: list(percentile_ci(v)) for k, v in reps.items()}}


def paired_bootstrap(metric_fn: MetricFn[R], rows_a: Sequence[R], rows_b: Sequence[R],
                     n_boot: int = 1000, seed: int = 0, *, resample: Resample[R] | None = None,
                     replicates: Replicates[R] | None = None) -> dict[str, dict[str, Any]]:
    """B − A for each metric with a paired 95 % bootstrap interval.

    Args:
        metric_fn: item rows → ``{metric: value}`` (the task's ``metrics_from_rows``).
        rows_a, rows_b: item rows of the two runs, **aligned** (same items in the same order).
        n_boot: resamples, >= 0 (0 = no interval).
        seed: seed of the resampling.
        resample, replicates: as in :func:`bootstrap_cis` (each run's rows prepared once).

    Returns:
        metric → ``{"a", "b", "diff", "ci95": [low, high]}`` (``[None, None]`` without
        resamples or with fewer than two items), for each metric both runs hold (a
        function-call run without text overlap has no ROUGE/BLEU to compare).

    Raises:
        ValueError: the two runs have different numbers of rows.
    """
    if len(rows_a) != len(rows_b):
        raise ValueError("paired bootstrap needs the same items in both runs")
    base_a, base_b = metric_fn(rows_a), metric_fn(rows_b)
    # the metrics both runs hold (a function-call run may leave text overlap out)
    diffs: dict[str, list[float]] = {k: [] for k in base_a if k in base_b}
    if n_boot > 0 and len(rows_a) >= 2:
        indices = bootstrap_indices(len(rows_a), n_boot, seed)
        ma = _all_resamples(metric_fn, rows_a, indices, resample, replicates)
        mb = _all_resamples(metric_fn, rows_b, indices, resample, replicates)
        for k in diffs:
            diffs[k] = [float(b) - float(a) for a, b in zip(ma[k], mb[k], strict=True)]
    return {k: {"a": base_a[k], "b": base_b[k], "diff": base_b[k] - base_a[k],
                "ci95": list(percentile_ci(diffs[k])) if diffs[k] else [None, None]}
            for k in diffs}
