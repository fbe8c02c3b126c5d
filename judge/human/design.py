"""Which items a reviewer checks: the sampling designs of item labels and their strata.

* ``uniform``: a simple random sample of the run's items (every item has probability n/N).
* ``stratified``: the items are split by how sure the judge is of them, and the unsure strata
  are sampled more. An item's uncertainty is the distance to τ of its judged cell closest to
  τ (a cell without a verdict counts as 0: as unsure as can be); items whose cells are all
  exact matches, or that have no cell, are as sure as can be. Strata (:data:`BANDS`): ``near``
  (within 0.1 of τ), ``mid`` (within 0.25) and ``far``. Within a stratum the sample is simple
  random, so an item's inclusion probability is ``n_h/N_h``; the estimate weighs each stratum
  by its share ``N_h/N`` and tunes λ per stratum (Fisch et al., NeurIPS 2024).

The strata are a function of the run (its scores and τ), so :func:`item_strata` gives the same
strata to the review app that draws the sample and to the estimate that reads it back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

BANDS: tuple[tuple[str, float], ...] = (("near", 0.1), ("mid", 0.25), ("far", math.inf))
"""Stratum names and the largest distance to τ each holds (in score units)."""

DESIGNS = ("uniform", "stratified")
"""The designs ``simjudge review --items`` draws items by."""


def uncertainty(task: Any, row: Any, tau: float) -> float:
    """The distance to τ of the item's judged cell closest to τ (0 for a cell without a
    verdict; inf when the item has no judged cell)."""
    best = math.inf
    for view in task.matrices(row):
        exact = {(m.pred_index, m.truth_index) for m in view.matches if m.exact}
        for i, line in enumerate(view.scores):
            for j, s in enumerate(line):
                if (i, j) in exact:
                    continue
                best = min(best, 0.0 if s is None else abs(float(s) - tau))
    return best


def item_strata(task: Any, rows: Sequence[Any], tau: float) -> list[str]:
    """Each row's stratum under the ``stratified`` design (see the module docstring)."""
    out = []
    for row in rows:
        u = uncertainty(task, row, tau)
        out.append(next(name for name, limit in BANDS if u <= limit))
    return out
