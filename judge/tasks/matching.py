"""Judged similarity matrices → fuzzy matching rows: what ``selection`` and ``spans`` share.

* :func:`judge_groups` — judge the (pred strings, truth strings) groups of a dataset through
  :func:`judge.matrix.build_matrices_async` (normalised-equal pairs exact at 1.0 with no call;
  distinct pairs judged once; cache, progress, failure outcomes) and collect the verdict rows,
  the accounting and, for a panel, its agreement and disagreements;
* :func:`match_row` — one matrix matched at τ (:func:`metrics.fuzzy_match`, seed 001's fuzzy TP)
  as the fields of a row that stores its strings and scores, so the run can be re-scored with
  no call (:mod:`judge.tasks.matchrow`, with :func:`~judge.tasks.matchrow.row_fields`);
* :func:`stored_matrix` / :func:`revoted_matrix` — a stored row's matrix as written, or rebuilt
  from the panel members' stored verdicts under another vote rule, quorum or τ;
* :func:`fuzzy_metrics` — dataset macro (mean of per-row values) and micro (from summed
  counts) fuzzy P/R/F1 of matched rows (:class:`~judge.record.itemrows.SelectionRow`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.judges.base import Judge, JudgeContext
from judge.matrix import MatrixBuild, build_matrices_async, distinct_pairs
from judge.tasks.base import Judged
from judge.tasks.columns import MeanColumn
from judge.tasks.matchrow import match_row as match_row  # its home before the split
from judge.tasks.overrides import HumanOverrides
from judge.verdict import OUTCOMES
from metrics import fuzzy_prf, normalize
from metrics.selection import FuzzyCounts

Group = tuple[Sequence[str], Sequence[str]]
"""``(pred strings, truth strings)`` of one matrix."""


def work_units(groups: Sequence[Group], judge: Judge) -> int:
    """Units of judge work for the groups' distinct non-exact pairs (progress-bar total)."""
    return int(judge.work_units(distinct_pairs(groups)[0]))


async def judge_groups(groups: Sequence[Group], ids: Sequence[str], judge: Judge,
                       ctx: JudgeContext, tau: float,
                       overrides: HumanOverrides | None = None) -> Judged:
    """Judge every group's pairs once and return the matrices with their audit trail.

    Args:
        groups: one ``(pred strings, truth strings)`` per matrix.
        ids: the item id each group belongs to (item-scoped judges look pairs up by it;
            verdict rows carry it as ``item_id``).
        judge: the similarity judge (a panel included).
        ctx: the run's judge context; its ``verdict_log`` (a spool file for ``simjudge
            eval``) receives the verdict rows, else an in-memory log does.
        tau: τ in [0, 1] (a panel's ``majority`` vote and agreement use it).
        overrides: human labels that replace the judge's score of the pairs they cover
            (:mod:`judge.tasks.overrides`: a ``human`` row is logged beside the judge's own,
            and ``accounting["overrides"]`` counts them); None = none.

    Returns:
        :class:`Judged` with ``matrices`` (one :class:`SimilarityMatrix` per group),
        ``log`` (the verdict rows: per chunk of pairs, panel members' own verdicts first),
        ``accounting`` (``pairs_total``, ``pairs_exact``, ``pairs_distinct``,
        ``pairs_without_verdict``, ``outcomes``, ``judge_wall_s``, ``panel``) and
        ``extra_jsonl`` (``disagreements.jsonl`` for a panel).
    """
    build: MatrixBuild = await build_matrices_async(list(groups), judge, ctx, ids=list(ids),
                                                    log=ctx.verdict_log)
    judged = Judged(log=build.log, matrices=build.matrices)
    _panel_accounting(judge, ctx, tau, judged)
    judged.accounting.update({
        "pairs_total": build.pairs_total, "pairs_exact": build.pairs_exact,
        "pairs_distinct": build.pairs_distinct,
        "pairs_without_verdict": build.pairs_without_verdict,
        "outcomes": {o: build.outcomes.get(o, 0) for o in OUTCOMES},
        "judge_wall_s": round(build.wall_s, 6),
    })
    if overrides is not None:
        _override(build, ids, overrides, tau, judged)
    return judged


