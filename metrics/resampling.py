"""Resampling helpers: bootstrap percentile intervals and stratified k-fold splits.

Sources: Efron & Tibshirani (1993), *An Introduction to the Bootstrap* (percentile interval);
stratified k-fold as scikit-learn's ``StratifiedKFold`` (labels spread evenly over folds).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics._validation import as_bool_vector


def bootstrap_indices(n: int, n_boot: int, seed: int = 0) -> NDArray[np.intp]:
    """``n_boot`` resamples of ``range(n)`` with replacement, shape (n_boot, n).

    Raises:
        ValueError: ``n < 1`` or ``n_boot < 1``.

    Examples:
        >>> idx = bootstrap_indices(5, 1000, seed=0)
        >>> idx.shape, bool(idx.min() >= 0 and idx.max() <= 4)
        ((1000, 5), True)
        >>> bool((bootstrap_indices(5, 3, seed=1) == bootstrap_indices(5, 3, seed=1)).all())
        True
    """
    if n < 1 or n_boot < 1:
        raise ValueError(f"n and n_boot must be >= 1, got {n} and {n_boot}")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(n_boot, n))


def percentile_ci(values: Any, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap replicates (NaNs ignored).

    Args:
        values: 1-D replicates.
        level: coverage in (0, 1), default 0.95 → the 2.5th and 97.5th percentiles.

    Returns:
        ``(low, high)``; ``(nan, nan)`` when there is no finite replicate.

    Raises:
        ValueError: ``level`` outside (0, 1).

    Examples:
        50% interval: the 25th and 75th percentiles (numpy's linear interpolation) of 1..5;
        the NaN replicate is dropped.

        >>> percentile_ci([1, 2, 3, 4, 5, float("nan")], level=0.5)
        (2.0, 4.0)
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level: expected a coverage in (0, 1), got {level}")
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(v, [tail, 100.0 - tail])
    return float(lo), float(hi)


def stratified_folds(labels: Any, k: int, seed: int = 0) -> list[NDArray[np.intp]]:
    """Split indices into ``k`` folds with each class spread evenly (shuffled with ``seed``).

    Args:
        labels: 1-D booleans (or 0/1).
        k: number of folds, 2 <= k <= size of the smaller class.

    Returns:
        ``k`` arrays of test indices; together they partition ``range(len(labels))``.

    Raises:
        ValueError: ``k < 2`` or larger than the smaller class.

    Examples:
        2 positives and 4 negatives in 2 folds: each fold gets 1 positive and 2 negatives.

        >>> labels = [1, 1, 0, 0, 0, 0]
        >>> folds = stratified_folds(labels, k=2)
        >>> [(len(f), sum(labels[i] for i in f)) for f in folds]
        [(3, 1), (3, 1)]
        >>> sorted(i for f in folds for i in f.tolist())
        [0, 1, 2, 3, 4, 5]
    """
    y = as_bool_vector(labels, "labels")
    n_min = int(min(y.sum(), (~y).sum()))
    if k < 2 or k > n_min:
        raise ValueError(f"folds: need 2 <= k <= {n_min} (size of the smaller class), got {k}")
    rng = np.random.default_rng(seed)
    folds: list[list[int]] = [[] for _ in range(k)]
    offset = 0
    for cls in (True, False):
        idx = np.flatnonzero(y == cls)
        rng.shuffle(idx)
        for j, i in enumerate(idx.tolist()):
            folds[(j + offset) % k].append(i)
        offset += idx.size
    return [np.array(sorted(f), dtype=np.intp) for f in folds]
