"""User input as JSON text, decoded strictly: :func:`loads` (one JSONL line or one CSV cell)
and :func:`check_value` (a decoded value, or a Python-API dict). Every problem is one
:class:`~judge.errors.InputError` naming the file, the line and the top-level field: what
Python's parser crashes on (deep nesting, huge integers) and what it reads although it is not
JSON (``NaN``, ``Infinity``, ``1e999``, a key given twice in one object) or cannot be written
back as UTF-8 (lone surrogates). Read by :mod:`judge.io`, which re-exports both.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from judge.errors import InputError

MAX_NESTING = 100
"""Deepest nesting of arrays/objects accepted in one record (the record object is level 1).

Real evaluation data nests a few levels (function-call arguments); Python's own JSON parser gives
up near 1,000 levels with a ``RecursionError``, and deep values break later steps too."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKEN = re.compile(_STRING + r"|[\[\]{}]|\d+")
_COLON = re.compile(r"\s*:")


def _locate(line: str, max_depth: int | None = None, max_digits: int | None = None,
            ) -> tuple[str | None, int, int]:
    """Scan JSON text for the first container nested deeper than ``max_depth`` or the first
    integer with more than ``max_digits`` digits (outside strings).

    Returns:
        ``(top-level field or None, depth reached, digits)`` of the first offence; the field is
        None when the offence is not inside a top-level object member.
    """
    depth = 0
    key: str | None = None
    for m in _TOKEN.finditer(line):
        tok = m.group()
        c = tok[0]
        if c == '"':
            if depth == 1 and _COLON.match(line, m.end()):
                try:
                    key = json.loads(tok)
                except ValueError:
                    key = tok[1:-1]
                if key is not None and _SURROGATE.search(key):
                    key = None  # cannot be printed
        elif c in "[{":
            depth += 1
            if max_depth is not None and depth > max_depth:
                return key, depth, 0
        elif c in "]}":
            depth -= 1
        elif max_digits is not None and len(tok) > max_digits:
            return (key if depth >= 1 else None), depth, len(tok)
    return None, depth, 0


class _NotJson:
    """Stands, in a decoded value, for what Python's parser reads but JSON has not: ``NaN``,
    ``Infinity``, a number beyond a float's range (``1e999``), an object giving a key twice."""

    __slots__ = ("key", "what")
    made = 0
    """How many were made (a decoded text made none when the count did not move)."""

    def __init__(self, what: str, key: str | None = None) -> None:
        self.what = what
        self.key = key
        _NotJson.made += 1


def _constant(name: str) -> _NotJson:
    return _NotJson(f"not a finite number: {name} (NaN and Infinity are not JSON)")


def _float(text: str) -> float | _NotJson:
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 24 else text[:20] + "…"
        return _NotJson(f"not a finite number: {shown} is beyond the range of a float")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _NotJson:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    return _NotJson(f"key {key!r} given twice in one object (which value counts is not JSON's "
                    "to say)", key)


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_float,
                            object_pairs_hook=_object)
"""Python's JSON decoder with the checks of :func:`loads` (built once: ``json.loads`` with
hooks builds a decoder per call, which costs more than the decoding of a typical line)."""


def _not_json(obj: Any) -> tuple[_NotJson, str | None] | None:
    """The first :class:`_NotJson` in ``obj`` (document order) and the top-level member that
    holds it (for one at the top: the key given twice, else None)."""
    if isinstance(obj, _NotJson):
        return obj, obj.key
    stack: list[tuple[Any, str | None]] = (
        [(v, k) for k, v in reversed(obj.items())] if isinstance(obj, dict)
        else [(v, None) for v in reversed(obj)] if isinstance(obj, list) else [])
    while stack:
        value, top = stack.pop()
        if isinstance(value, _NotJson):
            return value, top
        if isinstance(value, dict):
            stack.extend((v, top) for v in reversed(value.values()))
        elif isinstance(value, list):
            stack.extend((v, top) for v in reversed(value))
    return None


