"""The options of a review session (``simjudge review``'s flags), and the helper that chooses
the overlap share."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from judge.calibration.labelevents import PairKey, Scale
from judge.review.population import QUEUES

QUEUE_NAMES = ("design", *QUEUES, "all")
"""``--queue`` values: ``design`` (stratified, with estimates), a run's queues, or ``all`` (every
pair in random order)."""


@dataclass(frozen=True)
class ReviewOptions:
    """How a session chooses pairs and estimates τ.

    Attributes:
        blind: withhold every judge output from the page (default for calibration labelling).
        scale: the labels' scale (binary, or graded ``0-N``).
        queue: one of :data:`QUEUE_NAMES`.
        overlap: share of pairs, in [0, 1], shown to two reviewers.
        target_loss: the stopping rule's bound on the expected objective lost by τ̂, in (0, 1].
        objective: the objective τ̂ maximises (:data:`metrics.OBJECTIVES`).
        strata: score strata of the design (>= 1).
        n_boot: bootstrap resamples of the estimate (>= 1).
        seed: seed of every random choice (draws within strata, random orders, bootstrap).
        lease_s: seconds a shown pair stays reserved for its reviewer.
    """

    blind: bool = True
    scale: Scale = field(default_factory=Scale)
    queue: str = "design"
    overlap: float = 0.0
    target_loss: float = 0.01
    objective: str = "f1"
    strata: int = 16
    n_boot: int = 200
    seed: int = 0
    lease_s: float = 600.0


def overlap_draw(key: PairKey) -> float:
    """A pair's stable uniform number in [0, 1) (sha256 of its key): the pair is shown to two
    reviewers when it is below the overlap share."""
    digest = hashlib.sha256(json.dumps(list(key), ensure_ascii=False).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64
