"""The alternative annotator test: can a judge replace one of the human annotators?

Definition: Calderon, Reichart & Dror, "The Alternative Annotator Test for LLM-as-a-Judge: How
to Statistically Justify Replacing Human Annotators with LLMs", ACL 2025 (arXiv 2501.10970);
their reference code is github.com/nitaytech/AltTest (``alt_test_example.ipynb``). This module
implements the same procedure:

1. Keep the items that at least ``min_per_item`` (2) annotators labelled and the judge labelled.
2. Leave one annotator j out at a time; on each of j's items i, the **alignment** of a label
   with the remaining annotators' labels of i is scored (``accuracy``: the share of them it
   equals; ``neg_rmse``: minus the root mean squared difference). Judge f and annotator j each
   get an indicator: W_f = 1[S(f) ≥ S(j)], W_j = 1[S(j) ≥ S(f)] (a tie counts for both).
3. Per annotator, d_i = W_j − W_f and a one-sided one-sample t-test of H0: mean(d) ≥ ε against
   H1: mean(d) < ε (ε, the cost-benefit margin granted to the judge: 0.2 for experts, 0.15 for
   skilled annotators, 0.1 for crowd workers, the paper's rules of thumb). Annotators with fewer
   than ``min_items`` (30, where the paper takes the t-test's normality to hold) are skipped.
4. The annotators' p-values are corrected for the false discovery rate with the
   Benjamini–Yekutieli procedure at level q (0.05), as the paper does (BY holds under any
   dependence between the tests; Benjamini & Yekutieli 2001).
5. The **winning rate** ω is the share of tested annotators whose H0 is rejected (the judge
   "wins" against them); the judge passes when ω ≥ 0.5. The **advantage probability** ρ is the
   mean over tested annotators of mean(W_f): the probability that the judge is as good as or
   better than a randomly chosen annotator at representing the others (for ranking judges).

The paper recommends at least 3 annotators (with 2, the test only asks which of the two the
judge is closer to: no consensus signal; FAQ "Why at least three") and at least 30 items per
annotator; below these :func:`alt_test` returns no ω and ρ and says why (``reason``).

One choice the paper leaves open: when d is constant on an annotator's items (zero variance)
the t-test is undefined; as in the reference code, the p-value is then undefined (``None``)
and the judge does not win against that annotator.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)
"""An item's key."""
MIN_ANNOTATORS = 3
"""Fewest tested annotators for an ω (Calderon et al. 2025, FAQ: "at least three")."""
MIN_ITEMS = 30
"""Fewest items per tested annotator (Calderon et al. 2025, §3: the t-test's normality)."""
MIN_PER_ITEM = 2
"""Fewest annotators of an item kept (one left out, at least one remaining)."""
ALIGNMENTS = ("accuracy", "neg_rmse")
"""The paper's alignment scores: ``accuracy`` for labels, ``neg_rmse`` for numeric ratings."""
SOURCE = ("alt-test: Calderon, Reichart & Dror, ACL 2025 (arXiv 2501.10970): leave one "
          "annotator out, one-sided paired t-tests at ε, Benjamini–Yekutieli at q")


@dataclass(frozen=True)
class AnnotatorTest:
    """The test against one left-out annotator.

    Attributes:
        annotator: its name.
        items: items it labelled that were kept (>= ``min_items``).
        advantage: ρ_j = mean(W_f) in [0, 1].
        mean_difference: mean(d) = mean(W_j − W_f) in [−1, 1].
        p_value: of H0 mean(d) ≥ ε; None when d is constant.
        wins: the judge wins against this annotator (H0 rejected after BY).
    """

    annotator: str
    items: int
    advantage: float
    mean_difference: float
    p_value: float | None
    wins: bool


