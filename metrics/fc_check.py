"""Function-call checking against acceptable-value gold answers and function schemas.

The rules are those of the Berkeley Function Calling Leaderboard's AST checker (BFCL,
``berkeley-function-call-leaderboard/eval_checker/checker.py`` at gorilla commit ``de8307b4``,
the code behind the 2024-08-11 leaderboard release), reimplemented from its behaviour so that
verdicts agree item by item with the official score files (``benchmarks/check_bfcl_archive.py``):

* the predicted function name must equal the schema's name; with ``names="underscore"`` (the
  models BFCL lists in ``UNDERSCORE_TO_DOT``, ``checker.py`` ``convert_func_name``) dots must
  appear as ``_``, with ``names="exact"`` they must stay dots, and ``names="either"`` (simjudge's
  own formats) accepts both;
* every required parameter must be present; every given parameter must be in the schema and in
  the gold answer (else *unexpected parameter*); a gold parameter whose acceptable values do not
  include ``""`` must be given (else *missing optional*);
* typed values (``type_checker``): Python ``float`` parameters accept ints (converted; bools are
  not ints here), a ``tuple`` value of a ``tuple`` parameter is a list; a value of another type
  passes only when the gold answer itself uses that type (BFCL's "variable" case); arrays are
  type-checked one level deep;
* Java and JavaScript values are strings of source text converted by the declared type first
  (:mod:`metrics.fc_convert`);
* strings are compared after BFCL's standardisation (spaces and ``,./-_*^`` removed, lower-case,
  ``'`` → ``"``), also inside lists and dicts; other values with Python ``==``; an empty list
  matches the acceptable value ``""`` (``list_checker`` reads ``""`` as ``[]``);
* several calls (parallel / multiple categories): ``matching="official"`` takes the gold calls in
  order and gives each the first still unmatched predicted call that is valid for it
  (``parallel_function_checker_no_order``), which can miss a valid one-to-one assignment;
  ``matching="optimal"`` matches them by an assignment solver (a perfect matching of valid pairs
  when one exists), simjudge's own rule.

An optional ``string_equivalent(pred, gold) -> bool`` lets a semantic judge accept string
values that differ in form ("开启" vs "打开"); numbers are never compared semantically. It is an
extension beyond BFCL: without it the verdicts are BFCL's.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metrics.fc_convert import COLLECTION_TYPES, JAVA_TYPES, JS_TYPES, java_value, js_value

PY_TYPES: dict[str, type] = {"string": str, "integer": int, "float": float, "boolean": bool,
                             "array": list, "tuple": list, "dict": dict, "any": str}
"""Schema type name → Python type, as in BFCL."""

LANGUAGES = ("python", "java", "javascript")
"""Languages of BFCL's AST categories (``java``/``javascript`` values are converted first)."""
NAME_RULES = ("either", "exact", "underscore")
"""How a predicted function name must spell a dotted schema name (see the module docstring)."""
MATCHINGS = ("official", "optimal")
"""How several predicted calls are matched to the gold calls (see the module docstring)."""

ERROR_TYPES = ("wrong_count", "wrong_name", "missing_required", "unexpected_param",
               "type_mismatch", "value_mismatch", "missing_optional", "unparseable",
               "called_function")
"""Error types reported per item, in the order a check meets them (``called_function``: a
BFCL relevance item, where no call is right, with a call)."""

StringEquivalent = Callable[[str, str], bool]
EquivalentFor = Callable[[str, str], StringEquivalent | None]
"""``(function, parameter) -> string_equivalent``: semantic equality that depends on the
parameter (``function`` is the schema's name); returning None = exact comparison only."""

_STD = re.compile(r"[ ,./\-_*^]")


@functools.lru_cache(maxsize=1 << 16)
def standardize_string(s: str) -> str:
    """BFCL's string standardisation: drop spaces and ``,./-_*^``, lower-case, ``'`` → ``"``
    (memoised: the same acceptable answers are standardised for every model's item).

    Examples:
        >>> standardize_string("New York, N.Y.")
        'newyorkny'
    """
    return _STD.sub("", s).lower().replace("'", '"')


@dataclass(slots=True)
class CallCheck:
    """Outcome of checking one predicted call against one gold call.

    A value: treat it as read-only. (Not a frozen dataclass: a frozen ``__init__`` costs
    about 4× a plain slotted one, and one is made per call checked; see
    ``benchmarks/bench_bfcl_vs_official.py``.)

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


@dataclass(slots=True)
class ItemCheck:
    """Outcome of checking an item's predicted calls against its gold calls.

    A value: treat it as read-only. (Not a frozen dataclass: a frozen ``__init__`` costs
    about 4× a plain slotted one, and one is made per item checked; see
    ``benchmarks/bench_bfcl_vs_official.py``.)

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



