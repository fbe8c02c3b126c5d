"""Agreement and discrimination statistics used by calibration and judge comparison:
Cohen's κ, ROC-AUC, PR-AUC (average precision), Spearman's ρ and Pearson's r.

Sources: Cohen (1960) for κ; ROC-AUC as the Mann–Whitney U statistic with mid-ranks for ties
(Hanley & McNeil 1982), equal to scikit-learn's ``roc_auc_score``; PR-AUC as scikit-learn's
``average_precision_score`` (step-wise Σ (R_n − R_{n−1}) P_n); Spearman/Pearson from
``scipy.stats``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics._validation import (
    as_bool_vector,
    as_score_vector,
    as_weight_vector,
    check_same_length,
)


def kappa_from_counts(tp: float, fp: float, fn: float, tn: float,
                      undefined: float = float("nan")) -> float:
    """Cohen's κ of a 2×2 confusion matrix.

    κ = (p_o − p_e) / (1 − p_e) with p_o = (TP + TN)/N and
    p_e = ((TP+FP)(TP+FN) + (FN+TN)(FP+TN)) / N².

    Returns:
        κ in [−1, 1]; ``undefined`` (NaN by default, as scikit-learn) when p_e = 1 or N = 0.

    Source: Cohen (1960).

    Examples:
        N = 50, p_o = 35/50 = 0.7, p_e = (25·30 + 25·20)/50² = 0.5, κ = 0.2/0.5.

        >>> round(kappa_from_counts(tp=20, fp=5, fn=10, tn=15), 4)
        0.4
    """
    n = tp + fp + fn + tn
    if n == 0:
        return undefined
    po = (tp + tn) / n
    pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
    if pe >= 1.0:
        return undefined
    return float((po - pe) / (1.0 - pe))


def gwet_ac1_from_counts(tp: float, fp: float, fn: float, tn: float,
                         undefined: float = float("nan")) -> float:
    """Gwet's AC1 of a 2×2 table of two raters (judge × human), stable where one label
    dominates (κ's paradox: high agreement, low κ).

    AC1 = (p_o − p_e) / (1 − p_e) with p_o = (TP + TN)/N, π = ((TP+FP) + (TP+FN)) / (2N) the
    mean share of "yes" over the two raters, and p_e = 2π(1 − π).

    Returns:
        AC1 in [−1, 1]; ``undefined`` (NaN) when N = 0 or p_e = 1 (never for two categories:
        p_e <= 1/2).

    Source: Gwet (2008), "Computing inter-rater reliability and its variance in the presence
    of high agreement", Br. J. Math. Stat. Psychol. 61:29–48, eq. for two raters, two
    categories.

    Examples:
        The table of :func:`kappa_from_counts`: p_o = 0.7, π = (25 + 30)/100 = 0.55,
        p_e = 2·0.55·0.45 = 0.495, AC1 = 0.205/0.505 = 0.40594.

        >>> round(gwet_ac1_from_counts(tp=20, fp=5, fn=10, tn=15), 5)
        0.40594
    """
    n = tp + fp + fn + tn
    if n == 0:
        return undefined
    po = (tp + tn) / n
    pi = ((tp + fp) + (tp + fn)) / (2 * n)
    pe = 2 * pi * (1 - pi)
    if pe >= 1.0:
        return undefined
    return float((po - pe) / (1.0 - pe))


def mcc_from_counts(tp: float, fp: float, fn: float, tn: float,
                    undefined: float = float("nan")) -> float:
    """Matthews correlation coefficient of a 2×2 confusion matrix.

    MCC = (TP·TN − FP·FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN)).

    Returns:
        MCC in [−1, 1]; ``undefined`` (NaN) when a margin is 0 (scikit-learn's
        ``matthews_corrcoef`` returns 0.0 there).

    Source: Matthews (1975); equals ``sklearn.metrics.matthews_corrcoef``.

    Examples:
        (20·15 − 5·10) / √(25·30·20·25) = 250 / √375000 = 0.40825.

        >>> round(mcc_from_counts(tp=20, fp=5, fn=10, tn=15), 5)
        0.40825
    """
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    if den <= 0:
        return undefined
    return float((tp * tn - fp * fn) / math.sqrt(den))


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable],
                undefined: float = float("nan")) -> float:
    """Cohen's κ between two raters' nominal labels.

    Args:
        a, b: equal-length sequences of hashable labels (e.g. bools, "T"/"F", ints).
        undefined: value when chance agreement is 1 (both raters use one identical label).

    Returns:
        κ in [−1, 1] (= ``sklearn.metrics.cohen_kappa_score``).

    Raises:
        ValueError: unequal lengths or empty input.

    Source: Cohen (1960), κ = (p_o − p_e)/(1 − p_e) over the labels' confusion matrix.

    Examples:
        p_o = 3/4; rater a says "T" half the time, rater b a quarter: p_e = ½·¼ + ½·¾ = ½,
        so κ = (¾ − ½)/(1 − ½).

        >>> cohen_kappa(["T", "T", "F", "F"], ["T", "F", "F", "F"])
        0.5
    """
    check_same_length(a, b, "a", "b")
    if len(a) == 0:
        raise ValueError("a: at least one label pair is required")
    labels = sorted(set(a) | set(b), key=repr)
    index = {lab: i for i, lab in enumerate(labels)}
    m = np.zeros((len(labels), len(labels)))
    for x, y in zip(a, b, strict=True):
        m[index[x], index[y]] += 1
    n = m.sum()
    po = np.trace(m) / n
    pe = float((m.sum(1) * m.sum(0)).sum() / (n * n))
    if pe >= 1.0:
        return undefined
    return float((po - pe) / (1.0 - pe))


def _binary_inputs(labels: Any, scores: Any) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    y = as_bool_vector(labels, "labels")
    s = as_score_vector(scores, "scores")
    check_same_length(y, s, "labels", "scores")
    n_pos = int(y.sum())
    if n_pos == 0 or n_pos == len(y):
        only = "positive" if n_pos else "negative"
        raise ValueError(
            f"labels: only one class present (all {only}); ROC-AUC and PR-AUC are undefined "
            "without both positive and negative examples")
    return y, s


def _class_weights(y: NDArray[np.bool_], s: NDArray[np.float64],
                   sample_weight: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each pair's positive and negative weight (1/0 without ``sample_weight``)."""
    w = (np.ones(len(y)) if sample_weight is None else
         as_weight_vector(sample_weight, s, "sample_weight"))
    pos, neg = np.where(y, w, 0.0), np.where(y, 0.0, w)
    if pos.sum() <= 0 or neg.sum() <= 0:
        raise ValueError("sample_weight: one class has a total weight of 0; ROC-AUC and PR-AUC "
                         "are undefined")
    return pos, neg


