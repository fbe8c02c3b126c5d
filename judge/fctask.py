"""``--task function-call``: loading the three formats, optional semantic argument judging, and
scoring each item by BFCL's rules (correct + error type) and by seed 003's metrics.

Per item: ``correct`` and ``error_type`` (wrong_count, wrong_name, missing_required,
unexpected_param, type_mismatch, value_mismatch, missing_optional, unparseable) from
:mod:`metrics.fc_check` (calls matched one-to-one by an assignment solver), plus seed 003's
``fn_acc_name``, ``fn_acc_all``, ROUGE-1/2/L and BLEU-4. For BFCL gold (lists of acceptable
values) the seed metrics compare against one concrete gold call: each parameter's first
acceptable value.

``--arg-judge SPEC`` judges string argument values that differ in form ("开启" vs "打开") with
any judge (prompt ``argument_equivalence@v1`` for LLM judges, cached like every call); a value
pair counts as equal when its score is strictly above ``--arg-tau``. Numbers, and strings that
read as numbers ("22" vs "23"), are never judged: they must be equal.

A value pair is judged **per function and parameter**: ("on", "开启") for ``set_light.state``
and for ``set_mode.mode`` are two judgements (an LLM judge sees ``function set_light,
parameter state`` as the prompt's ``context``), and a pair judged equivalent for one parameter
is never credited for another. Judges that ignore the context (embedding, lexical, table
judges) score each distinct value pair once; their verdict is then recorded for every
(function, parameter) it serves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from judge import aio, io
from judge.errors import InputError
from judge.fcformats import (
    Unparseable,
    canonical_gold_calls,
    decode_bfcl_result,
    load_bfcl,
    openai_tool_calls,
)
from judge.items import DEFAULT_MAX_CHARS, Item, items_from_records
from judge.judges.base import Judge, JudgeContext, Pair
from judge.judges.llm import LLMJudge
from judge.verdict import Verdict
from metrics import fc_score_items, standardize_string
from metrics.fc_check import ERROR_TYPES, check_item, names_match

FORMATS = ("seed", "openai", "bfcl")


def _is_number(x: Any) -> bool:
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


def load_fc_items(data: str | Path, fmt: str, pred_field: str | None, truth_field: str | None,
                  id_fields: Sequence[str], gold: str | Path | None,
                  functions: str | Path | None, where: Sequence[str],
                  max_chars: int = DEFAULT_MAX_CHARS) -> list[Item]:
    """Items of a function-call evaluation in the given format.

    Ids as :func:`judge.items.items_from_records` (default ``id`` when the records carry it;
    BFCL always joins on ``id``). ``max_chars``: longest string anywhere in a prediction or gold
    field (argument values, raw call text; 0 = no limit).

    Raises:
        InputError: unknown format, missing --gold/--functions for BFCL, or bad records.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown function-call format {fmt!r}; expected one of "
                         f"{', '.join(FORMATS)}", field="format")
    if fmt == "bfcl":
        if gold is None or functions is None:
            raise InputError("--format bfcl needs --gold POSSIBLE_ANSWER_FILE and "
                             "--functions QUESTION_FILE", field="gold")
        return [Item(b.id, b.source, b.result, b.gold, b.question,
                     {"schemas": b.schemas, "category": b.category})
                for b in load_bfcl(data, gold, functions, max_chars=max_chars)]
    filters = io.parse_where(where)
    records = io.filter_records(io.read_records(data), filters)
    gold_records = io.filter_records(io.read_records(gold), filters) if gold else None
    if not records:
        raise InputError("no records", data)
    if fmt == "seed":
        return items_from_records(records, "function-call", pred_field, truth_field, id_fields,
                                  gold_records, max_chars=max_chars)
    def tool_calls(rec: io.Record, field: str) -> Any:
        try:
            return openai_tool_calls(rec, field)
        except Unparseable as exc:
            exc.raw = rec.data.get(field)  # shown as is in the audit report
            return exc  # kept as the prediction: scored as an unparseable item, never credited

    return items_from_records(records, "function-call", pred_field or "tool_calls", truth_field,
                              id_fields, gold_records, extract_pred=tool_calls,
                              max_chars=max_chars)


def _checkable(item: Item, fmt: str) -> tuple[list[dict[str, Any]] | None, dict[str, Any],
                                              list[dict[str, Any]], bool, str]:
    """(pred calls as {name: params} or None if unparseable, gold dict, schemas, single,
    unparseable message)."""
    if fmt == "bfcl":
        try:
            pred = decode_bfcl_result(item.pred)
        except Unparseable as exc:
            return None, item.truth, item.extra["schemas"], item.extra["category"] == "simple", \
                str(exc)
        return pred, item.truth, item.extra["schemas"], item.extra["category"] == "simple", ""
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


ArgKey = tuple[str, str, str, str]
"""``(function, parameter, predicted value, gold value)``: one argument value pair as judged.
``function`` is the schema's name (``spotify.play``; for seed/OpenAI gold the gold call's name)."""

