"""The drift canary's memory: a CUSUM over the history of checks of one pinned subset, so that
a drift too slow for any single check to find significant still signals.

**Input.** Each check t = 1, 2, … re-judges the same pairs; ``X_t`` is the mean of its fresh
scores and ``X_0`` the mean of the stored ones, each with standard error ``se_t`` (the
per-pair noise SD, estimated from the check's own paired differences as ``sd(d) / √2``,
over √m). The checks all share ``X_0``, so their differences from it are correlated (the
stored scores' own noise is in every one of them) and a CUSUM of those would climb on an
unchanged judge (simulated: a signal within 10 checks for 22–28 % of unchanged judges). The
CUSUM therefore reads the *innovations* of the series, as a self-starting CUSUM does (Hawkins
1987, "Self-starting cusum charts for location and scale", The Statistician 36): each
check's mean against the mean of all the earlier ones, stored included,

    u_t = (X_t − (X_0 + … + X_{t−1}) / t) / (se_t · √(1 + 1/t)),

which for an unchanged judge with normal noise are independent N(0, 1) (the first is the
check's own shift against the calibration). A sustained step or a ramp makes them positive
(or negative) check after check.

**Chart.** Page's two-sided tabular CUSUM (Page 1954, "Continuous inspection schemes",
Biometrika 41(1/2): 100–115): ``C⁺_t = max(0, C⁺_{t−1} + u_t − k)``, ``C⁻_t = max(0,
C⁻_{t−1} − u_t − k)``, signal when either exceeds h. k = 0.5 and h = 4, the textbook pair for
detecting a one-SD shift (Montgomery, *Introduction to Statistical Quality Control*, 6th ed.,
§9.1.3 and table 9.3): in-control average run length 168 checks (a simulation of this module
gives 167), a sustained one-SD shift signalled after 8.4 checks on average. Simulated on 300
judges (100 pairs, scores 0.1 or 0.9 with uniform noise ± 0.05), h = 4 signalled within 10
checks for 3 % of unchanged judges, and for a drift of +0.001 a check before any single
check's score-shift test (at α/4 = 0.0125) did in 42 % (that test first: 22 %); h = 5 (run
length 465): 1.3 % and 25 % (33 %). The end-to-end rates: benchmarks/bench_drift.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

CUSUM_K = 0.5
"""The reference value k, in SDs of the innovations: half the one-SD shift the chart is tuned
to detect (Page 1954; Montgomery §9.1.3)."""
CUSUM_H = 4.0
"""The decision interval h (Montgomery table 9.3: in-control run length 168 with k = 0.5)."""
U_CAP = 8.0
"""|u| is capped here: a check with no noise (``se`` 0) that moved counts this much, not ∞."""


def innovations(stored_mean: float, fresh_means: Sequence[float],
                ses: Sequence[float]) -> list[float]:
    """The standardized innovations ``u_t`` of a history (see the module docstring).

    Args:
        stored_mean: ``X_0``, the stored scores' mean over the subset.
        fresh_means: ``X_1 … X_T``, each check's fresh mean, oldest first.
        ses: each check's standard error of its mean (≥ 0), same length.

    Returns:
        ``[u_1, …, u_T]``, each capped at ±:data:`U_CAP` (0 when a check with ``se`` 0 did
        not move).
    """
    out: list[float] = []
    for t, (x, se) in enumerate(zip(fresh_means, ses, strict=True), 1):
        reference = (stored_mean + sum(fresh_means[: t - 1])) / t
        gap = x - reference
        scale = se * math.sqrt(1 + 1 / t)
        u = gap / scale if scale > 0 else (0.0 if abs(gap) < 1e-12 else math.copysign(U_CAP, gap))
        out.append(max(-U_CAP, min(U_CAP, u)))
    return out


def cusum(u: Sequence[float], k: float = CUSUM_K, h: float = CUSUM_H
          ) -> tuple[list[tuple[float, float]], int | None]:
    """Page's two-sided tabular CUSUM over ``u`` (see the module docstring).

    Args:
        u: the innovations, oldest first.
        k, h: reference value and decision interval (> 0).

    Returns:
        ``([(C⁺_t, C⁻_t) for each t], index of the first signal or None)``.
    """
    path: list[tuple[float, float]] = []
    hi = lo = 0.0
    first = None
    for t, x in enumerate(u):
        hi, lo = max(0.0, hi + x - k), max(0.0, lo - x - k)
        path.append((hi, lo))
        if first is None and (hi > h or lo > h):
            first = t
    return path, first
