"""Judgment-task metrics: accuracy, precision, recall and F1 from a binary confusion matrix.

Source: the standard binary-classification definitions (used, e.g., for the yes/no ILF/EIF
judgment tasks of an LLM IFPUG function-point study); the ``zero_division`` convention and
F1 = 2TP / (2TP + FP + FN) follow scikit-learn's ``precision_recall_fscore_support``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np

from metrics._validation import as_bool_vector, check_same_length, check_zero_division, safe_div


@dataclass(frozen=True)
class BinaryScores:
    """Confusion-matrix counts and the scores derived from them.

    Attributes:
        accuracy: (TP + TN) / N, in [0, 1].
        precision: TP / (TP + FP), in [0, 1]; ``zero_division`` when nothing was predicted
            positive.
        recall: TP / (TP + FN), in [0, 1]; ``zero_division`` when there is no positive label.
        f1: 2TP / (2TP + FP + FN), in [0, 1]; ``zero_division`` when TP + FP + FN = 0.
        tp, fp, fn, tn: counts (non-negative ints), in :class:`Confusion`'s order.
    """

    accuracy: float
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def confusion(self) -> Confusion:
        """The four counts as a :class:`Confusion`."""
        return Confusion(self.tp, self.fp, self.fn, self.tn)

    def to_dict(self) -> dict[str, float | int]:
        """The fields as a plain ``dict`` (JSON-serialisable)."""
        return asdict(self)


class Confusion(NamedTuple):
    """The counts of a 2×2 confusion matrix, in simjudge's one order: TP, FP, FN, TN.

    Every function of :mod:`metrics` and of calibration that takes or returns four counts
    uses this order (as Cohen's κ and the threshold sweep's columns always did); read them by
    name. scikit-learn's ``confusion_matrix(y, y_hat).ravel()`` is (TN, FP, FN, TP): the
    same counts in another order.

    Attributes:
        tp: positives predicted positive; fp: negatives predicted positive; fn: positives
            predicted negative; tn: negatives predicted negative (non-negative ints).
    """

    tp: int
    fp: int
    fn: int
    tn: int

    @classmethod
    def at(cls, scores: Any, labels: Any, tau: float) -> Confusion:
        """The confusion of the rule ``score > tau`` against boolean ``labels`` (arrays of
        equal length N; seed 001's strict threshold)."""
        pred = np.asarray(scores) > tau
        y = np.asarray(labels, dtype=bool)
        return cls(int((pred & y).sum()), int((pred & ~y).sum()), int((~pred & y).sum()),
                   int((~pred & ~y).sum()))


def confusion_counts(y_true: Any, y_pred: Any) -> Confusion:
    """Count TP, FP, FN, TN for boolean labels.

    Args:
        y_true: 1-D sequence of gold labels (bool or 0/1), length N.
        y_pred: 1-D sequence of predicted labels (bool or 0/1), length N.

    Returns:
        :class:`Confusion` ``(tp, fp, fn, tn)`` as ints.

    Examples:
        >>> confusion_counts([1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
        Confusion(tp=2, fp=1, fn=1, tn=1)

    Raises:
        ValueError: unequal lengths, or a label that is not boolean (names argument and index).
    """
    t = as_bool_vector(y_true, "y_true")
    p = as_bool_vector(y_pred, "y_pred")
    check_same_length(t, p, "y_true", "y_pred")
    return Confusion(tp=int(np.count_nonzero(t & p)), fp=int(np.count_nonzero(~t & p)),
                     fn=int(np.count_nonzero(t & ~p)), tn=int(np.count_nonzero(~t & ~p)))


def scores_from_counts(tp: int, fp: int, fn: int, tn: int,
                       zero_division: float = 0.0) -> BinaryScores:
    """Build :class:`BinaryScores` from confusion counts (in :class:`Confusion`'s order, so
    ``scores_from_counts(*confusion)`` works).

    Args:
        tp, fp, fn, tn: non-negative counts.
        zero_division: value (0.0, 1.0 or NaN) for a ratio whose denominator is 0.

    Raises:
        ValueError: a negative count, or an invalid ``zero_division``.

    Examples:
        Nothing predicted positive: precision is 0/0, so ``zero_division``.

        >>> s = scores_from_counts(tp=0, fp=0, fn=1, tn=3)
        >>> s.accuracy, s.precision, s.recall, s.f1
        (0.75, 0.0, 0.0, 0.0)
    """
    z = check_zero_division(zero_division)
    for name, v in (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn)):
        if v < 0:
            raise ValueError(f"{name}: count must be non-negative, got {v}")
    return BinaryScores(
        accuracy=safe_div(tp + tn, tp + tn + fp + fn, z),
        precision=safe_div(tp, tp + fp, z),
        recall=safe_div(tp, tp + fn, z),
        f1=safe_div(2 * tp, 2 * tp + fp + fn, z),
        tp=int(tp), fp=int(fp), fn=int(fn), tn=int(tn),
    )


def binary_scores(y_true: Any, y_pred: Any, zero_division: float = 0.0) -> BinaryScores:
    """Accuracy, precision, recall and F1 for a binary judgment task.

    Args:
        y_true: 1-D sequence of N gold labels (True/False or 0/1).
        y_pred: 1-D sequence of N predicted labels (True/False or 0/1).
        zero_division: value (0.0, 1.0 or NaN) returned for a ratio with a zero denominator,
            as scikit-learn's argument of the same name; default 0.0.

    Returns:
        :class:`BinaryScores` with every score in [0, 1] (or ``zero_division``).

    Raises:
        ValueError: unequal lengths, non-boolean labels (argument and index named), or an invalid
            ``zero_division``.

    Source: accuracy = (TP+TN)/N, P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R); agrees with
    ``sklearn.metrics.accuracy_score`` / ``precision_recall_fscore_support(average="binary")``.

    Examples:
        TP = 2, TN = 1, FP = 1, FN = 1: accuracy 3/5, P = R = 2/3, F1 = 4/6.

        >>> s = binary_scores([1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
        >>> s.accuracy, round(s.precision, 4), round(s.recall, 4), round(s.f1, 4)
        (0.6, 0.6667, 0.6667, 0.6667)
    """
    return scores_from_counts(*confusion_counts(y_true, y_pred), zero_division=zero_division)