def _override(build: MatrixBuild, ids: Sequence[str], overrides: HumanOverrides, tau: float,
              judged: Judged) -> None:
    """Put the human labels into the built matrices, log their rows, count them."""
    from judge.matrix import CellVerdict
    from judge.tasks.overrides import HUMAN, Applied, apply, human_row, summary

    counts = Applied()
    for item_id, m in zip(ids, build.matrices, strict=True):
        for i, j, label, _ in apply(m.scores, m.pred, m.truth, item_id, overrides, tau,
                                    counts):
            own = m.cell(i, j)
            m.overridden[(i, j)] = CellVerdict(label.score, "ok", HUMAN)
            build.log.append(human_row(label, item_id, m.pred[i], m.truth[j],
                                       None if own is None else (own.score, own.outcome)))
    judged.accounting["overrides"] = summary(overrides, counts.overridden, counts.exact,
                                             counts.flipped, tau)


def _panel_accounting(judge: Judge, ctx: JudgeContext, tau: float, judged: Judged) -> None:
    """For a panel: agreement of its members' logged verdicts, disagreements, undecided
    pairs."""
    from judge.judges.panel import Panel, agreement

    if not isinstance(judge, Panel):
        return
    member_ids = [m.id for m in judge.members]
    state = ctx.panel  # the run's undecided count (judge.judges.panel)
    members = (r for r in judged.rows() if r.get("member_of") == judge.id)
    agree = agreement(members, member_ids, tau)
    judged.extra_jsonl["disagreements.jsonl"] = agree.pop("disagreements")
    judged.accounting["panel"] = {
        "vote": judge.vote_rule, "quorum": judge.quorum, "members": member_ids,
        "undecided": state.undecided, "agreement": agree,
        "disagreements": len(judged.extra_jsonl["disagreements.jsonl"])}


def overridden(overrides: HumanOverrides, tau: float,
               matrices: Iterable[tuple[NDArray[np.float64], Sequence[str], Sequence[str], str]],
               ) -> dict[str, Any]:
    """Put the human labels into stored matrices ``(scores, pred, truth, item id)``, in
    place (``rescore --overrides``); returns their counts
    (:func:`judge.tasks.overrides.summary`)."""
    from judge.tasks.overrides import Applied, apply, summary

    counts = Applied()
    for scores, pred, truth, item_id in matrices:
        apply(scores, pred, truth, item_id, overrides, tau, counts)
    return summary(overrides, counts.overridden, counts.exact, counts.flipped, tau)


def stored_matrix(scores: Sequence[Sequence[float | None]], n_pred: int, n_truth: int,
                  ) -> NDArray[np.float64]:
    """The ``n_pred``×``n_truth`` matrix a row stores (``scores`` as
    :func:`~judge.tasks.matchrow.match_row` writes them: nested lists, None → NaN)."""
    return np.array([[np.nan if x is None else x for x in r] for r in scores],
                    dtype=np.float64).reshape(n_pred, n_truth)


def member_scores(verdict_rows: Iterable[Mapping[str, Any]], panel_id: str,
                  ) -> tuple[dict[tuple[Any, str, str, str], float | None], bool]:
    """The panel members' stored scores ``(item_id, pred, truth, member id) → score or None``
    (None = failed verdict), and whether they are item-scoped (carry item ids)."""
    scores: dict[tuple[Any, str, str, str], float | None] = {}
    for v in verdict_rows:
        if v.get("member_of") == panel_id:
            scores[(v.get("item_id"), v["pred"], v["truth"], v["judge_id"])] = (
                v["score"] if v["outcome"] == "ok" else None)
    return scores, any(k[0] is not None for k in scores)


