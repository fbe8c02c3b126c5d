"""The leaderboard's ``humans`` row: a leave-one-annotator-out human ceiling (see
:mod:`judge.calibration.leaderboard`). On each pair with ≥ 2 annotations the first annotator's
label is scored against the remaining annotators' consensus under the label set's own rule; κ
and F1 at that rule on the label scale (:func:`human_rule`), never at a τ fitted to the labels;
only with at least :data:`MIN_HUMAN_PAIRS` such pairs."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from judge.calibration.labels import LabelSet
from judge.calibration.pairmetrics import (
    METRICS,
    metrics_at_tau,
    pair_rows,
    replicates_at_tau,
    wilson_rates,
)
from judge.calibration.scoring import JudgeScores
from judge.numbers import finite_or_none
from judge.pipeline.uncertainty import bootstrap_cis

HUMANS = "humans"
MIN_HUMAN_PAIRS = 30
"""Fewest pairs with ≥ 2 annotations for a ``humans`` row (``--min-human-pairs``). The row is a
ceiling the judges are read against, so its interval must be narrower than the differences it
is used to judge: the 95 % half-width of a share estimated on n pairs is up to 1.96·0.5/√n —
0.49 at n = 4, 0.33 at 9, 0.18 at 30 (comparable to the ROC-AUC gap of 0.136 between the
embedded and the lexical judge on AM2iCo, README) — and a percentile bootstrap on a handful
of pairs collapses to a point (``1.000 [1.000, 1.000]`` on 4 pairs), claiming a certainty it
does not have."""


def multiply_annotated(labels: LabelSet) -> int:
    """Number of pairs with ≥ 2 annotations (those a ``humans`` row is computed on)."""
    return sum(len(p.annotations) >= 2 for p in labels.pairs)


def human_rule(labels: LabelSet) -> tuple[float, float | None, str]:
    """The label set's own positivity rule applied to one annotation, as ``(τ, threshold,
    text)``: the annotation is positive when it is > τ (the leaderboard's "score > τ" rule),
    which is ``label ≥ threshold`` on the label scale (τ the largest float below it) or, for
    binary labels merged by majority, ``label = 1`` (τ 0.5, threshold None)."""
    thr = labels.positive_threshold
    if thr is None:
        return 0.5, None, "label = 1"
    return math.nextafter(thr, -math.inf), thr, f"label ≥ {thr:g}"


def human_reference(labels: LabelSet) -> tuple[LabelSet, JudgeScores] | None:
    """The leave-one-annotator-out human "judge", or None when no pair has 2 annotations.

    Returns:
        ``(labels', scores)``: ``labels'`` has the same pairs with ``value``/``positive`` from
        the annotations after the first (mean; positive by the label set's rule); ``scores``
        holds each pair's first annotation (NaN for pairs with one annotation).
    """
    if labels.max_annotators < 2:
        return None
    thr = labels.positive_threshold
    pairs, scores = [], []
    for p in labels.pairs:
        if len(p.annotations) < 2:
            pairs.append(p)
            scores.append(math.nan)
            continue
        rest = float(np.mean(p.annotations[1:]))
        positive = rest >= thr if thr is not None else rest > 0.5
        pairs.append(replace(p, value=rest, positive=bool(positive)))
        scores.append(float(p.annotations[0]))
    describe = {"id": HUMANS, "backend": "humans", "method": "leave-one-annotator-out: first "
                "annotation vs the consensus of the others"}
    return (replace(labels, pairs=pairs),
            JudgeScores(HUMANS, np.array(scores, dtype=np.float64), [""] * len(pairs), 0, 0,
                        describe))


def human_row(labels: LabelSet, n_boot: int, seed: int) -> dict[str, Any] | None:
    """The ``humans`` row: ROC-AUC and PR-AUC of the first annotation against the others'
    consensus, κ and F1 of the first annotation binarised by :func:`human_rule`, each with its
    bootstrap 95 % CI over the pairs (the rule held fixed); None when no pair has 2
    annotations."""
    ref = human_reference(labels)
    if ref is None:
        return None
    truth, js = ref
    tau, threshold, rule = human_rule(labels)
    rows = pair_rows(js.scores, truth, tau)
    values = metrics_at_tau(rows)
    ci = bootstrap_cis(metrics_at_tau, rows, n_boot, seed, replicates=replicates_at_tau)["ci95"]
    row: dict[str, Any] = {
        "judge": HUMANS, "pairs": len(labels.pairs), "describe": js.describe,
        "pairs_scored": len(rows), "outcomes": {},
        **{m: finite_or_none(values[m]) for m in METRICS},
        "tau": None, "tau_ci95": [None, None], "tau_ci95_width": None,
        "label_threshold": threshold, "label_rule": rule,
        "cv_kappa": None, "cv_kappa_sd": None, "parse_error_rate": None,
        "judge_calls": 0, "cache_hits": 0, "tokens_per_1k": None, "usd_per_1k": None,
        "seconds_per_1k": None, "reference": True, "note": None,
    }
    for m in METRICS:
        row[f"{m}_ci95"] = [finite_or_none(x) for x in ci.get(m, [None, None])]
    row.update(wilson_rates(rows))
    if row["roc_auc"] is None:
        row["note"] = (f"on the {len(rows)} pairs with ≥ 2 annotations the other "
                       "annotators' consensus is of one class: undefined")
    return row