def roc_auc(labels: Any, scores: Any, sample_weight: Any = None) -> float:
    """Area under the ROC curve: P(score of a random positive > random negative), ties ½;
    with ``sample_weight``, each (positive, negative) couple counts the product of their
    weights (the population's AUC from a weighted sample, e.g. inverse-probability weights of
    a stratified one).

    Args:
        labels: 1-D booleans (or 0/1), length N, both classes present.
        scores: 1-D finite numbers, length N (higher = more likely positive).
        sample_weight: None, or 1-D weights >= 0, length N, with each class's total > 0.

    Returns:
        AUC in [0, 1] (= ``sklearn.metrics.roc_auc_score``, with the same ``sample_weight``).

    Raises:
        ValueError: one class only ("AUC is undefined"), unequal lengths, bad values.

    Examples:
        Of the 4 (positive, negative) pairs, the positive scores higher in 3 (0.35 loses
        to 0.4): 3/4. (scikit-learn's ``roc_auc_score`` example.) Weighting the losing
        positive 3×: (3·0 + 3·1 + 1 + 1) / (4 · 2) = 5/8.

        >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        0.75
        >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[1, 1, 3, 1])
        0.625
    """
    y, s = _binary_inputs(labels, scores)
    pos, neg = _class_weights(y, s, sample_weight)
    _, group = np.unique(s, return_inverse=True)  # ascending distinct scores
    pos_g, neg_g = np.bincount(group, weights=pos), np.bincount(group, weights=neg)
    # shares of each class's total before multiplying: the product of two tiny totals (a
    # subnormal weight) would underflow to 0
    neg_share = neg_g / neg.sum()
    below = np.cumsum(neg_share) - neg_share
    return float(np.sum(pos_g / pos.sum() * (below + 0.5 * neg_share)))


