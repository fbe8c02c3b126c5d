"""Function-call input formats: seed 003, OpenAI ``tool_calls`` and BFCL.

* seed: ``gold_fn`` / ``pred_fn`` lists of ``{"name", "arguments": {…}}``;
* openai: predictions as OpenAI ``tool_calls`` (``{"function": {"name", "arguments": "<JSON>"}}``
  or ``{"name", "arguments": "<JSON>"}``), gold in the seed format;
* bfcl: three files joined on ``id`` — model results (``{"id", "result"}``, the result being a
  list of ``{func: "<JSON args>"}`` or raw text such as ``[math.factorial(number=5)]``), gold
  ``possible_answer`` (``{"id", "ground_truth": {func: {param: [acceptable…]}}}``) and the
  questions with the function schemas (``{"id", "function": schema or [schemas]}``).

BFCL results are decoded per model as BFCL's handlers decode them (:mod:`judge.tasks.bfclmodels`;
raw text read with Python's ``ast``, never evaluated). Output that cannot be decoded is an
``unparseable`` item, never credited.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import io
from judge.errors import InputError, printable

BFCL_CATEGORIES = ("simple", "multiple_function", "parallel_function",
                   "parallel_multiple_function", "java", "javascript", "relevance")
"""BFCL's AST categories (``eval_checker_constant.py`` ``TEST_COLLECTION_MAPPING["ast"]``); the
executable and REST ones run the functions live and are out of simjudge's scope."""


class Unparseable(ValueError):
    """Model output that is not a list of function calls; ``raw`` keeps that output (for the
    audit report) when the reader sets it."""

    raw: Any = None


def _usable(value: Any, what: str) -> Any:
    """``value`` if it is nested at most :data:`judge.io.MAX_NESTING` levels and holds no lone
    surrogate (which could not be written back as UTF-8); else :class:`Unparseable`."""
    try:
        io.check_value(value)
    except InputError as exc:
        raise Unparseable(f"{what}: {exc.message}") from None
    return value


def _json_arguments(text: str, what: str) -> Any:
    """Model-written JSON arguments decoded by :func:`judge.io.loads`: malformed JSON, deep
    nesting, huge integers and lone surrogates are :class:`Unparseable` (never credited)."""
    try:
        return io.loads(text)
    except InputError as exc:
        raise Unparseable(f"{what} are not usable JSON: {exc.message}") from None


def seed_calls(record: io.Record, field: str) -> list[dict[str, Any]]:
    """Seed 003's call list (:func:`judge.io.call_list`); a record without ``field`` that holds
    OpenAI ``tool_calls`` is refused with the flag that reads it (``--format openai``).

    Raises:
        InputError: as :func:`judge.io.call_list`.
    """
    if field not in record.data and "tool_calls" in record.data:
        raise record.error(f"missing; the record holds OpenAI 'tool_calls': read it with "
                           "--format openai (fields present: "
                           f"{', '.join(printable(k) for k in sorted(record.data))})",
                           field)
    return io.call_list(record, field)


