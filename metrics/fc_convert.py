"""Java and JavaScript argument values as BFCL's AST checker converts them before checking.

In BFCL's ``java`` and ``javascript`` categories a model writes every argument as a string of
source text (``"new int[]{1, 2}"``, ``"3.5f"``, ``"{'a': 1}"``); the checker converts that text
to a Python value according to the parameter's declared type and then checks it as a Python
value. Text that does not fit the declared type is kept as a string (it then fails the type
check, unless the gold answer itself is a string). This module reimplements that conversion
from the behaviour of the leaderboard's ``eval_checker/java_type_converter.py`` and
``eval_checker/js_type_converter.py`` (gorilla commit ``de8307b4``, Apache-2.0; behaviour
reimplemented, not copied), quirks included, so verdicts agree with the official score files:

* Java ``char`` values are never converted (the official pattern ``^'.$'`` cannot match);
* Java ``float`` needs the ``f`` suffix, ``long`` the ``L`` suffix, ``double`` neither;
* collections are read with regular expressions (no nesting beyond what those read);
* JavaScript array elements that are quoted keep their quotes unless the element type is
  ``String``.

Types not covered here raise :class:`UnsupportedType` (the official converter raises too).
"""

from __future__ import annotations

import re
from typing import Any

JAVA_TYPES: dict[str, type] = {
    "byte": int, "short": int, "integer": int, "float": float, "double": float, "long": int,
    "boolean": bool, "char": str, "Array": list, "ArrayList": list, "Set": set,
    "HashMap": dict, "Hashtable": dict, "Queue": list, "Stack": list, "String": str,
    "any": str}
"""Java schema type → the Python type a converted value must have (``model_handler/constant.py``
``JAVA_TYPE_CONVERSION``)."""

JS_TYPES: dict[str, type] = {
    "String": str, "integer": int, "float": float, "Bigint": int, "Boolean": bool,
    "dict": dict, "array": list, "any": str}
"""JavaScript schema type → Python type (``JS_TYPE_CONVERSION``)."""

COLLECTION_TYPES = ("Array", "ArrayList", "array")
"""Types whose element type (``items.type``) is converted and checked one level deep."""


class UnsupportedType(ValueError):
    """A declared type the official converter does not convert (``Set``, ``Queue``…)."""


_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")
_JS_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")


def java_value(text: str, declared: str, element: str | None = None) -> Any:
    """A Java argument's source text as the Python value BFCL checks.

    Args:
        text: the argument as the model wrote it (a string).
        declared: the parameter's schema type (a key of :data:`JAVA_TYPES`).
        element: ``items.type`` for ``Array``/``ArrayList`` parameters.

    Returns:
        int, float, bool, list, dict or, when the text does not fit ``declared``, ``text``.

    Raises:
        UnsupportedType: ``declared`` is not in :data:`JAVA_TYPES`, or is ``Set``,
            ``Hashtable``, ``Queue`` or ``Stack`` (not converted by BFCL either).

    Examples:
        >>> java_value("3.5f", "float"), java_value("3.5", "float"), java_value("7L", "long")
        (3.5, '3.5', 7)
        >>> java_value("new int[]{1, 2}", "Array", "integer")
        [1, 2]
        >>> java_value('new HashMap<String, Integer>() {{ put("a", 1); }}', "HashMap")
        {'a': 1}
    """
    if declared not in JAVA_TYPES:
        raise UnsupportedType(f"unsupported Java type {declared!r}")
    if declared in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else str(text)
    if declared == "float":
        return float(re.sub(r"[fF]$", "", text)) if _JAVA_FLOAT.match(text) else str(text)
    if declared == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else str(text)
    if declared == "long":
        return int(re.sub(r"[lL]$", "", text)) if _JAVA_LONG.match(text) else str(text)
    if declared == "boolean":
        return text == "true" if text in ("true", "false") else str(text)
    if declared in ("char", "String", "any"):
        return str(text)  # char: the official pattern ^'.$' never matches, so text stays
    if declared == "ArrayList":
        return _java_arraylist(text, element)
    if declared == "Array":
        return _java_array(text, element)
    if declared == "HashMap":
        return _java_hashmap(text)
    raise UnsupportedType(f"BFCL does not convert Java {declared} values")


def _java_element(text: str, element: str | None, strip_quotes: bool = True) -> Any:
    if strip_quotes and element in ("char", "String"):
        return text[1:-1]
    return java_value(text, element) if element else java_literal(text)


def _java_arraylist(text: str, element: str | None) -> Any:
    m = re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", text)
    if m:
        return [_java_element(part.strip(), element) for part in m.group(1).split(",")]
    m = re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", text, re.DOTALL)
    if m:
        return [_java_element(a.strip(), element) for a in re.findall(r"add\((.+?)\)",
                                                                         m.group(1))]
    if re.search(r"new\s+ArrayList<\w*>\(\)", text):
        return []
    return text