def _type_ok(value: Any, acceptable: Sequence[Any], expected: type,
             item_type: type | None) -> tuple[bool, bool]:
    """``(valid, is_variable)`` of BFCL's one-level type check (``checker.py`` ``type_checker``):
    an exact type match (elements checked against each list-valued acceptable answer), or the
    type of the gold answer itself (a "variable")."""
    ans_type = None  # the first acceptable value's type, not ""'s (get_possible_answer_type)
    for a in acceptable:
        if a != "":
            ans_type = type(a)
            break
    is_variable = ans_type is not None and ans_type != expected
    if type(value) is expected:
        if item_type is None:
            return True, is_variable
        for acc in acceptable:
            elements: Any = value  # a list: its type is `expected`
            if type(acc) is not list or all(_type_ok(v, acc, item_type, None)[0]
                                            for v in elements):
                return True, is_variable
        return False, is_variable
    if ans_type is not None and type(value) is ans_type:
        return True, True
    return False, is_variable


def _std(x: Any) -> Any:
    return standardize_string(x) if isinstance(x, str) else x


def _dict_ok(value: Any, acceptable: Sequence[Any]) -> bool:
    """``dict_checker``: same keys as one acceptable dict, each value among that key's
    acceptable values after standardisation (nested dicts recursively); ``""`` is skipped."""
    for acc in acceptable:
        if acc == "" or not isinstance(value, dict) or not isinstance(acc, dict):
            continue
        if len(value) != len(acc):
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


def _list_dict_ok(value: list[Any], acceptable: Sequence[Any]) -> bool:
    """``list_dict_checker``: as many dicts as an acceptable list, each valid for its
    counterpart by :func:`_dict_ok`; ``""`` (length 0) accepts an empty list."""
    for acc in acceptable:
        if not isinstance(acc, (list, str)) or len(acc) != len(value):
            continue
        if all(_dict_ok(v, [a]) for v, a in zip(value, acc, strict=True)):
            return True
    return False


def _list_ok(value: list[Any], acceptable: Sequence[Any]) -> bool:
    """``list_checker``: the standardised list equals a standardised acceptable list; an
    acceptable string is read as the list of its characters (so ``""`` accepts ``[]``)."""
    std = [_std(v) for v in value]
    return any(isinstance(acc, (list, str)) and std == [_std(a) for a in acc]
               for acc in acceptable)


def _value_ok(value: Any, acceptable: Sequence[Any], expected: type, item_type: type | None,
              is_variable: bool, equiv: StringEquivalent | None) -> bool:
    if not is_variable:
        if expected is dict:
            return _dict_ok(value, acceptable)
        if expected is list and item_type is dict:
            return _list_dict_ok(value, acceptable)
        if expected is str:
            if value in acceptable:  # equal strings are equal once standardised
                return True
            std = standardize_string(value)
            if any(type(a) is str and standardize_string(a) == std for a in acceptable):
                return True
            return equiv is not None and any(isinstance(a, str) and a != "" and equiv(value, a)
                                             for a in acceptable)
        if expected is list:
            return _list_ok(value, acceptable)
    return value in acceptable


def names_match(pred_name: str, schema_name: str, names: str = "either") -> bool:
    """Whether a predicted function name spells the schema's name under rule ``names`` (one
    of :data:`NAME_RULES`): ``exact`` equal, ``underscore`` with every ``.`` written ``_``,
    ``either`` one or the other.

    Examples:
        >>> names_match("math_gcd", "math.gcd"), names_match("math_gcd", "math.gcd", "exact")
        (True, False)
        >>> names_match("math.gcd", "math.gcd", "underscore")
        False
    """
    if names == "exact":
        return pred_name == schema_name
    if names == "underscore":
        return pred_name == schema_name.replace(".", "_")
    return pred_name == schema_name or pred_name == schema_name.replace(".", "_")


def _py_declared(spec: Mapping[str, Any], value: Any) -> tuple[Any, type, type | None]:
    """``(value, expected type, element type)``: a Python parameter's declared type as BFCL
    reads it (``float`` accepts an int, converted; a ``tuple`` value of a ``tuple`` parameter
    is a list); ``spec`` is the parameter's schema entry."""
    desc = spec.get("type", "any")
    if type(desc) is not str:
        desc = str(desc)
    if desc == "array" or desc == "tuple":
        items = spec.get("items") or {}
        if desc == "tuple" and type(value) is tuple:
            value = list(value)
        return value, list, PY_TYPES.get(str(items.get("type", "")))
    if desc == "float" and type(value) is int:
        value = float(value)
    return value, PY_TYPES.get(desc, str), None


