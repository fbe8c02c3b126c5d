"""Can a calibration be trusted? Two things that make ``simjudge calibrate``'s numbers mean
nothing however good they look (issue 27): a judge whose calls failed, and too few labels.

**Failed calls.** Pairs equal after normalisation score 1.0 without a judge call
(:mod:`judge.calibration.scoring`), so a dead server still leaves those pairs scored — all at
1.0. Before, examples/am2ico_word_pairs.tsv with an unreachable LLM printed ROC-AUC 0.500 on its
15 exact pairs and "the judge cannot discriminate these pairs". :func:`failure_note` says
instead that nothing is known about the judge.

**Too few labels.** Below :data:`MIN_PAIRS` labelled pairs, or :data:`MIN_PER_CLASS` of
either class, ``calibrate`` warns (:func:`label_shortfall`) and records the warning in
``calibration.json`` (``labels.minimum``). Why these numbers:

* A judge that makes no error on the labels gets F1 1.000 with a bootstrap 95 % CI of
  [1.000, 1.000] — at *any* size: every resample of a separable sample is separable (3 labels
  showed exactly that). What the labels do bound is the error rate: with no error in n pairs,
  its 95 % upper bound is 3/n (the "rule of three", Hanley & Lippman-Hand, JAMA 1983): 100 %
  at 3 pairs, 30 % at 10, 10 % at 30. Thirty pairs is where "no error seen" starts to mean
  "fewer than one in ten".
* For a judge that does err, the 95 % half-width of a proportion near 0.8 (a typical F1 or
  accuracy) is 1.96·√(0.8·0.2/n): 0.25 at 10 pairs, 0.14 at 30.
* τ lies between the two classes' scores, and its cross-validated estimate uses
  k = min(--folds, positives, negatives) folds: at least 5 of each class lets the default
  5-fold CV run, and keeps one pair's move of the true- or false-positive rate at ≤ 20 points.

It is a warning, not a refusal: a quick look at a handful of pairs is legitimate.
"""

from __future__ import annotations

from typing import Any

MIN_PAIRS = 30
"""Fewest labelled pairs for a calibration without a warning (see the module docstring)."""
MIN_PER_CLASS = 5
"""Fewest positive, and fewest negative, labelled pairs without a warning."""


def label_shortfall(pairs: int, positives: int) -> dict[str, Any]:
    """``calibration.json``'s ``labels.minimum``: ``{"pairs": 30, "per_class": 5, "met":
    bool, "warning": text or None}``.

    Args:
        pairs: labelled pairs (after merging repeated rows), >= 0.
        positives: of which positive, 0..pairs.

    Returns:
        The record; ``warning`` is one line naming the counts and the minimum, None when met.
    """
    negatives = pairs - positives
    met = pairs >= MIN_PAIRS and min(positives, negatives) >= MIN_PER_CLASS
    warning = None if met else (
        f"only {pairs} labelled pairs ({positives} positive, {negatives} negative): below "
        f"the minimum of {MIN_PAIRS} pairs with at least {MIN_PER_CLASS} of each class, so τ "
        "and every statistic here are unreliable (a judge without an error on them scores "
        "1.000 [1.000, 1.000] whatever their number); label more pairs")
    return {"pairs": MIN_PAIRS, "per_class": MIN_PER_CLASS, "met": met, "warning": warning}


def failure_note(outcomes: dict[str, int], scored: int) -> str | None:
    """The ``note`` of a judge none of whose calls succeeded (some failed): its scored pairs
    are exact matches, 1.0 without a call, and say nothing about it; None otherwise.

    Args:
        outcomes: outcome → distinct judged pairs (``ok``, ``transport_error``…).
        scored: labelled pairs with a score (the exact ones, here).
    """
    if not any(n for o, n in outcomes.items() if o != "ok") or outcomes.get("ok"):
        return None
    return (f"no judge call succeeded, so nothing is known about this judge (the {scored} "
            "pairs scored are exact matches, 1.0 without a call): fix the failure "
            "(first_error) and rerun")


def tie_note(score: float, outcomes: dict[str, int], unscored: int) -> str:
    """The ``note`` when every scored pair has one ``score``: no threshold separates
    anything, because the judge cannot discriminate them — or, when some of its calls failed,
    perhaps because of the failures: then nothing is concluded about the judge."""
    why = (f"the judge's calls failed for {int(unscored)} pairs, so this says nothing about "
           "it: fix the failure (first_error) and rerun"
           if any(n for o, n in outcomes.items() if o != "ok")
           else "the judge cannot discriminate these pairs")
    return f"every scored pair has the score {score:g}: no threshold separates anything ({why})"
