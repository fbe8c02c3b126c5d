"""Multi-label metrics: per-class (C-P, C-R, C-F1), overall (O-P, O-R, O-F1), per-sample, F-β.

Source: the per-class (C-) and overall (O-) averages of the multi-label classification
literature (e.g. ML-GCN, Chen et al. 2019), with names as there (some tutorials write both
pairs as ``CP``/``OP``), and scikit-learn's averages:

* C-P = (1/C) Σ_c N_c^correct / N_c^pred, C-R = (1/C) Σ_c N_c^correct / N_c^gold (per-class
  averages = scikit-learn ``average="macro"`` precision/recall);
  C-F1 = 2·C-P·C-R / (C-P + C-R) (harmonic mean of the averages, **not** the mean of per-class
  F1s);
* O-P = Σ_c N_c^correct / Σ_c N_c^pred, O-R = Σ_c N_c^correct / Σ_c N_c^gold (micro),
  O-F1 their harmonic mean, computed as 2TP / (2TP + FP + FN) (= scikit-learn
  ``average="micro"``);
* per-sample P/R/F1 = the mean over samples (= scikit-learn ``average="samples"``);
* scikit-learn's other averages beside them: ``macro_f1`` (the mean of the per-class F1,
  ``f1_score(average="macro")``), ``weighted_*`` (per-class P/R/F1 weighted by each class's
  gold count, ``average="weighted"``), ``hamming_loss`` (the share of wrong sample × class
  cells), ``subset_accuracy`` (the share of samples whose label set is exactly right,
  ``accuracy_score``) and ``jaccard_samples`` (the mean over samples of |pred ∩ gold| /
  |pred ∪ gold|, ``jaccard_score(average="samples")``).

F-β = (1 + β²)·P·R / (β²·P + R) (van Rijsbergen 1979). (A denominator of β²·(P + R), seen in
some tutorials, is a typo: with β = 1 it gives PR/(P+R), half the F1.)

Field spelling: ``or`` is a Python keyword, so overall recall is ``or_`` (PEP 8's trailing
underscore); :meth:`MultilabelScores.to_dict` uses the plain key ``"or"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics._validation import as_binary_matrix, check_zero_division, safe_div


def _ratio(num: Any, den: Any, z: float) -> NDArray[np.float64]:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(num.shape, z, dtype=np.float64)
    nz = den > 0
    out[nz] = num[nz] / den[nz]
    return out


def f_beta(precision: float, recall: float, beta: float = 1.0) -> float:
    """F-β = (1 + β²)·P·R / (β²·P + R); 0.0 when P = R = 0; NaN if either is NaN.

    Args:
        precision, recall: in [0, 1].
        beta: weight of recall, > 0 (β = 1 → F1; β = 2 favours recall).

    Raises:
        ValueError: ``beta <= 0``.

    Examples:
        >>> round(f_beta(0.5, 1.0), 4), round(f_beta(0.5, 1.0, beta=2), 4)  # 2·0.5/1.5, 5·0.5/3
        (0.6667, 0.8333)
    """
    if beta <= 0:
        raise ValueError(f"beta: must be > 0, got {beta}")
    b2 = beta * beta
    den = b2 * precision + recall
    if np.isnan(den):
        return float("nan")
    return (1 + b2) * precision * recall / den if den > 0 else 0.0


def _fbeta_counts(tp: Any, fp: Any, fn: Any, beta: float, z: float) -> NDArray[np.float64]:
    """(1+β²)TP / ((1+β²)TP + β²FN + FP), elementwise; ``z`` where TP + FP + FN = 0."""
    b2 = beta * beta
    num = np.asarray((1 + b2) * tp, dtype=np.float64)
    return _ratio(num, num + b2 * np.asarray(fn) + np.asarray(fp), z)


@dataclass(frozen=True)
class MultilabelScores:
    """Result of :func:`multilabel_scores`; every score in [0, 1].

    Attributes:
        cp, cr, cf1: per-class averaged precision, recall and their harmonic mean.
        op, or_, of1: overall (micro) precision, recall and F1.
        sample_precision, sample_recall, sample_f1: means of the per-sample scores.
        beta: the β used for the F-β fields.
        cf_beta, of_beta, sample_f_beta: F-β from (cp, cr), from (op, or_), and the mean of the
            per-sample F-β.
        class_precision, class_recall: per-class arrays, shape (n_classes,).
        class_f1, class_support: per-class F1 and gold count, shape (n_classes,).
        macro_f1: mean of ``class_f1`` (scikit-learn's macro F1; not ``cf1``).
        weighted_precision, weighted_recall, weighted_f1: per-class scores weighted by
            ``class_support`` (``zero_division`` when no class has a gold label).
        hamming_loss: share of sample × class cells predicted wrong, in [0, 1].
        subset_accuracy: share of samples whose predicted label set equals the gold one.
        jaccard_samples: mean over samples of |pred ∩ gold| / |pred ∪ gold|
            (``zero_division`` for a sample with both sets empty).
    """

    cp: float
    cr: float
    cf1: float
    op: float
    or_: float
    of1: float
    sample_precision: float
    sample_recall: float
    sample_f1: float
    beta: float
    cf_beta: float
    of_beta: float
    sample_f_beta: float
    class_precision: NDArray[np.float64]
    class_recall: NDArray[np.float64]
    class_f1: NDArray[np.float64]
    class_support: NDArray[np.int64]
    macro_f1: float
    weighted_precision: float
    weighted_recall: float
    weighted_f1: float
    hamming_loss: float
    subset_accuracy: float
    jaccard_samples: float

    def to_dict(self) -> dict[str, Any]:
        """Plain dict with key ``"or"`` for overall recall and lists for per-class arrays."""
        d = {k: v for k, v in self.__dict__.items() if k != "or_"}
        d["or"] = self.or_
        for name in ("class_precision", "class_recall", "class_f1", "class_support"):
            d[name] = getattr(self, name).tolist()
        return d


def sample_scores(y_true: Any, y_pred: Any, zero_division: float = 0.0,
                  ) -> dict[str, NDArray[np.float64]]:
    """Each sample's precision, recall, F1 and Jaccard index, as scikit-learn's
    ``average="samples"`` computes them before taking their mean.

    Args:
        y_true, y_pred: 0/1 indicator arrays, shape (n_samples, n_classes).
        zero_division: value (0.0, 1.0 or NaN) of a ratio whose denominator is 0: precision
            with no predicted label, recall with no gold label, F1 and Jaccard with neither.

    Returns:
        ``{"precision", "recall", "f1", "jaccard"}``, each an array of shape (n_samples,):
        |p ∩ t| / |p|, |p ∩ t| / |t|, 2|p ∩ t| / (|p| + |t|), |p ∩ t| / |p ∪ t|.

    Raises:
        ValueError: not 2-D, shapes differ, an entry other than 0/1.

    Source: scikit-learn ``precision_recall_fscore_support(average=None)`` on each row
    (``samplewise``) and ``jaccard_score(average="samples")``.

    Examples:
        Sample 0: 1 of 2 predicted is right, 1 of 2 gold found, union 3; sample 1: both empty.

        >>> s = sample_scores([[1, 0, 1], [0, 0, 0]], [[1, 1, 0], [0, 0, 0]])
        >>> s["precision"].tolist(), s["f1"].tolist(), s["jaccard"].round(4).tolist()
        ([0.5, 0.0], [0.5, 0.0], [0.3333, 0.0])
    """
    z = check_zero_division(zero_division)
    t = as_binary_matrix(y_true, "y_true")
    p = as_binary_matrix(y_pred, "y_pred")
    if t.shape != p.shape:
        raise ValueError(f"y_true and y_pred must have the same shape, got {t.shape} and {p.shape}")
    s_c, s_p, s_g = (t & p).sum(1), p.sum(1), t.sum(1)
    return {"precision": _ratio(s_c, s_p, z), "recall": _ratio(s_c, s_g, z),
            "f1": _fbeta_counts(s_c, s_p - s_c, s_g - s_c, 1.0, z),
            "jaccard": _ratio(s_c, s_p + s_g - s_c, z)}


def multilabel_scores(y_true: Any, y_pred: Any, beta: float = 1.0,
                      zero_division: float = 0.0) -> MultilabelScores:
    """C-P/C-R/C-F1, O-P/O-R/O-F1, per-sample P/R/F1 and F-β for multi-label predictions.

    Args:
        y_true: 0/1 indicator array, shape (n_samples, n_classes).
        y_pred: 0/1 indicator array, same shape.
        beta: β for the F-β fields (> 0; default 1).
        zero_division: value (0.0, 1.0 or NaN) for a per-class or per-sample ratio whose
            denominator is 0 (a class never predicted / never gold, a sample with no labels),
            as scikit-learn's argument.

    Returns:
        :class:`MultilabelScores`.

    Raises:
        ValueError: not 2-D, shapes differ, an entry other than 0/1 (``y_pred[r, c]`` named),
            no samples, ``beta <= 0``.

    Source: the definitions in this module's docstring; agrees with scikit-learn's
    ``precision_recall_fscore_support`` (macro P/R, micro, samples).

    Examples:
        Per class: c0 P = R = 1; c1 P = 1/2, R = 1; c2 never predicted, P = 0 (zero_division),
        R = 0. C-P = 1.5/3, C-R = 2/3, C-F1 = 2·C-P·C-R/(C-P + C-R) = 4/7. Overall 2 correct of
        3 predicted and 3 gold: O-P = O-R = 2/3. Per sample: (1/2 + 1)/2 for each of P, R, F1.

        >>> s = multilabel_scores([[1, 0, 1], [0, 1, 0]], [[1, 1, 0], [0, 1, 0]])
        >>> round(s.cp, 4), round(s.cr, 4), round(s.cf1, 4)
        (0.5, 0.6667, 0.5714)
        >>> round(s.op, 4), round(s.or_, 4), round(s.of1, 4)
        (0.6667, 0.6667, 0.6667)
        >>> s.sample_precision, s.sample_recall, s.sample_f1
        (0.75, 0.75, 0.75)
        >>> s.class_precision.tolist()
        [1.0, 0.5, 0.0]

        scikit-learn's macro F1 is the mean of the per-class F1 (1, 2/3, 0), not C-F1:

        >>> round(s.macro_f1, 4), round(s.hamming_loss, 4), s.subset_accuracy
        (0.5556, 0.3333, 0.5)
    """
    z = check_zero_division(zero_division)
    t = as_binary_matrix(y_true, "y_true")
    p = as_binary_matrix(y_pred, "y_pred")
    if t.shape != p.shape:
        raise ValueError(f"y_true and y_pred must have the same shape, got {t.shape} and {p.shape}")
    if t.shape[0] == 0:
        raise ValueError("y_true: at least one sample is required")
    if beta <= 0:
        raise ValueError(f"beta: must be > 0, got {beta}")
    correct = t & p
    cls_c, cls_p, cls_g = correct.sum(0), p.sum(0), t.sum(0)
    class_precision = _ratio(cls_c, cls_p, z)
    class_recall = _ratio(cls_c, cls_g, z)
    cp, cr = float(class_precision.mean()), float(class_recall.mean())
    tp, n_p, n_g = int(cls_c.sum()), int(cls_p.sum()), int(cls_g.sum())
    op = safe_div(tp, n_p, z)
    or_ = safe_div(tp, n_g, z)

    s_c, s_p, s_g = correct.sum(1), p.sum(1), t.sum(1)
    class_f1 = _fbeta_counts(cls_c, cls_p - cls_c, cls_g - cls_c, 1.0, z)
    support = cls_g.astype(np.int64)

    def weighted(per_class: NDArray[np.float64]) -> float:
        return float((per_class * support).sum() / support.sum()) if support.sum() else z

    return MultilabelScores(
        cp=cp, cr=cr, cf1=f_beta(cp, cr, 1.0),
        op=op, or_=or_, of1=float(_fbeta_counts(tp, n_p - tp, n_g - tp, 1.0, z)),
        sample_precision=float(_ratio(s_c, s_p, z).mean()),
        sample_recall=float(_ratio(s_c, s_g, z).mean()),
        sample_f1=float(_fbeta_counts(s_c, s_p - s_c, s_g - s_c, 1.0, z).mean()),
        beta=float(beta), cf_beta=f_beta(cp, cr, beta),
        of_beta=float(_fbeta_counts(tp, n_p - tp, n_g - tp, beta, z)),
        sample_f_beta=float(_fbeta_counts(s_c, s_p - s_c, s_g - s_c, beta, z).mean()),
        class_precision=class_precision, class_recall=class_recall,
        class_f1=class_f1, class_support=support, macro_f1=float(class_f1.mean()),
        weighted_precision=weighted(class_precision), weighted_recall=weighted(class_recall),
        weighted_f1=weighted(class_f1), hamming_loss=float((t != p).mean()),
        subset_accuracy=float((t == p).all(axis=1).mean()),
        jaccard_samples=float(_ratio(s_c, s_p + s_g - s_c, z).mean()),
    )