def _converted(spec: Mapping[str, Any], p: str, language: str, value: Any
               ) -> tuple[Any, type, type | None, str]:
    """``(value, expected type, element type, error)``: a Java/JavaScript parameter's value
    (source text) converted by its declared type as BFCL reads it; ``error`` non-empty when it
    cannot be (not a string, or a type BFCL does not convert)."""
    desc = str(spec.get("type", "any"))
    table = JAVA_TYPES if language == "java" else JS_TYPES
    if desc not in table:
        return value, str, None, f"parameter {p!r}: type {desc} is not a {language} type"
    if not isinstance(value, str):
        return value, table[desc], None, (
            f"parameter {p!r}: {language} values are source text, got "
            f"{type(value).__name__} {value!r}")
    convert = java_value if language == "java" else js_value
    try:
        if desc in COLLECTION_TYPES:
            element = str((spec.get("items") or {}).get("type", ""))
            if element not in table:
                return value, table[desc], None, (
                    f"parameter {p!r}: element type {element} is not a {language} type")
            return convert(value, desc, element), table[desc], table[element], ""
        return convert(value, desc), table[desc], None, ""
    except ValueError as exc:
        return value, table[desc], None, f"parameter {p!r}: {exc}"


def _lookup(pred: Mapping[str, Any], schema_name: str, names: str) -> tuple[Any, Any]:
    """``(name, params)`` of the predicted call that names the schema's function (a decoded
    BFCL call is ``{name: params}``; BFCL looks the name up as a key), or ``(None, None)``."""
    if len(pred) == 1 and names != "underscore" and schema_name in pred:  # most calls
        return schema_name, pred[schema_name]
    for name, params in pred.items():
        if names_match(str(name), schema_name, names):
            return name, params
    return None, None


_ABSENT: Any = object()
"""A parameter missing from a table (``dict.get`` default)."""


def check_call(pred: Mapping[str, Any], gold: Mapping[str, Sequence[Any]],
               schema: Mapping[str, Any],
               string_equivalent: StringEquivalent | None = None, *,
               equivalent_for: EquivalentFor | None = None, language: str = "python",
               names: str = "either", full: bool = True) -> CallCheck:
    """Check one predicted call against one gold call.

    Args:
        pred: ``{function_name: {param: value}}`` (one key: a call; BFCL looks the schema's
            name up among the keys).
        gold: the gold call's parameters, ``{param: [acceptable values…]}`` (``""`` among them
            = the parameter may be omitted).
        schema: the function's schema ``{"name", "parameters": {"properties": {p: {"type",
            "items"?}}, "required": [...]}}``.
        string_equivalent: optional semantic equality for non-matching string values.
        equivalent_for: optional per-parameter semantic equality, called with the schema's
            name and the parameter; used instead of ``string_equivalent`` when given.
        language: one of :data:`LANGUAGES`; ``java``/``javascript`` values are source text,
            converted by the declared type (:mod:`metrics.fc_convert`) before the checks.
        names: how the name must be spelt (:data:`NAME_RULES`).
        full: check every parameter and explain the outcome (``params_ok`` counts all that
            are right). False answers validity only, for less work: the same ``valid`` and
            ``error_type``, but an invalid call stops at the first wrong parameter (its
            ``params_ok`` counts only the parameters before it; a later problem such as an
            unexpected parameter is not reported) and its ``message`` is empty.

    Returns:
        :class:`CallCheck`; ``valid`` is BFCL's verdict (``simple_function_checker``).

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
        >>> check_call({"weather.get": {"city": "LA", "days": 3}}, gold, schema, full=False)
        CallCheck(valid=False, error_type='value_mismatch', message='', params_ok=0, params_total=2)
    """
    total = len(gold)
    schema_name = str(schema["name"])
    name, params = _lookup(pred, schema_name, names)
    if name is None:
        return CallCheck(False, "wrong_name",
                         f"function {schema_name!r} not in {list(pred)!r}" if full else "",
                         0, total)
    if type(params) is not dict and not isinstance(params, Mapping):
        return CallCheck(False, "unparseable",
                         f"arguments of {name!r} are not an object" if full else "", 0, total)
    declared = schema.get("parameters", {})
    props = declared.get("properties", {})
    for p in declared.get("required", ()):
        if p not in params:
            return CallCheck(False, "missing_required",
                             f"missing required parameter {p!r}" if full else "", 0, total)
    ok = 0
    first: CallCheck | None = None
    python = language == "python"
    for p, raw in params.items():
        acceptable = gold.get(p, _ABSENT)
        spec = props.get(p)
        if acceptable is _ABSENT or spec is None:
            return CallCheck(False, "unexpected_param",
                             f"unexpected parameter {p!r}" if full else "", ok, total)
        if python:
            value, expected, item_type = _py_declared(spec, raw)
            problem = ""
        else:
            value, expected, item_type, problem = _converted(spec, p, language, raw)
        if problem:
            first = first or CallCheck(False, "type_mismatch", problem)
        else:
            valid_type, is_variable = _type_ok(value, acceptable, expected, item_type)
            if not valid_type:
                first = first or CallCheck(
                    False, "type_mismatch",
                    f"parameter {p!r}: {raw!r} is not of type {spec.get('type', 'any')}"
                    if full else "")
            else:
                equiv = (string_equivalent if equivalent_for is None
                         else equivalent_for(schema_name, str(p)))
                if _value_ok(value, acceptable, expected, item_type, is_variable, equiv):
                    ok += 1
                    continue
                first = first or CallCheck(
                    False, "value_mismatch",
                    f"parameter {p!r}: {raw!r} is not one of {acceptable!r}" if full else "")
        if not full:
            break
    if first is not None:
        return CallCheck(False, first.error_type, first.message, ok, total)
    for p, acceptable in gold.items():
        if p not in params:
            if "" not in acceptable:
                return CallCheck(False, "missing_optional",
                                 f"parameter {p!r} not given and not optional" if full else "",
                                 ok, total)
            ok += 1
    return CallCheck(True, "", "", ok, total)