@dataclass(frozen=True)
class AltTest:
    """The outcome of :func:`alt_test`.

    Attributes:
        tests: one per tested annotator, in the order given.
        skipped: annotator → its kept items, for those with fewer than ``min_items``.
        items: items kept (labelled by >= ``min_per_item`` annotators and by the judge).
        winning_rate: ω in [0, 1]; None when ``reason`` is set.
        advantage_probability: ρ in [0, 1]; None when ``reason`` is set.
        passed: ω >= 0.5; None when ``reason`` is set.
        epsilon, q, alignment: the settings.
        reason: why there is no ω ("not enough annotators: …"), else None.
    """

    tests: tuple[AnnotatorTest, ...]
    skipped: Mapping[str, int]
    items: int
    winning_rate: float | None
    advantage_probability: float | None
    passed: bool | None
    epsilon: float
    q: float
    alignment: str
    reason: str | None


def _accuracy(label: float, others: Sequence[float]) -> float:
    return float(np.mean([label == o for o in others]))


def _neg_rmse(label: float, others: Sequence[float]) -> float:
    return -math.sqrt(float(np.mean([(label - o) ** 2 for o in others])))


def by_rejections(p_values: Sequence[float], q: float) -> list[bool]:
    """Which hypotheses the Benjamini–Yekutieli step-up procedure rejects at FDR level ``q``
    (Benjamini & Yekutieli 2001, Theorem 1.3): with the p-values sorted, p_(1) ≤ … ≤ p_(m), and
    c(m) = Σ_{i=1..m} 1/i, reject the k smallest for the largest k with
    p_(k) ≤ k q / (m c(m)). Computed with :func:`scipy.stats.false_discovery_control`
    (``method="by"``): an adjusted p-value ≤ q.

    Args:
        p_values: m p-values in [0, 1] (m >= 0).
        q: the false discovery rate, in (0, 1).

    Returns:
        m booleans, in the order given.

    Raises:
        ValueError: a p-value outside [0, 1] or NaN; q outside (0, 1).

    Examples:
        m = 3, c(3) = 11/6, q = 0.05: the thresholds are k · 0.05 / 5.5 = 0.00909 k; 0.001 is
        below 0.00909, 0.02 above 0.01818 and 0.04 above 0.02727, so only the first falls.

        >>> by_rejections([0.04, 0.001, 0.02], 0.05)
        [False, True, False]
    """
    if not 0.0 < q < 1.0:
        raise ValueError(f"q: expected a false discovery rate in (0, 1), got {q}")
    if not p_values:
        return []
    from scipy.stats import false_discovery_control

    p = np.asarray(p_values, dtype=np.float64)
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p_values: expected numbers in [0, 1]")
    return [bool(x <= q) for x in false_discovery_control(p, method="by")]


