"""Which pair a reviewer sees next in the ``design`` queue: the stratum the stratified design
asks for now (:func:`judge.calibration.allocation.allocate` with the decision-loss shares of the
latest estimate, every stratum its minimum first, and once the loss is within the target the
strata below the stopping rule's minimum topped up), then a pair drawn at random within it —
among the pairs this reviewer may be shown."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from judge.calibration.allocation import allocate
from judge.calibration.stratified import STOP_MINIMUM, Design
from judge.review.estimate import Estimate


def design_pair(design: Design, free: NDArray[np.bool_], estimate: Estimate | None,
                rng: np.random.Generator) -> int | None:
    """A population index to label next, or None when ``free`` holds none.

    Args:
        design: the labelled sample (its ``strata``: ``-1`` = unscored).
        free: the pairs this reviewer may be shown (unlabelled, not skipped by them, not
            reserved for another reviewer), shape (N,).
        estimate: the latest :class:`~judge.review.estimate.Estimate` (None before the first:
            Neyman's shares).
        rng: the session's random generator (the draw within the stratum).

    When the design's stratum has no pair free for this reviewer (reserved for others), the
    strata the next few labels would go to are tried in turn, then any stratum; an unscored
    free pair is offered only when no scored one is left.
    """
    free_scored = free & (design.strata >= 0)
    if not free_scored.any():
        left = np.flatnonzero(free)
        return int(rng.choice(left)) if left.size else None
    has = np.bincount(design.strata[free_scored], minlength=design.n_strata) > 0
    shares = estimate.shares if estimate is not None else None
    minimum = STOP_MINIMUM if estimate is not None and estimate.confirm else None
    ranked: list[int] = []
    for k in (1, 4 * design.n_strata):
        counts = allocate(design, k, shares=shares, minimum=minimum)
        ranked = [int(h) for h in np.argsort(-counts, kind="stable") if counts[h] > 0 and has[h]]
        if ranked:
            break
    if not ranked:
        ranked = [int(h) for h in np.flatnonzero(has)]
    pool = np.flatnonzero(free_scored & (design.strata == ranked[0]))
    return int(rng.choice(pool))