def openai_tool_calls(record: io.Record, field: str) -> list[dict[str, Any]]:
    """OpenAI ``tool_calls`` → seed-format calls ``{"name", "arguments": dict}``.

    Raises:
        Unparseable: arguments that are not a JSON object.
        InputError: the field is missing or not a list.
    """
    value = io.maybe_json(record, field, io.get_field(record, field))
    if value is None:
        return []
    if not isinstance(value, list):
        raise record.error(f"expected a list of tool calls, got {type(value).__name__}", field)
    calls = []
    for k, tc in enumerate(value):
        fn = tc.get("function", tc) if isinstance(tc, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise record.error(f"tool call {k}: expected {{'function': {{'name', "
                               "'arguments'}}}", field)
        args = fn.get("arguments", "{}")
        if isinstance(args, str):
            args = _json_arguments(args, f"tool call {k}: arguments") if args.strip() else {}
        if not isinstance(args, dict):
            raise Unparseable(f"tool call {k}: arguments are not an object")
        calls.append({"name": fn["name"], "arguments": args})
    return calls


@dataclass
class BfclItem:
    """One BFCL test case with the model's result.

    Attributes:
        id: e.g. ``simple_13``; category: one of :data:`BFCL_CATEGORIES`.
        result: the raw model result; gold: ``{func: {param: [acceptable…]}}``;
        schemas: the function schemas; question: the user question; source: FILE:LINE.
    """

    id: str
    category: str
    result: Any
    gold: dict[str, dict[str, list[Any]]]
    schemas: list[dict[str, Any]]
    question: str
    source: str


def category_of(item_id: str) -> str:
    """BFCL category from an id such as ``parallel_multiple_function_12``."""
    base = item_id.rsplit("_", 1)[0]
    if base not in BFCL_CATEGORIES:
        raise ValueError(f"unknown BFCL category in id {item_id!r}")
    return base


def _index_by_id(path: str | Path) -> dict[str, io.Record]:
    """A BFCL file's records by their ``id`` (a string); a repeated id is an error."""
    index: dict[str, io.Record] = {}
    for rec in io.read_records(path):
        rid = io.text(rec, "id")
        if rid in index:
            raise rec.error(f"duplicate id {rid!r} (first at line {index[rid].line})", "id")
        index[rid] = rec
    return index


def _gold_calls(ans: io.Record) -> dict[str, Any]:
    """A possible-answer record's ``ground_truth`` as ``{function: {param: [acceptable…]}}``.

    Accepted shapes: that object, or a list of such objects (some BFCL releases wrap each call;
    a function repeated across the list gets BFCL-style suffixes ``f_1``, ``f_2`` so that no
    expected call is lost). A function whose value is a list instead of an object is kept as
    an expected call that no prediction can satisfy, as BFCL's own checker counts it (upstream
    ``parallel_multiple_function_179`` has ``"deck": [[], ""]``).

    Raises:
        InputError: any other shape — ground truth not an object (or list of objects), a
            function's value neither an object nor a list, or a parameter whose acceptable
            values are not a list (function and parameter named).
    """
    field = "ground_truth"
    truth = io.get_field(ans, field)
    if isinstance(truth, list):
        parts: list[tuple[str, Any]] = []
        for k, part in enumerate(truth):
            if not isinstance(part, dict):
                raise ans.error(f"element {k}: expected an object {{function: {{param: "
                                f"[acceptable values]}}}}, got {type(part).__name__}", field)
            parts.extend(part.items())
        totals = {name: sum(1 for n, _ in parts if n == name) for name, _ in parts}
        seen: dict[str, int] = {}
        truth = {}
        for name, params in parts:
            seen[name] = seen.get(name, 0) + 1
            truth[f"{name}_{seen[name]}" if totals[name] > 1 else name] = params
    if not isinstance(truth, dict):
        raise ans.error(f"expected an object {{function: {{param: [acceptable values]}}}}, "
                        f"got {type(truth).__name__}", field)
    for name, params in truth.items():
        if isinstance(params, list):
            continue  # upstream quirk, see above
        if not isinstance(params, dict):
            raise ans.error(f"function {name!r}: expected an object {{param: [acceptable "
                            f"values]}}, got {type(params).__name__}", field)
        for param, acceptable in params.items():
            if not isinstance(acceptable, list):
                raise ans.error(f"function {name!r}: parameter {param!r}: expected a list of "
                                f"acceptable values, got {type(acceptable).__name__}", field)
    return truth


def _schemas(q: io.Record) -> list[dict[str, Any]]:
    """A question record's function schema(s), checked against the shape the checker reads:
    ``{"name": str, "parameters": {"properties": {param: {"type": str, "items"?: {…}}},
    "required": [str…]}}`` (``parameters`` and its members optional).

    Raises:
        InputError: a schema that is not an object with a string ``name``, or
            ``parameters``/``properties``/``required``/a property of the wrong type (function
            and member named).
    """
    field = "function"
    fns = io.get_field(q, field)
    schemas = fns if isinstance(fns, list) else [fns]
    for k, s in enumerate(schemas):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str):
            raise q.error(f"function {k}: expected a schema object with a string 'name'", field)
        where = f"function {k} ({s['name']!r})"
        params = s.get("parameters", {})
        if not isinstance(params, dict):
            raise q.error(f"{where}: 'parameters' must be an object, got "
                          f"{type(params).__name__}", field)
        props = params.get("properties", {})
        if not isinstance(props, dict):
            raise q.error(f"{where}: 'parameters.properties' must be an object {{param: "
                          f"schema}}, got {type(props).__name__}", field)
        required = params.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise q.error(f"{where}: 'parameters.required' must be a list of parameter names",
                          field)
        for name, prop in props.items():
            if not isinstance(prop, dict):
                raise q.error(f"{where}: property {name!r} must be an object, got "
                              f"{type(prop).__name__}", field)
            if not isinstance(prop.get("type", ""), str):
                raise q.error(f"{where}: property {name!r}: 'type' must be a string", field)
            items = prop.get("items")
            if items is not None and not (isinstance(items, dict)
                                          and isinstance(items.get("type", ""), str)):
                raise q.error(f"{where}: property {name!r}: 'items' must be an object with a "
                              "string 'type'", field)
    return schemas