def pr_auc(labels: Any, scores: Any, sample_weight: Any = None) -> float:
    """Area under the precision–recall curve as average precision: Σ_n (R_n − R_{n−1}) P_n
    over the distinct score thresholds, highest first; with ``sample_weight``, precision and
    recall count weights instead of pairs.

    Args:
        labels, scores, sample_weight: as in :func:`roc_auc`.

    Returns:
        AP in [0, 1] (= ``sklearn.metrics.average_precision_score``, with the same
        ``sample_weight``).

    Raises:
        ValueError: one class only, unequal lengths, bad values.

    Examples:
        Ranked by score: 0.8 (+), 0.4 (−), 0.35 (+), 0.1 (−). Recall reaches ½ at precision 1
        and 1 at precision 2/3: AP = ½·1 + ½·⅔. (scikit-learn's
        ``average_precision_score`` example.) Weighting 0.4 (−) 2×: AP = ½·1 + ½·½.

        >>> round(pr_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
        0.8333
        >>> pr_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[1, 2, 1, 1])
        0.75
    """
    y, s = _binary_inputs(labels, scores)
    pos, neg = _class_weights(y, s, sample_weight)
    order = np.argsort(-s, kind="mergesort")
    last_of_group = np.r_[np.flatnonzero(np.diff(s[order])), len(s) - 1]
    tps = np.cumsum(pos[order])[last_of_group]
    fps = np.cumsum(neg[order])[last_of_group]
    predicted = tps + fps
    precision = np.divide(tps, predicted, out=np.zeros_like(tps), where=predicted > 0)
    recall = tps / tps[-1]
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def _paired(x: Any, y: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    a = as_score_vector(x, "x")
    b = as_score_vector(y, "y")
    check_same_length(a, b, "x", "y")
    if len(a) < 2:
        raise ValueError("x: at least two paired observations are required")
    return a, b


def spearman(x: Any, y: Any) -> float:
    """Spearman's rank correlation ρ (``scipy.stats.spearmanr``), in [−1, 1].

    Returns NaN when either input is constant (ρ undefined).

    Raises:
        ValueError: unequal lengths, fewer than 2 pairs, non-finite values.

    Examples:
        No ties: ρ = 1 − 6Σd²/(n(n² − 1)) = 1 − 6·2/60.

        >>> round(spearman([1, 2, 3, 4], [1, 3, 2, 4]), 4)
        0.8
    """
    from scipy.stats import spearmanr

    a, b = _paired(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spearmanr(a, b).statistic)


def pearson(x: Any, y: Any) -> float:
    """Pearson's correlation r (``scipy.stats.pearsonr``), in [−1, 1].

    Returns NaN when either input is constant (r undefined).

    Raises:
        ValueError: unequal lengths, fewer than 2 pairs, non-finite values.

    Examples:
        Centred: (−1, 0, 1) and (−1, 1, 0); r = 1/(√2·√2).

        >>> round(pearson([1, 2, 3], [1, 3, 2]), 4)
        0.5
        >>> pearson([1, 2, 3], [5, 5, 5])
        nan
    """
    a, b = _paired(x, y)
    if np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan")
    from scipy.stats import pearsonr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(pearsonr(a, b).statistic)


def krippendorff_alpha(data: Any, level: str = "interval") -> float:
    """Krippendorff's α for several raters (coders) rating the same units.

    Args:
        data: array-like of shape (n_raters, n_units); NaN (or None) = the rater did not rate
            that unit. Nominal values may be any numbers (e.g. 0/1 match labels).
        level: ``"interval"`` (δ² = (a − b)², for scores) or ``"nominal"`` (δ² = [a ≠ b], for
            categories such as match/no-match at τ).

    Returns:
        α = 1 − D_o / D_e in (−∞, 1]; 1 = perfect agreement, 0 = chance level. NaN when fewer
        than two pairable values exist or the expected disagreement D_e is 0 (every value
        equal).

    Raises:
        ValueError: data not 2-D, or unknown ``level``.

    Source: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", with
    D_o = (1/n) Σ_u Σ_{i≠j∈u} δ²/(m_u − 1) and D_e = Σ_{i≠j} δ² / (n(n − 1)) over the n values in
    units with m_u ≥ 2 values; agrees with the ``krippendorff`` package (tests).

    Examples:
        Nominal, 2 raters × 3 units: only unit 2 disagrees, D_o = 2/6; the six values are three
        1s and three 0s, D_e = 18/30; α = 1 − (1/3)/(3/5) = 4/9.

        >>> round(krippendorff_alpha([[1, 1, 0], [1, 0, 0]], level="nominal"), 4)
        0.4444

        Interval: only unit 3 differs (3 vs 4), D_o = 2/6, D_e = 82/30, α = 1 − 10/82; a unit
        rated once (NaN for the other rater) is not pairable and is ignored.

        >>> nan = float("nan")
        >>> round(krippendorff_alpha([[1, 2, 3, nan], [1, 2, 4, 5]]), 4)
        0.878
    """
    if level not in ("interval", "nominal"):
        raise ValueError(f"level: expected 'interval' or 'nominal', got {level!r}")
    arr = np.asarray(data, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"data: expected shape (n_raters, n_units), got {arr.shape}")
    units = [col[~np.isnan(col)] for col in arr.T]
    units = [u for u in units if u.size >= 2]
    if not units:
        return float("nan")

    def pair_sum(v: NDArray[np.float64]) -> float:
        """Σ over ordered pairs i ≠ j of δ²(v_i, v_j)."""
        m = v.size
        if level == "interval":
            return float(2.0 * (m * np.sum(v * v) - np.sum(v) ** 2))
        _, counts = np.unique(v, return_counts=True)
        return float(m * m - np.sum(counts.astype(np.float64) ** 2))

    values = np.concatenate(units)
    n = values.size
    d_o = sum(pair_sum(u) / (u.size - 1) for u in units) / n
    d_e = pair_sum(values) / (n * (n - 1))
    if d_e <= 0:
        return float("nan")
    return float(1.0 - d_o / d_e)
