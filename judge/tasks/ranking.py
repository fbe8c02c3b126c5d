"""``--task ranking``: a TREC run against TREC qrels; AP, AP@k, NDCG, NDCG@k and ERR@k per
query, averaged over the queries that have judgments (trec_eval's ``map``, ``ndcg``,
``ndcg_cut``; ERR of Chapelle et al. 2009 with the largest judged grade as the maximum)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from judge import io
from judge.errors import InputError
from judge.items import Item
from judge.record.itemrows import RANK_CUTOFF, RankingRow
from judge.tasks.base import Judged, Params, Source, Task
from judge.tasks.columns import column_means, column_means_resampled
from judge.tasks.rankoptions import RankingOptions
from judge.tasks.views import ranking_view
from metrics import average_precision, err_at_k, ndcg_at_k

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

K = RANK_CUTOFF
"""Cut-off of AP@k, NDCG@k and ERR@k (the rows' field names carry it:
:data:`judge.record.itemrows.RANK_CUTOFF`)."""
_COLUMNS: dict[str, Callable[[RankingRow], float]] = {
    "map": lambda r: r.ap, f"map@{K}": lambda r: r.ap_at_k, "ndcg": lambda r: r.ndcg,
    f"ndcg@{K}": lambda r: r.ndcg_at_k, f"err@{K}": lambda r: r.err_at_k}
"""The dataset metrics (means over queries; AP's mean is MAP) and the row value of each."""

def load_ranking(run_path: Any, qrels_path: Any, max_rank: int = 0) -> list[Item]:
    """TREC run + qrels → one item per judged query (pred = ranked doc ids, truth = doc →
    grade), read by :func:`metrics.trec.read_run` and :func:`metrics.trec.read_qrels` (their
    rules: fields separated by spaces and tabs, a finite decimal score, an integer grade in
    ±1000); a query of the run without judgments is left out, as trec_eval leaves it out.
    ``max_rank``: documents kept per query (trec_eval ``-M``; 0 = all, its default).

    Raises:
        InputError: no qrels given, unreadable or malformed files (``FILE:LINE: field 'score':
            not a finite number: 'nan'``), no query in common.
    """
    if qrels_path is None:
        raise InputError("task 'ranking' needs the qrels file: --gold QRELS", field="gold")
    from metrics.trec import TrecFormatError, read_qrels, read_run  # lazy: fast `--help`

    try:
        run = read_run(run_path, max_rank or None)
        qrels = read_qrels(qrels_path)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc}") from None
    except UnicodeDecodeError:
        for path in (run_path, qrels_path):
            io.read_text_utf8(path)  # raises naming the file, line and byte
        raise
    except TrecFormatError as exc:
        raise InputError(exc.message, exc.path, exc.line, exc.field) from None
    items = [Item(q, f"{run_path}", run[q], qrels[q]) for q in run if q in qrels]
    if not items:
        raise InputError("no query of the run has judgments in the qrels", run_path)
    return items

class RankingTask(Task[RankingRow]):
    """A ranked run against graded relevance judgments."""

    name = "ranking"
    row_model = RankingRow
    summary = "TREC run against qrels: MAP, NDCG, ERR (trec_eval conventions)"
    no_judge_reason = "it scores a TREC run against qrels"
    Options = RankingOptions

    def load(self, source: Source, options: Any = None) -> list[Item]:
        """Read the TREC run (``source.data``) and qrels (``source.gold``, required).

        Raises:
            InputError: see :func:`load_ranking`.
        """
        opts = options if isinstance(options, RankingOptions) else RankingOptions()
        return load_ranking(source.data, source.gold, opts.max_rank)

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
        for AP) with the query count and ERR's maximum grade."""
        max_grade = max([1, *[g for i in items for g in i.truth.values()]])
        rows: list[RankingRow] = []
        for i in items:
            rows.append(RankingRow.model_validate({
                         "id": i.id, "source": i.source, "retrieved": len(i.pred),
                         "relevant": sum(1 for g in i.truth.values() if g >= 1),
                         "ap": average_precision(i.pred, i.truth),
                         f"ap@{K}": average_precision(i.pred, i.truth, k=K),
                         "ndcg": ndcg_at_k(i.pred, i.truth),
                         f"ndcg@{K}": ndcg_at_k(i.pred, i.truth, K),
                         f"err@{K}": err_at_k(i.pred, i.truth, max_grade, K),
                         "ranked": list(i.pred), "qrels": dict(i.truth)}))
        return rows, {"queries": len(items), "err_max_grade": max_grade,
                      **self.metrics_from_rows(rows)}

    def metrics_from_rows(self, rows: Sequence[RankingRow]) -> dict[str, float]:
        """Means over queries of AP (``map``), AP@k (``map@k``), NDCG, NDCG@k and ERR@k
        (k = :data:`K`); none without rows."""
        return column_means(_COLUMNS, rows) if rows else {}

    def resampled(self, rows: Sequence[RankingRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' values read once."""
        return column_means_resampled(_COLUMNS, rows)

    def view(self, row: RankingRow) -> dict[str, Any]:
        """The ``ranking`` view: ranked documents against the relevant ones."""
        return ranking_view(row)
