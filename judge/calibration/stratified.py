"""Stratified labelling for τ (``simjudge calibrate --pool … --suggest N``): which unlabelled pairs
to label next, and τ̂ with its 95 % interval from a sample that is not a simple random one.

The population is every pair the judge scored — the labelled pairs and the unlabelled pool. It is
cut into ``H`` strata by score (equal-count quantiles of the population's scores). Within a
stratum, the pairs to label are drawn **at random**; *how many* per stratum follows Neyman
allocation, ``n_h ∝ N_h · σ_h`` (Cochran 1977, *Sampling Techniques*, §5.5), with
``σ_h = sqrt(p_h (1 − p_h))`` and ``p_h`` the stratum's share of positive labels so far
(Laplace-smoothed, ``(pos + 1) / (n + 2)``, so an unlabelled stratum counts as p = 0.5). Strata
far from the boundary are nearly all one class (σ ≈ 0) and get few labels; the strata around τ
get most — which is what narrows τ's interval. Every stratum first gets ``MIN_PER_STRATUM``
labels, so none is unrepresented.

Because the sample over-represents the boundary, τ̂ is the objective-best cut of the
**inverse-probability weighted** sweep (each labelled pair counts ``N_h / n_h`` times:
:func:`metrics.sweep_arrays` ``weights``), and its interval is a **stratified bootstrap**
(resample ``n_h`` pairs with replacement within each stratum; Efron & Tibshirani 1993, §3.
"two-sample" generalised). For both, adjacent strata are collapsed until each holds at least
``MIN_PER_STRATUM`` labels (:meth:`Design.groups`). ``benchmarks/active_labelling.py`` shows
why the weights are needed: picking the pairs nearest τ̂ and sweeping them unweighted narrows
the interval but biases τ̂.

Assumption: the labels already in hand are a random sample of their strata (e.g. an initial
random sample of the pool, or earlier rounds of this procedure).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics import best_index, percentile_ci, sweep_arrays

MIN_PER_STRATUM = 3
"""Labels every stratum gets before Neyman allocation applies, and the fewest an estimation
stratum holds (:meth:`Design.groups` collapses strata with fewer)."""

FOCUS = 4.0
"""Factor on the Neyman share of the strata whose scores meet τ̂'s current 95 % interval."""


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
        ValueError: the labels hold one class, or one distinct score.
    """
    s_lab = scores[design.labelled]
    w = design.weights()  # a resample keeps each group's n_g, so each pair keeps N_g / n_g
    got = weighted_tau(s_lab, design.positive, w, objective)
    if got is None:
        raise ValueError("τ needs labelled pairs of both classes with two distinct scores")
    rng = np.random.default_rng(seed)
    h_lab = design.groups()[design.labelled]
    groups = [g for g in (np.flatnonzero(h_lab == h) for h in np.unique(h_lab[h_lab >= 0]))]
    taus: list[float] = []
    objs: list[float] = []
    for _ in range(n_boot):
        idx = np.concatenate([rng.choice(g, size=g.size, replace=True) for g in groups])
        b = weighted_tau(s_lab[idx], design.positive[idx], w[idx], objective)
        if b is not None:
            taus.append(b[0])
            objs.append(b[1])
    lo, hi = percentile_ci(taus) if taus else (got[0], got[0])
    return TauEstimate(got[0], float(lo), float(hi), taus, objs, n_boot - len(taus))


def allocate(design: Design, k: int, scores: NDArray[np.float64] | None = None,
             window: tuple[float, float] | None = None) -> NDArray[np.intp]:
    """How many of the next ``k`` labels each stratum gets: first up to ``MIN_PER_STRATUM`` per
    stratum, then one at a time to the stratum furthest below its share of the new total
    ``n + k``, never more than its unlabelled pairs. A stratum's share is its Neyman weight
    ``N_h σ_h``, times ``FOCUS`` when its score range meets ``window`` (τ̂'s current interval,
    with the population ``scores``).

    Returns:
        Counts per stratum, summing to ``min(k, unlabelled scored pairs)``.
    """
    big, small, pos = design.sizes()
    free = big - small
    add = np.zeros_like(big)
    p = (pos + 1.0) / (small + 2.0)
    share = big * np.sqrt(p * (1.0 - p))
    if window is not None and scores is not None:
        lo, hi = window
        for h in range(design.n_strata):
            sh = scores[design.strata == h]
            if sh.size and sh.min() <= hi and sh.max() >= lo:
                share[h] *= FOCUS
    target = (small.sum() + k) * share / share.sum()
    for _ in range(min(k, int(free.sum()))):
        have = small + add
        room = add < free
        under = room & (have < np.minimum(MIN_PER_STRATUM, big))
        pick = under if under.any() else room
        gap = np.where(pick, target - have, -np.inf)
        add[int(np.argmax(gap))] += 1
    return add


def suggest(design: Design, k: int, seed: int = 0, scores: NDArray[np.float64] | None = None,
            window: tuple[float, float] | None = None) -> list[int]:
    """Population indices of ``k`` unlabelled pairs to label next: :func:`allocate`'s counts,
    drawn at random within each stratum (seeded), ordered by stratum then index."""
    rng = np.random.default_rng(seed)
    add = allocate(design, k, scores, window)
    taken = np.zeros(len(design.strata), dtype=bool)
    taken[design.labelled] = True
    out: list[int] = []
    for h, m in enumerate(add):
        if m:
            free = np.flatnonzero((design.strata == h) & ~taken)
            out += sorted(int(i) for i in rng.choice(free, size=int(m), replace=False))
    return out
