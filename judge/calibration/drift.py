"""The drift canary's statistics: has a judge moved since it was calibrated?

A pinned subset of the calibration's labelled pairs is judged again (with the cache bypassed)
and the fresh scores are compared, pair by pair, with the scores stored by ``calibrate``
(:mod:`judge.calibration.pairscores`). Under the null hypothesis — the judge is the judge that
was calibrated — a pair's stored and fresh scores are two draws of the same judgement, so:

* **score shift**: the paired differences ``fresh − stored`` are symmetric about 0: Wilcoxon's
  signed-rank test (Wilcoxon 1945, "Individual comparisons by ranking methods", Biometrics
  Bulletin 1(6)), zero differences kept in the ranking as Pratt (1959, JASA 54) proposed
  (``scipy.stats.wilcoxon(zero_method="pratt")``); all differences 0: p = 1;
* **ROC-AUC** and **Cohen's κ at τ** against the human labels: the difference fresh − stored
  with a paired percentile bootstrap interval (the same resampled pairs for both; Efron &
  Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13), reported. The decisions use
  tests whose size does not rest on a bootstrap's extreme quantiles: ROC-AUC moved when
  DeLong's test of two correlated AUCs rejects (DeLong, DeLong & Clarke-Pearson 1988,
  Biometrics 44; the structural components as Sun & Xu 2014, IEEE Signal Processing Letters
  21, compute them); κ at τ changes only through the few pairs whose verdict changed (a
  percentile interval excludes 0 whenever those few all moved one way, 3 of 3 does), so κ
  moved when the exact McNemar test (McNemar 1947, Psychometrika 12; the paired test of
  two classifiers, Dietterich 1998, Neural Computation 10) finds the pairs that became wrong
  and those that became right against the humans unbalanced;
* **verdicts flipped at τ** (a pair whose stored and fresh scores fall on both sides of τ —
  the repeat probe's flip, :mod:`judge.probes.stats`): an unchanged judge flips the pairs its
  own noise carries across τ. Under the null each pair i flips with probability
  ``p_i = max(Φ(−|s_i − τ| / σ), flip_tolerance)``: its fresh score drawn as its stored one
  ``s_i`` plus a normal difference whose SD σ is estimated robustly from the check's own
  differences (1.4826 × their median absolute deviation, so a minority of drifted pairs does
  not inflate it), floored by a tolerated rate (a judge whose scores repeat exactly has σ =
  0: give it its repeat-probe flip rate, ``eval --repeats 2``). The flips are weighed by how
  unlikely the noise makes each (:func:`flip_test`), so ten far-from-τ flips stand out among
  the near-τ flips of a noisy judge.

The four tests are one family: each is run at α/4 (Bonferroni; Dunn 1961, "Multiple
comparisons among means", JASA 56), so an unchanged judge fails the check with probability
at most α. Pairs without a verdict on either side are left out of every comparison (and
counted by the caller).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

TESTS = ("score shift", "ROC-AUC", "Cohen's κ at τ", "verdicts flipped")
"""The four comparisons, in the order a failing check names them."""
FLIP_DRAWS = 20_000
"""Simulated null checks of the flip test (its smallest p-value: 1 / 20,001)."""
MIN_FLIP_P = 1e-6
"""The least null flip probability of a pair (``flip_tolerance`` 0 and σ = 0 would make a
flip infinitely unlikely)."""


def pinned_subset(positive: NDArray[np.bool_], stored: NDArray[np.float64],
                  eligible: NDArray[np.bool_], tau: float, n: int, seed: int) -> NDArray[np.intp]:
    """The pinned, stratified subset of labelled pairs that a check re-judges.

    Strata: human label × stored verdict at τ (``stored > tau``), so the subset holds the
    judge's agreements and errors in the calibration's proportions. Each stratum gets its
    proportional share of ``n`` (largest remainders, ties to the larger stratum, then the
    earlier), drawn without replacement by ``numpy.random.default_rng(seed)``: the same
    calibration, ``n`` and ``seed`` give the same pairs on every check.

    Args:
        positive: the binarised human label of each pair, shape ``(P,)``.
        stored: the stored scores, shape ``(P,)`` (NaN: no verdict).
        eligible: the pairs that may be drawn (a stored verdict, not equal after
            normalisation), shape ``(P,)``.
        tau: the calibrated τ in [0, 1].
        n: pairs wanted, ≥ 1 (all eligible pairs when fewer).
        seed: the draw's seed.

    Returns:
        The drawn pairs' indices into the labelled pairs, sorted.
    """
    idx = np.flatnonzero(eligible)
    strata = positive[idx].astype(int) * 2 + (stored[idx] > tau).astype(int)
    groups = [idx[strata == h] for h in range(4)]
    sizes = np.array([len(g) for g in groups])
    take = min(n, len(idx))
    quota = sizes * take / max(len(idx), 1)
    alloc = np.floor(quota).astype(int)
    order = sorted(range(4), key=lambda h: (-(quota[h] - alloc[h]), -sizes[h], h))
    for h in order[: take - int(alloc.sum())]:
        alloc[h] += 1
    rng = np.random.default_rng(seed)
    drawn = [rng.choice(g, size=a, replace=False) for g, a in zip(groups, alloc, strict=True)
             if a]
    return np.sort(np.concatenate(drawn)) if drawn else np.array([], dtype=np.intp)


@dataclass
class Drift:
    """What a check measured on the pairs scored on both sides.

    Attributes:
        pairs: pairs compared (a verdict stored and fresh).
        shift_mean: mean of ``fresh − stored``; shift_ci: its paired bootstrap interval.
        shift_p: Wilcoxon signed-rank p-value (two-sided, Pratt's zeros).
        stored_mean, fresh_mean: the means of the scores compared; mean_se: the standard
            error of one check's mean, ``sd(d) / √(2m)`` (the CUSUM's input,
            :mod:`judge.calibration.cusum`).
        auc, kappa: ``{"stored", "fresh", "delta", "ci"}`` (None where undefined: one class).
        auc_p: DeLong's p-value of the AUC difference (1 when undefined).
        kappa_p: the exact McNemar p-value of the verdicts that became wrong
            (``to_wrong``) against those that became right (``to_right``), by the humans.
        flips, flip_share: verdicts flipped at τ and their share; flips_expected: their
            expected number under the null; flip_p: :func:`flip_test`'s p-value;
            noise_sd: the robust SD σ of the differences; to_positive, to_negative: flips to
            "same" and away.
        level: the interval level, 1 − α/4.
        moved: the names (:data:`TESTS`) of the comparisons significant at α.
        resamples_skipped: bootstrap resamples with one class (no AUC or κ).
    """

    pairs: int
    shift_mean: float | None
    shift_ci: list[float] | None
    shift_p: float
    stored_mean: float | None
    fresh_mean: float | None
    mean_se: float
    auc: dict[str, Any]
    auc_p: float
    kappa: dict[str, Any]
    kappa_p: float
    to_wrong: int
    to_right: int
    flips: int
    flip_share: float | None
    flips_expected: float
    flip_p: float
    noise_sd: float
    to_positive: int
    to_negative: int
    level: float
    moved: list[str] = field(default_factory=list)
    resamples_skipped: int = 0


def _aucs(y: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
    """ROC-AUC of each row of ``s`` (shape ``(B, m)``) against the labels ``y`` (``(B, m)``):
    the Mann–Whitney statistic with mid-ranks (ties count one half); NaN for one class."""
    from scipy.stats import rankdata

    ranks = rankdata(s, axis=1)
    n1 = y.sum(axis=1)
    n0 = y.shape[1] - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((ranks * y).sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0)


def _kappas(y: NDArray[np.bool_], p: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Cohen's κ (Cohen 1960) of each row of predictions ``p`` against ``y`` (both
    ``(B, m)``); NaN where chance agreement is 1."""
    m = y.shape[1]
    po = (y == p).sum(axis=1) / m
    py, pp = y.sum(axis=1) / m, p.sum(axis=1) / m
    pe = py * pp + (1 - py) * (1 - pp)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pe < 1, (po - pe) / (1 - pe), np.nan)


