"""ROC-AUC and PR-AUC of many bootstrap replicates at once, without re-sorting the scores.

A bootstrap replicate of N scored pairs is the same N pairs, each drawn k_i times; its ROC-AUC
and average precision are those of the full sample with the multiplicities k_i as sample
weights. The scores are therefore grouped by distinct value once, each replicate counts its
draws of each (score group, class) (:func:`counts_per_resample`), and its curves are
cumulative sums of those counts: one (B × groups) array operation for B replicates instead of
B sorts (:func:`auc_replicates`).

Sources: ROC-AUC as the Mann–Whitney probability with ties ½ (Hanley & McNeil 1982), average
precision as scikit-learn's ``average_precision_score`` (Σ_n (R_n − R_{n−1}) P_n over the
distinct thresholds); the weighted forms are scikit-learn's with ``sample_weight``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics._validation import as_bool_vector, as_score_vector, check_same_length


def counts_per_resample(indices: Any, codes: Any, n_codes: int) -> NDArray[np.int64]:
    """How often each code is drawn in each resample: item i carries ``codes[i]``, and row b
    counts the codes of the items ``indices[b]`` (with ``codes = range(n)``, each item's
    multiplicity).

    Args:
        indices: integer array of shape (B, M), values in ``range(len(codes))`` (B resamples,
            e.g. :func:`metrics.bootstrap_indices`).
        codes: 1-D integers in ``range(n_codes)``, one per item.
        n_codes: number of distinct codes, >= 1.

    Returns:
        int64 array of shape (B, n_codes); each row sums to M.

    Raises:
        ValueError: ``indices`` not 2-D integers indexing ``codes``, or ``codes`` not 1-D
            integers in ``range(n_codes)``.

    Examples:
        Items 0, 1, 2 with codes 0, 1, 1: drawing (0, 0, 2) counts code 0 twice, code 1 once.

        >>> counts_per_resample([[0, 0, 2], [1, 2, 2]], [0, 1, 1], 2).tolist()
        [[2, 1], [0, 3]]
    """
    idx, c = np.asarray(indices), np.asarray(codes)
    if (c.ndim != 1 or not np.issubdtype(c.dtype, np.integer)
            or (c.size and (c.min() < 0 or c.max() >= n_codes))):
        raise ValueError(f"codes: expected 1-D integers in [0, {n_codes - 1}]")
    if (idx.ndim != 2 or not np.issubdtype(idx.dtype, np.integer)
            or (idx.size and (idx.min() < 0 or idx.max() >= len(c)))):
        raise ValueError(f"indices: expected a 2-D integer array of values in "
                         f"[0, {len(c) - 1}], got shape {idx.shape} ({idx.dtype})")
    rows = idx.shape[0]
    flat = (c[idx] + np.arange(rows, dtype=np.int64)[:, None] * n_codes).ravel()
    return np.bincount(flat, minlength=rows * n_codes).reshape(rows, n_codes)


def auc_replicates(labels: Any, scores: Any, indices: Any,
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ROC-AUC and PR-AUC (average precision) of each bootstrap resample of labelled scores.

    Args:
        labels: 1-D booleans (or 0/1), length N.
        scores: 1-D finite numbers, length N (higher = more likely positive).
        indices: integer array of shape (B, M), values in ``range(N)``: resample b is the
            pairs ``indices[b]`` (:func:`metrics.bootstrap_indices`).

    Returns:
        ``(roc_auc, pr_auc)``, each of shape (B,): entry b equals :func:`metrics.roc_auc` and
        :func:`metrics.pr_auc` of ``(labels[indices[b]], scores[indices[b]])`` (=
        scikit-learn's ``roc_auc_score`` and ``average_precision_score`` of all N pairs with
        each pair's multiplicity in ``indices[b]`` as ``sample_weight``); NaN where the
        resample holds one class only (both are undefined).

    Raises:
        ValueError: bad labels or scores, unequal lengths, or bad ``indices``.

    Examples:
        The example of :func:`metrics.roc_auc` (pairs 0–3: AUC 3/4, AP 5/6); then drawing
        0.4 (−), 0.35 (+) twice and 0.8 (+): only 0.8 beats 0.4, AUC 1/3; ranked 0.8 +,
        0.4 −, 0.35 +×2, recall ⅓ at precision 1 then 1 at ¾, AP ⅓ + ⅔·¾ = 5/6; no
        positive drawn: NaN.

        >>> roc, ap = auc_replicates([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8],
        ...                          [[0, 1, 2, 3], [1, 2, 2, 3], [0, 1, 0, 1]])
        >>> [round(float(x), 4) for x in roc], [round(float(x), 4) for x in ap]
        ([0.75, 0.3333, nan], [0.8333, 0.8333, nan])
    """
    y = as_bool_vector(labels, "labels")
    s = as_score_vector(scores, "scores")
    check_same_length(y, s, "labels", "scores")
    # each pair's code: its distinct score's rank (ascending) and class
    _, group = np.unique(s, return_inverse=True)
    n_groups = int(group.max()) + 1 if len(s) else 1
    codes = 2 * group.ravel() + y
    idx = np.asarray(indices)
    roc, ap = np.empty(len(idx)), np.empty(len(idx))
    step = max(1, _CELLS // n_groups)
    for lo in range(0, len(idx), step):
        drawn = counts_per_resample(idx[lo:lo + step], codes, 2 * n_groups)
        part = drawn.reshape(-1, n_groups, 2).astype(np.float64)
        roc[lo:lo + len(part)], ap[lo:lo + len(part)] = _aucs(part[..., 1], part[..., 0])
    return roc, ap


_CELLS = 250_000
"""Replicates × score groups per pass of :func:`auc_replicates` (2 MB per float array)."""


def _aucs(pos_g: NDArray[np.float64], neg_g: NDArray[np.float64],
          ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ROC-AUC and AP from each row's class weights per distinct score (ascending)."""
    n_pos, n_neg = pos_g.sum(axis=1), neg_g.sum(axis=1)
    two = (n_pos > 0) & (n_neg > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # ROC-AUC as metrics.roc_auc: each positive beats the negatives below it, ties ½
        neg_share = neg_g / n_neg[:, None]
        below = np.cumsum(neg_share, axis=1) - neg_share
        roc = np.sum(pos_g / n_pos[:, None] * (below + 0.5 * neg_share), axis=1)
        # average precision as metrics.pr_auc: thresholds from the highest score down
        tps = np.cumsum(pos_g[:, ::-1], axis=1)
        fps = np.cumsum(neg_g[:, ::-1], axis=1)
        predicted = tps + fps
        precision = np.divide(tps, predicted, out=np.zeros_like(tps), where=predicted > 0)
        recall = tps / tps[:, -1:]
        ap = np.sum(np.diff(recall, axis=1, prepend=0.0) * precision, axis=1)
    return np.where(two, roc, np.nan), np.where(two, ap, np.nan)
