"""Function-call checking against acceptable-value gold answers and function schemas.

The rules are those of the Berkeley Function Calling Leaderboard's AST checker (BFCL, Aug 2024,
``eval_checker/checker.py``), reimplemented here, so verdicts agree with the official score files:

* the predicted function name must equal the schema's name (dots may appear as ``_``, since
  OpenAI-style function names cannot contain dots);
* every required parameter must be present; every given parameter must be in the schema and in
  the gold answer (else *unexpected parameter*); a gold parameter whose acceptable values do not
  include ``""`` must be given (else *missing optional*);
* typed values: ``float`` parameters accept integers (converted), ``tuple`` is a list; a value of
  another type passes only when the gold answer itself uses that type (BFCL's "variable" case);
  arrays are type-checked one level deep (an int inside an array declared as float is a type
  error unless the gold uses ints);
* strings are compared after BFCL's standardisation (spaces and ``,./-_*^`` removed, lower-case,
  ``'`` → ``"``), also inside lists and dicts; other values with Python ``==``;
* several calls (parallel / multiple categories) are matched **one-to-one by an assignment
  solver**: the item is correct when a perfect matching of valid (gold, predicted) pairs exists.
  BFCL matches greedily in gold order and can miss a valid assignment; that is the one place
  where this checker is deliberately more accurate.

An optional ``string_equivalent(pred, gold) -> bool`` lets a semantic judge accept string
values that differ in form ("开启" vs "打开"); numbers are never compared semantically.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PY_TYPES: dict[str, type] = {"string": str, "integer": int, "float": float, "boolean": bool,
                             "array": list, "tuple": list, "dict": dict, "any": str}
"""Schema type name → Python type, as in BFCL."""

ERROR_TYPES = ("wrong_count", "wrong_name", "missing_required", "unexpected_param",
               "type_mismatch", "value_mismatch", "missing_optional", "unparseable")
"""Error types reported per item, in the order a check meets them."""

StringEquivalent = Callable[[str, str], bool]
EquivalentFor = Callable[[str, str], StringEquivalent | None]
"""``(function, parameter) -> string_equivalent``: semantic equality that depends on the
parameter (``function`` is the schema's name); returning None = exact comparison only."""

_STD = re.compile(r"[ ,./\-_*^]")


def standardize_string(s: str) -> str:
    """BFCL's string standardisation: drop spaces and ``,./-_*^``, lower-case, ``'`` → ``"``.

    Examples:
        >>> standardize_string("New York, N.Y.")
        'newyorkny'
    """
    return _STD.sub("", s).lower().replace("'", '"')


@dataclass(frozen=True)
class CallCheck:
    """Outcome of checking one predicted call against one gold call.

    Attributes:
        valid: True when the call is acceptable.
        error_type: one of :data:`ERROR_TYPES` (empty when valid).
        message: a human-readable explanation.
        params_ok: parameters of the gold call that the prediction satisfied (partial credit).
        params_total: parameters in the gold call.
    """

    valid: bool
    error_type: str = ""
    message: str = ""
    params_ok: int = 0
    params_total: int = 0

    @property
    def agreement(self) -> float:
        """Share of gold parameters satisfied (1.0 when valid), used for optimal matching."""
        if self.valid:
            return 1.0
        return self.params_ok / self.params_total if self.params_total else 0.0


@dataclass(frozen=True)
class ItemCheck:
    """Outcome of checking an item's predicted calls against its gold calls.

    Attributes:
        correct: all gold calls matched one-to-one by valid predicted calls.
        error_type: the first error met ("" when correct).
        message: explanation.
        pairs: ``(gold_index, pred_index, CallCheck)`` of the optimal assignment.
    """

    correct: bool
    error_type: str = ""
    message: str = ""
    pairs: tuple[tuple[int, int, CallCheck], ...] = field(default_factory=tuple)


def _answer_type(acceptable: Sequence[Any]) -> type | None:
    for a in acceptable:
        if a != "":
            return type(a)
    return None


def _type_ok(value: Any, acceptable: Sequence[Any], expected: type,
             item_type: type | None) -> tuple[bool, bool]:
    """``(valid, is_variable)`` of BFCL's one-level type check."""
    ans_type = _answer_type(acceptable)
    is_variable = ans_type is not None and ans_type != expected
    if type(value) is expected:
        if item_type is None:
            return True, is_variable
        for acc in acceptable:
            ok = True
            if type(acc) is list and isinstance(value, list):
                for v in value:
                    if not _type_ok(v, acc, item_type, None)[0]:
                        ok = False
                        break
            if ok:
                return True, is_variable
        return False, is_variable
    if ans_type is not None and type(value) is ans_type:
        return True, True
    return False, is_variable


def _std(x: Any) -> Any:
    return standardize_string(x) if isinstance(x, str) else x


def _dict_ok(value: Any, acceptable: Sequence[Any]) -> bool:
    for acc in acceptable:
        if acc == "":
            continue
        if not isinstance(value, dict) or len(value) != len(acc):
            continue
        ok = True
        for k, v in value.items():
            if k not in acc:
                ok = False
                break
            exp = acc[k]
            if isinstance(exp, dict):
                if not _dict_ok(v, [exp]):
                    ok = False
                    break
            elif _std(v) not in [_std(e) for e in exp]:
                ok = False
                break
        if ok:
            return True
    return False


def _value_ok(value: Any, acceptable: Sequence[Any], expected: type, item_type: type | None,
              is_variable: bool, equiv: StringEquivalent | None) -> bool:
    if not is_variable:
        if expected is dict:
            return _dict_ok(value, acceptable)
        if expected is list and item_type is dict:
            return any(isinstance(acc, list) and len(acc) == len(value)
                       and all(_dict_ok(v, [a]) for v, a in zip(value, acc, strict=True))
                       for acc in acceptable)
        if expected is str:
            if standardize_string(value) in [standardize_string(a) for a in acceptable
                                             if isinstance(a, str)]:
                return True
            return equiv is not None and any(isinstance(a, str) and a != "" and equiv(value, a)
                                             for a in acceptable)
        if expected is list:
            std = [_std(v) for v in value]
            return any(isinstance(acc, list) and std == [_std(a) for a in acc]
                       for acc in acceptable)
    return value in acceptable


def names_match(pred_name: str, schema_name: str) -> bool:
    """Equal names, allowing ``.`` in the schema to appear as ``_`` (OpenAI function names)."""
    return pred_name == schema_name or pred_name == schema_name.replace(".", "_")


def check_call(pred: Mapping[str, Any], gold: Mapping[str, Sequence[Any]],
               schema: Mapping[str, Any],
               string_equivalent: StringEquivalent | None = None, *,
               equivalent_for: EquivalentFor | None = None) -> CallCheck:
    """Check one predicted call against one gold call.

    Args:
        pred: ``{function_name: {param: value}}`` (one key).
        gold: the gold call's parameters, ``{param: [acceptable values…]}`` (``""`` among them
            = the parameter may be omitted).
        schema: the function's schema ``{"name", "parameters": {"properties": {p: {"type",
            "items"?}}, "required": [...]}}``.
        string_equivalent: optional semantic equality for non-matching string values.
        equivalent_for: optional per-parameter semantic equality, called with the schema's
            name and the parameter; used instead of ``string_equivalent`` when given.

    Returns:
        :class:`CallCheck`.

    Examples:
        ``weather_get`` stands for ``weather.get``; "san francisco" equals "San Francisco" after
        :func:`standardize_string`; ``days`` may be omitted (``""`` is acceptable).

        >>> schema = {"name": "weather.get", "parameters": {
        ...     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        ...     "required": ["city"]}}
        >>> gold = {"city": ["San Francisco", "SF"], "days": [3, ""]}
        >>> check_call({"weather_get": {"city": "san francisco"}}, gold, schema).valid
        True
        >>> c = check_call({"weather.get": {"city": "LA", "days": 3}}, gold, schema)
        >>> c.valid, c.error_type, c.params_ok, c.params_total
        (False, 'value_mismatch', 1, 2)
    """
    total = len(gold)
    (name, params), = pred.items() if len(pred) == 1 else ((None, None),)
    if name is None or not isinstance(params, Mapping):
        return CallCheck(False, "unparseable", "a call must be {name: {params}}", 0, total)
    if not names_match(str(name), str(schema["name"])):
        return CallCheck(False, "wrong_name", f"function {name!r} is not {schema['name']!r}",
                         0, total)
    props = schema.get("parameters", {}).get("properties", {})
    for p in schema.get("parameters", {}).get("required", []):
        if p not in params:
            return CallCheck(False, "missing_required", f"missing required parameter {p!r}",
                             0, total)
    ok = 0
    first: CallCheck | None = None
    for p, value in params.items():
        if p not in props or p not in gold:
            return CallCheck(False, "unexpected_param", f"unexpected parameter {p!r}", ok,
                             total)
        desc = props[p].get("type", "any")
        expected = PY_TYPES.get(desc, str)
        item_type = None
        if desc in ("array", "tuple"):
            item_type = PY_TYPES.get((props[p].get("items") or {}).get("type", ""))
        if desc == "tuple" and isinstance(value, (list, tuple)):
            value = list(value)
        if desc == "float" and isinstance(value, (int, float)):
            value = float(value)
        valid_type, is_variable = _type_ok(value, gold[p], expected, item_type)
        if not valid_type:
            first = first or CallCheck(False, "type_mismatch",
                                       f"parameter {p!r}: {value!r} is not of type {desc}")
            continue
        equiv = (string_equivalent if equivalent_for is None
                 else equivalent_for(str(schema["name"]), str(p)))
        if not _value_ok(value, gold[p], expected, item_type, is_variable, equiv):
            first = first or CallCheck(False, "value_mismatch",
                                       f"parameter {p!r}: {value!r} is not one of {gold[p]!r}")
            continue
        ok += 1
    if first is not None:
        return CallCheck(False, first.error_type, first.message, ok, total)
    for p, acceptable in gold.items():
        if p not in params and "" not in acceptable:
            return CallCheck(False, "missing_optional",
                             f"parameter {p!r} not given and not optional", ok, total)
        if p not in params:
            ok += 1
    return CallCheck(True, "", "", ok, total)


def find_schema(schemas: Sequence[Mapping[str, Any]], gold_name: str) -> Mapping[str, Any] | None:
    """The schema for a gold function name: the first whose name is contained in it (gold
    names of repeated parallel calls carry suffixes such as ``spotify.play_1``)."""
    for s in schemas:
        if str(s["name"]) in gold_name:
            return s
    return None


def check_item(pred: Sequence[Mapping[str, Any]], gold: Mapping[str, Mapping[str, Any]],
               schemas: Sequence[Mapping[str, Any]], single: bool = False,
               string_equivalent: StringEquivalent | None = None, *,
               equivalent_for: EquivalentFor | None = None) -> ItemCheck:
    """Check all predicted calls of an item against all its gold calls.

    Args:
        pred: predicted calls, each ``{name: {params}}``.
        gold: ``{gold_name: {param: [acceptable…]}}`` (BFCL ``possible_answer`` ground truth).
        schemas: the item's function schemas.
        single: exactly one call expected (BFCL ``simple``).
        string_equivalent: optional semantic string equality.
        equivalent_for: optional per-parameter semantic string equality (as in
            :func:`check_call`).

    Returns:
        :class:`ItemCheck`; calls are matched one-to-one by maximum agreement
        (``scipy.optimize.linear_sum_assignment``), never by order.

    Examples:
        Two parallel calls given in the other order still match one-to-one.

        >>> schema = {"name": "light.set", "parameters": {
        ...     "properties": {"room": {"type": "string"}}, "required": ["room"]}}
        >>> gold = {"light.set": {"room": ["kitchen"]}, "light.set_1": {"room": ["hall"]}}
        >>> pred = [{"light.set": {"room": "hall"}}, {"light.set": {"room": "Kitchen"}}]
        >>> r = check_item(pred, gold, [schema])
        >>> r.correct, [(g, p) for g, p, _ in r.pairs]
        (True, [(0, 1), (1, 0)])
        >>> check_item(pred[:1], gold, [schema]).error_type
        'wrong_count'
    """
    gold_items = list(gold.items())
    if (single and len(pred) != 1) or len(pred) != len(gold_items):
        return ItemCheck(False, "wrong_count",
                         f"{len(pred)} call(s) for {len(gold_items)} expected")
    checks: list[list[CallCheck]] = []
    for gname, gparams in gold_items:
        # a single expected call with a single schema is checked against that schema whatever
        # the gold key says (BFCL's simple category: e.g. gold "find_closest" for the schema
        # "restaurant_search.find_closest")
        schema = schemas[0] if single and len(schemas) == 1 else find_schema(schemas, gname)
        if schema is None:
            return ItemCheck(False, "wrong_name", f"no schema for gold function {gname!r}")
        checks.append([check_call(p, gparams, schema, string_equivalent,
                                  equivalent_for=equivalent_for) for p in pred])
    valid = np.array([[c.valid for c in row] for row in checks], dtype=float)
    agree = np.array([[c.agreement for c in row] for row in checks], dtype=float)
    from scipy.optimize import linear_sum_assignment  # lazy: keeps `simjudge --help` fast

    # lexicographic objective: as many valid pairs as possible, then the most agreement
    rows, cols = linear_sum_assignment(valid * (len(gold_items) + 1) + agree, maximize=True)
    pairs = tuple((int(r), int(c), checks[r][c]) for r, c in zip(rows, cols, strict=True))
    bad = [c for _, _, c in pairs if not c.valid]
    if bad:
        return ItemCheck(False, bad[0].error_type, bad[0].message, pairs)
    return ItemCheck(True, "", "", pairs)
