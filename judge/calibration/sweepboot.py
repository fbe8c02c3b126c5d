"""The stratified bootstrap of an inverse-probability weighted threshold sweep, vectorised over
resamples (:mod:`judge.calibration.stratified` uses it for τ̂'s interval and the decision's
loss).

A resample draws, within every estimation stratum, as many labelled pairs as it holds, with
replacement (Efron & Tibshirani 1993, §3; within strata: the "two-sample" bootstrap
generalised); a drawn pair keeps its weight ``N_g / n_g``. Drawing is a multinomial count per
pair, so the sweep of every resample is one cumulative sum over the labelled pairs' distinct
scores — the same confusion counts :func:`metrics.sweep_arrays` gives the resample with each
drawn pair repeated, at a fraction of the cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from metrics import best_index, rate_from_counts, sweep_arrays


def weighted_tau(scores: NDArray[np.float64], positive: NDArray[np.bool_],
                 weights: NDArray[np.float64], objective: str) -> tuple[float, float] | None:
    """``(τ, objective at τ)``: the objective-best cut of the weighted sweep; None with one
    class or one distinct score among the pairs of positive weight."""
    keep = weights > 0
    s, y, w = scores[keep], positive[keep], weights[keep]
    if y.all() or not y.any() or np.unique(s).size < 2:
        return None
    sw = sweep_arrays(s, y, weights=w)
    try:
        i = best_index(sw[objective])
    except ValueError:
        return None
    return float(sw["tau"][i]), float(sw[objective][i])


@dataclass(frozen=True)
class TauEstimate:
    """τ̂ of a stratified sample and its stratified bootstrap.

    Attributes:
        tau: the weighted objective-best τ̂ in [0, 1].
        low, high: its 95 % percentile interval (``tau`` twice without resamples).
        taus, objectives: τ̂ and the objective at τ̂ in each resample that had both classes.
        skipped: resamples without a τ̂ (one class or one distinct score).
    """

    tau: float
    low: float
    high: float
    taus: list[float]
    objectives: list[float]
    skipped: int

    @property
    def width(self) -> float:
        """``high − low``."""
        return self.high - self.low


STOP_LEVEL = 0.95
"""The stopping rule's posterior probability: it holds when the objective lost by using τ̂ is
within the target with at least this probability (:attr:`LossEstimate.upper`). 0.95, not 0.9:
the review app checks after every label, and at 0.9 the first stop was within the target in
only 82 % of 60 simulated COS960 seeds (88 % at 0.95; docs/explanation/tau.md)."""


@dataclass(frozen=True)
class LossEstimate:
    """What using τ̂ costs: the stopping rule of active labelling (``calibrate --pool …
    --suggest``, ``simjudge review``).

    Attributes:
        tau: τ̂ in [0, 1], the objective-best cut of the weighted sweep of all labels.
        low, high: τ̂'s 95 % percentile interval (a report, not the rule: near its best the
            objective is flat, so this interval can stay wide while nothing is lost).
        loss: the expected objective lost by using τ̂ rather than the population's best τ:
            the mean over posterior draws of the unlabelled pairs' labels
            (:func:`judge.calibration.posterior.posterior_regrets`), in the objective's units
            (>= 0; NaN without a draw).
        upper: the :data:`STOP_LEVEL` quantile of those draws — the rule: with posterior
            probability ``level`` the loss is at most ``upper`` (NaN without a draw).
        level: ``upper``'s probability, in (0, 1).
        bootstrap_loss: ``mean_b objective_b(τ*_b) − objective_b(τ̂)`` over the stratified
            bootstrap's resamples of the labels (what the allocation weighs strata by; not the
            rule: it cannot know a labelled pair's label is known, so it never reaches 0).
        n_labels: labelled pairs in the estimate.
        minimums_met: every stratum holds ``STOP_MINIMUM`` labels (or all its pairs).
        objective: the :data:`metrics.OBJECTIVES` name; objective_at_tau: its weighted value at
            τ̂ (the population estimate).
        resamples: resamples in the loss; skipped: those without a τ*_b (one class or one
            distinct score drawn).
        taus, regrets: each resample's τ*_b and ``objective_b(τ*_b) − objective_b(τ̂)``
            (what :func:`judge.calibration.allocation.suggest` allocates by).
    """

    tau: float
    low: float
    high: float
    loss: float
    n_labels: int
    minimums_met: bool
    objective: str = "f1"
    objective_at_tau: float = float("nan")
    resamples: int = 0
    skipped: int = 0
    taus: tuple[float, ...] = field(default=(), repr=False)
    regrets: tuple[float, ...] = field(default=(), repr=False)
    upper: float = float("nan")
    level: float = STOP_LEVEL
    bootstrap_loss: float = float("nan")

    def within(self, target_loss: float) -> bool:
        """The loss is at most ``target_loss`` with probability ``level`` (``upper <=
        target_loss``); False while undefined (NaN)."""
        return bool(self.upper <= target_loss)

    def stop(self, target_loss: float) -> bool:
        """The stopping rule: the objective lost by using τ̂ is at most ``target_loss`` (in
        objective units, e.g. 0.01 F1) with posterior probability ``level`` (0.95), and every
        stratum holds its minimum of labels. False while the loss is undefined (NaN). Over 20
        seeded simulations on each of four labelled sets the true loss was within the target at
        90–100 % of the first stops, checked after every label or every 20
        (``benchmarks/active_labelling.py``; docs/performance.md, "Active labelling")."""
        return self.minimums_met and self.within(target_loss)


@dataclass(frozen=True)
class Resamples:
    """The stratified bootstrap of a weighted sweep, one entry per resample (NaN = skipped:
    one class, or one distinct score).

    Attributes:
        taus: the resample's objective-best τ*_b (its own candidates: midpoints of its scores).
        best: the objective at τ*_b.
        at_tau: the objective, in the resample, of the rule ``score > τ̂`` (τ̂ of all labels).
    """

    taus: NDArray[np.float64]
    best: NDArray[np.float64]
    at_tau: NDArray[np.float64]

    @property
    def ok(self) -> NDArray[np.bool_]:
        """Resamples that have a τ*_b."""
        return np.isfinite(self.taus)


CELLS = 2_000_000
"""Resamples × labelled pairs handled at once by the bootstrap (bounds its memory to ~100 MB)."""


def resample_sweep(scores: NDArray[np.float64], positive: NDArray[np.bool_],
                   weights: NDArray[np.float64], groups: NDArray[np.intp], tau: float,
                   objective: str, n_boot: int, seed: int) -> Resamples:
    """The weighted sweep of ``n_boot`` stratified resamples of the labelled pairs.

    A resample's candidate τs are the cuts with one of its drawn scores on each side; τ*_b is
    the midpoint of the two drawn scores nearest its best cut (as :func:`metrics.sweep_arrays`
    on the resample), ties to the larger τ (:func:`metrics.best_index`).

    Args:
        scores: the labelled pairs' scores in [0, 1], shape (n,), no NaN.
        positive: their binary labels, shape (n,).
        weights: their inverse-probability weights ``N_g / n_g`` (> 0), shape (n,).
        groups: their estimation stratum (resampled separately), shape (n,).
        tau: τ̂ of all labels, a midpoint between two consecutive distinct ``scores``.
        objective: a :data:`metrics.OBJECTIVES` name.
        n_boot: resamples (>= 1); seed: their seed.

    Returns:
        :class:`Resamples` (a resample drawing one class only, or one distinct score, is NaN).
    """
    order = np.argsort(scores, kind="stable")
    ss = scores[order]
    starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    u = ss[starts]
    k_tau = int(np.searchsorted(u, tau)) - 1  # the cut u[k] < τ̂ < u[k + 1]
    w_all, w_pos = weights[order], (weights * positive)[order]
    g_sorted = groups[order]
    members = [np.flatnonzero(g_sorted == g) for g in np.unique(g_sorted)]
    rng = np.random.default_rng(seed)
    taus = np.full(n_boot, np.nan)
    best = np.full(n_boot, np.nan)
    at_tau = np.full(n_boot, np.nan)
    index = np.arange(u.size)
    step = max(1, CELLS // max(1, scores.size))
    for b0 in range(0, n_boot, step):
        b1 = min(n_boot, b0 + step)
        draws = np.zeros((b1 - b0, scores.size), dtype=np.int64)
        for m in members:
            draws[:, m] = rng.multinomial(m.size, np.full(m.size, 1.0 / m.size), size=b1 - b0)
        count = np.add.reduceat(draws, starts, axis=1)  # drawn pairs per distinct score
        pos_drawn = draws @ positive[order].astype(np.int64)
        all_w = np.add.reduceat(draws * w_all, starts, axis=1)
        pos_w = np.add.reduceat(draws * w_pos, starts, axis=1)
        total = all_w.sum(axis=1, keepdims=True)
        n_pos = pos_w.sum(axis=1, keepdims=True)
        tp = n_pos - np.cumsum(pos_w, axis=1)[:, :-1]  # cut k: scores > u[k] predicted positive
        above = total - np.cumsum(all_w, axis=1)[:, :-1]
        fp = above - tp
        values = rate_from_counts(objective, tp, fp, n_pos - tp, (total - n_pos) - fp,
                                  n=total, n_pos=n_pos)
        cum = np.cumsum(count, axis=1)
        candidate = (cum[:, :-1] > 0) & (cum[:, -1:] - cum[:, :-1] > 0) & np.isfinite(values)
        ok = (pos_drawn > 0) & (pos_drawn < scores.size) & candidate.any(axis=1)
        v = np.where(candidate, values, -np.inf)
        k = v.shape[1] - 1 - np.argmax(v[:, ::-1], axis=1)  # the last maximum: the larger τ
        rows = np.arange(v.shape[0])
        present = count > 0
        below = np.maximum.accumulate(np.where(present, index, -1), axis=1)[rows, k]
        above_i = np.minimum.accumulate(np.where(present, index, u.size)[:, ::-1],
                                        axis=1)[:, ::-1][rows, k + 1]
        t = (u[below] + u[np.minimum(above_i, u.size - 1)]) / 2.0
        taus[b0:b1] = np.where(ok, t, np.nan)
        best[b0:b1] = np.where(ok, v[rows, k], np.nan)
        at = values[:, k_tau] if 0 <= k_tau < values.shape[1] else np.full(rows.size, np.nan)
        at_tau[b0:b1] = np.where(ok, at, np.nan)
    return Resamples(taus, best, at_tau)