def find_schema(schemas: Sequence[Mapping[str, Any]], gold_name: str) -> Mapping[str, Any] | None:
    """The schema for a gold function name: the first whose name is contained in it (gold
    names of repeated parallel calls carry suffixes such as ``spotify.play_1``;
    ``find_description``)."""
    for s in schemas:
        if str(s["name"]) in gold_name:
            return s
    return None


def _unmatched(g: int, best: CallCheck) -> ItemCheck:
    """The item's failure when gold call ``g`` is left without a valid call; ``best`` is its
    closest predicted call, fully checked."""
    return ItemCheck(False, best.error_type or "value_mismatch",
                     f"gold call {g}: no valid predicted call left for it in "
                     f"BFCL's order of checks (closest: {best.message})")


def _official(n_gold: int, n_pred: int, call_check: Callable[[int, int, bool], CallCheck]
              ) -> ItemCheck:
    """BFCL's order of checks: each gold call in turn takes the first unmatched predicted call
    valid for it, each pair checked only when that order reaches it (as BFCL's
    ``parallel_function_checker_no_order``, which stops at the first valid call); a gold call
    left without one is reported with its closest call, for which its whole row is checked."""
    if n_gold == 1 and n_pred == 1:  # most items: one pair, checked once, in full
        only = call_check(0, 0, True)
        return ItemCheck(True, "", "", ((0, 0, only),)) if only.valid else _unmatched(0, only)
    done: dict[tuple[int, int], CallCheck] = {}

    def get(g: int, p: int) -> CallCheck:
        if (g, p) not in done:
            done[g, p] = call_check(g, p, False)  # validity only: stop at a wrong parameter
        return done[g, p]

    taken: set[int] = set()
    pairs = []
    for g in range(n_gold):
        found = next((p for p in range(n_pred) if p not in taken and get(g, p).valid), None)
        if found is None:
            return _unmatched(g, max((call_check(g, p, True) for p in range(n_pred)),
                                     key=lambda c: c.agreement))
        taken.add(found)
        pairs.append((g, found, done[g, found]))
    return ItemCheck(True, "", "", tuple(pairs))


EXHAUSTIVE_UP_TO = 6
"""Square matrices up to this size are assigned by trying every order (at most 720): the
calls of an item are few, and importing scipy's solver costs ~0.45 s, more than checking a
whole BFCL run (``benchmarks/bench_bfcl_vs_official.py``)."""


def max_weight_assignment(weight: Sequence[Sequence[float]]) -> tuple[list[int], list[int]]:
    """``(rows, columns)`` of a one-to-one assignment of a square ``weight`` matrix (n × n
    floats) whose total weight is maximal — the assignment problem (Kuhn 1955), as
    ``scipy.optimize.linear_sum_assignment(weight, maximize=True)`` solves it, which is used
    above :data:`EXHAUSTIVE_UP_TO`. Up to it every permutation is tried in lexicographic order
    and the first with the largest total kept (among equal totals scipy may choose another).

    Examples:
        >>> max_weight_assignment([[1.0, 3.0], [2.0, 1.0]])
        ([0, 1], [1, 0])
        >>> max_weight_assignment([])
        ([], [])
    """
    n = len(weight)
    if n <= EXHAUSTIVE_UP_TO:
        best = max(itertools.permutations(range(n)),
                   key=lambda cols: sum(weight[r][c] for r, c in enumerate(cols)))
        return list(range(n)), list(best)
    from scipy.optimize import linear_sum_assignment  # lazy: keeps `simjudge --help` fast

    rows, cols = linear_sum_assignment(np.asarray(weight, dtype=float), maximize=True)
    return [int(r) for r in rows], [int(c) for c in cols]


