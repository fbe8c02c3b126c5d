"""Function-call items in a checkable form, shared by scoring and argument judging.

:func:`checkable` turns an item of any format (seed, OpenAI tool calls, BFCL) into BFCL's
checker input: predicted calls as ``{name: arguments}``, gold as ``{name: {param: [acceptable
values]}}`` and the function schemas. For seed/OpenAI gold (one concrete call per entry) each
argument's only acceptable value is the gold one, repeated function names get BFCL-style
suffixes (``light_control_1``) and a schema is inferred from the gold arguments' JSON types,
every one of them required (BFCL's ``ast_checker`` conventions, Patil et al. 2024).
"""

from __future__ import annotations

from typing import Any

from judge.items import Item
from judge.tasks.fcformats import Unparseable

FORMATS = ("seed", "openai", "bfcl")
"""Function-call input formats (``--format``)."""


def is_number(x: Any) -> bool:
    """Whether ``x`` is a number or a string that reads as one (``"22"``, ``" 1.5 "``);
    booleans are not numbers."""
    if isinstance(x, bool):
        return False
    if isinstance(x, (int, float)):
        return True
    if isinstance(x, str):
        try:
            float(x.strip())
            return True
        except ValueError:
            return False
    return False


def checkable(item: Item, fmt: str) -> tuple[list[dict[str, Any]] | None, dict[str, Any],
                                              list[dict[str, Any]], bool, str]:
    """``(pred calls as {name: params} or None if unparseable, gold dict, schemas, single,
    unparseable message)``: the item in the form :func:`metrics.fc_check.check_item` takes;
    ``single`` is BFCL's ``simple`` category (one function, matched by position)."""
    if fmt == "bfcl":
        from judge.tasks.bfclcheck import SINGLE_CALL, decoded_of, is_call_list

        single = item.extra["category"] in SINGLE_CALL
        decoded = decoded_of(item)
        if isinstance(decoded, Unparseable):
            return None, item.truth, item.extra["schemas"], single, str(decoded)
        if not is_call_list(decoded):
            return None, item.truth, item.extra["schemas"], single, "not a list of calls"
        pred = [{n: a} for call in decoded for n, a in call.items()]
        return pred, item.truth, item.extra["schemas"], single, ""
    if isinstance(item.pred, Unparseable):
        return None, {}, [], False, str(item.pred)
    # seed/OpenAI gold is one concrete call per entry: each argument's only acceptable value;
    # repeated function names get BFCL-style suffixes (light_control_1, light_control_2) and a
    # schema is inferred from the gold arguments (their JSON types; all of them required)
    gold: dict[str, Any] = {}
    schemas: dict[str, dict[str, Any]] = {}
    totals = {c["name"]: sum(1 for d in item.truth if d["name"] == c["name"]) for c in item.truth}
    seen: dict[str, int] = {}
    for call in item.truth:
        name, args = call["name"], call.get("arguments", {})
        seen[name] = seen.get(name, 0) + 1
        key = f"{name}_{seen[name]}" if totals[name] > 1 else name
        gold[key] = {p: [v] for p, v in args.items()}
        params = schemas.setdefault(name, {"name": name, "parameters": {
            "properties": {}, "required": list(args)}})["parameters"]
        for p, v in args.items():
            params["properties"].setdefault(p, {"type": _json_type(v)})
        params["required"] = [p for p in params["required"] if p in args]
    pred = [{c["name"]: dict(c.get("arguments", {}))} for c in item.pred]
    return pred, gold, list(schemas.values()), False, ""


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "float"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "dict"
    return "string"


