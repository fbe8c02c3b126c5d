"""``--task judgment``: each item is a boolean prediction against a boolean gold label;
accuracy, precision, recall and F1 of the positive class over the dataset (seed 001's binary
judgment metrics; the same values as scikit-learn's ``accuracy_score`` and
``precision_recall_fscore_support(average="binary")``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge import io
from judge.items import Item
from judge.record.itemrows import JudgmentRow
from judge.tasks.base import Judged, Params, Task
from judge.tasks.selection import query_of
from judge.tasks.views import boolean_view
from metrics import binary_scores


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
        s = binary_scores([r.truth for r in rows], [r.pred for r in rows])
        return {"accuracy": s.accuracy, "precision": s.precision, "recall": s.recall,
                "f1": s.f1}

    def view(self, row: JudgmentRow) -> dict[str, Any]:
        """The ``boolean`` view: prediction, gold and whether they agree."""
        return boolean_view(row)
