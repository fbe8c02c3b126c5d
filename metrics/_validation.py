"""Input checks shared by the metric modules.

Every check raises ``ValueError`` whose message names the argument and, where there is one,
the offending index, e.g. ``"y_pred[3]: expected a boolean label (True/False or 0/1), got 2"``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray


def as_bool_vector(values: Any, name: str) -> NDArray[np.bool_]:
    """Return ``values`` as a 1-D boolean array.

    Accepts Python/numpy booleans and the integers 0 and 1 (also as floats 0.0/1.0).

    Raises:
        ValueError: if ``values`` is not one-dimensional or an element is not a boolean label;
            the message names ``name`` and the index.
    """
    arr = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of labels, got shape {arr.shape}")
    if arr.dtype == np.bool_:
        return arr.astype(bool)
    out = np.empty(arr.shape[0], dtype=bool)
    for i, v in enumerate(arr.tolist()):
        if isinstance(v, (bool, np.bool_)) or (
                isinstance(v, (int, float, np.integer, np.floating)) and v in (0, 1)):
            out[i] = bool(v)
        else:
            raise ValueError(
                f"{name}[{i}]: expected a boolean label (True/False or 0/1), got {v!r}"
            )
    return out


def as_binary_matrix(values: Any, name: str) -> NDArray[np.bool_]:
    """Return ``values`` as a 2-D boolean indicator matrix of shape (n_samples, n_classes).

    Raises:
        ValueError: if not two-dimensional or an entry is not 0/1/True/False; the message names
            ``name`` and the ``[row, column]`` index.
    """
    arr = np.asarray(values)
    if arr.ndim != 2:
        raise ValueError(
            f"{name}: expected a 2-D 0/1 array of shape (n_samples, n_classes), got shape "
            f"{arr.shape}"
        )
    if arr.dtype == np.bool_:
        return arr
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name}: expected 0/1 values, got dtype {arr.dtype}")
    bad = np.argwhere((arr != 0) & (arr != 1))
    if bad.size:
        r, c = (int(x) for x in bad[0])
        raise ValueError(f"{name}[{r}, {c}]: expected 0 or 1, got {arr[r, c].item()!r}")
    return arr.astype(bool)


def as_score_vector(values: Any, name: str, *, unit_interval: bool = False) -> NDArray[np.float64]:
    """Return ``values`` as a finite 1-D float64 array.

    Args:
        values: a 1-D sequence of numbers.
        name: argument name used in error messages.
        unit_interval: also require every value to lie in [0, 1].

    Raises:
        ValueError: not 1-D, non-numeric, NaN/inf, or outside [0, 1] when required; names the
            index.
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        for i, v in enumerate(values):
            try:
                float(v)
            except (TypeError, ValueError):
                raise ValueError(f"{name}[{i}]: expected a number, got {v!r}") from None
        raise
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of numbers, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{i}]: expected a finite number, got {float(arr[i])!r}")
    if unit_interval:
        bad = np.flatnonzero((arr < 0.0) | (arr > 1.0))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{name}[{i}]: score {float(arr[i])!r} is outside [0, 1]")
    return arr


def check_same_length(a: Sequence[Any] | NDArray[Any], b: Sequence[Any] | NDArray[Any],
                      name_a: str, name_b: str) -> None:
    """Raise ``ValueError`` naming both arguments if their lengths differ."""
    if len(a) != len(b):
        raise ValueError(
            f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}"
        )


def as_weight_vector(values: Any, other: Sequence[Any] | NDArray[Any], name: str = "weights",
                     other_name: str = "scores") -> NDArray[np.float64]:
    """``values`` as a 1-D float array of sample weights the length of ``other``.

    Raises:
        ValueError: not 1-D, a different length, a value that is not finite or < 0, or a sum
            of 0.
    """
    w = np.asarray(values, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {w.shape}")
    check_same_length(other, w, other_name, name)
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"{name}: expected finite values >= 0 with a positive sum")
    return w


def check_zero_division(zero_division: float) -> float:
    """Validate the ``zero_division`` replacement value (0.0, 1.0 or NaN, as in scikit-learn)."""
    z = float(zero_division)
    if not (math.isnan(z) or z in (0.0, 1.0)):
        raise ValueError(f"zero_division: expected 0.0, 1.0 or nan, got {zero_division!r}")
    return z


def safe_div(num: float, den: float, zero_division: float) -> float:
    """``num / den``, or ``zero_division`` when ``den == 0``."""
    return float(num) / float(den) if den else float(zero_division)
