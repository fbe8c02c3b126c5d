"""Per-row values read from typed rows once, for dataset metrics that are means or sums over
rows — and for the bootstrap's resamples of them (:meth:`judge.tasks.base.Task.resampled`).

A typed row's attribute costs ~70 ns (pydantic's ``__getattr__`` turns off CPython's attribute
specialisation), so a bootstrap that read the rows again for each of its 1,000 resamples spent
most of its time there. A :class:`MeanColumn` holds one value per row, read once; the mean of
any resample of it is numpy's mean of that resample's values in order — the number the
row-by-row definition gives, bit for bit (a column whose values are not all of one type is
averaged from the list, as numpy would infer a resample's own dtype).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

Getter = Callable[[Any], Any]
"""``row -> value`` of one column (a float, int or bool)."""


class MeanColumn:
    """One value per row (floats, ints or booleans), and its mean over any rows of it.

    Attributes:
        values: the values, in row order.
    """

    def __init__(self, values: list[Any]) -> None:
        self.values = values
        uniform = len({type(v) for v in values}) <= 1  # one numpy dtype for any resample
        self._array = np.asarray(values) if uniform else None

    def mean(self, idx: NDArray[np.intp] | None = None) -> float:
        """numpy's mean of the values of rows ``idx`` (a resample, repeats allowed; None = all
        rows): ``float(np.mean([values[i] for i in idx]))``, bit for bit."""
        if idx is None:
            return float(np.mean(self.values))
        if self._array is not None:
            return float(np.mean(self._array[idx]))
        return float(np.mean([self.values[i] for i in idx]))


def column_means(columns: Mapping[str, Getter], rows: Sequence[Any]) -> dict[str, float]:
    """``{name: mean over rows of get(row)}`` for each ``name: get`` of ``columns`` (numpy's
    mean, pairwise summation): the dataset metric of tasks whose dataset value is the mean of
    per-item values (macro average)."""
    return {k: MeanColumn([get(r) for r in rows]).mean() for k, get in columns.items()}


def column_means_resampled(columns: Mapping[str, Getter], rows: Sequence[Any],
                           ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
    """``idx -> column_means(columns, [rows[i] for i in idx])``, the rows read once."""
    cols = {k: MeanColumn([get(r) for r in rows]) for k, get in columns.items()}
    return lambda idx: {k: c.mean(idx) for k, c in cols.items()}
