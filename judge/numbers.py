"""Numbers for JSON: a statistic that is undefined (None, NaN, ±inf) is stored as ``null``."""

from __future__ import annotations

import math
from typing import Any


def finite_or_none(x: Any) -> float | None:
    """``float(x)`` when ``x`` is a finite real number, else None.

    Args:
        x: a Python or numpy number, or None (booleans are numbers here: True → 1.0).

    Returns:
        A finite float, or None for None, NaN, +inf and -inf (JSON has no NaN or infinity;
        undefined statistics such as Spearman's ρ of a constant vector are ``null``).
    """
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None
