"""``--task judgment``: each item is a boolean prediction against a boolean gold label;
accuracy, precision, recall and F1 of the positive class over the dataset (seed 001's binary
judgment metrics; the same values as scikit-learn's ``accuracy_score`` and
``precision_recall_fscore_support(average="binary")``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from judge import io
from judge.items import Item
from judge.record.itemrows import JudgmentRow
from judge.tasks.base import Judged, Params, Task
from judge.tasks.selection import query_of
from judge.tasks.views import boolean_view
from metrics import binary_scores

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def _metrics(truth: list[bool], pred: list[bool]) -> dict[str, float]:
    s = binary_scores(truth, pred)
    return {"accuracy": s.accuracy, "precision": s.precision, "recall": s.recall, "f1": s.f1}


class JudgmentTask(Task[JudgmentRow]):
    """Binary judgments (true/false) against gold booleans."""

    name = "judgment"
    row_model = JudgmentRow
    summary = "booleans against gold booleans: accuracy, precision, recall, F1"
    no_judge_reason = "its labels are compared exactly"
    extractors = (io.boolean, io.boolean)

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[JudgmentRow], dict[str, Any]]:
        """Rows ``{id, source, query?, pred, truth, correct}`` and the binary scores."""
        y_true = [bool(i.truth) for i in items]
        y_pred = [bool(i.pred) for i in items]
        rows = [JudgmentRow.model_validate({"id": i.id, "source": i.source, **query_of(i),
                                            "pred": p, "truth": t, "correct": p == t})
                for i, p, t in zip(items, y_pred, y_true, strict=True)]
        scores = binary_scores(y_true, y_pred, zero_division=params.zero_division)
        return rows, scores.to_dict()

    def metrics_from_rows(self, rows: Sequence[JudgmentRow]) -> dict[str, float]:
        """Accuracy, precision, recall and F1 from the rows' ``pred``/``truth``."""
        return _metrics([r.truth for r in rows], [r.pred for r in rows])

    def resampled(self, rows: Sequence[JudgmentRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' labels read once."""
        truth, pred = [r.truth for r in rows], [r.pred for r in rows]
        return lambda idx: _metrics([truth[i] for i in idx], [pred[i] for i in idx])

    def view(self, row: JudgmentRow) -> dict[str, Any]:
        """The ``boolean`` view: prediction, gold and whether they agree."""
        return boolean_view(row)
