"""Bootstrap confidence intervals of dataset metrics, resampling items.

* :func:`bootstrap_cis`: 95 % percentile interval of each metric of one run;
* :func:`paired_bootstrap`: for two runs over the same items, the difference B − A of each
  metric with a 95 % percentile interval, both runs resampled with the **same** item indices in
  every replicate (a paired bootstrap: item difficulty cancels out).

Both take the task's ``metric_fn`` (:meth:`judge.tasks.base.Task.metrics_from_rows`: item rows
→ ``{metric: value}``), so the intervals are of the very numbers the run reports. The resampling
is the nonparametric percentile bootstrap (Efron & Tibshirani, *An Introduction to the
Bootstrap*, 1993, ch. 13): :func:`metrics.bootstrap_indices` draws the indices,
:func:`metrics.percentile_ci` takes the 2.5th and 97.5th percentiles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from metrics import bootstrap_indices, percentile_ci

Rows = Sequence[Mapping[str, Any]]
MetricFn = Callable[[Rows], Mapping[str, float]]
"""``rows -> {metric name: value}``: a task's dataset metrics recomputed from item rows."""


def bootstrap_cis(metric_fn: MetricFn, rows: Rows, n_boot: int = 1000, seed: int = 0,
                  ) -> dict[str, Any]:
    """95 % percentile bootstrap intervals of each dataset metric (resampling items).

    Args:
        metric_fn: item rows → ``{metric: value}`` (the task's ``metrics_from_rows``).
        rows: the run's item rows (one per item).
        n_boot: resamples, >= 0 (0 = no intervals).
        seed: seed of the resampling (the same seed gives the same intervals).

    Returns:
        ``{"resamples": n, "seed": s, "ci95": {metric: [low, high]}}``; ``resamples`` 0 and no
        intervals when ``n_boot`` is 0 or there are fewer than two items.
    """
    if n_boot <= 0 or len(rows) < 2:
        return {"resamples": 0, "seed": seed, "ci95": {}}
    reps: dict[str, list[float]] = {}
    for idx in bootstrap_indices(len(rows), n_boot, seed):
        for k, v in metric_fn([rows[i] for i in idx]).items():
            reps.setdefault(k, []).append(v)
    return {"resamples": n_boot, "seed": seed,
            "ci95": {k: list(percentile_ci(v)) for k, v in reps.items()}}


def paired_bootstrap(metric_fn: MetricFn, rows_a: Rows, rows_b: Rows, n_boot: int = 1000,
                     seed: int = 0) -> dict[str, dict[str, Any]]:
    """B − A for each metric with a paired 95 % bootstrap interval.

    Args:
        metric_fn: item rows → ``{metric: value}`` (the task's ``metrics_from_rows``).
        rows_a, rows_b: item rows of the two runs, **aligned** (same items in the same order).
        n_boot: resamples, >= 0 (0 = no interval).
        seed: seed of the resampling.

    Returns:
        metric → ``{"a", "b", "diff", "ci95": [low, high]}`` (``[None, None]`` without
        resamples or with fewer than two items).

    Raises:
        ValueError: the two runs have different numbers of rows.
    """
    if len(rows_a) != len(rows_b):
        raise ValueError("paired bootstrap needs the same items in both runs")
    base_a, base_b = metric_fn(rows_a), metric_fn(rows_b)
    diffs: dict[str, list[float]] = {k: [] for k in base_a}
    if n_boot > 0 and len(rows_a) >= 2:
        for idx in bootstrap_indices(len(rows_a), n_boot, seed):
            ma = metric_fn([rows_a[i] for i in idx])
            mb = metric_fn([rows_b[i] for i in idx])
            for k in diffs:
                diffs[k].append(mb[k] - ma[k])
    return {k: {"a": base_a[k], "b": base_b[k], "diff": base_b[k] - base_a[k],
                "ci95": list(percentile_ci(diffs[k])) if diffs[k] else [None, None]}
            for k in base_a}
