"""``--task ranking``: a TREC run against TREC qrels; AP, AP@k, NDCG, NDCG@k and ERR@k per
query, averaged over the queries that have judgments (trec_eval's ``map``, ``map_cut``,
``ndcg``, ``ndcg_cut``, computed by pytrec_eval; ERR of Chapelle et al. 2009 and NDCG with
another gain than the grade by :mod:`metrics.ranking`), and any trec_eval measure asked for
(``--measure``: :mod:`metrics.treceval`), with trec_eval's ``-l``, ``-c`` and ``-M``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from judge import io
from judge.errors import InputError
from judge.items import Item
from judge.record.itemrows import RANK_CUTOFF, RankingRow
from judge.tasks.base import Judged, Params, Source, Task
from judge.tasks.columns import column_means, column_means_resampled
from judge.tasks.inputs import run_source
from judge.tasks.options import task_options
from judge.tasks.rankoptions import RankingOptions
from judge.tasks.views import ranking_view

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from judge.record.runrecord import RunRecord
    from judge.tasks.overrides import HumanOverrides
    from metrics.ranking import Gain
    from metrics.treceval import Measure

K = RANK_CUTOFF
"""Cut-off of AP@k, NDCG@k and ERR@k (the rows' field names carry it:
:data:`judge.record.itemrows.RANK_CUTOFF`)."""
_COLUMNS: dict[str, Callable[[RankingRow], float]] = {
    "map": lambda r: r.ap, f"map@{K}": lambda r: r.ap_at_k, "ndcg": lambda r: r.ndcg,
    f"ndcg@{K}": lambda r: r.ndcg_at_k, f"err@{K}": lambda r: r.err_at_k}
"""The dataset metrics (means over queries; AP's mean is MAP) and the row value of each."""


def load_ranking(run_path: Any, qrels_path: Any, max_rank: int = 0,
                 all_queries: bool = False) -> list[Item]:
    """TREC run + qrels → one item per judged query (pred = ranked doc ids, truth = doc →
    grade), read by :func:`metrics.trec.read_run` and :func:`metrics.trec.read_qrels` (their
    rules: fields separated by spaces and tabs, a finite decimal score, an integer grade in
    ±1000); a query of the run without judgments is left out, as trec_eval leaves it out.
    ``max_rank``: documents kept per query (trec_eval ``-M``; 0 = all, its default).
    ``all_queries``: a query of the qrels the run lacks is an item with an empty ranking
    (trec_eval ``-c``), in the qrels' order after the run's. Each item's ``extra["scores"]``
    holds its documents' scores (doc → score, the kept ones), pytrec_eval's input, and
    ``extra["typed"]`` is True: its values have the types of :class:`RankingRow`'s fields
    (:func:`judge.tasks.rankscore.score_queries` need not validate them again).

    Raises:
        InputError: no qrels given, unreadable or malformed files (``FILE:LINE: field 'score':
            not a finite number: 'nan'``), no query in common.
    """
    if qrels_path is None:
        raise InputError("task 'ranking' needs the qrels file: --gold QRELS", field="gold")
    from metrics.trec import TrecFormatError, ranked, read_qrels, read_run_scores  # lazy

    try:
        scores = read_run_scores(run_path)
        qrels = read_qrels(qrels_path)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc}") from None
    except UnicodeDecodeError:
        for path in (run_path, qrels_path):
            io.read_text_utf8(path)  # raises naming the file, line and byte
        raise
    except TrecFormatError as exc:
        raise InputError(exc.message, exc.path, exc.line, exc.field) from None
    run = {q: ranked(s, max_rank or None) for q, s in scores.items() if q in qrels}
    items = [Item(q, f"{run_path}", docs, qrels[q],  # the scores, pytrec_eval's input
                  extra={"scores": scores[q] if len(docs) == len(scores[q])
                         else {d: scores[q][d] for d in docs}, "typed": True})
             for q, docs in run.items()]
    if not items:
        raise InputError("no query of the run has judgments in the qrels", run_path)
    if all_queries:
        items += [Item(q, f"{qrels_path}", [], qrels[q], extra={"typed": True})
                  for q in qrels if q not in run]
    return items


