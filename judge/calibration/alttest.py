"""The leaderboard's alternative annotator test: can this judge replace one of the reviewers?
(Calderon, Reichart & Dror, ACL 2025; the procedure and its minimums: :mod:`metrics.alttest`.)

On a label set whose annotations name their reviewers (a ``reviewer`` field per row, or a
``reviewers`` list beside a list of labels, as ``simjudge labels merge`` and a ``labels.db``
write them), each annotation is binarised by the label set's own rule
(:func:`judge.calibration.humans.human_rule`: ``label = 1``, or ``label ≥`` the positive
threshold) and the judge's label of a pair is its verdict at its calibrated τ (score > τ); the
alignment is the paper's ``accuracy`` (the share of the remaining reviewers a label equals).
A reviewer who labelled a pair twice counts once, with the later label (as ``labels merge``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from judge.calibration.humans import human_rule
from judge.calibration.labels import LabelSet
from metrics import alt_test
from metrics.alttest import MIN_ANNOTATORS, MIN_ITEMS, SOURCE

EPSILON = 0.1
"""Default ε (``--alt-test-epsilon``): the paper's rule of thumb for crowd workers, the
strictest of its three (0.1 crowd workers, 0.15 skilled annotators, 0.2 experts)."""
Q = 0.05
"""The Benjamini–Yekutieli false discovery rate (the paper's)."""


def reviewer_labels(labels: LabelSet) -> tuple[dict[str, dict[int, float]], str | None]:
    """Each named reviewer's binarised labels by pair index, and why the test cannot run.

    Returns:
        ``(reviewer → {pair index: 0.0 or 1.0}, reason)``; ``reason`` is None when at least
        one pair carries two or more named annotations, else one sentence starting "not
        enough annotators".
    """
    if labels.max_annotators < 2:
        return {}, (f"not enough annotators: one annotation per pair; the alt-test needs "
                    f">= {MIN_ANNOTATORS} reviewers with >= {MIN_ITEMS} pairs each")
    cut, _, _ = human_rule(labels)
    out: dict[str, dict[int, float]] = {}
    for k, p in enumerate(labels.pairs):
        for name, x in zip(p.annotators or (), p.annotations if p.annotators else (),
                           strict=True):
            out.setdefault(name, {})[k] = float(x > cut)
    if not any(p.annotators and len(set(p.annotators)) >= 2 for p in labels.pairs):
        return out, ("not enough annotators: the annotations name no reviewers (a 'reviewer' "
                     "field per row, or a 'reviewers' list beside a list of labels, as "
                     "'simjudge labels merge' writes); the alt-test leaves one named reviewer "
                     "out at a time")
    return out, None


def judge_alt_test(scores: np.ndarray, tau: float | None,
                   reviewers: dict[str, dict[int, float]], epsilon: float) -> dict[str, Any]:
    """The alt-test of one judge row.

    Args:
        scores: the judge's score per pair of the label set (NaN: not scored).
        tau: its calibrated τ (None: no verdicts, no test).
        reviewers: :func:`reviewer_labels`'s first value.
        epsilon: ε in [0, 1].

    Returns:
        ``{"winning_rate", "advantage_probability", "passed", "epsilon", "q", "pairs",
        "annotators": [{"annotator", "pairs", "advantage", "mean_difference", "p_value",
        "wins"}], "skipped": {name: pairs}, "reason", "source"}`` (numbers None with a
        ``reason`` "not enough annotators: …").
    """
    if tau is None:
        return {"reason": "no τ: no verdicts to test", "source": SOURCE}
    judged = {k: float(s > tau) for k, s in enumerate(scores) if not math.isnan(s)}
    got = alt_test(judged, reviewers, epsilon, Q)
    return {"winning_rate": got.winning_rate, "advantage_probability": got.advantage_probability,
            "passed": got.passed, "epsilon": epsilon, "q": Q, "pairs": got.items,
            "annotators": [{"annotator": t.annotator, "pairs": t.items,
                            "advantage": t.advantage, "mean_difference": t.mean_difference,
                            "p_value": t.p_value, "wins": t.wins} for t in got.tests],
            "skipped": dict(got.skipped), "reason": got.reason, "source": SOURCE}


def alt_test_cell(result: dict[str, Any] | None) -> str:
    """The leaderboard cell: ``ω 0.67 pass (ρ 0.90)``, ``not enough annotators`` or ``–``."""
    if not result:
        return "–"
    if result.get("winning_rate") is None:
        reason = str(result.get("reason") or "")
        return "not enough annotators" if reason.startswith("not enough") else "–"
    verdict = "pass" if result["passed"] else "fail"
    return (f"ω {result['winning_rate']:.2f} {verdict} (ρ "
            f"{result['advantage_probability']:.2f})")


def alt_test_note(results: list[dict[str, Any]], reason: str | None, epsilon: float) -> str:
    """One line for the table's notes: the settings and source, and why there is no ω."""
    reasons = sorted({str(r["reason"]) for r in results if r.get("reason")}
                     | ({reason} if reason else set()))
    head = (f"alt-test at ε {epsilon:g}, q {Q:g} (Calderon, Reichart & Dror, ACL 2025): the "
            "judge's verdict at τ vs each left-out reviewer, accuracy against the others; "
            "pass when ω ≥ 0.5")
    return head + ("; " + "; ".join(reasons) if reasons else "")
