"""Function-call input formats: seed 003, OpenAI ``tool_calls`` and BFCL.

* seed: ``gold_fn`` / ``pred_fn`` lists of ``{"name", "arguments": {…}}``;
* openai: predictions as OpenAI ``tool_calls`` (``{"function": {"name", "arguments": "<JSON>"}}``
  or ``{"name", "arguments": "<JSON>"}``), gold in the seed format;
* bfcl: three files joined on ``id`` — model results (``{"id", "result"}``, the result being a
  list of ``{func: "<JSON args>"}`` or raw text such as ``[math.factorial(number=5)]``), gold
  ``possible_answer`` (``{"id", "ground_truth": {func: {param: [acceptable…]}}}``) and the
  questions with the function schemas (``{"id", "function": schema or [schemas]}``).

Raw text is parsed with Python's ``ast`` (literals only), never evaluated. Output that cannot be
parsed is an ``unparseable`` item, never credited.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge import io
from judge.errors import InputError

BFCL_CATEGORIES = ("simple", "multiple_function", "parallel_function",
                   "parallel_multiple_function")


class Unparseable(ValueError):
    """Model output that is not a list of function calls."""


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        raise Unparseable(f"argument is not a literal: {ast.dump(node)[:80]}") from None


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_call_name(node.value)}.{node.attr}"
    raise Unparseable("function name is not a dotted name")


def parse_call_text(text: str) -> list[dict[str, dict[str, Any]]]:
    """``"[f(a=1), pkg.g(b='x')]"`` → ``[{"f": {"a": 1}}, {"pkg.g": {"b": "x"}}]``.

    Raises:
        Unparseable: not Python syntax, not a list of calls, positional arguments, or
            non-literal argument values.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise Unparseable(f"not a list of calls: {exc.msg}") from None
    body = tree.body
    nodes = body.elts if isinstance(body, (ast.List, ast.Tuple)) else [body]
    calls = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            raise Unparseable("not a function call")
        if node.args:
            raise Unparseable("positional arguments cannot be matched to parameters")
        calls.append({_call_name(node.func): {kw.arg: _literal(kw.value)
                                              for kw in node.keywords if kw.arg}})
    return calls


def decode_bfcl_result(result: Any) -> list[dict[str, dict[str, Any]]]:
    """A BFCL model result → list of ``{name: params}``.

    Raises:
        Unparseable: the result is neither a list of ``{name: JSON-or-dict}`` nor call text.
    """
    if isinstance(result, str):
        return parse_call_text(result)
    if not isinstance(result, list) or not result:
        raise Unparseable("empty or non-list result")
    calls = []
    for entry in result:
        if not isinstance(entry, Mapping) or len(entry) != 1:
            raise Unparseable("each call must be {name: arguments}")
        (name, args), = entry.items()
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError as exc:
                raise Unparseable(f"arguments of {name!r} are not JSON: {exc.msg}") from None
        if not isinstance(args, dict):
            raise Unparseable(f"arguments of {name!r} are not an object")
        calls.append({str(name): args})
    return calls


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
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError as exc:
                raise Unparseable(f"tool call {k}: arguments are not JSON: {exc.msg}") from None
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


def load_bfcl(results: str | Path, gold: str | Path, functions: str | Path) -> list[BfclItem]:
    """Join BFCL results, possible answers and questions on ``id``.

    Raises:
        InputError: unreadable files, missing fields, an id on one side only, or an unknown
            category (file, line and field named).
    """
    answers = {io.text(r, "id"): r for r in io.read_records(gold)}
    questions = {io.text(r, "id"): r for r in io.read_records(functions)}
    items = []
    for rec in io.read_records(results):
        rid = io.text(rec, "id")
        if rid not in answers:
            raise rec.error(f"id {rid!r} has no possible answer in {gold}", "id")
        if rid not in questions:
            raise rec.error(f"id {rid!r} has no question in {functions}", "id")
        try:
            cat = category_of(rid)
        except ValueError as exc:
            raise rec.error(str(exc), "id") from None
        ans, q = answers[rid], questions[rid]
        truth = io.get_field(ans, "ground_truth")
        if isinstance(truth, list):  # some BFCL releases wrap each call in a list
            merged: dict[str, Any] = {}
            for part in truth:
                merged.update(part)
            truth = merged
        if not isinstance(truth, dict):
            raise ans.error("expected an object {function: {param: [values]}}", "ground_truth")
        fns = io.get_field(q, "function")
        schemas = fns if isinstance(fns, list) else [fns]
        if not all(isinstance(s, dict) and "name" in s for s in schemas):
            raise q.error("expected function schema objects with a 'name'", "function")
        items.append(BfclItem(rid, cat, io.get_field(rec, "result"), truth, schemas,
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