def check_item(pred: Sequence[Mapping[str, Any]], gold: Mapping[str, Mapping[str, Any]],
               schemas: Sequence[Mapping[str, Any]], single: bool = False,
               string_equivalent: StringEquivalent | None = None, *,
               equivalent_for: EquivalentFor | None = None, matching: str = "optimal",
               language: str = "python", names: str = "either") -> ItemCheck:
    """Check all predicted calls of an item against all its gold calls.

    Args:
        pred: predicted calls, each ``{name: {params}}``.
        gold: ``{gold_name: {param: [acceptable…]}}`` (BFCL ``possible_answer`` ground truth).
        schemas: the item's function schemas.
        single: exactly one call expected, checked against the only schema and the first gold
            call whatever its name (BFCL ``simple``, ``java``, ``javascript``).
        string_equivalent: optional semantic string equality.
        equivalent_for: optional per-parameter semantic string equality (as in
            :func:`check_call`).
        matching: ``official`` (BFCL's greedy order) or ``optimal`` (assignment solver); see
            :data:`MATCHINGS`.
        language, names: as in :func:`check_call`.

    Returns:
        :class:`ItemCheck`.

    Raises:
        ValueError: an unknown ``matching``.

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

        Where the orders differ: gold 0 accepts either call, gold 1 only the first. BFCL gives
        gold 0 the first call and leaves gold 1 without one; the assignment solver does not.

        >>> gold = {"light.set": {"room": ["hall", "kitchen"]}, "light.set_1": {"room": ["hall"]}}
        >>> pred = [{"light.set": {"room": "hall"}}, {"light.set": {"room": "kitchen"}}]
        >>> [check_item(pred, gold, [schema], matching=m).correct for m in MATCHINGS]
        [False, True]
    """
    if matching not in MATCHINGS:
        raise ValueError(f"unknown matching {matching!r}; expected one of {MATCHINGS}")
    gold_items = list(gold.items())
    if single:
        if len(pred) != 1 or not gold_items:
            return ItemCheck(False, "wrong_count", f"{len(pred)} call(s) for 1 expected")
        if len(schemas) == 1:
            gold_items = gold_items[:1]
    if len(pred) != len(gold_items):
        return ItemCheck(False, "wrong_count",
                         f"{len(pred)} call(s) for {len(gold_items)} expected")
    golds: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []  # (gold params, schema)
    for gname, gparams in gold_items:
        # a single expected call with a single schema is checked against that schema whatever
        # the gold key says (BFCL's simple category: e.g. gold "find_closest" for the schema
        # "restaurant_search.find_closest")
        schema = schemas[0] if single and len(schemas) == 1 else find_schema(schemas, gname)
        if schema is None:
            return ItemCheck(False, "wrong_name", f"no schema for gold function {gname!r}")
        if type(gparams) is not dict and not isinstance(gparams, Mapping):
            return ItemCheck(False, "value_mismatch",
                             f"gold call {gname!r} has no parameter table: no call matches it")
        golds.append((gparams, schema))
    if not golds:
        return ItemCheck(True)

    def call_check(g: int, p: int, full: bool = True) -> CallCheck:
        return check_call(pred[p], golds[g][0], golds[g][1], string_equivalent,
                          equivalent_for=equivalent_for, language=language, names=names,
                          full=full)

    if matching == "official":
        return _official(len(golds), len(pred), call_check)
    checks = [[call_check(g, p) for p in range(len(pred))] for g in range(len(golds))]
    # lexicographic objective: as many valid pairs as possible, then the most agreement
    weight = [[c.valid * (len(gold_items) + 1) + c.agreement for c in row] for row in checks]
    rows, cols = max_weight_assignment(weight)
    pairs = tuple((int(r), int(c), checks[r][c]) for r, c in zip(rows, cols, strict=True))
    bad = [c for _, _, c in pairs if not c.valid]
    if bad:
        return ItemCheck(False, bad[0].error_type, bad[0].message, pairs)
    return ItemCheck(True, "", "", pairs)
