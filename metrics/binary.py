"""Judgment-task metrics: accuracy, precision, recall and F1 from a binary confusion matrix.

Source: seed 001 §4.2.1 (IFPUG ILF/EIF judgment tasks); the ``zero_division`` convention and
F1 = 2TP / (2TP + FP + FN) follow scikit-learn's ``precision_recall_fscore_support``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

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
        tp, tn, fp, fn: counts (non-negative ints).
    """

    accuracy: float
    precision: float
    recall: float
    f1: float
    tp: int
    tn: int
    fp: int
    fn: int

    def to_dict(self) -> dict[str, float | int]:
        """The fields as a plain ``dict`` (JSON-serialisable)."""
        return asdict(self)


def confusion_counts(y_true: Any, y_pred: Any) -> tuple[int, int, int, int]:
    """Count (TP, TN, FP, FN) for boolean labels.

    Args:
        y_true: 1-D sequence of gold labels (bool or 0/1), length N.
        y_pred: 1-D sequence of predicted labels (bool or 0/1), length N.

    Returns:
        ``(tp, tn, fp, fn)`` as ints.

    Raises:
        ValueError: unequal lengths, or a label that is not boolean (names argument and index).
    """
    t = as_bool_vector(y_true, "y_true")
    p = as_bool_vector(y_pred, "y_pred")
    check_same_length(t, p, "y_true", "y_pred")
    tp = int(np.count_nonzero(t & p))
    tn = int(np.count_nonzero(~t & ~p))
    fp = int(np.count_nonzero(~t & p))
    fn = int(np.count_nonzero(t & ~p))
    return tp, tn, fp, fn


def scores_from_counts(tp: int, tn: int, fp: int, fn: int,
                       zero_division: float = 0.0) -> BinaryScores:
    """Build :class:`BinaryScores` from confusion counts.

    Args:
        tp, tn, fp, fn: non-negative counts.
        zero_division: value (0.0, 1.0 or NaN) for a ratio whose denominator is 0.

    Raises:
        ValueError: a negative count, or an invalid ``zero_division``.
    """
    z = check_zero_division(zero_division)
    for name, v in (("tp", tp), ("tn", tn), ("fp", fp), ("fn", fn)):
        if v < 0:
            raise ValueError(f"{name}: count must be non-negative, got {v}")
    return BinaryScores(
        accuracy=safe_div(tp + tn, tp + tn + fp + fn, z),
        precision=safe_div(tp, tp + fp, z),
        recall=safe_div(tp, tp + fn, z),
        f1=safe_div(2 * tp, 2 * tp + fp + fn, z),
        tp=int(tp), tn=int(tn), fp=int(fp), fn=int(fn),
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

    Source: seed 001 §4.2.1; agrees with ``sklearn.metrics.accuracy_score`` /
    ``precision_recall_fscore_support(average="binary")``.
    """
    return scores_from_counts(*confusion_counts(y_true, y_pred), zero_division=zero_division)
