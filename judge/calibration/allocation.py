"""Which unlabelled pairs to label next (``calibrate --pool … --suggest N``, ``simjudge
review``): how many per score stratum, then which at random within it.

Every stratum first gets :data:`~judge.calibration.stratified.MIN_PER_STRATUM` labels; then
*how many* per stratum follows the decision's loss (:func:`loss_shares`): Neyman allocation
(Cochran 1977, *Sampling Techniques*, §5.5) for the influence of a stratum's pairs on
``objective(τ*_b) − objective(τ̂)`` over the bootstrap's plausible τ*s
(:mod:`judge.calibration.regretshares`) — most labels go to the strata between τ̂ and those
τ*s, a few to the strata that only move the objective's level. Only *how many* labels a
stratum gets adapts, never which pairs (:func:`draw`: at random), so the inverse-probability
weights of :mod:`judge.calibration.stratified` stay right.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from judge.calibration.regretshares import regret_shares
from judge.calibration.stratified import (
    MIN_PER_STRATUM,
    STOP_MINIMUM,
    Design,
    LossEstimate,
    decision_loss,
)

FOCUS = 4.0
"""Factor on the share of the strata that meet :func:`allocate`'s optional ``window``."""


def neyman_shares(design: Design) -> NDArray[np.float64]:
    """Each stratum's Neyman share ``N_h σ_h`` with ``σ_h = sqrt(p_h (1 − p_h))`` and the
    smoothed positive share ``p_h = (pos_h + 1) / (n_h + 2)`` (Cochran 1977 §5.5)."""
    big, small, pos = design.sizes()
    p = (pos + 1.0) / (small + 2.0)
    return np.asarray(big * np.sqrt(p * (1.0 - p)), dtype=np.float64)


def loss_shares(scores: NDArray[np.float64], design: Design,
                estimate: LossEstimate) -> NDArray[np.float64]:
    """Each stratum's share for the decision's loss, ``N_h sqrt(V_h)``
    (:func:`judge.calibration.regretshares.regret_shares`: the regret-weighted variance of
    the influence of its pairs on ``objective(τ*_b) − objective(τ̂)``), from ``estimate``
    (:func:`decision_loss` of ``scores`` and ``design``)."""
    _, small, pos = design.sizes()
    w = design.weights()
    keep = w > 0
    lab = design.labelled[keep]
    return regret_shares(np.asarray(scores, dtype=np.float64), design.strata,
                         (pos + 1.0) / (small + 2.0), scores[lab], design.positive[keep],
                         w[keep], estimate.tau, np.array(estimate.taus),
                         np.array(estimate.regrets), estimate.objective)


def allocate(design: Design, k: int, scores: NDArray[np.float64] | None = None,
             window: tuple[float, float] | None = None,
             shares: NDArray[np.float64] | None = None,
             minimum: int | None = None) -> NDArray[np.intp]:
    """How many of the next ``k`` labels each stratum gets: first up to ``minimum`` (default
    ``MIN_PER_STRATUM``) per stratum, then one at a time to the stratum furthest below its share
    of the new total ``n + k``, never more than its unlabelled pairs.

    Args:
        design: the labelled sample; k: labels to allocate (>= 0).
        scores, window: the population's scores and a score range ``(low, high)``: the strata
            it meets get ``FOCUS`` times their share (None = no window).
        shares: each stratum's share, >= 0, shape (H,) (default, or when all 0: Neyman's,
            :func:`neyman_shares`; :func:`suggest` passes :func:`loss_shares`).

    Returns:
        Counts per stratum, summing to ``min(k, unlabelled scored pairs)``.
    """
    big, small, _ = design.sizes()
    free = big - small
    add = np.zeros_like(big)
    floor = MIN_PER_STRATUM if minimum is None else minimum
    share = (neyman_shares(design) if shares is None or not np.asarray(shares).sum() > 0
             else np.asarray(shares, dtype=np.float64).copy())
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
        under = room & (have < np.minimum(floor, big))
        pick = under if under.any() else room
        gap = np.where(pick, target - have, -np.inf)
        add[int(np.argmax(gap))] += 1
    return add


def suggest(design: Design, k: int, seed: int = 0, scores: NDArray[np.float64] | None = None,
            window: tuple[float, float] | None = None, objective: str = "f1",
            n_boot: int = 200, estimate: LossEstimate | None = None,
            target_loss: float | None = None) -> list[int]:
    """Population indices of ``k`` (>= 0) unlabelled pairs to label next: :func:`allocate`'s
    counts per stratum, drawn at random within each stratum (:func:`draw`, seeded by ``seed``
    like the bootstrap). With the population's ``scores`` (in [0, 1], NaN = unscored) the
    counts follow the decision's loss: :func:`loss_shares` of ``estimate``, or of
    :func:`decision_loss` ``(scores, design, objective, n_boot)`` when it is None. Without
    ``scores``, or while τ is undefined (labels of one class), Neyman's shares. Once the loss
    is within ``target_loss`` (the stopping rule's bound), the strata below ``STOP_MINIMUM`` are
    topped up first, so the rule can hold. ``window``: see :func:`allocate`. ``k = 1`` after
    every label is ``simjudge review``'s sequential design."""
    boot_seed, draw_seed = np.random.SeedSequence(seed).spawn(2)
    shares = None
    if scores is not None:
        if estimate is None:
            try:
                estimate = decision_loss(scores, design, objective, n_boot,
                                         int(boot_seed.generate_state(1)[0]))
            except ValueError:  # one class so far: τ undefined
                estimate = None
        if estimate is not None and estimate.taus:
            shares = loss_shares(scores, design, estimate)
    confirm = (estimate is not None and target_loss is not None
               and estimate.within(target_loss))
    counts = allocate(design, k, scores, window, shares, STOP_MINIMUM if confirm else None)
    return draw(design, counts, draw_seed)


def draw(design: Design, counts: NDArray[np.intp],
         seed: int | np.random.SeedSequence = 0) -> list[int]:
    """Population indices of ``counts[h]`` unlabelled pairs of each stratum ``h``, drawn at
    random without replacement (seeded), ordered by stratum then index.

    Raises:
        ValueError: a count above the stratum's unlabelled pairs.
    """
    rng = np.random.default_rng(seed)
    taken = np.zeros(len(design.strata), dtype=bool)
    taken[design.labelled] = True
    out: list[int] = []
    for h, m in enumerate(counts):
        if m:
            free = np.flatnonzero((design.strata == h) & ~taken)
            out += sorted(int(i) for i in rng.choice(free, size=int(m), replace=False))
    return out