def loads(text: str, path: str | Path | None = None, line: int | None = None,
          field: str | None = None) -> Any:
    """``json.loads`` for user input, with every failure as one :class:`InputError`.

    Rejects what Python's parser either crashes on or silently accepts but nothing downstream
    can handle, or is not JSON (RFC 8259): malformed JSON; ``NaN``, ``Infinity`` and
    ``-Infinity``, and numbers beyond a float's range such as ``1e999`` (Python reads them as
    non-finite floats); an object that gives a key twice (Python keeps the last value, other
    readers the first); nesting deeper than :data:`MAX_NESTING` (the parser raises
    ``RecursionError`` near 1,000 levels); integers of more than 4,300 digits (Python's
    ``sys.get_int_max_str_digits()`` limit, a ``ValueError``); lone UTF-16 surrogates such as
    ``"\\ud800"`` (not Unicode: they cannot be written back as UTF-8).

    Args:
        text: the JSON text (one JSONL line or one CSV cell).
        path, line: where the text is, for the message.
        field: the field holding the text (a CSV cell); for a whole JSONL line the offending
            top-level field is found and named.

    Raises:
        InputError: ``FILE:LINE: field 'x': what is wrong``, e.g. ``data.jsonl:3: field 'id':
            not a finite number: NaN (NaN and Infinity are not JSON)``.
    """
    made = _NotJson.made
    try:
        obj = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", path, line,
                         field) from None
    except RecursionError:
        key, _, _ = _locate(text, max_depth=MAX_NESTING)
        raise InputError(f"JSON nested deeper than {MAX_NESTING} levels", path, line,
                         field or key) from None
    except ValueError as exc:  # int longer than sys.get_int_max_str_digits()
        limit = sys.get_int_max_str_digits()
        key, _, digits = _locate(text, max_digits=limit)
        what = f"integer of {digits:,} digits" if digits else f"number ({exc})"
        raise InputError(f"{what} exceeds Python's limit of {limit:,} digits "
                         "(sys.get_int_max_str_digits())", path, line, field or key) from None
    if _NotJson.made != made and (found := _not_json(obj)) is not None:
        raise InputError(found[0].what, path, line, field or found[1])
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
    # no deeper than the number of brackets that open: most texts need no walk at all
    if surrogates or text.count("[") + text.count("{") > MAX_NESTING:
        check_value(obj, path, line, field, surrogates=surrogates)
    return obj


def check_value(obj: Any, path: str | Path | None = None, line: int | None = None,
                field: str | None = None, surrogates: bool = True, numbers: bool = False,
                ) -> None:
    """Check a decoded JSON value: nesting at most :data:`MAX_NESTING` levels, no lone
    surrogate in any string or key. Iterative (no recursion limit).

    Args:
        obj: the value; when ``field`` is None and ``obj`` is an object, offences are named by
            the top-level member they sit in.
        surrogates: False skips the surrogate scan (the JSON text had no ``\\uD8xx``–``\\uDFxx``
            escape, so no string can hold one).
        numbers: also refuse what :func:`loads` refuses of numbers — NaN and infinite floats,
            integers of more than ``sys.get_int_max_str_digits()`` digits — for values that did
            not come from JSON text (the Python API's dicts).

    Raises:
        InputError: too deep, a lone surrogate (code point named), or (``numbers``) a number
            JSON cannot hold.
    """
    stack: list[tuple[Any, int, str | None]] = [(obj, 1, field)]
    while stack:
        value, depth, top = stack.pop()
        if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
            _check_number(value, path, line, top)
        if isinstance(value, str):
            if surrogates and (m := _SURROGATE.search(value)):
                raise InputError(f"lone surrogate \\u{ord(m.group()):04x} in a string (a broken "
                                 "UTF-16 escape, not valid Unicode)", path, line, top)
        elif isinstance(value, (dict, list)):
            if depth > MAX_NESTING:
                raise InputError(f"JSON nested deeper than {MAX_NESTING} levels", path, line, top)
            if isinstance(value, dict):
                for k, v in value.items():
                    name = k if top is None and depth == 1 else top
                    if surrogates and _SURROGATE.search(k):
                        raise InputError("lone surrogate in a key (a broken UTF-16 escape, not "
                                         "valid Unicode)", path, line, name if depth > 1 else
                                         None)
                    stack.append((v, depth + 1, name))
            else:
                stack.extend((v, depth + 1, top) for v in value)


def _check_number(value: float, path: str | Path | None, line: int | None,
                  field: str | None) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"not a finite number: {value!r} (JSON has no NaN or Infinity)",
                         path, line, field)
    limit = sys.get_int_max_str_digits()  # 0: no limit
    if (isinstance(value, int) and limit and value.bit_length() > 3.32 * limit
            and abs(value) >= 10**limit):
        raise InputError(f"integer of more than {limit:,} digits exceeds Python's limit "
                         "(sys.get_int_max_str_digits())", path, line, field)