def alt_test(judge: Mapping[K, float], humans: Mapping[str, Mapping[K, float]],
             epsilon: float, q: float = 0.05, alignment: str = "accuracy",
             min_annotators: int = MIN_ANNOTATORS, min_items: int = MIN_ITEMS,
             min_per_item: int = MIN_PER_ITEM) -> AltTest:
    """The alternative annotator test of one judge (module docstring).

    Args:
        judge: item → the judge's label (items it did not label are absent).
        humans: annotator → (item → that annotator's label); labels are compared with ``==``
            (``accuracy``) or as numbers (``neg_rmse``).
        epsilon: ε in [0, 1], the margin granted to the judge.
        q: the Benjamini–Yekutieli false discovery rate, in (0, 1).
        alignment: ``accuracy`` or ``neg_rmse`` (:data:`ALIGNMENTS`).
        min_annotators: fewest tested annotators for an ω (>= 2; the paper's 3 by default).
        min_items: fewest kept items for an annotator to be tested (>= 2; 30 by default).
        min_per_item: fewest annotators of a kept item (>= 2).

    Returns:
        :class:`AltTest`; ``reason`` "not enough annotators: …" (and no ω, ρ) when fewer than
        ``min_annotators`` annotators have ``min_items`` kept items.

    Raises:
        ValueError: ε outside [0, 1], q outside (0, 1), an unknown alignment, a minimum below
            2, a NaN label.

    Examples:
        Two annotators are fewer than the paper's three (a worked example with ω and ρ derived
        by hand is in ``tests/metrics/test_alttest.py``):

        >>> humans = {"ann": {i: 1 for i in range(30)}, "bob": {i: 1 for i in range(30)}}
        >>> result = alt_test({i: 1 for i in range(30)}, humans, epsilon=0.1)
        >>> result.winning_rate is None, result.reason.split(":")[0]
        (True, 'not enough annotators')
    """
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon: expected a margin in [0, 1], got {epsilon}")
    if not 0.0 < q < 1.0:
        raise ValueError(f"q: expected a false discovery rate in (0, 1), got {q}")
    if alignment not in ALIGNMENTS:
        raise ValueError(f"alignment: expected one of {', '.join(ALIGNMENTS)}, got "
                         f"{alignment!r}")
    if min(min_annotators, min_items, min_per_item) < 2:
        raise ValueError("min_annotators, min_items and min_per_item must each be >= 2")
    labels = [*judge.values(), *(x for a in humans.values() for x in a.values())]
    if any(isinstance(x, float) and math.isnan(x) for x in labels):
        raise ValueError("labels: expected no NaN (leave an unlabelled item out instead)")
    score: Callable[[float, Sequence[float]], float] = (
        _accuracy if alignment == "accuracy" else _neg_rmse)
    by_item: dict[K, list[str]] = {}
    for name, got in humans.items():
        for item in got:
            by_item.setdefault(item, []).append(name)
    kept = {i for i, names in by_item.items() if len(names) >= min_per_item and i in judge}
    tested: list[tuple[str, int, float, float, float | None]] = []
    skipped: dict[str, int] = {}
    for name, got in humans.items():
        items = [i for i in got if i in kept]
        if len(items) < min_items:
            skipped[name] = len(items)
            continue
        w_f, w_h = [], []
        for i in items:
            others = [humans[h][i] for h in by_item[i] if h != name]
            s_f, s_h = score(judge[i], others), score(got[i], others)
            w_f.append(float(s_f >= s_h))
            w_h.append(float(s_h >= s_f))
        d = np.array(w_h) - np.array(w_f)
        tested.append((name, len(items), float(np.mean(w_f)), float(d.mean()),
                       _p_value(d, epsilon)))
    if len(tested) < min_annotators:
        reason = (f"not enough annotators: {len(tested)} annotator(s) labelled >= {min_items} "
                  f"items that another annotator labelled too; the alt-test needs >= "
                  f"{min_annotators} (Calderon et al. 2025)")
        tests = tuple(AnnotatorTest(n, k, a, m, p, False) for n, k, a, m, p in tested)
        return AltTest(tests, skipped, len(kept), None, None, None, epsilon, q, alignment, reason)
    defined = [t[4] for t in tested if t[4] is not None]
    rejected = iter(by_rejections(defined, q))
    wins = [False if t[4] is None else next(rejected) for t in tested]
    tests = tuple(AnnotatorTest(n, k, a, m, p, w)
                  for (n, k, a, m, p), w in zip(tested, wins, strict=True))
    omega = sum(wins) / len(tests)
    return AltTest(tests, skipped, len(kept), omega, float(np.mean([t.advantage for t in tests])),
                   omega >= 0.5, epsilon, q, alignment, None)


def _p_value(d: np.ndarray, epsilon: float) -> float | None:
    """One-sided one-sample t-test of H0 mean(d) ≥ ε (scipy ``ttest_1samp``, ``alternative=
    "less"``); None when d is constant (the t statistic is undefined)."""
    if np.all(d == d[0]):
        return None
    from scipy.stats import ttest_1samp

    return float(ttest_1samp(d, epsilon, alternative="less").pvalue)
