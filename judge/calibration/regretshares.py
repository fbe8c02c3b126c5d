"""Which score strata the decision's loss depends on: the allocation shares of active labelling
(:func:`judge.calibration.allocation.suggest`).

The loss of using τ̂ is the bootstrap mean of the regret ``D_b = objective(τ*_b) −
objective(τ̂)`` (:func:`judge.calibration.stratified.decision_loss`). Labels lower the loss
where they make the estimate of each ``D_b`` more precise. Linearised, the objective at a
threshold is a function of the four weighted confusion counts, so one more pair of score ``s``
and label ``y`` moves ``D_b`` by its *influence* (Deville 1999, "Variance estimation for complex
statistics and estimators: linearization and residual techniques", *Survey Methodology* 25):

``z_b(s, y) = ∂objective(τ*_b)/∂count_b(s, y) − ∂objective(τ̂)/∂count_τ̂(s, y)``

where ``count_t(s, y)`` is the cell the pair falls in at threshold ``t`` (TP when ``y`` and
``s > t``, FN when ``y`` and ``s <= t``, FP, TN). ``z`` takes at most six values in a stratum:
a pair below both thresholds, between them or above both, positive or not. With the stratum's
positive share ``p_h`` (Laplace-smoothed) and the shares of its pairs in each region (known:
every pair's score is), the stratum's variance of ``z`` is ``S²_hb``. Averaged over the
resamples, weighted by their regret (the resamples that cost most matter most), ``V_h = Σ_b
regret_b S²_hb / Σ_b regret_b``, and Neyman's allocation for the total of ``z`` (Cochran 1977,
*Sampling Techniques*, §5.5) is ``n_h ∝ N_h sqrt(V_h)``.

So a stratum gets labels in proportion to how much its pairs can move the choice between τ̂ and
the τs the bootstrap finds plausible: most go to the strata between them, a few to the strata
that only shift the objective's level (the positives' total). The design is still stratified
random sampling with the weights ``N_h / n_h``: only *how many* per stratum changes, so τ̂ stays
unbiased.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from metrics import rates_from_counts

_TP, _FP, _FN, _TN = 0, 1, 2, 3


def _weighted_counts(scores: NDArray[np.float64], positive: NDArray[np.bool_],
                     weights: NDArray[np.float64],
                     taus: NDArray[np.float64]) -> NDArray[np.float64]:
    """Weighted ``(tp, fp, fn, tn)`` of the rule ``score > τ`` at each τ: shape (4, len(taus))."""
    order = np.argsort(scores, kind="stable")
    at = np.searchsorted(scores[order], taus, side="right")  # pairs with score <= τ
    cum = np.concatenate(([0.0], np.cumsum(weights[order])))
    cum_pos = np.concatenate(([0.0], np.cumsum((weights * positive)[order])))
    total, n_pos = cum[-1], cum_pos[-1]
    tp = n_pos - cum_pos[at]
    fp = (total - cum[at]) - tp
    return np.array([tp, fp, n_pos - tp, (total - n_pos) - fp])


def _gradient(counts: NDArray[np.float64], objective: str) -> NDArray[np.float64]:
    """∂objective/∂count of each of the four counts (rows), by a forward difference of one
    millionth of the total; an undefined objective (κ's NaN) counts as 0."""
    eps = 1e-6 * float(counts[:, 0].sum())
    base = rates_from_counts(*counts)[objective]
    out = np.empty_like(counts)
    for k in range(4):
        moved = counts.copy()
        moved[k] += eps
        out[k] = (rates_from_counts(*moved)[objective] - base) / eps
    return np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0)


def regret_shares(scores: NDArray[np.float64], strata: NDArray[np.intp],
                  positive_share: NDArray[np.float64], labelled_scores: NDArray[np.float64],
                  positive: NDArray[np.bool_], weights: NDArray[np.float64], tau: float,
                  taus: NDArray[np.float64], regrets: NDArray[np.float64],
                  objective: str) -> NDArray[np.float64]:
    """Each stratum's allocation share ``N_h sqrt(V_h)`` (see the module docstring).

    Args:
        scores: the population's scores in [0, 1] (NaN = unscored), shape (N,).
        strata: the stratum of each population pair (-1 = unscored), shape (N,).
        positive_share: each stratum's smoothed positive share ``p_h`` in (0, 1), shape (H,).
        labelled_scores, positive, weights: the labelled pairs of positive weight (their
            scores, labels and ``N_g / n_g`` weights), shape (n,) each.
        tau: τ̂ in [0, 1].
        taus: each resample's best τ*_b, shape (B,); regrets: its ``D_b >= 0``, shape (B,).
        objective: a :data:`metrics.OBJECTIVES` name.

    Returns:
        Shares >= 0, shape (H,); all 0 when no resample's τ*_b differs from τ̂ and no count
        moves the objective.
    """
    n_strata = positive_share.size
    at_b = _gradient(_weighted_counts(labelled_scores, positive, weights, taus), objective)
    at_hat = _gradient(_weighted_counts(labelled_scores, positive, weights,
                                        np.array([tau])), objective)  # (4, 1): broadcast
    up = taus > tau  # between the two: above τ̂ and below τ*_b, or the other way round
    z = {  # (region, label) → influence per resample
        ("below", 1): at_b[_FN] - at_hat[_FN], ("below", 0): at_b[_TN] - at_hat[_TN],
        ("above", 1): at_b[_TP] - at_hat[_TP], ("above", 0): at_b[_FP] - at_hat[_FP],
        ("between", 1): np.where(up, at_b[_FN] - at_hat[_TP], at_b[_TP] - at_hat[_FN]),
        ("between", 0): np.where(up, at_b[_TN] - at_hat[_FP], at_b[_FP] - at_hat[_TN]),
    }
    lo, hi = np.minimum(taus, tau), np.maximum(taus, tau)
    size = np.zeros(n_strata)
    share = {r: np.zeros((n_strata, taus.size)) for r in ("below", "between", "above")}
    for h in range(n_strata):
        sh = np.sort(scores[strata == h])
        size[h] = sh.size
        if sh.size:
            below = np.searchsorted(sh, lo, side="right") / sh.size
            above = 1.0 - np.searchsorted(sh, hi, side="right") / sh.size
            share["below"][h], share["above"][h] = below, above
            share["between"][h] = 1.0 - below - above
    p = positive_share[:, None]
    m1 = np.zeros((n_strata, taus.size))
    m2 = np.zeros((n_strata, taus.size))
    for region, q in share.items():
        z1, z0 = z[(region, 1)], z[(region, 0)]
        m1 += q * (p * z1 + (1.0 - p) * z0)
        m2 += q * (p * z1 ** 2 + (1.0 - p) * z0 ** 2)
    weight = regrets if regrets.sum() > 0 else np.ones_like(regrets)
    variance = np.maximum(m2 - m1 ** 2, 0.0) @ weight / weight.sum()
    return np.asarray(size * np.sqrt(variance), dtype=np.float64)
