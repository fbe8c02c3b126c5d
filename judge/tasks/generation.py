"""``--task generation``: each item is a generated text against one or more reference texts;
token precision, recall and F1 per item (the best over the references), averaged over items
(seed 002; SQuAD's token-overlap F1 with jieba tokenisation for Chinese)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from judge import io
from judge.items import Item
from judge.record.itemrows import GenerationRow
from judge.tasks.base import Judged, Params, Task
from judge.tasks.columns import column_means, column_means_resampled
from judge.tasks.selection import query_of
from judge.tasks.views import texts_view
from metrics import token_scores

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

TOKENIZER = "jieba"
"""Tokeniser of the token-overlap scores (:func:`metrics.token_scores`)."""
_COLUMNS: dict[str, Callable[[GenerationRow], float]] = {
    "precision": lambda r: r.precision, "recall": lambda r: r.recall, "f1": lambda r: r.f1}


class GenerationTask(Task[GenerationRow]):
    """Generated text against references: token P/R/F1."""

    name = "generation"
    row_model = GenerationRow
    summary = "text against reference texts: token precision, recall, F1"
    no_judge_reason = "its metrics are lexical"
    extractors = (io.text, io.text_or_list)

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[GenerationRow], dict[str, Any]]:
        """Rows ``{id, source, query?, pred, truth (references), precision, recall, f1}`` and
        their means."""
        rows: list[GenerationRow] = []
        for i in items:
            s = token_scores(i.pred, list(i.truth), tokenizer=TOKENIZER)
            rows.append(GenerationRow.model_validate(
                {"id": i.id, "source": i.source, **query_of(i), "pred": i.pred,
                 "truth": list(i.truth), **s.to_dict()}))
        return rows, {"tokenizer": TOKENIZER, **self.metrics_from_rows(rows)}

    def metrics_from_rows(self, rows: Sequence[GenerationRow]) -> dict[str, float]:
        """Mean token precision, recall and F1 over the rows."""
        return column_means(_COLUMNS, rows)

    def resampled(self, rows: Sequence[GenerationRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' values read once."""
        return column_means_resampled(_COLUMNS, rows)

    def view(self, row: GenerationRow) -> dict[str, Any]:
        """The ``texts`` view: the prediction and its references."""
        return texts_view(row)
