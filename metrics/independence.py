"""How independent a panel's judges are: the correlation of their errors, and the number of
independent judges the panel is worth.

A panel's vote helps only as far as its members err on different pairs. With each member's
errors against human labels as 0/1 indicators (1 = the member's verdict at τ disagrees with the
label):

* **error φ** of two members: the φ coefficient of their error indicators over the pairs both
  judged — Pearson's correlation of two 0/1 vectors, equal to scikit-learn's
  ``matthews_corrcoef`` on them (Matthews 1975; Yule 1912 for φ). Undefined (NaN) when either
  member's errors are constant (it erred on every pair, or on none);
* **effective number of judges**: k members whose errors correlate ρ̄ on average (mean φ over
  the member pairs where it is defined) carry the information of
  ``n_eff = k / (1 + (k − 1) ρ̄)`` independent ones — Kish's design effect
  ``deff = 1 + (m − 1) ρ`` for clusters of m equally correlated units (Kish 1965, *Survey
  Sampling*, §5.4), applied to the k votes on one pair. ρ̄ = 0: n_eff = k; ρ̄ = 1: n_eff = 1;
  ρ̄ < 0 (errors that cancel): n_eff > k, unbounded as ρ̄ → −1/(k − 1).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray


def error_phi(errors: ArrayLike) -> NDArray[np.float64]:
    """Pairwise φ coefficients of the judges' error indicators.

    Args:
        errors: shape (k judges, n pairs), entries 0/1 or bool (1 = the judge erred on the
            pair); k >= 1, n >= 1.

    Returns:
        (k, k) float array: φ of each pair of judges in [−1, 1], 1.0 on the diagonal of a
        judge whose errors vary, NaN where a judge's errors are constant.

    Raises:
        ValueError: not 2-D, no judge or no pair, an entry other than 0/1.

    Examples:
        Judge a errs on pairs 0 and 1, b on 0 and 2, c exactly where a does. For a and b the
        2×2 table is n11 = 1, n10 = 1, n01 = 1, n00 = 1, so φ = (n11·n00 − n10·n01) /
        √(2·2·2·2) = (1 − 1)/4 = 0; φ(a, c) = 1.

        >>> phi = error_phi([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0]])
        >>> float(phi[0, 1]), float(phi[0, 2])
        (0.0, 1.0)
    """
    e = np.asarray(errors)
    if e.ndim != 2 or e.shape[0] < 1 or e.shape[1] < 1:
        raise ValueError(f"errors: expected a (judges, pairs) array with both >= 1, got shape "
                         f"{e.shape}")
    if not np.isin(e, (0, 1)).all():
        raise ValueError("errors: expected 0/1 entries (1 = the judge erred on the pair)")
    x = e.astype(np.float64)
    centred = x - x.mean(axis=1, keepdims=True)
    norms = np.sqrt((centred ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = (centred @ centred.T) / np.outer(norms, norms)
    phi[(norms == 0)[:, None] | (norms == 0)[None, :]] = np.nan
    return np.clip(phi, -1.0, 1.0)


def mean_error_phi(phi: ArrayLike) -> float:
    """Mean φ over the distinct judge pairs (upper triangle) where it is defined; NaN when none
    is (fewer than 2 judges, or every φ undefined).

    Raises:
        ValueError: not a square matrix.
    """
    p = np.asarray(phi, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise ValueError(f"phi: expected a square matrix, got shape {p.shape}")
    upper = p[np.triu_indices(p.shape[0], k=1)]
    upper = upper[~np.isnan(upper)]
    return float(upper.mean()) if upper.size else math.nan


def effective_judges(k: int, rho: float) -> float:
    """Kish's effective number of independent judges among ``k`` whose errors correlate
    ``rho`` on average: ``k / (1 + (k − 1) ρ)`` (module docstring).

    Args:
        k: judges in the panel, >= 1.
        rho: mean error correlation in [−1, 1]; NaN gives NaN.

    Returns:
        n_eff >= 1 for ρ >= 0, > k for ρ < 0, ``inf`` when ``1 + (k − 1) ρ <= 0``.

    Raises:
        ValueError: k < 1 or ρ outside [−1, 1].

    Examples:
        >>> effective_judges(9, 0.5)  # 9 / (1 + 8 · 0.5)
        1.8
        >>> effective_judges(3, 0.0), effective_judges(3, 1.0)
        (3.0, 1.0)
    """
    if k < 1:
        raise ValueError(f"k: expected at least 1 judge, got {k}")
    if math.isnan(rho):
        return math.nan
    if not -1.0 <= rho <= 1.0:
        raise ValueError(f"rho: expected a correlation in [-1, 1], got {rho}")
    denominator = 1.0 + (k - 1) * rho
    return math.inf if denominator <= 0 else k / denominator
