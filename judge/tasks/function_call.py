"""``--task function-call``: predicted function calls against gold calls, in three formats
(``seed``, OpenAI ``tool_calls``, BFCL), scored by BFCL's rules (correct + error type) and by
seed 003's metrics.

Per item: ``correct`` and ``error_type`` (:data:`metrics.fc_check.ERROR_TYPES`) from
:mod:`metrics.fc_check` (BFCL's AST checker; calls matched in BFCL's order of checks or by an
assignment solver, ``--fc-matching``; BFCL input decoded per model, :mod:`judge.tasks.bfclscore`),
plus seed 003's ``fn_acc_name``, ``fn_acc_all``, ROUGE-1/2/L and BLEU-4 (the text overlap
ones left out with ``--no-text-overlap``, the default with ``--format bfcl``).
For BFCL gold (lists of acceptable values) the seed metrics compare against one concrete gold
call: each parameter's first acceptable value. An optional argument judge (``--arg-judge``,
:mod:`judge.tasks.arguments`) credits string values that differ only in form.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judge import io
from judge.errors import InputError
from judge.items import Item, items_from_records, read_sides
from judge.record.itemrows import FunctionCallRow
from judge.tasks.arguments import (
    ArgEquivalent,
    equivalence_scorer,
    equivalent_for,
    judge_arguments,
)
from judge.tasks.base import Judged, Params, Source, Task
from judge.tasks.bfclscore import (
    bfcl_item_check,
    bfcl_metrics,
    category_means,
    category_means_resampled,
    load_bfcl_items,
    settled_options,
)
from judge.tasks.columns import column_means, column_means_resampled
from judge.tasks.fccalls import FORMATS, checkable
from judge.tasks.fccolumns import COLUMNS, SEED_COLUMNS, present
from judge.tasks.fcformats import Unparseable, canonical_gold_calls, openai_tool_calls, seed_calls
from judge.tasks.fcoptions import FunctionCallOptions
from judge.tasks.humantruth import CorrectnessLabels
from judge.tasks.views import calls_view
from metrics import fc_score_items
from metrics.fc_check import ERROR_TYPES, check_item, names_match

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from judge.judges.base import Judge, JudgeContext
    from judge.record.runrecord import RunRecord

DEFAULT_FIELDS = ("pred_fn", "gold_fn")


def load_fc_items(source: Source, options: FunctionCallOptions | None = None) -> list[Item]:
    """Items of a function-call evaluation in ``options.format`` (default ``seed``).

    Ids as :func:`judge.items.items_from_records` (default ``id`` when the records carry it;
    BFCL always joins on ``id``). ``max_chars``: longest string anywhere in a prediction or gold
    field (argument values, raw call text; 0 = no limit).

    Raises:
        InputError: unknown format, missing --gold/--functions for BFCL, or bad records.
    """
    opts = options or FunctionCallOptions()
    fmt, gold, max_chars = opts.format, source.gold, source.max_chars
    if fmt not in FORMATS:
        raise InputError(f"unknown function-call format {fmt!r}; expected one of "
                         f"{', '.join(FORMATS)}", field="format")
    if fmt == "bfcl":
        return load_bfcl_items(source, opts)
    records, gold_records = read_sides(source.data, gold, source.where)
    truth_field = source.truth_field or DEFAULT_FIELDS[1]
    if fmt == "seed":
        return items_from_records(records, (seed_calls, io.call_list),
                                  source.pred_field or DEFAULT_FIELDS[0], truth_field,
                                  source.id_fields, gold_records, max_chars=max_chars)
    def tool_calls(rec: io.Record, field: str) -> Any:
        try:
            return openai_tool_calls(rec, field)
        except Unparseable as exc:
            exc.raw = rec.data.get(field)  # shown as is in the audit report
            return exc  # kept as the prediction: scored as an unparseable item, never credited

    return items_from_records(records, (tool_calls, io.call_list),
                              source.pred_field or "tool_calls", truth_field, source.id_fields,
                              gold_records, max_chars=max_chars)


def score_function_call(items: Sequence[Item], fmt: str = "seed",
                        equivalent: ArgEquivalent | None = None, matching: str | None = None,
                        text_overlap: bool | None = None,
                        ) -> tuple[list[FunctionCallRow], dict[str, Any]]:
    """Per-item rows and dataset metrics (see module docstring).

    ``equivalent``: judged string equivalence per (function, parameter) (from
    :func:`judge.tasks.arguments.judge_arguments`); None = exact (standardised) string equality
    only. For BFCL input it never changes ``correct`` (BFCL's verdict): the verdict with it is
    ``verdicts["arg_judge"]``, reported beside (:func:`judge.tasks.bfclscore.bfcl_metrics`); for
    the other formats it counts in the check and the seed metrics.
    ``matching``: ``official`` or ``optimal`` (:data:`metrics.fc_check.MATCHINGS`); None =
    ``official`` for BFCL input, ``optimal`` otherwise.
    ``text_overlap``: compute ROUGE-1/2/L and BLEU-4 (:func:`metrics.fc_score_items`); None =
    on except for BFCL input.
    """
    matching = matching or ("official" if fmt == "bfcl" else "optimal")
    overlap = text_overlap if text_overlap is not None else fmt != "bfcl"
    seed_rows: list[dict[str, Any]] = []
    checks: list[tuple[str, bool, str, list[list[int]]]] = []
    shown: list[Any] = []  # each item's predicted calls as the audit report shows them
    verdicts: list[dict[str, bool] | None] = []
    for item in items:
        if fmt == "bfcl":
            b = bfcl_item_check(item, matching, equivalent)
            checks.append((b.error_type, b.correct, b.message, b.pairs))
            shown.append(b.shown)
            verdicts.append(b.verdicts)
            seed_rows.append({"query": item.query, "gold_fn": _seed_gold(item, fmt),
                              "pred_fn": b.seed_calls})
            continue
        verdicts.append(None)
        pred, gold, schemas, single, why = checkable(item, fmt)
        shown.append(_shown_pred(item, fmt, pred))
        if pred is None:
            checks.append(("unparseable", False, why, []))
            seed_rows.append({"query": item.query, "gold_fn": _seed_gold(item, fmt),
                              "pred_fn": []})
            continue
        res = check_item(pred, gold, schemas, single=single,
                         equivalent_for=equivalent_for(equivalent), matching=matching)
        checks.append((res.error_type, res.correct, res.message,
                       [[g, p] for g, p, _ in res.pairs]))
        seed_pred = []
        for call in pred:
            (name, params), = call.items()
            schema_name = next((s["name"] for s in schemas if names_match(name, s["name"])), name)
            seed_pred.append({"name": schema_name, "arguments": params})
        seed_rows.append({"query": item.query, "gold_fn": _seed_gold(item, fmt),
                          "pred_fn": seed_pred})
    arg_scorer = (equivalence_scorer(equivalent) if equivalent is not None and fmt != "bfcl"
                  else None)
    per = fc_score_items(seed_rows, arg_scorer=arg_scorer, text_overlap=overlap)
    rows: list[FunctionCallRow] = []
    for item, (etype, correct, msg, pairs), r, p, v in zip(items, checks, per, shown, verdicts,
                                                           strict=True):
        row = {"id": item.id, "source": item.source, "correct": correct,
               "error_type": etype or None, "error": msg or None, "matching": pairs, **r,
               "gold_calls": item.truth, "pred_calls": p}
        if fmt == "bfcl":
            row["category"] = item.extra["category"]
            row["verdicts"] = v
        rows.append(FunctionCallRow.model_validate(row))
    metrics: dict[str, Any] = {
        "eval_size": len(rows), "accuracy": float(np.mean([r.correct for r in rows])),
        **column_means(present(SEED_COLUMNS, rows), rows),
        "error_types": {e: sum(1 for r in rows if r.error_type == e) for e in ERROR_TYPES},
    }
    if fmt == "bfcl":
        cats = sorted({r.category for r in rows if r.category is not None})
        metrics["accuracy_by_category"] = {
            c: float(np.mean([r.correct for r in rows if r.category == c])) for c in cats}
        metrics.update({**category_means(rows), **bfcl_metrics(rows, items, matching)})
    return rows, metrics


@functools.lru_cache(maxsize=4)
def _load_once(task: Task, source: Source, options: FunctionCallOptions) -> list[Item]:
    """``task.load(source, options)``, kept for the next call with the same source
    (``calibrate --run`` re-scores one run at 100 thresholds); the sources are sha256-checked
    before each call."""
    return task.load(source, options)


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


class FunctionCallTask(CorrectnessLabels, Task[FunctionCallRow]):
    """Function calls against gold calls (BFCL's checker and seed 003's metrics)."""

    name = "function-call"
    row_model = FunctionCallRow
    summary = "function calls (seed, OpenAI tool_calls, BFCL) against gold calls"
    no_judge_reason = "calls are checked by BFCL's rules"
    probe_reason = ("--probe swap: the argument judge rates each value in its parameter's own "
                    "context, which the probe does not replay; probe a --task selection run of "
                    "the same judge instead")
    default_fields = DEFAULT_FIELDS
    extractors = (io.call_list, io.call_list)
    judge_role = "arg_judge"
    Options = FunctionCallOptions
    human_metrics = (("accuracy", "correct"), ("fn_acc_all", "fn_acc_all"))
    """Metrics a person's verdict grounds (fn_acc_name and text overlap use no judge)."""

    def load(self, source: Source, options: Any = None) -> list[Item]:
        """Items in ``options.format`` (:func:`load_fc_items`).

        Raises:
            InputError: see :func:`load_fc_items`.
        """
        return load_fc_items(source, options if isinstance(options, FunctionCallOptions)
                             else None)

    async def judge(self, items: Sequence[Item], judge: Judge | None, ctx: JudgeContext,
                    params: Params) -> Judged:
        """With an argument judge: judge the distinct string argument values per function and
        parameter (:func:`judge.tasks.arguments.judge_arguments`); without one: nothing."""
        if judge is None:
            return Judged()
        opts = self.options(params)
        equivalent, verdicts = await judge_arguments(items, opts.format, judge, ctx,
                                                     opts.arg_tau)
        from judge.record.verdictlog import VerdictLog

        return Judged(log=VerdictLog.memory(v.model_dump() for v in verdicts),
                      objects=list(verdicts),
                      accounting={"arg_judge": {"id": judge.id, "tau": opts.arg_tau,
                                                "pairs_judged": len(verdicts)}},
                      data=equivalent)

    def judge_requests(self, items: Sequence[Item], params: Params
                       ) -> list[tuple[str, list[tuple[str, str]]]]:
        """Per (function, parameter), its distinct (predicted, gold) string values, with the
        context the argument judge's prompt gets (:func:`judge.tasks.arguments.argument_pairs`,
        :func:`judge.tasks.arguments.argument_context`)."""
        from judge.tasks.arguments import argument_context, argument_pairs

        groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for f, p, v, a in argument_pairs(items, self.options(params).format):
            pairs = groups.setdefault((f, p), [])
            if (v, a) not in pairs:
                pairs.append((v, a))
        return [(argument_context(f, p), pairs) for (f, p), pairs in groups.items()]

    def config_entries(self, params: Params) -> dict[str, Any]:
        """``{"function_call_format": …, "text_overlap": …}`` for ``config.json``; for BFCL
        input also the model whose decoder read the results (given or detected) and the
        matching in force."""
        opts = self.options(params)
        return {"function_call_format": opts.format, "text_overlap": opts.overlap(),
                **({"bfcl_model": opts.bfcl_model, "fc_matching": opts.matching()}
                   if opts.format == "bfcl" else {})}

    def settled_options(self, items: Sequence[Item], options: Any) -> Any:
        """:func:`judge.tasks.bfclscore.settled_options` (BFCL's model and matching)."""
        return settled_options(items, options)

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[FunctionCallRow], dict[str, Any]]:
        """See :func:`score_function_call`."""
        opts = self.options(params)
        return score_function_call(items, opts.format, judged.data, opts.matching(),
                                   opts.overlap())

    def metrics_from_rows(self, rows: Sequence[FunctionCallRow]) -> dict[str, float]:
        """Accuracy (share of correct items) and the means of seed 003's metrics; for BFCL
        rows also each category's accuracy and BFCL's aggregates
        (:func:`judge.tasks.bfclscore.category_means`)."""
        return {**column_means(present(COLUMNS, rows), rows), **category_means(rows)}

    def resampled(self, rows: Sequence[FunctionCallRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' values read once."""
        columns = column_means_resampled(present(COLUMNS, rows), rows)
        categories = category_means_resampled(rows)
        return lambda idx: {**columns(idx), **categories(idx)}

    threshold = "arg_tau"
    curve_metrics: ClassVar[tuple[str, ...]] = ("accuracy", "fn_acc_all", "fn_acc_name",
                                                "rouge-l", "bleu-4")

    def run_tau(self, record: RunRecord) -> float | None:
        """The run's ``--arg-tau`` (``summary.json``'s ``arg_judge.tau``); None without an
        argument judge."""
        arg = record.summary.get("arg_judge") or {}  # the judging's accounting entry
        tau = arg.get("tau")
        return float(tau) if isinstance(tau, (int, float)) else None

    def rescore(self, record: RunRecord, tau: float, rule: str | None = None,
                quorum: int | None = None, overrides: Any = None,
                ) -> tuple[list[FunctionCallRow], dict[str, Any]] | None:
        """Re-check every call with the argument judge's stored verdicts at another
        ``--arg-tau`` (no judge call): the items are read again from the run's input files
        (:func:`judge.tasks.inputs.run_source`, sha256-checked) and each stored argument
        verdict (``function``, ``parameter``, pred, truth, outcome, score) decides equivalence
        at ``tau`` (:func:`judge.tasks.arguments.equivalence`). A run without an argument
        judge re-checks with exact equality (τ does not apply). At the run's own arg τ the
        result is the run's own.

        Raises:
            InputError: an input file of the run is missing or changed since the run.
        """
        from judge.tasks.arguments import equivalence
        from judge.tasks.inputs import run_input, run_source

        options = FunctionCallOptions.from_config(record.config, run_input(record, "functions"))
        fmt = options.format
        source = run_source(record)
        items = source.first(_load_once(self, source, options))
        equivalent = None
        if self.run_tau(record) is not None:
            equivalent = equivalence(
                (((v["function"], v["parameter"], v["pred"], v["truth"]),
                  str(v.get("outcome", "ok")), v.get("score"))
                 for v in record.verdict_rows() if "function" in v and "parameter" in v),
                tau)
        rows, metrics = score_function_call(items, fmt, equivalent, options.matching(),
                                            options.overlap())
        return rows, {"arg_tau": tau if equivalent is not None else None, **metrics}

    def view(self, row: FunctionCallRow) -> dict[str, Any]:
        """The ``calls`` view: gold and predicted calls, verdict and error type."""
        return calls_view(row)