def _ci(x: NDArray[np.float64], level: float) -> list[float] | None:
    x = x[np.isfinite(x)]
    if not x.size:
        return None
    lo, hi = np.quantile(x, [(1 - level) / 2, (1 + level) / 2])
    return [float(lo), float(hi)]


def _paired(stored: float, fresh: float, deltas: NDArray[np.float64],
            level: float) -> dict[str, Any]:
    if not (np.isfinite(stored) and np.isfinite(fresh)):
        return {"stored": None, "fresh": None, "delta": None, "ci": None}
    return {"stored": float(stored), "fresh": float(fresh), "delta": float(fresh - stored),
            "ci": _ci(deltas, level)}


def delong_p(y: NDArray[np.bool_], a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """DeLong's two-sided p-value for AUC(b) − AUC(a), two scorings of the same pairs.

    Each positive's structural component is its share of negatives it outscores (ties one
    half), each negative's the share of positives that outscore it; the AUC is their mean
    and the difference's variance ``(S10[0,0] + S10[1,1] − 2 S10[0,1]) / n1 + (same of S01)
    / n0`` from their sample covariances (DeLong et al. 1988). z = difference / SD, normal.

    Args:
        y: labels, shape ``(m,)`` with both classes; a, b: scores, shape ``(m,)``.
    """
    from scipy.stats import norm

    v10, v01 = [], []
    for x in (a, b):
        pos, neg = x[y][:, None], x[~y][None, :]
        psi = (pos > neg) + 0.5 * (pos == neg)
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    diff = float(v10[1].mean() - v10[0].mean())
    var = 0.0
    for comps in (v10, v01):
        n = comps[0].size
        if n > 1:
            c = np.cov(np.vstack(comps))
            var += float(c[0, 0] + c[1, 1] - 2 * c[0, 1]) / n
    if var <= 0:
        return 1.0 if abs(diff) < 1e-12 else 0.0
    return float(2 * norm.sf(abs(diff) / np.sqrt(var)))


def flip_test(null: NDArray[np.float64], flipped: NDArray[np.bool_], seed: int = 0,
              draws: int = FLIP_DRAWS) -> float:
    """The p-value of the flips under the null: the statistic ``T = Σ_flipped −log p_i``
    (a flip counts more the less likely the judge's noise makes it: the log-likelihood ratio
    against a change that flips any pair alike), its null distribution simulated from
    independent Bernoulli(p_i) flips, and ``p = (1 + #{T* ≥ T}) / (draws + 1)`` (Davison &
    Hinkley 1997, *Bootstrap Methods and their Application*, eq. 4.11). No flip: p = 1.

    Args:
        null: each pair's flip probability under the null, in (0, 1), shape ``(m,)``.
        flipped: which pairs flipped, shape ``(m,)``.
        seed: the simulation's seed; draws: simulated checks.
    """
    if not flipped.any():
        return 1.0
    w = -np.log(null)
    t = float(w[flipped].sum())
    rng = np.random.default_rng(seed)
    above = 0
    for start in range(0, draws, 2000):  # in blocks: bounded memory for large m
        block = rng.random((min(2000, draws - start), null.size)) < null
        above += int((block @ w >= t * (1 - 1e-12)).sum())
    return (1 + above) / (draws + 1)


def flip_null(stored: NDArray[np.float64], fresh: NDArray[np.float64], tau: float,
              flip_tolerance: float) -> tuple[NDArray[np.float64], float]:
    """Each pair's probability of flipping at τ under the null, and the robust SD σ of the
    differences (see the module docstring).

    Args:
        stored, fresh: the scores of the pairs compared, shape ``(m,)``, finite.
        tau: the calibrated τ.
        flip_tolerance: the floor of each probability, in [0, 1).
    """
    from scipy.stats import norm

    if not stored.size:
        return np.zeros(0), 0.0
    d = fresh - stored
    sd = float(1.4826 * np.median(np.abs(d - np.median(d))))
    gap = np.abs(stored - tau)
    q = norm.sf(gap / sd) if sd > 0 else np.zeros_like(gap)
    return np.clip(q, max(flip_tolerance, MIN_FLIP_P), 0.5), sd


def compare(stored: NDArray[np.float64], fresh: NDArray[np.float64],
            positive: NDArray[np.bool_], tau: float, alpha: float = 0.05,
            flip_tolerance: float = 0.01, n_boot: int = 2000, seed: int = 0) -> Drift:
    """Compare fresh scores with stored ones (see the module docstring).

    Args:
        stored, fresh: scores of the same pairs, shape ``(m,)``, in [0, 1] (NaN: no verdict).
        positive: the pairs' human labels, shape ``(m,)``.
        tau: the calibrated τ (a pair is "same" when its score > τ).
        alpha: the family's significance level in (0, 1).
        flip_tolerance: the least flip rate granted an unchanged judge, in [0, 1).
        n_boot: bootstrap resamples (≥ 100).
        seed: the bootstrap's seed.

    Raises:
        ValueError: arrays of different shapes; alpha, flip_tolerance or n_boot out of range.
    """
    from scipy.stats import binomtest, wilcoxon

    if not (stored.shape == fresh.shape == positive.shape):
        raise ValueError("stored, fresh and positive must have the same shape")
    if not 0 < alpha < 1 or not 0 <= flip_tolerance < 1 or n_boot < 100:
        raise ValueError("expected 0 < alpha < 1, 0 <= flip_tolerance < 1, n_boot >= 100")
    ok = np.isfinite(stored) & np.isfinite(fresh)
    s, f, y = stored[ok], fresh[ok], positive[ok].astype(bool)
    m = int(ok.sum())
    level = 1 - alpha / len(TESTS)
    if m == 0:  # every pair failed on one side: nothing to compare
        none = {"stored": None, "fresh": None, "delta": None, "ci": None}
        return Drift(pairs=0, shift_mean=None, shift_ci=None, shift_p=1.0, stored_mean=None,
                     fresh_mean=None, mean_se=0.0, auc=none, auc_p=1.0, kappa=dict(none),
                     kappa_p=1.0, to_wrong=0, to_right=0, flips=0, flip_share=None,
                     flips_expected=0.0, flip_p=1.0, noise_sd=0.0, to_positive=0,
                     to_negative=0, level=level)
    d = f - s
    shift_p = 1.0
    if np.any(d != 0):
        shift_p = float(wilcoxon(d, zero_method="pratt").pvalue)
    vs, vf = s > tau, f > tau
    flips = int((vs != vf).sum())
    null, noise_sd = flip_null(s, f, tau, flip_tolerance)
    to_wrong, to_right = int(((vs == y) & (vf != y)).sum()), int(((vs != y) & (vf == y)).sum())
    kappa_p = float(binomtest(to_wrong, to_wrong + to_right).pvalue) if to_wrong + to_right \
        else 1.0
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, m, size=(n_boot, m))
    yb, sb, fb = y[idx], s[idx], f[idx]
    one_class = (yb.all(axis=1) | ~yb.any(axis=1))
    auc_d = np.where(one_class, np.nan, _aucs(yb, fb) - _aucs(yb, sb))
    kappa_d = np.where(one_class, np.nan, _kappas(yb, fb > tau) - _kappas(yb, sb > tau))
    two = bool(0 < y.sum() < m)
    aucs = [_aucs(y[None, :], x[None, :])[0] if two else np.nan for x in (s, f)]
    kappas = [_kappas(y[None, :], x[None, :] > tau)[0] for x in (s, f)]
    out = Drift(pairs=m, shift_mean=float(d.mean()), shift_ci=_ci(d[idx].mean(axis=1), level),
                shift_p=shift_p, stored_mean=float(s.mean()), fresh_mean=float(f.mean()),
                mean_se=float(d.std(ddof=1) / np.sqrt(2 * m)) if m > 1 else 0.0,
                auc=_paired(aucs[0], aucs[1], auc_d, level),
                auc_p=delong_p(y, s, f) if two else 1.0,
                kappa=_paired(kappas[0], kappas[1], kappa_d, level), kappa_p=kappa_p,
                to_wrong=to_wrong, to_right=to_right, flips=flips, flip_share=flips / m,
                flips_expected=float(null.sum()), flip_p=flip_test(null, vs != vf, seed),
                noise_sd=noise_sd, to_positive=int((~vs & vf).sum()),
                to_negative=int((vs & ~vf).sum()), level=level,
                resamples_skipped=int(one_class.sum()))
    cut = alpha / len(TESTS)
    hits = (shift_p < cut, out.auc_p < cut, kappa_p < cut, out.flip_p < cut)
    out.moved = [name for name, hit in zip(TESTS, hits, strict=True) if hit]
    return out
