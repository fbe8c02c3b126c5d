"""One judged similarity matrix matched at τ, as the fields of its ``items.jsonl`` row.

* :func:`match_row` — the matrix matched by :func:`metrics.fuzzy_match` (seed 001's fuzzy TP):
  the :class:`metrics.FuzzyMatchResult` and the row's fields, which store the strings and
  scores so the run can be re-scored with no call;
* :func:`row_fields` — the same row alone (what ``selection`` scores); a 1×1 matrix (one
  prediction, one gold string: every item of a large run of single strings) is matched here
  directly, to the numbers :func:`metrics.fuzzy_match` gives, without its general machinery
  (validating and indexing arrays, the exact and the assignment passes), which cost more than
  the rest of the item's scoring.

Split from :mod:`judge.tasks.matching` (what ``selection`` and ``spans`` share).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from judge.matrix import SimilarityMatrix
from judge.numbers import finite_or_none
from metrics import FuzzyMatchResult, fuzzy_match, fuzzy_prf

_NO_HEAD: Mapping[str, Any] = {}


def match_row(m: SimilarityMatrix, tau: float, zero_division: float = 0.0,
              head: Mapping[str, Any] | None = None,
              ) -> tuple[FuzzyMatchResult, dict[str, Any]]:
    """Match one matrix at τ and describe it as a JSON row.

    Args:
        m: the matrix (NaN = no verdict; exact cells 1.0).
        tau: τ in [0, 1]; a judged pair matches when its score is strictly greater.
        zero_division: value of an undefined ratio.
        head: fields the row starts with, in their order (the item's ``id``, ``source``…);
            None = none.

    Returns:
        ``(result, row)``: the :class:`metrics.FuzzyMatchResult` and its dict (``n_pred``,
        ``n_truth``, ``n_exact``, ``tp_fuzzy``, ``precision``, ``recall``, ``f1``,
        ``matches`` with each match's ``judge_id``), plus ``unmatched_pred``,
        ``unmatched_truth``, ``cells_without_verdict``, and the strings and ``scores``
        (nested lists, null = no verdict) that :func:`judge.tasks.matching.stored_matrix`
        reads back.

    Raises:
        ValueError: what :func:`metrics.fuzzy_match` refuses (a score outside [0, 1], τ
            outside [0, 1], an invalid ``zero_division``).
    """
    r = fuzzy_match(list(m.pred), list(m.truth), m.scores, tau=tau, zero_division=zero_division)
    d = {**head, **r.to_dict()} if head else r.to_dict()
    for match in d["matches"]:
        v = m.cell(match["pred_index"], match["truth_index"])
        match["judge_id"] = v.judge_id if v is not None else None
    d["unmatched_pred"] = [m.pred[i] for i in r.unmatched_pred()]
    d["unmatched_truth"] = [m.truth[j] for j in r.unmatched_truth()]
    # count_nonzero and tolist: a 10,000-item run makes 10,000 tiny matrices, where numpy's
    # sum reduction and element-wise iteration cost more than the matching itself
    d["cells_without_verdict"] = int(np.count_nonzero(np.isnan(m.scores)))
    d["pred"], d["truth"] = list(m.pred), list(m.truth)
    d["scores"] = [[finite_or_none(x) for x in row] for row in m.scores.tolist()]
    return r, d


def row_fields(m: SimilarityMatrix, tau: float, zero_division: float = 0.0,
               head: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The row of :func:`match_row` alone: the same fields with the same values, in the same
    order. A 1×1 matrix is matched directly: its cell is an exact match when the matrix flags
    it (``m.exact``: normalised-equal strings, :func:`metrics.fuzzy_match`'s own test), else a
    match when its score is strictly greater than τ (NaN never is).

    Args:
        m, tau, zero_division, head: as :func:`match_row`.

    Returns:
        The row's fields (``head``'s first).

    Raises:
        ValueError: as :func:`match_row` (the 1×1 input it refuses goes to it).
    """
    if m.scores.shape == (1, 1):
        d = _one(m, tau, zero_division, head)
        if d is not None:
            return d
    return match_row(m, tau, zero_division, head)[1]


def _one(m: SimilarityMatrix, tau: float, zero_division: float,
         head: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """:func:`row_fields` of a 1×1 matrix; None for input :func:`metrics.fuzzy_match` refuses
    (a string that is not a ``str``, τ or the score outside [0, 1]), left to it to name.

    Raises:
        ValueError: an invalid ``zero_division`` (:func:`metrics.fuzzy_prf`).
    """
    p, t = m.pred[0], m.truth[0]
    if type(p) is not str or type(t) is not str:
        return None
    tau = float(tau)
    s = m.scores.item()
    if not 0.0 <= tau <= 1.0 or s < 0.0 or s > 1.0:  # NaN (no verdict) passes
        return None
    matches: list[dict[str, Any]] = []
    n_exact, tp = 0, 0.0
    if m.exact.item():  # fuzzy_match's TP: N_exact + fsum(semantic scores)
        n_exact, tp = 1, 1.0
        matches.append({"pred_index": 0, "truth_index": 0, "pred": p, "truth": t,
                        "score": 1.0, "exact": True, "judge_id": None})
    elif s > tau:
        tp = s
        v = m.cell(0, 0)
        matches.append({"pred_index": 0, "truth_index": 0, "pred": p, "truth": t,
                        "score": s, "exact": False,
                        "judge_id": v.judge_id if v is not None else None})
    precision, recall, f1 = fuzzy_prf(tp, 1, 1, zero_division)
    return {**(head or _NO_HEAD), "n_pred": 1, "n_truth": 1, "n_exact": n_exact,
            "tp_fuzzy": tp, "precision": precision, "recall": recall, "f1": f1,
            "matches": matches, "unmatched_pred": [] if matches else [p],
            "unmatched_truth": [] if matches else [t],
            "cells_without_verdict": 1 if s != s else 0,
            "pred": [p], "truth": [t], "scores": [[None if s != s else s]]}