def settings(opts: RankingOptions) -> tuple[list[Measure], Gain]:
    """The trec_eval measures asked for and NDCG's gain, read from the options.

    Raises:
        InputError: an unknown or malformed measure (field ``measure``) or gain (``gain``);
            ``--measure ndcg`` with a gain other than linear (two different ``ndcg``).
    """
    from metrics.ranking import parse_gain
    from metrics.treceval import parse_measures

    try:
        measures = parse_measures(opts.measure)
    except ValueError as exc:
        raise InputError(str(exc), field="measure") from None
    try:
        gain = parse_gain(opts.gain)
    except ValueError as exc:
        raise InputError(str(exc), field="gain") from None
    if gain != "linear" and any(m.base == "ndcg" for m in measures):
        raise InputError(f"--measure ndcg is trec_eval's NDCG with gain = grade, and with "
                         f"--gain {opts.gain} the run's own 'ndcg' uses that gain: ask for "
                         "one of them", field="measure")
    return measures, gain


class RankingTask(Task[RankingRow]):
    """A ranked run against graded relevance judgments."""

    name = "ranking"
    row_model = RankingRow
    summary = "TREC run against qrels: MAP, NDCG, ERR and trec_eval's measures"
    no_judge_reason = "it scores a TREC run against qrels"
    Options = RankingOptions

    def load(self, source: Source, options: Any = None) -> list[Item]:
        """Read the TREC run (``source.data``) and qrels (``source.gold``, required), after
        checking the measures and the gain.

        Raises:
            InputError: see :func:`load_ranking` and :func:`settings`.
        """
        opts = options if isinstance(options, RankingOptions) else RankingOptions()
        settings(opts)
        return load_ranking(source.data, source.gold, opts.max_rank, opts.all_queries)

    def from_dicts(self, rows: Sequence[Mapping[str, Any]], pred_field: str | None = None,
                   truth_field: str | None = None, id_fields: Sequence[str] = (),
                   max_chars: int = 0, where: Sequence[str] = ()) -> list[Item]:
        """Not available: ranking reads a TREC run and qrels (build Items with
        :func:`load_ranking`).

        Raises:
            InputError: always.
        """
        raise InputError("task 'ranking' reads a TREC run and qrels: build its items with "
                         "judge.tasks.ranking.load_ranking", field="task")

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[RankingRow], dict[str, Any]]:
        """Rows with the per-query values, the ranked list and the qrels; their means (``map``
        for AP) and the trec_eval measures' ``all`` values, with the query count and ERR's
        maximum grade.

        Raises:
            InputError: a grade above ``--err-max-grade`` (query and document named).
        """
        from judge.tasks.rankscore import score_queries

        opts = self.options(params)
        measures, gain = settings(opts)
        rows, max_grade = score_queries(items, opts, measures, gain)
        return rows, {"queries": len(items), "err_max_grade": max_grade,
                      **self.metrics_from_rows(rows)}

    def metrics_from_rows(self, rows: Sequence[RankingRow]) -> dict[str, float]:
        """Means over queries of AP (``map``), AP@k (``map@k``), NDCG, NDCG@k and ERR@k
        (k = :data:`K`), then each trec_eval measure of the rows' ``measures`` aggregated as
        trec_eval's ``all`` (:func:`metrics.treceval.aggregate`); none without rows."""
        return self.resampled(rows)(None) if rows else {}

    def resampled(self, rows: Sequence[RankingRow],
                  ) -> Callable[[NDArray[np.intp] | None], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' values read once."""
        from judge.tasks.rankscore import measure_columns

        means = column_means_resampled(_COLUMNS, rows)
        trec = measure_columns(rows)

        def at(idx: NDArray[np.intp] | None) -> dict[str, float]:
            own = column_means(_COLUMNS, rows) if idx is None else means(idx)
            return {**own, **{k: v for k, v in trec(idx).items() if k not in own}}
        return at

    def rescore(self, record: RunRecord, tau: float, rule: str | None = None,
                quorum: int | None = None, overrides: HumanOverrides | None = None,
                ) -> tuple[list[RankingRow], dict[str, Any]] | None:
        """The run's metrics recomputed from its input files with its own ranking options
        (``config.json``'s ``task_options``) and the current metric code.

        Raises:
            InputError: an input file of the run is missing or changed since the run.
        """
        opts = task_options(RankingOptions, record.config.task_options, self.name)
        source = run_source(record)
        items = source.first(self.load(source, opts))
        return self.score(items, Judged(), Params(options=opts))

    def view(self, row: RankingRow) -> dict[str, Any]:
        """The ``ranking`` view: ranked documents against the relevant ones."""
        return ranking_view(row)
