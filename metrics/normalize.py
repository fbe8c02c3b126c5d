"""String normalisation used to decide exact matches.

Source: seed 001 §4.2.2 ("去除大小写、去空格等标准化处理"); DESIGN.md "Building a similarity
matrix" step 1: Unicode NFKC, case folding, removal of every whitespace character.
"""

from __future__ import annotations

import unicodedata


def normalize(text: str) -> str:
    """Normalise ``text`` for exact-match comparison.

    Applies Unicode NFKC (so full-width ``ＡＢＣ`` becomes ``ABC``), ``str.casefold`` and removes
    every whitespace character (spaces, tabs, newlines, ideographic space U+3000).

    Args:
        text: any string.

    Returns:
        The normalised string; ``normalize("Screen  Security") == normalize("screensecurity")``.

    Raises:
        TypeError: if ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected str, got {type(text).__name__}")
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())
