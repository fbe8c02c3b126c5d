"""What using τ̂ costs, as a posterior over the unlabelled pairs' labels: the stopping rule of
active labelling (:func:`judge.calibration.stratified.decision_loss`).

The population is every scored pair; their scores are known, only the unlabelled pairs' labels
are not. A draw completes the population: within each score stratum ``h`` the positive rate
``p_h`` is drawn from its Beta posterior ``Beta(pos_h + ½, n_h − pos_h + ½)`` (Jeffreys' prior;
a stratified Beta–binomial model of a finite population, Ericson 1969, "Subjective Bayesian
models in sampling finite populations", JRSS B 31(2)), and each unlabelled pair of the stratum
is positive with probability ``p_h``; the labelled pairs keep their labels. The draw's regret
is ``objective(τ*) − objective(τ̂)`` on that completed population, ``τ*`` its best cut — the
completed-data version of the true loss (multiple imputation, Rubin 1987, *Multiple Imputation
for Nonresponse in Surveys*, ch. 2).

Unlike the bootstrap of the labels (:mod:`judge.calibration.sweepboot`), this knows that a
labelled pair's label is known — with every pair labelled the regret is exactly the true loss —
and keeps the unlabelled pairs' real scores, so a stratum with few labels is uncertain in
proportion to how many of its pairs are still unknown. The rule stops on an upper quantile of
the regret, not its mean: a mean within the target still leaves the true loss above it in a
third of the stops (``benchmarks/active_labelling.py``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from metrics import rate_from_counts

PRIOR = 0.5
"""Beta prior pseudo-counts of each stratum's positive rate (Jeffreys)."""

MAX_BLOCKS = 1000
"""Candidate cuts per draw, about, at most: a larger population's sorted pairs are grouped into
runs of ``N // MAX_BLOCKS`` (within a stratum; τ̂ always a cut), so τ* is placed to within a
thousandth of the population and a draw of 100,000 pairs costs ~0.3 ms
(``benchmarks/active_labelling.py`` times :func:`judge.calibration.stratified.decision_loss`)."""


def posterior_regrets(scores: NDArray[np.float64], strata: NDArray[np.intp],
                      labelled: NDArray[np.intp], positive: NDArray[np.bool_], tau: float,
                      objective: str, n_draws: int, seed: int) -> NDArray[np.float64]:
    """``n_draws`` draws of the objective lost by using ``tau`` (see the module docstring).

    Args:
        scores: the population's scores in [0, 1], shape (N,); NaN = unscored (left out).
        strata: each pair's score stratum ``0 … H−1`` (``-1`` = unscored), shape (N,).
        labelled: population indices of the labelled pairs (distinct); positive: their labels.
        tau: the decision, in [0, 1]: pairs scored above it are matches.
        objective: a :data:`metrics.OBJECTIVES` name.
        n_draws: draws (>= 1); seed: their seed.

    Returns:
        The draws' regrets, shape (n_draws,), each >= 0 in the objective's units (0 when a
        draw's best cut is ``tau``'s).

    Raises:
        ValueError: no scored pair.
    """
    s = np.asarray(scores, dtype=np.float64)
    ok = np.isfinite(s) & (strata >= 0)
    if not ok.any():
        raise ValueError("no scored pair")
    known = np.zeros(s.size, dtype=bool)
    known[labelled] = True
    pos = np.zeros(s.size, dtype=bool)
    pos[labelled] = positive
    idx = np.flatnonzero(ok)
    order = idx[np.argsort(s[idx], kind="stable")]
    ss, st = s[order], strata[order]
    n = ss.size
    h_count = int(strata[ok].max()) + 1
    lab_ok = labelled[ok[labelled]]
    n_h = np.bincount(strata[lab_ok], minlength=h_count)
    pos_h = np.bincount(strata[lab_ok][pos[lab_ok]], minlength=h_count)
    # blocks of the sorted pairs: a run of equal scores is never cut; a block holds one
    # stratum; τ̂ and, for a large population, every ~N/MAX_BLOCKS-th distinct score start one
    distinct = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    size = max(1, n // MAX_BLOCKS)
    if size > 1:
        distinct = distinct[np.r_[True, np.diff(distinct // size) > 0]]
    stratum_start = np.flatnonzero(np.r_[True, st[1:] != st[:-1]])
    at_tau = int(np.searchsorted(ss, tau, side="right"))  # first pair above τ̂
    starts = np.unique(np.r_[distinct, stratum_start, [at_tau] if 0 < at_tau < n else []]
                       ).astype(np.intp)
    unknown = np.add.reduceat((~known[order]).astype(np.int64), starts)
    known_pos = np.add.reduceat((known[order] & pos[order]).astype(np.int64), starts)
    sizes = np.diff(np.r_[starts, n])
    block_h = st[starts]  # the stratum of a block's first pair (ties across strata: rare)
    rng = np.random.default_rng(seed)
    p = rng.beta(pos_h + PRIOR, n_h - pos_h + PRIOR, size=(n_draws, h_count))
    pos_blocks = rng.binomial(unknown[None, :], p[:, block_h]) + known_pos[None, :]
    n_pos = pos_blocks.sum(axis=1, keepdims=True).astype(np.float64)
    # cut k: the blocks after k predicted positive (k = −1: all; the last: none)
    tp = n_pos - np.cumsum(pos_blocks, axis=1)[:, :-1]
    above = (n - np.cumsum(sizes)[:-1]).astype(np.float64)[None, :]
    fp = above - tp
    values = rate_from_counts(objective, tp, fp, n_pos - tp, (n - n_pos) - fp, n=float(n),
                              n_pos=n_pos)
    values = np.where(np.isfinite(values), values, -np.inf)
    k_tau = int(np.searchsorted(starts, at_tau)) - 1  # the cut just below τ̂'s first block
    if 0 <= k_tau < values.shape[1]:
        at = values[:, k_tau]
    else:  # τ̂ below every score (all pairs matches) or above every score (none)
        tp0 = n_pos if at_tau == 0 else np.zeros_like(n_pos)
        fp0 = (n - n_pos) if at_tau == 0 else np.zeros_like(n_pos)
        at = rate_from_counts(objective, tp0, fp0, n_pos - tp0, (n - n_pos) - fp0,
                              n=float(n), n_pos=n_pos)[:, 0]
        at = np.where(np.isfinite(at), at, -np.inf)
    best = np.maximum(values.max(axis=1, initial=-np.inf), at)
    regret = np.where(np.isfinite(at), best - at, np.where(np.isfinite(best), np.inf, 0.0))
    return np.asarray(np.maximum(regret, 0.0), dtype=np.float64)
