"""String normalisation used to decide exact matches.

Exact matches are decided after "removing case and spaces" (the IFPUG function-point study's
normalisation), made precise here as: Unicode NFKC (Unicode Standard Annex #15), case folding
(``str.casefold``, Unicode full case folding), removal of every whitespace character.
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

    Examples:
        >>> normalize("Ｓｃｒｅｅｎ  Security\u3000Info")  # full-width letters, ideographic space
        'screensecurityinfo'
        >>> normalize("Straße") == normalize("STRASSE")  # casefold maps ß to ss
        True
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected str, got {type(text).__name__}")
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())
