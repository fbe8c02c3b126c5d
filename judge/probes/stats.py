"""Statistics of the judge probes: how often a judge's verdict crosses τ when the pair is shown
the other way round (swap) or asked again (repeat), and by how much its score moves.

A pair *flips* at τ when its scores fall on both sides of τ (a match is score > τ, DESIGN.md).
Flip rates are proportions of pairs, with the Wilson score 95 % interval (Wilson, "Probable
inference, the law of succession, and statistical inference", JASA 1927; computed by
``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``), which stays informative at 0
flips (0 of 50 pairs → [0, 0.071]) where a bootstrap interval would collapse to [0, 0]. Means
and 95th percentiles of |Δ| (swap) and of per-pair standard deviations (repeat) get
nonparametric percentile bootstrap intervals over pairs (:func:`metrics.bootstrap_indices`,
:func:`metrics.percentile_ci`; Efron & Tibshirani 1993, ch. 13).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.numbers import finite_or_none
from metrics import bootstrap_indices, percentile_ci


def wilson_ci(k: int, n: int) -> list[float | None]:
    """Wilson score 95 % interval of the proportion ``k / n`` (``[None, None]`` when n is 0).

    Raises:
        ValueError: ``k`` outside 0..n.
    """
    if n == 0:
        return [None, None]
    if not 0 <= k <= n:
        raise ValueError(f"wilson_ci: expected 0 <= k <= n, got k={k}, n={n}")
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return [float(ci.low), float(ci.high)]


def _boot(values: NDArray[np.float64], stats: dict[str, Any], n_boot: int,
          seed: int) -> dict[str, list[float | None]]:
    """Percentile bootstrap 95 % interval of each statistic ``name → fn(values)``."""
    if n_boot <= 0 or values.size < 2:
        return {k: [None, None] for k in stats}
    reps: dict[str, list[float]] = {k: [] for k in stats}
    for idx in bootstrap_indices(values.size, n_boot, seed):
        sample = values[idx]
        for k, fn in stats.items():
            reps[k].append(float(fn(sample)))
    return {k: [finite_or_none(x) for x in percentile_ci(v)] for k, v in reps.items()}


def _p95(x: NDArray[np.float64]) -> float:
    return float(np.percentile(x, 95))


def swap_summary(forward: Sequence[float], swapped: Sequence[float], tau: float,
                 n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Order-swap statistics over pairs judged both ways.

    Args:
        forward: each pair's score as (pred, truth), in [0, 1].
        swapped: the same pairs' scores as (truth, pred), aligned with ``forward``.
        tau: the match threshold τ in [0, 1].
        n_boot: bootstrap resamples for the intervals (0 = none); seed: their seed.

    Returns:
        ``{"pairs", "flips", "flip_rate", "flip_rate_ci95" (Wilson), "mean_abs_delta",
        "mean_abs_delta_ci95", "p95_abs_delta", "p95_abs_delta_ci95", "mean_delta" (forward −
        swapped: > 0 when the judge scores the (pred, truth) orientation higher),
        "mean_delta_ci95"}``; statistics None when no pair was judged both ways.

    Raises:
        ValueError: ``forward`` and ``swapped`` differ in length.
    """
    a = np.asarray(forward, dtype=np.float64)
    b = np.asarray(swapped, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("swap_summary: forward and swapped scores must be aligned")
    n = int(a.size)
    flips = int(((a > tau) != (b > tau)).sum())
    delta = a - b
    out: dict[str, Any] = {"pairs": n, "tau": tau, "flips": flips,
                           "flip_rate": flips / n if n else None,
                           "flip_rate_ci95": wilson_ci(flips, n)}
    if not n:
        return {**out, "mean_abs_delta": None, "mean_abs_delta_ci95": [None, None],
                "p95_abs_delta": None, "p95_abs_delta_ci95": [None, None], "mean_delta": None,
                "mean_delta_ci95": [None, None]}
    absd = np.abs(delta)
    cis = _boot(absd, {"mean_abs_delta": np.mean, "p95_abs_delta": _p95}, n_boot, seed)
    signed = _boot(delta, {"mean_delta": np.mean}, n_boot, seed)
    return {**out, "mean_abs_delta": float(absd.mean()),
            "mean_abs_delta_ci95": cis["mean_abs_delta"], "p95_abs_delta": _p95(absd),
            "p95_abs_delta_ci95": cis["p95_abs_delta"], "mean_delta": float(delta.mean()),
            "mean_delta_ci95": signed["mean_delta"]}


def repeat_summary(samples: Sequence[Sequence[float]], tau: float, n_boot: int = 1000,
                   seed: int = 0) -> dict[str, Any]:
    """Repeat-probe statistics over pairs with at least two ``ok`` samples.

    Args:
        samples: per pair, its scores in [0, 1] from the repeated calls (pairs with fewer than
            two are skipped and counted in ``pairs_skipped``).
        tau: the match threshold τ in [0, 1].
        n_boot: bootstrap resamples (0 = none); seed: their seed.

    Returns:
        ``{"pairs", "pairs_skipped", "flips" (pairs whose samples fall on both sides of τ),
        "flip_rate", "flip_rate_ci95" (Wilson), "mean_sd" (per-pair sample standard deviation,
        ddof 1, averaged), "mean_sd_ci95", "p95_sd", "p95_sd_ci95", "mean_range"}``.
    """
    kept = [np.asarray(s, dtype=np.float64) for s in samples if len(s) >= 2]
    n = len(kept)
    flips = sum(len({bool(x > tau) for x in s}) > 1 for s in kept)
    out: dict[str, Any] = {"pairs": n, "pairs_skipped": len(samples) - n, "tau": tau,
                           "flips": flips, "flip_rate": flips / n if n else None,
                           "flip_rate_ci95": wilson_ci(flips, n)}
    if not n:
        return {**out, "mean_sd": None, "mean_sd_ci95": [None, None], "p95_sd": None,
                "p95_sd_ci95": [None, None], "mean_range": None}
    sd = np.array([float(np.std(s, ddof=1)) for s in kept])
    rng = np.array([float(s.max() - s.min()) for s in kept])
    cis = _boot(sd, {"mean_sd": np.mean, "p95_sd": _p95}, n_boot, seed)
    return {**out, "mean_sd": float(sd.mean()), "mean_sd_ci95": cis["mean_sd"],
            "p95_sd": _p95(sd), "p95_sd_ci95": cis["p95_sd"], "mean_range": float(rng.mean())}