ArgEquivalent = Callable[[str, str, str, str], bool]
"""``(function, parameter, predicted value, gold value) -> bool``: judged equivalence of two
string values of that function's parameter."""


class ArgVerdict(Verdict):
    """A verdict on one argument value pair, with the function and parameter it was judged
    for (``verdicts.jsonl`` rows of a function-call run carry both fields).

    Attributes:
        function: the function's schema name (see :data:`ArgKey`).
        parameter: the parameter's name.
    """

    function: str
    parameter: str


def argument_pairs(items: Sequence[Item], fmt: str) -> list[ArgKey]:
    """Distinct ``(function, parameter, predicted, gold)`` string argument values worth a
    semantic judgement: the predicted call names the function of a gold call, both values are
    non-numeric strings, and they differ after BFCL's standardisation. First-seen order."""
    seen: dict[ArgKey, None] = {}
    for item in items:
        pred, gold, schemas, single, _ = _checkable(item, fmt)
        if pred is None:
            continue
        for gname, gparams in gold.items():
            # the schema a gold call is checked against, as metrics.fc_check.check_item does
            schema = (schemas[0] if single and len(schemas) == 1
                      else next((s for s in schemas if str(s["name"]) in gname), None))
            if schema is None:
                continue
            function = str(schema["name"])
            for call in pred:
                (pname, pparams), = call.items()
                if not names_match(pname, function):
                    continue
                for param, acceptable in gparams.items():
                    v = pparams.get(param)
                    if not isinstance(v, str) or _is_number(v):
                        continue
                    for a in acceptable:
                        if (isinstance(a, str) and a != "" and not _is_number(a)
                                and standardize_string(a) != standardize_string(v)):
                            seen.setdefault((function, param, v, a), None)
    return list(seen)


def argument_context(function: str, parameter: str) -> str:
    """The ``context`` an LLM judge's ``argument_equivalence`` prompt gets for one parameter,
    e.g. ``"function set_light, parameter state"``."""
    return f"function {function}, parameter {parameter}"


async def _judge_keys(keys: Sequence[ArgKey], judge: Judge, ctx: JudgeContext,
                      ) -> dict[ArgKey, ArgVerdict]:
    found: dict[ArgKey, ArgVerdict] = {}
    if isinstance(judge, LLMJudge):
        # the prompt names the function and parameter: one group of pairs per parameter, all
        # judged concurrently under the judge's one concurrency limit
        groups: dict[tuple[str, str], list[Pair]] = {}
        for f, p, v, a in keys:
            groups.setdefault((f, p), []).append((v, a))
        results = await judge.judge_in_contexts(
            [(argument_context(f, p), pairs) for (f, p), pairs in groups.items()], ctx)
        for ((f, p), pairs), got in zip(groups.items(), results, strict=True):
            for (v, a), verdict in zip(pairs, got, strict=True):
                if verdict is not None:
                    found[(f, p, v, a)] = ArgVerdict(**verdict.model_dump(), function=f,
                                                     parameter=p)
        return found
    # the other judges ignore the context: each distinct value pair is scored once
    distinct = list(dict.fromkeys((v, a) for _, _, v, a in keys))
    by_pair = dict(zip(distinct, await judge.judge_pairs(distinct, ctx), strict=True))
    for f, p, v, a in keys:
        verdict = by_pair[(v, a)]
        if verdict is not None:
            found[(f, p, v, a)] = ArgVerdict(**verdict.model_dump(), function=f, parameter=p)
    return found


def judge_arguments(items: Sequence[Item], fmt: str, judge: Judge, ctx: JudgeContext,
                    tau: float) -> tuple[ArgEquivalent, list[Verdict]]:
    """Judge the distinct ``(function, parameter, predicted, gold)`` string argument values.

    Args:
        items: function-call items.
        fmt: their format (:data:`FORMATS`).
        judge: any judge; an :class:`~judge.judges.llm.LLMJudge` renders each (function,
            parameter)'s pairs with the context :func:`argument_context` (one concurrent run,
            :meth:`~judge.judges.llm.LLMJudge.judge_in_contexts`), any other judge is called
            once over the distinct value pairs.
        ctx: the run's judge context (cache, stats, progress).
        tau: a pair is equivalent when its verdict is ``ok`` with a score strictly above tau.

    Returns:
        ``(equivalent, verdicts)``: the :data:`ArgEquivalent` test for
        :func:`score_function_call`, and one :class:`ArgVerdict` per judged key (in
        :func:`argument_pairs` order) for the audit trail. A key without a verdict, or with a
        failed one, is not equivalent.
    """
    keys = argument_pairs(items, fmt)
    found = aio.run(_judge_keys(keys, judge, ctx)) if keys else {}
    same = {k for k, v in found.items()
            if v.outcome == "ok" and v.score is not None and v.score > tau}

    def equivalent(function: str, parameter: str, pred: str, gold: str) -> bool:
        return not _is_number(pred) and (function, parameter, pred, gold) in same

    verdicts: list[Verdict] = [found[k] for k in keys if k in found]  # each an ArgVerdict
    return equivalent, verdicts


