"""Stratified labelling for τ (``calibrate --pool … --suggest N``, ``simjudge review``): the
strata, τ̂ with its 95 % interval, and what using τ̂ costs. Which pairs to label next is
:mod:`judge.calibration.allocation`'s.

The population is every pair the judge scored — the labelled pairs and the unlabelled pool, cut
into ``H`` strata by score (equal-count quantiles). Within a stratum the pairs to label are drawn
**at random**; every stratum first gets ``MIN_PER_STRATUM`` labels, then *how many* per stratum
follows the decision's loss (:func:`judge.calibration.allocation.loss_shares`).

τ̂ is the objective-best cut of the **inverse-probability weighted** sweep (a label counts
``N_h / n_h`` times; strata collapsed to ``MIN_PER_STRATUM`` labels, :meth:`Design.groups`), its
interval a **stratified bootstrap** (:mod:`judge.calibration.sweepboot`), the stopping rule's
loss (:func:`decision_loss`) a posterior over the unlabelled pairs' labels
(:mod:`judge.calibration.posterior`): stop when it is within the target with probability 0.95. Only
*how many* labels a stratum gets adapts, never which pairs, so the weights stay right and τ̂
unbiased. Assumption: the labels in hand are a random sample of their strata.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from judge.calibration.posterior import posterior_regrets
from judge.calibration.sweepboot import (
    STOP_LEVEL,
    LossEstimate,
    Resamples,
    TauEstimate,
    resample_sweep,
    weighted_tau,
)
from metrics import OBJECTIVES, percentile_ci

MIN_PER_STRATUM = 3
"""Labels every stratum gets before the allocation applies, and the fewest an estimation
stratum holds (:meth:`Design.groups` collapses strata with fewer)."""

STOP_MINIMUM = 8
"""Labels every stratum holds (or all its pairs) before the stopping rule can hold (with 3, a
stratum near τ is often all one class and the bootstrap sees no doubt there)."""


def score_strata(scores: NDArray[np.float64], n_strata: int) -> NDArray[np.intp]:
    """Stratum of each pair: equal-count quantile bins of the finite scores, ``0 … H'−1``
    ascending in score (``H' <= n_strata`` when ties merge bins); ``-1`` for NaN (no verdict).

    Raises:
        ValueError: ``n_strata < 1`` or no finite score.
    """
    if n_strata < 1:
        raise ValueError(f"n_strata must be >= 1, got {n_strata}")
    s = np.asarray(scores, dtype=np.float64)
    ok = np.isfinite(s)
    if not ok.any():
        raise ValueError("no finite score to stratify")
    edges = np.unique(np.quantile(s[ok], np.linspace(0, 1, n_strata + 1)[1:-1]))
    raw = np.searchsorted(edges, s[ok], side="right")
    _, dense = np.unique(raw, return_inverse=True)  # drop empty bins: 0 … H'−1
    out = np.full(s.shape, -1, dtype=np.intp)
    out[ok] = dense
    return out


@dataclass(frozen=True)
class Design:
    """A stratified sample of the population.

    Attributes:
        strata: stratum of every population pair (``-1`` = unscored, never sampled).
        labelled: population indices of the labelled pairs.
        positive: their binary labels (aligned with ``labelled``).
    """

    strata: NDArray[np.intp]
    labelled: NDArray[np.intp]
    positive: NDArray[np.bool_]

    @property
    def n_strata(self) -> int:
        """Number of strata."""
        return int(self.strata.max()) + 1

    def sizes(self) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
        """``(N_h, n_h, pos_h)``: population, labelled and positive-labelled pairs per stratum."""
        h = self.n_strata
        big = np.bincount(self.strata[self.strata >= 0], minlength=h)
        lab_h = self.strata[self.labelled]
        return (big, np.bincount(lab_h[lab_h >= 0], minlength=h),
                np.bincount(lab_h[(lab_h >= 0) & self.positive], minlength=h))

    def strata_below_minimum(self, minimum: int | None = None) -> int:
        """Strata holding fewer than ``minimum`` labels (default ``STOP_MINIMUM``, the stopping
        rule's) while they have unlabelled pairs left."""
        big, small, _ = self.sizes()
        floor = STOP_MINIMUM if minimum is None else minimum
        return int((small < np.minimum(floor, big)).sum())

    def groups(self) -> NDArray[np.intp]:
        """Estimation stratum of every population pair: adjacent score strata collapsed (low
        to high) until each holds at least ``MIN_PER_STRATUM`` labelled pairs
        ("collapsed strata", Cochran 1977 §5A.12); ``-1`` = unscored. A stratum with one or
        no label would otherwise drop out of the estimate or add no variance to the
        bootstrap, making τ's interval too narrow."""
        _, small, _ = self.sizes()
        group = np.zeros(self.n_strata, dtype=np.intp)
        g = acc = 0
        for h in range(self.n_strata):
            group[h] = g
            acc += int(small[h])
            if acc >= MIN_PER_STRATUM and h < self.n_strata - 1:
                g, acc = g + 1, 0
        if acc < MIN_PER_STRATUM and g > 0:  # a short last group joins the one below
            group[group == g] = g - 1
        out = np.full(self.strata.shape, -1, dtype=np.intp)
        ok = self.strata >= 0
        out[ok] = group[self.strata[ok]]
        return out

    def weights(self) -> NDArray[np.float64]:
        """Inverse-probability weight ``N_g / n_g`` of each labelled pair over its estimation
        stratum (:meth:`groups`); 0 when unscored."""
        groups = self.groups()
        ok_pop = groups >= 0
        big = np.bincount(groups[ok_pop])
        g = groups[self.labelled]
        small = np.bincount(g[g >= 0], minlength=big.size)
        w = np.zeros(len(g))
        ok = g >= 0
        w[ok] = big[g[ok]] / small[g[ok]]
        return w


def _bootstrap(scores: NDArray[np.float64], design: Design, objective: str, n_boot: int,
               seed: int) -> tuple[tuple[float, float], Resamples | None]:
    """``((τ̂, objective at τ̂), resamples)`` of the weighted sweep (resamples None when
    ``n_boot`` is 0).

    Raises:
        ValueError: the labels hold one class, or one distinct score; an unknown objective.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: expected one of {OBJECTIVES}, got {objective!r}")
    s_lab = np.asarray(scores, dtype=np.float64)[design.labelled]
    w = design.weights()  # a resample keeps each group's n_g, so each pair keeps N_g / n_g
    got = weighted_tau(s_lab, design.positive, w, objective)
    if got is None:
        raise ValueError("τ needs labelled pairs of both classes with two distinct scores")
    if n_boot <= 0:
        return got, None
    keep = w > 0
    groups = design.groups()[design.labelled]
    return got, resample_sweep(s_lab[keep], design.positive[keep], w[keep], groups[keep],
                               got[0], objective, n_boot, seed)


def stratified_tau(scores: NDArray[np.float64], design: Design, objective: str = "f1",
                   n_boot: int = 200, seed: int = 0) -> TauEstimate:
    """The weighted τ̂ and its stratified-bootstrap 95 % percentile interval (see the module
    docstring).

    Args:
        scores: the population's scores in [0, 1] (NaN = unscored), shape (N,).
        design: the labelled sample.
        objective: a :data:`metrics.OBJECTIVES` name.
        n_boot: resamples (0 = no interval); seed: their seed.

    Raises:
        ValueError: the labels hold one class, or one distinct score; an unknown objective.
    """
    (tau, _), boot = _bootstrap(scores, design, objective, n_boot, seed)
    if boot is None or not boot.ok.any():
        return TauEstimate(tau, tau, tau, [], [], n_boot)
    lo, hi = percentile_ci(boot.taus[boot.ok])
    return TauEstimate(tau, float(lo), float(hi), boot.taus[boot.ok].tolist(),
                       boot.best[boot.ok].tolist(), int((~boot.ok).sum()))


def decision_loss(scores: NDArray[np.float64], design: Design, objective: str = "f1",
                  n_boot: int = 200, seed: int = 0) -> LossEstimate:
    """The objective expected to be lost by using τ̂ rather than the population's best τ, and
    the stopping rule's bound on it.

    The loss is posterior: ``n_boot`` draws of the unlabelled pairs' labels from each score
    stratum's Beta posterior complete the population, and each draw's regret is ``objective(τ*)
    − objective(τ̂)`` on it (:func:`judge.calibration.posterior.posterior_regrets`; Ericson
    1969, Rubin 1987): ``loss`` is their mean, ``upper`` their :data:`STOP_LEVEL` quantile.
    Beside it, the stratified bootstrap of the labels (within :meth:`Design.groups`;
    Efron & Tibshirani 1993 ch. 6, weights: Cochran 1977 ch. 5) gives τ̂'s interval — the
    2.5th–97.5th percentiles of its resamples' τ*_b, the resamples of :func:`stratified_tau`
    for the same seed — and the regrets ``objective_b(τ*_b) − objective_b(τ̂)`` the allocation
    weighs strata by (:func:`loss_shares`; their mean is ``bootstrap_loss``).

    Args:
        scores: the population's scores in [0, 1] (NaN = unscored), shape (N,).
        design: the labelled sample; objective: a :data:`metrics.OBJECTIVES` name.
        n_boot: resamples and posterior draws (0 = loss and bound NaN, interval ``τ̂``
            twice); seed: their seed.

    Returns:
        A :class:`LossEstimate` (``benchmarks/active_labelling.py`` times it).

    Raises:
        ValueError: the labels hold one class, or one distinct score; an unknown objective.
    """
    (tau, at_tau), boot = _bootstrap(scores, design, objective, n_boot, seed)
    met = design.strata_below_minimum() == 0
    n = len(design.labelled)
    if boot is None:
        return LossEstimate(tau, tau, tau, float("nan"), n, met, objective, at_tau, 0, n_boot)
    draws = posterior_regrets(np.asarray(scores, dtype=np.float64), design.strata,
                              design.labelled, design.positive, tau, objective, n_boot,
                              int(np.random.SeedSequence(seed).generate_state(1)[0]))
    loss = float(draws.mean())
    upper = float(np.quantile(draws, STOP_LEVEL, method="higher"))
    ok = boot.ok & np.isfinite(boot.at_tau)
    if not ok.any():
        return LossEstimate(tau, tau, tau, loss, n, met, objective, at_tau, 0, n_boot,
                            upper=upper)
    regret = np.maximum(boot.best[ok], boot.at_tau[ok]) - boot.at_tau[ok]
    lo, hi = percentile_ci(boot.taus[boot.ok])
    return LossEstimate(tau, float(lo), float(hi), loss, n, met, objective, at_tau,
                        int(ok.sum()), n_boot - int(ok.sum()), tuple(boot.taus[ok].tolist()),
                        tuple(regret.tolist()), upper=upper,
                        bootstrap_loss=float(regret.mean()))