def load_bfcl(results: str | Path, gold: str | Path | None, functions: str | Path,
              max_chars: int = 4096, check_results: bool = True) -> list[BfclItem]:
    """Join BFCL results, possible answers and questions on ``id`` (each file's ids unique).

    Args:
        results, gold, functions: the model's result file, BFCL's ``possible_answer`` file
            (None when every result is a ``relevance`` item, which has none) and the question
            file (JSONL; ``.json`` as BFCL names them).
        max_chars: longest string in a result or a ground truth (raw call text, argument
            values; 0 = no limit).
        check_results: apply ``max_chars`` to the raw results too; False when the caller
            checks the decoded results instead (:func:`judge.tasks.bfclscore.load_bfcl_items`).

    Raises:
        InputError: unreadable files, missing fields, a duplicate id in any file, an id on one
            side only, an unknown category, a ground truth or function schema of the wrong
            shape (see :func:`_gold_calls`, :func:`_schemas`), or a string over
            ``max_chars`` (file, line and field named).
    """
    answers = _index_by_id(gold) if gold is not None else {}
    questions = _index_by_id(functions)
    items = []
    for rec in _index_by_id(results).values():
        rid = io.text(rec, "id")
        try:
            cat = category_of(rid)
        except ValueError as exc:
            raise rec.error(str(exc), "id") from None
        if rid not in answers and cat != "relevance":
            raise rec.error(f"id {rid!r} has no possible answer in {gold or '(no --gold)'}",
                            "id")
        if rid not in questions:
            raise rec.error(f"id {rid!r} has no question in {functions}", "id")
        q = questions[rid]
        truth: dict[str, Any] = {}
        if cat != "relevance":
            ans = answers[rid]
            truth = _gold_calls(ans)
            io.check_string_sizes(truth, max_chars, ans.path, ans.line, "ground_truth")
        result = io.get_field(rec, "result")
        if check_results:
            io.check_string_sizes(result, max_chars, rec.path, rec.line, "result")
        items.append(BfclItem(rid, cat, result, truth, _schemas(q),
                              str(q.data.get("question", "")), f"{rec.path}:{rec.line}"))
    if not items:
        raise InputError("no results", results)
    ids = {i.id for i in items}
    missing = [k for k in answers if k not in ids]
    if missing and len(missing) == len(answers):
        raise InputError("no result id matches the possible answers", results)
    return items


def canonical_gold_calls(gold: Mapping[str, Mapping[str, list[Any]]],
                         schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seed-format gold calls from acceptable-value lists: each parameter's first acceptable
    value, optional-only parameters left out; names from the matching schema (for fn_acc_*,
    ROUGE and BLEU, which need one concrete gold call)."""
    from metrics.fc_check import find_schema

    calls = []
    for name, params in gold.items():
        if not isinstance(params, Mapping):
            continue  # malformed gold entry (BFCL parallel_multiple_function_179 has "deck")
        schema = find_schema(schemas, name)
        args = {p: next(v for v in vals if v != "") for p, vals in params.items()
                if any(v != "" for v in vals)}
        calls.append({"name": schema["name"] if schema else name, "arguments": args})
    return calls