def revoted_matrix(pred: Sequence[str], truth: Sequence[str], scope: str | None,
                   scores: Mapping[tuple[Any, str, str, str], float | None],
                   members: Sequence[str], rule: str, quorum: int, tau: float,
                   ) -> NDArray[np.float64]:
    """An m×n matrix rebuilt from members' stored verdicts: exact (normalised-equal) pairs 1.0;
    a pair with at least ``quorum`` member scores gets their ``rule`` vote
    (:func:`judge.panel.vote`); else NaN.

    Args:
        scope: the item id when the member verdicts are item-scoped, else None.
    """
    from judge.judges.panel import vote

    m = np.full((len(pred), len(truth)), np.nan)
    for i, p in enumerate(pred):
        for j, t in enumerate(truth):
            if normalize(p) == normalize(t):
                m[i, j] = 1.0
                continue
            got = [scores.get((scope, p, t, jid)) for jid in members]
            if sum(s is not None for s in got) >= quorum:
                m[i, j] = vote(got, rule, tau)
    return m


def fuzzy_metrics(rows: Sequence[FuzzyCounts]) -> dict[str, float]:
    """Dataset fuzzy P/R/F1 of matched rows: ``macro_*`` = mean of the rows' values, ``micro_*``
    from the summed ``tp_fuzzy``, ``n_pred`` and ``n_truth`` (seed 001's aggregation);
    :meth:`FuzzyColumns.metrics` of all the rows.

    Examples:
        >>> from judge.record.itemrows import SelectionRow
        >>> rows = [SelectionRow(id="a", tp_fuzzy=1.0, n_pred=2, n_truth=1, n_exact=0,
        ...                      precision=0.5, recall=1.0, f1=2 / 3),
        ...         SelectionRow(id="b", tp_fuzzy=0.0, n_pred=1, n_truth=1, n_exact=0,
        ...                      precision=0.0, recall=0.0, f1=0.0)]
        >>> m = fuzzy_metrics(rows)
        >>> round(m["micro_precision"], 4), m["micro_recall"], round(m["macro_f1"], 4)
        (0.3333, 0.5, 0.3333)
    """
    return FuzzyColumns.of(rows).metrics()


class FuzzyColumns:
    """The values :func:`fuzzy_metrics` needs, read from the rows once, so the bootstrap's
    resamples index them instead of reading typed rows again (:mod:`judge.tasks.columns`).

    The numbers are those of the row-by-row definition, bit for bit: TP_fuzzy summed by
    Python's ``sum`` in row order, counts as integers, the macro means by numpy's mean of the
    same values in the same order (:class:`~judge.tasks.columns.MeanColumn`).
    """

    def __init__(self, rows: Sequence[FuzzyCounts]) -> None:
        self.tp: list[float] = []
        n_pred: list[int] = []
        n_truth: list[int] = []
        p: list[float] = []
        r: list[float] = []
        f: list[float] = []
        for row in rows:
            self.tp.append(row.tp_fuzzy)
            n_pred.append(row.n_pred)
            n_truth.append(row.n_truth)
            p.append(row.precision)
            r.append(row.recall)
            f.append(row.f1)
        self.n_pred = np.asarray(n_pred, dtype=np.int64)
        self.n_truth = np.asarray(n_truth, dtype=np.int64)
        self.precision, self.recall, self.f1 = MeanColumn(p), MeanColumn(r), MeanColumn(f)

    @classmethod
    def of(cls, rows: Sequence[FuzzyCounts]) -> FuzzyColumns:
        """The columns of ``rows`` (typed rows or anything with their six attributes)."""
        return cls(rows)

    def metrics(self, idx: NDArray[np.intp] | None = None) -> dict[str, float]:
        """:func:`fuzzy_metrics` of the rows ``idx`` (a resample, repeats allowed; None = all
        rows in order)."""
        if idx is None:
            tp = sum(self.tp)
            n_pred, n_truth = int(self.n_pred.sum()), int(self.n_truth.sum())
        else:
            tp = sum(map(self.tp.__getitem__, idx.tolist()))
            n_pred, n_truth = int(self.n_pred[idx].sum()), int(self.n_truth[idx].sum())
        mp, mr, mf = fuzzy_prf(tp, n_pred, n_truth)
        return {"macro_precision": self.precision.mean(idx),
                "macro_recall": self.recall.mean(idx), "macro_f1": self.f1.mean(idx),
                "micro_precision": mp, "micro_recall": mr, "micro_f1": mf}