def _java_array(text: str, element: str | None) -> Any:
    m = re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", text)
    if not m:
        return text
    parts = [p.strip() for p in m.group(1).split(",") if p.strip()]
    return [java_value(p, element) if element else java_literal(p) for p in parts]


def _java_hashmap(text: str) -> Any:
    m = re.search(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", text, re.DOTALL)
    if m:
        body = m.group(1)
        if not body.strip():
            return {}
        return {k: java_literal(v.strip())
                for k, v in re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", body)}
    if re.search(r"new\s+HashMap<.*?>\s*\(\)", text):
        return {}
    return text


def java_literal(text: str) -> Any:
    """A Java literal of unknown type (a collection element): ``true``/``false``, a quoted
    string (quotes removed), ``12L``, ``1.5f``, an int, a float, else the text itself.

    Examples:
        >>> java_literal('"a"'), java_literal("2L"), java_literal("2.5"), java_literal("x")
        ('a', 2, 2.5, 'x')
    """
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(re.sub(r"[fF]$", "", text))
    return _number_or_text(text)


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def js_value(text: str, declared: str, element: str | None = None) -> Any:
    """A JavaScript argument's source text as the Python value BFCL checks.

    Args:
        text: the argument as the model wrote it.
        declared: the parameter's schema type (a key of :data:`JS_TYPES`).
        element: ``items.type`` for ``array`` parameters.

    Returns:
        str, int, float, bool, list or dict; ``text`` itself when it does not fit.

    Raises:
        UnsupportedType: ``declared`` is not in :data:`JS_TYPES`.

    Examples:
        >>> js_value("'abc'", "String"), js_value("12n", "Bigint"), js_value("1e3", "float")
        ('abc', 12, '1e3')
        >>> js_value("[1, 'b']", "array"), js_value("{a: 1, b: [true]}", "dict")
        ([1, 'b'], {'a': 1, 'b': [True]})
    """
    if declared not in JS_TYPES:
        raise UnsupportedType(f"unsupported JavaScript type {declared!r}")
    if declared == "String":
        quoted = ((text.startswith('"') and text.endswith('"'))
                  or (text.startswith("'") and text.endswith("'")))
        return text[1:-1] if quoted else str(text)
    if declared == "integer":
        return int(text) if _INT.match(text) else str(text)
    if declared == "float":
        return float(text) if _JS_FLOAT.match(text) else str(text)
    if declared == "Bigint":
        return int(text[:-1]) if _JS_BIGINT.match(text) else str(text)
    if declared == "Boolean":
        return text == "true" if text in ("true", "false") else str(text)
    if declared == "dict":
        return _js_dict(text.strip())
    if declared == "array":
        return _js_array(text.strip(), element)
    return str(text)  # any


_JS_2D = re.compile(r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*"
                    r"(,\s*\[.*?\]\s*)*\)")
_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")


def _js_array(code: str, element: str | None) -> Any:
    try:
        m2 = _JS_2D.match(code)
        if m2:
            rows = []
            for k, inner in enumerate(re.findall(r"\[(.*?)\]", m2.group(0))):
                inner = inner.strip()
                if k == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([js_literal(e.strip()) for e in inner.split(",")])
            return rows
        m = _JS_1D.match(code)
        if not m:
            return code
        body = m.group(1) if m.group(1) is not None else m.group(2)
        body = (body or "").strip()
        parts = body.split(",") if body else []
        if element:
            # a quoted element is converted as the element type all the same: its quotes go
            # only for String elements (official js_type_converter.py, parse_js_collection)
            return [js_value(p.strip(), element) for p in parts]
        return [js_literal(p.strip()) for p in parts]
    except (ValueError, IndexError):  # the official converter returns the text on any error
        return code


_JS_PAIRS = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


def _js_dict(code: str) -> Any:
    if code == "{}":
        return {}
    m = re.match(r"\{(.*?)\}", code)
    if not m:
        return code
    out: dict[str, Any] = {}
    for key, value in _JS_PAIRS.findall(m.group(1)):
        key = key.strip().strip("'\"")
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            out[key] = _js_array(value, None)
        elif value.startswith("{") and value.endswith("}"):
            out[key] = _js_dict(value)
        else:
            out[key] = js_literal(value.strip("'\""))
    return out


def js_literal(text: str) -> Any:
    """A JavaScript literal of unknown type: ``true``/``false``, a quoted string (quotes
    removed), an int, a float, else the text itself.

    Examples:
        >>> js_literal("'x'"), js_literal("3"), js_literal("2.5"), js_literal("null")
        ('x', 3, 2.5, 'null')
    """
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if (text.startswith('"') and text.endswith('"')) or (
            text.startswith("'") and text.endswith("'")):
        return text[1:-1]
    return _number_or_text(text)
