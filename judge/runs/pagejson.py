"""The JSON text of the audit page's data (:mod:`judge.runs.report`, :mod:`judge.runs.pagedata`)
and of its verdict lookup keys (:func:`judge.runs.audit.pair_key`).

Encoded with orjson (C, several times faster than :mod:`json` on a large run's page), falling
back to the :mod:`json` encoder for what orjson does not take: non-string dict keys, integers
beyond 64 bits, strings with lone surrogates, subclasses of ``str``/``int``/``dict``/``list``
and dataclass or datetime objects. The text may differ from :mod:`json`'s only in how a float
is spelled (``1e-5`` for ``1e-05``), never in the values it parses to; strings are written
byte for byte as ``json.dumps(..., ensure_ascii=False)`` and the browser's ``JSON.stringify``
write them (no ``\\uXXXX`` for non-ASCII characters).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = (orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_PASSTHROUGH_DATETIME)
"""What orjson would encode but :mod:`json` encodes otherwise or not at all: handed to the
fallback (so it raises or encodes exactly as before)."""

_dumps = orjson.dumps
_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
"""The fallback: compact JSON without NaN, from an encoder built once (``json.dumps`` builds
one a call)."""


def _no_nan(x: Any) -> Any:
    """``x`` with every NaN float (in dicts and lists, at any depth) replaced by None."""
    if isinstance(x, float) and x != x:
        return None
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_no_nan(v) for v in x]
    return x


def utf8(data: Any) -> bytes | str:
    """Compact JSON of ``data`` (JSON-ready: dicts, lists, tuples, str, int, float, bool, None)
    as UTF-8 bytes — or as a str when orjson refused ``data`` and the :mod:`json` encoder wrote
    it (a lone surrogate fails only when the text is encoded, as before). Non-ASCII characters
    are written as they are; NaN and ±infinity are written ``null``.

    Raises:
        ValueError: ``data`` holds ±infinity and something orjson does not take (the
            :mod:`json` fallback refuses it).
        TypeError: ``data`` holds something neither encoder takes.
    """
    try:
        return _dumps(data, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: a non-str key, a huge int, a lone surrogate…
        try:
            return _compact(data)
        except ValueError:  # an undefined statistic somewhere: NaN → null, everywhere
            return _compact(_no_nan(data))


def compact(data: Any) -> str:
    """:func:`utf8` as a str. Raises as :func:`utf8`."""
    text = utf8(data)
    return text.decode("utf-8") if isinstance(text, bytes) else text


def _escaped(text: str) -> str:
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def script_utf8(data: Any) -> bytes | str:
    """:func:`utf8` JSON safe inside a ``<script type="application/json">`` element: ``&``,
    ``<`` and ``>`` escaped as ``\\u0026``, ``\\u003c``, ``\\u003e`` (a judged text holding
    ``</script>`` stays text). Raises as :func:`utf8`."""
    text = utf8(data)
    if isinstance(text, str):
        return _escaped(text)
    return text.replace(b"&", b"\\u0026").replace(b"<", b"\\u003c").replace(b">", b"\\u003e")


def script_json(data: Any) -> str:
    """:func:`script_utf8` as a str. Raises as :func:`utf8`."""
    return _escaped(compact(data))
