"""``--task selection``: each item is a list of predicted strings and a list of gold strings;
a judge scores every pred×gold pair, pairs are matched one-to-one at τ, and fuzzy TP, P, R and
F1 are reported per item and over the dataset (macro and micro).

Definition: seed 001 (fuzzy TP = sum of the matched pairs' scores, exact — normalised-equal —
pairs first at 1.0; a judged pair matches only when its score is strictly greater than τ; the
one-to-one matching maximises the total score, as scipy's ``linear_sum_assignment``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from judge import io
from judge.errors import InputError
from judge.items import Item
from judge.record.itemrows import SelectionRow
from judge.tasks.base import HeatmapView, Judged, Params, Task
from judge.tasks.humantruth import (
    HumanColumn,
    ItemTruth,
    LabelPlace,
    selection_columns,
    selection_truth,
)
from judge.tasks.matching import (
    FuzzyColumns,
    fuzzy_metrics,
    judge_groups,
    member_scores,
    overridden,
    revoted_matrix,
    stored_matrix,
    work_units,
)
from judge.tasks.matchrow import row_fields
from metrics import aggregate_fuzzy, fuzzy_match

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from judge.judges.base import Judge, JudgeContext
    from judge.record.runrecord import RunRecord
    from judge.tasks.overrides import HumanOverrides


def query_of(item: Item) -> dict[str, str]:
    """``{"query": …}`` when the record has a ``query`` field (shown in the audit report)."""
    return {"query": item.query} if item.query else {}


def _stored(row: SelectionRow) -> tuple[list[str], list[str], list[list[float | None]]]:
    """The strings and matrix a row stores.

    Raises:
        InputError: a row without them (the run's other rows have them).
    """
    if row.pred is None or row.truth is None or row.scores is None:
        raise InputError(f"item {row.id!r} stores no similarity matrix (pred, truth, scores)",
                         field="scores")
    return row.pred, row.truth, row.scores


_OTHER_TASK = {bool: "true/false answers: --task judgment",
               str: "one text answer per item: --task generation"}
"""The task a scalar prediction or gold value suggests, named in the error."""


def strings(record: io.Record, field: str) -> list[str]:
    """:func:`judge.io.string_list`; a true/false or text value (JSON) names the task it
    suits (``--task judgment`` / ``--task generation``) in the error."""
    try:
        return io.string_list(record, field)
    except InputError as exc:
        hint = _OTHER_TASK.get(type(record.data.get(field)))
        if hint is None or exc.field != field:
            raise
        raise record.error(f"{exc.message} ({hint})", field) from None


class SelectionTask(Task[SelectionRow]):
    """Fuzzy set matching of predicted vs gold strings (seed 001)."""

    name = "selection"
    row_model = SelectionRow
    summary = "lists of strings matched one-to-one by a judge at τ: fuzzy P/R/F1"
    extractors = (strings, strings)
    judge_role = "judge"
    threshold = "tau"
    needs_judge = True
    uses_tau = True

    def work_units(self, items: Sequence[Item], judge: Judge) -> int:
        """Units of judge work over the items' distinct non-exact pairs."""
        return work_units([(i.pred, i.truth) for i in items], judge)

    async def judge(self, items: Sequence[Item], judge: Judge | None, ctx: JudgeContext,
                    params: Params) -> Judged:
        """Judge every item's pred×truth pairs (distinct pairs once, exact ones free).

        Raises:
            InputError: no judge given.
        """
        if judge is None:
            raise InputError("task 'selection' needs a judge", field="judge")
        return await judge_groups([(i.pred, i.truth) for i in items], [i.id for i in items],
                                  judge, ctx, params.tau, params.overrides)

    def pair_groups(self, items: Sequence[Item]) -> list[tuple[str, Sequence[str],
                                                               Sequence[str]]]:
        """Each item's id, predictions and gold strings (one matrix per item)."""
        return [(i.id, i.pred, i.truth) for i in items]

    def judge_requests(self, items: Sequence[Item], params: Params
                       ) -> list[tuple[str, list[tuple[str, str]]]]:
        """The distinct non-exact pairs of all items, judged with the run's context."""
        from judge.matrix import distinct_pairs

        return [(params.context, distinct_pairs([(i.pred, i.truth) for i in items])[0])]

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[SelectionRow], dict[str, Any]]:
        """One row per item (:func:`judge.tasks.matchrow.row_fields`: id, source and query
        first) and the aggregated fuzzy metrics with τ."""
        tau, zd = params.tau, params.zero_division
        validate = SelectionRow.__pydantic_validator__.validate_python  # model_validate's own
        rows: list[SelectionRow] = []
        for item, m in zip(items, judged.matrices, strict=True):
            head = {"id": item.id, "source": item.source, **query_of(item)}
            rows.append(validate(row_fields(m, tau, zd, head)))
        agg = aggregate_fuzzy(rows, zero_division=zd)  # the rows carry the results' numbers
        return rows, {"tau": tau, **agg.to_dict()}

    def item_truth(self, item_id: str, pred: Any, truth: Any, label: Mapping[str, Any],
                   place: LabelPlace) -> ItemTruth:
        """The accepted matches of one item (:func:`judge.tasks.humantruth.selection_truth`)."""
        return selection_truth(item_id, pred, truth, label, place)

    def human_columns(self, rows: Sequence[SelectionRow],
                      truths: Mapping[int, Sequence[ItemTruth]],
                      params: Params) -> list[HumanColumn]:
        """Macro and micro P/R/F1 and the TP total, counted from the accepted matches
        (:func:`judge.tasks.humantruth.selection_columns`)."""
        return selection_columns(rows, truths, params.zero_division)

    def metrics_from_rows(self, rows: Sequence[SelectionRow]) -> dict[str, float]:
        """Macro and micro fuzzy P/R/F1 (:func:`judge.tasks.matching.fuzzy_metrics`)."""
        return fuzzy_metrics(rows)

    def resampled(self, rows: Sequence[SelectionRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:func:`~judge.tasks.matching.fuzzy_metrics` of a resample, from the rows' values
        read once (:class:`~judge.tasks.matching.FuzzyColumns`)."""
        return FuzzyColumns.of(rows).metrics

    def rescore(self, record: RunRecord, tau: float, rule: str | None = None,
                quorum: int | None = None, overrides: HumanOverrides | None = None,
                ) -> tuple[list[SelectionRow], dict[str, Any]] | None:
        """Re-match the stored matrices at τ; for a panel run, first re-vote the members'
        stored verdicts with ``rule``/``quorum`` (None = the run's); then put the human
        ``overrides`` in (their counts: ``metrics["overrides"]``). None when the rows do not
        store their scores (a run written before they were).

        Raises:
            InputError: a row that is not a selection row, or stores no matrix while the
                first one does.
        """
        rows = self.rows(record)
        if not rows or rows[0].scores is None:
            return None
        stored = [_stored(r) for r in rows]
        judge = record.config.judge
        if judge is not None and judge.is_panel:
            members = [m.id for m in judge.members]
            scores, scoped = member_scores(record.verdict_rows(), judge.id)
            matrices = [revoted_matrix(p, t, r.id if scoped else None,
                                       scores, members, rule or str(judge.vote),
                                       (judge.quorum or 1) if quorum is None else quorum,
                                       tau)
                        for r, (p, t, _) in zip(rows, stored, strict=True)]
        else:
            matrices = [stored_matrix(s, len(p), len(t)) for p, t, s in stored]
        extra = {}
        if overrides is not None:
            extra = {"overrides": overridden(overrides, tau, [
                (m, p, t, r.id) for r, (p, t, _), m in zip(rows, stored, matrices, strict=True)])}
        zd = float(record.config.zero_division)
        results = [fuzzy_match(p, t, m, tau=tau, zero_division=zd)
                   for (p, t, _), m in zip(stored, matrices, strict=True)]
        out = [SelectionRow.model_validate({"id": r.id, **res.to_dict()})
               for r, res in zip(rows, results, strict=True)]
        return out, {"tau": tau, **aggregate_fuzzy(results, zero_division=zd).to_dict(),
                     **extra}

    def matrices(self, row: SelectionRow) -> list[HeatmapView]:
        """The item's one similarity matrix (none when the row did not store it)."""
        if row.scores is None:
            return []
        pred, truth, scores = _stored(row)
        return [HeatmapView("", list(pred), list(truth), scores, list(row.matches))]