def score_function_call(items: Sequence[Item], fmt: str = "seed",
                        equivalent: ArgEquivalent | None = None,
                        ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-item rows and dataset metrics (see module docstring).

    ``equivalent``: judged string equivalence per (function, parameter) (from
    :func:`judge_arguments`), used by both the BFCL check and the seed metrics; None = exact
    (standardised) string equality only.
    """
    seed_rows: list[dict[str, Any]] = []
    checks: list[tuple[str, bool, str, list[list[int]]]] = []
    shown: list[Any] = []  # each item's predicted calls as the audit report shows them
    for item in items:
        pred, gold, schemas, single, why = _checkable(item, fmt)
        shown.append(_shown_pred(item, fmt, pred))
        if pred is None:
            checks.append(("unparseable", False, why, []))
            seed_rows.append({"query": item.query, "gold_fn": _seed_gold(item, fmt),
                              "pred_fn": []})
            continue
        res = check_item(pred, gold, schemas, single=single,
                         equivalent_for=_equivalent_for(equivalent))
        checks.append((res.error_type, res.correct, res.message,
                       [[g, p] for g, p, _ in res.pairs]))
        seed_pred = []
        for call in pred:
            (name, params), = call.items()
            schema_name = next((s["name"] for s in schemas if names_match(name, s["name"])), name)
            seed_pred.append({"name": schema_name, "arguments": params})
        seed_rows.append({"query": item.query, "gold_fn": _seed_gold(item, fmt),
                          "pred_fn": seed_pred})
    arg_scorer = _equivalence_scorer(equivalent) if equivalent is not None else None
    per = fc_score_items(seed_rows, arg_scorer=arg_scorer)
    rows = []
    for item, (etype, correct, msg, pairs), r, p in zip(items, checks, per, shown, strict=True):
        row = {"id": item.id, "source": item.source, "correct": correct,
               "error_type": etype or None, "error": msg or None, "matching": pairs, **r,
               "gold_calls": item.truth, "pred_calls": p}
        if fmt == "bfcl":
            row["category"] = item.extra["category"]
        rows.append(row)
    metrics: dict[str, Any] = {
        "eval_size": len(rows), "accuracy": float(np.mean([r["correct"] for r in rows])),
        **{k: float(np.mean([r[k] for r in rows]))
           for k in ("fn_acc_name", "fn_acc_all", "rouge-1", "rouge-2", "rouge-l", "bleu-4")},
        "error_types": {e: sum(1 for r in rows if r["error_type"] == e) for e in ERROR_TYPES},
    }
    if fmt == "bfcl":
        cats = sorted({r["category"] for r in rows})
        metrics["accuracy_by_category"] = {
            c: float(np.mean([r["correct"] for r in rows if r["category"] == c])) for c in cats}
    return rows, metrics


def _shown_pred(item: Item, fmt: str, decoded: list[dict[str, Any]] | None) -> Any:
    """The prediction for ``items.jsonl`` and the audit report: ``[{"name", "arguments"}]`` in
    the order ``matching`` indexes, or the raw model output when it could not be parsed."""
    if decoded is None:
        return item.pred.raw if isinstance(item.pred, Unparseable) else item.pred
    if fmt == "bfcl":
        return [{"name": n, "arguments": a} for call in decoded for n, a in call.items()]
    return list(item.pred)


def _seed_gold(item: Item, fmt: str) -> list[dict[str, Any]]:
    return canonical_gold_calls(item.truth, item.extra["schemas"]) if fmt == "bfcl" else list(
        item.truth)


def _equivalent_for(equivalent: ArgEquivalent | None,
                    ) -> Callable[[str, str], Callable[[str, str], bool] | None] | None:
    """``(function, parameter) -> (pred, gold) -> bool`` for :func:`metrics.fc_check.check_item`."""
    if equivalent is None:
        return None

    def bind(function: str, parameter: str) -> Callable[[str, str], bool]:
        return lambda pred, gold: equivalent(function, parameter, pred, gold)

    return bind


def _equivalence_scorer(equivalent: ArgEquivalent) -> Callable[..., float]:
    """Seed-style strict argument score where strings judged equivalent for that function's
    parameter count as equal."""
    def score(gold: Any, pred: Any) -> float:
        g, p = gold.get("arguments", {}), pred.get("arguments", {})
        if set(g) != set(p):
            return 0.0
        name = str(pred.get("name", ""))  # equal to the gold call's (score_function_calls)
        for k, gv in g.items():
            pv = p[k]
            if gv == pv:
                continue
            if isinstance(gv, str) and isinstance(pv, str) and equivalent(name, k, pv, gv):
                continue
            return 0.0
        return 1.0
    return score
