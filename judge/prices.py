"""Cost of judge calls in USD from a user-editable TOML price table.

The table maps a model name to ``input`` and ``output`` prices in USD per 1,000,000 tokens and
an ``as_of`` date (``judge/prices.toml`` is the dated default; ``--prices FILE`` replaces it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from judge.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


@dataclass(frozen=True)
class Price:
    """USD per 1M input and output tokens, and the date the price was published."""

    input: float
    output: float
    as_of: str = ""

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """USD for the given token counts."""
        return (tokens_in * self.input + tokens_out * self.output) / 1_000_000


def load_prices(path: str | Path | None = None) -> dict[str, Price]:
    """Read a price table (default: the packaged ``prices.toml``).

    Raises:
        InputError: unreadable/invalid TOML or a price that is not a non-negative number.
    """
    try:
        if path is None:
            text = (resources.files("judge") / "prices.toml").read_text(encoding="utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data: dict[str, Any] = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read price table: {exc}", path) from None
    out: dict[str, Price] = {}
    for model, entry in (data.get("models") or {}).items():
        try:
            p = Price(float(entry.get("input", 0.0)), float(entry.get("output", 0.0)),
                      str(entry.get("as_of", "")))
        except (TypeError, ValueError, AttributeError):
            raise InputError(f"model {model!r}: prices must be numbers", path,
                             field="models") from None
        if p.input < 0 or p.output < 0:
            raise InputError(f"model {model!r}: prices must be >= 0", path, field="models")
        out[model] = p
    return out
