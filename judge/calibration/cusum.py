"""The drift canary's memory: a CUSUM over the history of checks of one pinned subset, so that
a drift too slow for any single check to find significant still signals.

**Input.** Each check t = 1, 2, … re-judges the same pairs; ``X_t`` is the mean of its fresh
scores and ``X_0`` the mean of the stored ones, each with standard error ``se_t`` (the
per-pair noise SD, estimated from the check's own paired differences as ``sd(d) / √2``,
over √m). The checks all share ``X_0``: their own shifts ``X_t − X_0`` are equicorrelated
(ρ = 1/2 under the null, stored and fresh draws being exchangeable), and any comparison
with ``X_0`` carries its noise, which no number of checks averages away. The CUSUM therefore
reads the *innovations* of the series, as a self-starting CUSUM does (Hawkins 1987,
"Self-starting cusum charts for location and scale", The Statistician 36; Hawkins & Olwell
1998, *Cumulative Sum Charts and Charting for Quality Improvement*, Springer): each check's mean
against the mean of all the earlier ones, stored included, over the SD of that difference,

    u_t = (X_t − (X_0 + … + X_{t−1}) / t) / √(se_t² + (v_0 + se_1² + … + se_{t−1}²) / t²),

with ``v_0``, the stored mean's variance, pooled as the mean of ``se_1² … se_t²`` (the stored
and fresh means are exchangeable under the null; equal ``se`` give ``se_t √(1 + 1/t)``). For
an unchanged judge with normal noise they are independent N(0, 1) (the first is the check's
own shift against the calibration). A sustained step or a ramp makes them positive (or
negative) check after check.

**Chart.** Page's two-sided tabular CUSUM (Page 1954, "Continuous inspection schemes",
Biometrika 41(1/2): 100–115): ``C⁺_t = max(0, C⁺_{t−1} + u_t − k)``, ``C⁻_t = max(0,
C⁻_{t−1} − u_t − k)``, signal when either exceeds h. k = 0.5 and h = 4, the textbook pair for
detecting a one-SD shift (Montgomery, *Introduction to Statistical Quality Control*, 6th ed.,
§9.1.3 and table 9.3): in-control average run length 168 checks, a sustained one-SD shift
signalled after 8.4 checks on average.

**Measured** (benchmarks/bench_cusum.py, 2000 simulated judges a setting: 100 pairs scored
0.1 or 0.9 with uniform noise ± 0.05, so a check's mean has SE 0.0029 and its shift from the
stored mean 0.0041; the check's own score-shift test at α/4 as the rival):

* unchanged judge: a signal within 10 checks for 4.0 %, within 50 for 27.4 % (the check's own
  score-shift test: 9.8 % and 24.6 %);
* a slow ramp, +0.001 a check (a check's own mean z reaches 2.5 only at the 10th), within 10
  checks: CUSUM first 41 %, same check 26 %, own test first 23 %, neither 10 %; after 5
  stable checks: 66 / 19 / 13 / 1 %. At +0.0005: 14 / 6 / 15 / 64 % (36 / 7 / 13 / 45 after
  5 stable checks);
* where it does not win: a ramp or a step that starts at the first check is half absorbed
  into the running mean, so the check's own test, which compares with ``X_0`` alone, is
  first more often for ramps of +0.002 a check or faster from the first check (+0.002:
  24 / 45 / 30 %) and finds steps from the start sooner (+0.01: own test 86 %, CUSUM 71 %
  within 10 checks); after 5 stable checks the CUSUM finds that step in 99 %.

Rejected by the same simulation: Page's CUSUM of the checks' own standardized shifts with h
set for ρ = 1/2 (9.6 for 5 % within 10 checks) signalled first in 5 % at +0.001 a check,
own test first in 49 %; the self-starting chart with k = 0.25 (h 5.1) gained 5 points on the
slowest ramps for 48 % false alarms within 50 checks. End-to-end rates:
benchmarks/bench_drift.py.
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
        ses: each check's standard error of its mean (≥ 0), same length; the stored
            mean's variance is taken as the mean of the squares of those up to each check.

    Returns:
        ``[u_1, …, u_T]``, each capped at ±:data:`U_CAP` (0 when a check with ``se`` 0 did
        not move).
    """
    out: list[float] = []
    for t, (x, se) in enumerate(zip(fresh_means, ses, strict=True), 1):
        reference = (stored_mean + sum(fresh_means[: t - 1])) / t
        gap = x - reference
        stored_var = sum(s * s for s in ses[:t]) / t  # exchangeable with a check's: pooled
        scale = math.sqrt(se * se + (stored_var + sum(s * s for s in ses[: t - 1])) / t ** 2)
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
