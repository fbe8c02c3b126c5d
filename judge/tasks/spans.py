"""``--task spans``: span-level fuzzy matching for named-entity recognition.

Each item's prediction and gold are lists of spans ``{start, end, type, text}`` (character
offsets, ``end`` exclusive). Within an item and an entity type, spans with the same offsets are
exact matches (1.0, no judge call); the judge scores the texts of the remaining predicted and
gold spans of that type (distinct pairs once, normalised-equal texts 1.0 with no call, cache,
progress, panels: :func:`judge.tasks.matching.judge_groups`), and they are matched one-to-one
when the score is strictly greater than τ. Reported: fuzzy P/R/F1 micro (summed counts) and
macro (mean over entity types), strict (exact-offset) P/R/F1 as CoNLL-2003 / ``seqeval``
strict mode, and a per-type table (definitions: :mod:`metrics.spans`).

Each item row (:class:`~judge.record.itemrows.SpansRow`, built by :mod:`judge.tasks.spanrows`)
stores, per type, the span texts, offsets, the score matrix (null = no verdict) and the matches,
so :meth:`SpansTask.rescore` re-matches at another τ with no judge call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from judge import io
from judge.errors import InputError
from judge.io import Record
from judge.items import Item
from judge.matrix import SimilarityMatrix
from judge.record.itemrows import SpansRow, SpanTypeRow
from judge.tasks.base import HeatmapView, Judged, Params, Task
from judge.tasks.matching import (
    judge_groups,
    member_scores,
    revoted_matrix,
    stored_matrix,
    work_units,
)
from judge.tasks.overrides import Applied, apply, summary
from judge.tasks.selection import query_of
from judge.tasks.spanrows import (
    Group,
    dataset_summary,
    full_matrix,
    group,
    item_row,
    nerv_counts,
    row_counts,
    span_metrics,
    spans_of,
    type_row,
    types_of,
)
from judge.tasks.views import markdown_lines
from metrics.nerschemes import nervaluate_counts, nervaluate_type_counts
from metrics.spans import Span, as_span, by_type

if TYPE_CHECKING:
    from judge.judges.base import Judge, JudgeContext
    from judge.record.runrecord import RunRecord
    from judge.tasks.overrides import HumanOverrides

def span_list(record: Record, field: str) -> list[dict[str, Any]]:
    """A list of spans ``{start, end, type, text}`` (CSV/TSV: a JSON array in the cell),
    returned as plain dicts with those four keys (other keys are dropped). When the record has
    a ``query`` string, the spans are offsets into it (Python string indices: code points):
    each span's ``end`` is at most its length and its ``text`` is ``query[start:end]``.

    A span with an empty ``type`` is kept: it makes its item invalid, not the file
    (:func:`item_spans`).

    Raises:
        InputError: missing field, not a list, or a bad span (index and key named: offsets
            not integers, ``start < 0``, ``end <= start``, a ``type`` that is not a string,
            empty ``text``; with a ``query``: ``end`` past its end, or ``text`` other than
            ``query[start:end]``).
    """
    value = io.maybe_json(record, field, io.get_field(record, field))
    if not isinstance(value, list):
        raise record.error("expected a list of spans {start, end, type, text}, got "
                           f"{type(value).__name__}", field)
    query = record.data.get("query")
    out = []
    for i, v in enumerate(value):
        try:
            span = as_span(v, f"span {i}", empty_type=True)
        except ValueError as exc:
            raise record.error(str(exc), field) from None
        if isinstance(query, str):
            _check_in_query(record, field, i, span, query)
        out.append(span.to_dict())
    return out


def _check_in_query(record: Record, field: str, i: int, span: Span, query: str) -> None:
    """A span of the record's ``query``: ``end <= len(query)``, ``text == query[start:end]``.

    Raises:
        InputError: either is not so (span index, offsets and both texts named).
    """
    if span.end > len(query):
        raise record.error(f"span {i}: 'end' {span.end} is past the end of the record's "
                           f"'query' ({len(query)} characters)", field)
    if query[span.start:span.end] != span.text:
        raise record.error(f"span {i}: 'text' {_cut(span.text)} is not the query's characters "
                           f"{span.start}–{span.end}, {_cut(query[span.start:span.end])}",
                           field)


def _cut(text: str, width: int = 40) -> str:
    """``repr(text)``, cut at ``width`` characters of the text."""
    return repr(text) if len(text) <= width else repr(text[:width]) + "…"


def item_spans(item: Item) -> tuple[list[Span], list[Span], str | None]:
    """The predicted and gold spans an item is scored with, and why it is invalid (None:
    valid). A predicted span with an empty type makes the prediction unusable: scored as
    predicting nothing (its gold spans missed). A gold span with an empty type leaves the
    item out of every measure (no spans on either side)."""
    p = [Span(**d) for d in item.pred]
    t = [Span(**d) for d in item.truth]
    for side, spans in (("truth", t), ("pred", p)):
        bad = next((i for i, x in enumerate(spans) if not x.type), None)
        if bad is not None:
            reason = f"{side} span {bad}: 'type' is empty"
            return ([], [], reason + "; item left out") if side == "truth" else \
                ([], t, reason + "; scored as predicting nothing")
    return p, t, None


def _groups(items: Sequence[Item]) -> list[Group]:
    """Every (item, type) group, items in order, types sorted."""
    out = []
    for k, item in enumerate(items):
        p, t, _ = item_spans(item)
        for typ, (ip, it) in by_type(p, t).items():
            out.append(group(k, typ, [p[i] for i in ip], [t[j] for j in it]))
    return out


def _pairs(groups: Sequence[Group]) -> list[tuple[list[str], list[str]]]:
    """The texts the judge scores: per group, the spans left after exact matching."""
    return [([g.pred[i].text for i in g.rest_p], [g.truth[j].text for j in g.rest_t])
            for g in groups]


class SpansTask(Task[SpansRow]):
    """Entity spans matched per type: exact offsets, then by the judge on texts above τ."""

    name = "spans"
    row_model = SpansRow
    summary = "entity spans {start, end, type, text}: exact offsets or judge > τ, per type"
    extractors = (span_list, span_list)
    judge_role = "judge"
    threshold = "tau"
    needs_judge = True
    uses_tau = True

    def work_units(self, items: Sequence[Item], judge: Judge) -> int:
        """Units of judge work over the distinct non-exact text pairs."""
        return work_units(_pairs(_groups(items)), judge)

    def judge_requests(self, items: Sequence[Item], params: Params
                       ) -> list[tuple[str, list[tuple[str, str]]]]:
        """The distinct non-exact span-text pairs left after exact-offset matching."""
        from judge.matrix import distinct_pairs

        return [(params.context, distinct_pairs(_pairs(_groups(items)))[0])]

    async def judge(self, items: Sequence[Item], judge: Judge | None, ctx: JudgeContext,
                    params: Params) -> Judged:
        """Judge, per (item, type), the texts of the spans left after exact matching.

        Returns:
            :class:`Judged` with one matrix per (item, type) group (items in order, types
            sorted) and the accounting of :func:`judge.tasks.matching.judge_groups` plus
            ``span_pairs_exact`` (exact-offset matches, never judged).

        Raises:
            InputError: no judge given.
        """
        if judge is None:
            raise InputError("task 'spans' needs a judge", field="judge")
        groups = _groups(items)
        judged = await judge_groups(_pairs(groups), [items[g.item].id for g in groups],
                                    judge, ctx, params.tau, params.overrides)
        judged.accounting["span_pairs_exact"] = sum(len(g.exact) for g in groups)
        return judged

    def pair_groups(self, items: Sequence[Item]) -> list[tuple[str, Sequence[str],
                                                               Sequence[str]]]:
        """Per (item, type): the item's id and the texts of the spans left after exact-offset
        matching (what the judge scores)."""
        groups = _groups(items)
        return [(items[g.item].id, p, t) for g, (p, t) in zip(groups, _pairs(groups),
                                                              strict=True)]

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[SpansRow], dict[str, Any]]:
        """One row per item (id, source, query, item-level scores, ``types``) and the dataset
        scores (:func:`metrics.spans.span_scores`) with τ and ``per_type_f1``.

        Raises:
            ValueError: ``judged.matrices`` not aligned with the (item, type) groups.
        """
        groups = _groups(items)
        mats: list[SimilarityMatrix | None] = list(judged.matrices) or [None] * len(groups)
        if len(mats) != len(groups):
            raise ValueError(f"judged.matrices: expected {len(groups)} (item, type) matrices, "
                             f"got {len(mats)}")
        spans = [item_spans(it) for it in items]
        per_item: list[list[SpanTypeRow]] = [[] for _ in items]
        for g, m in zip(groups, mats, strict=True):
            ids = {} if m is None else {(g.rest_p[r], g.rest_t[c]): v.judge_id
                                        for (r, c), v in m.verdicts.items()}
            full = full_matrix(g, None if m is None else m.scores)
            p, t, _ = spans[g.item]
            nerv = nervaluate_type_counts(p, t)[g.type]
            per_item[g.item].append(type_row(g, full, params.tau, params.zero_division, ids,
                                             nerv))
        rows = [item_row({"id": it.id, "source": it.source, **query_of(it),
                          **({"invalid": bad} if bad else {})}, types, params.zero_division,
                         nervaluate_counts(p, t))
                for it, types, (p, t, bad) in zip(items, per_item, spans, strict=True)]
        return rows, dataset_summary(rows, params.tau, params.zero_division)

    def metrics_from_rows(self, rows: Sequence[SpansRow]) -> dict[str, float]:
        """Micro and macro fuzzy P/R/F1, strict micro, macro and weighted P/R/F1 from the rows'
        per-type counts, and nervaluate's schemes from their nervaluate counts (undefined
        ratios 0.0)."""
        return span_metrics([row_counts(r) for r in rows],
                            [nerv_counts(r.nervaluate) for r in rows])

    def resampled(self, rows: Sequence[SpansRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, from each row's per-type counts read once."""
        per_row = [row_counts(r) for r in rows]
        nerv = [nerv_counts(r.nervaluate) for r in rows]
        return lambda idx: span_metrics([per_row[i] for i in idx], [nerv[i] for i in idx])

    def rescore(self, record: RunRecord, tau: float, rule: str | None = None,
                quorum: int | None = None, overrides: HumanOverrides | None = None,
                ) -> tuple[list[SpansRow], dict[str, Any]] | None:
        """Re-match the stored per-type matrices at τ; for a panel run, first re-vote the
        members' stored verdicts with ``rule``/``quorum`` (None = the run's); then put the
        human ``overrides`` in (counts: ``metrics["overrides"]``). None when the rows do not
        store their types.

        Raises:
            InputError: a row that is not a spans row, or stores no types while the first one
                does.
        """
        rows = self.rows(record)
        if not rows or rows[0].types is None:
            return None
        judge = record.config.judge
        panel = judge is not None and judge.is_panel
        members = [m.id for m in judge.members] if judge is not None else []
        vote = rule or (judge.vote if judge is not None else None) or "mean"
        quorum = quorum if quorum is not None else (judge.quorum if judge is not None else 1)
        scores, scoped = (member_scores(record.verdict_rows(), judge.id)
                          if judge is not None and panel else ({}, False))
        zd = float(record.config.zero_division)
        out = []
        counts = Applied()
        for r in rows:
            types = []
            for t in types_of(r):
                g = group(0, t.type, spans_of(t.type, t.pred, t.pred_offsets),
                           spans_of(t.type, t.truth, t.truth_offsets))
                m = (revoted_matrix(t.pred, t.truth, r.id if scoped else None, scores,
                                    members, vote, quorum or 1, tau)
                     if panel else stored_matrix(t.scores, len(t.pred), len(t.truth)))
                if overrides is not None:
                    apply(m, t.pred, t.truth, r.id, overrides, tau, counts)
                full = full_matrix(g, m[np.ix_(g.rest_p, g.rest_t)])
                ids = {(i, j): record.judge_id for i in g.rest_p for j in g.rest_t}
                types.append(type_row(g, full, tau, zd, ids, nerv_counts(t.nervaluate)))
            meta = {k: v for k, v in (("id", r.id), ("source", r.source), ("query", r.query),
                                      ("invalid", r.invalid))
                    if r.has(k)}  # as the row has them
            out.append(item_row(meta, types, zd, nerv_counts(r.nervaluate)))
        extra = {"overrides": summary(overrides, counts.overridden, counts.exact,
                                      counts.flipped, tau)} if overrides is not None else {}
        return out, {**dataset_summary(out, tau, zd), **extra}

    def matrices(self, row: SpansRow) -> list[HeatmapView]:
        """One heatmap per entity type (label = the type), rows = predicted span texts."""
        return [HeatmapView(t.type, list(t.pred), list(t.truth), t.scores, list(t.matches))
                for t in row.types or []]

    def view(self, row: SpansRow) -> dict[str, Any]:
        """A ``labels`` view of the spans (``TYPE 'text' [start, end)``): ``missing`` = gold
        spans left unmatched, ``extra`` = predicted spans left unmatched, plus ``matched``
        (``TYPE 'pred' ↔ 'gold' (score)``, exact ones marked) and, for an invalid item,
        ``error`` (why); ``{}`` without ``types``."""
        if row.types is None:
            return {}
        c: dict[str, list[str]] = {"pred": [], "truth": [], "missing": [], "extra": [],
                                   "matched": []}
        for t in row.types:
            for side, miss, texts, offsets, unmatched in (
                    ("pred", "extra", t.pred, t.pred_offsets, t.unmatched_pred),
                    ("truth", "missing", t.truth, t.truth_offsets, t.unmatched_truth)):
                shown = [f"{t.type} {x!r} [{o[0]}, {o[1]})"
                         for x, o in zip(texts, offsets, strict=True)]
                c[side] += shown
                c[miss] += [shown[k] for k in unmatched]
            c["matched"] += [f"{t.type} {m.pred!r} ↔ {m.truth!r} "
                             + ("(exact)" if m.exact else f"({m.score:.3f})")
                             for m in t.matches]
        return {"kind": "labels", **c, **({"error": row.invalid} if row.invalid else {})}

    def markdown(self, content: Mapping[str, Any]) -> list[str]:
        """Markdown of :meth:`view`: spans, missing/extra, one line per match, and why an
        invalid item is so."""
        return (markdown_lines(content) + [f"- matched: {m}" for m in content.get("matched", [])]
                + ([f"- invalid: {content['error']}"] if content.get("error") else []))
