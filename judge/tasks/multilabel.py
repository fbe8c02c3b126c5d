"""``--task multilabel``: each item is a set of predicted labels against a set of gold labels;
per-class (C-P, C-R, C-F1), overall (O-P, O-R, O-F1) and per-sample F1 over the union of the
labels seen (seed 004; C-P and C-R equal scikit-learn's ``average="macro"`` precision and
recall, but C-F1 is the seed's harmonic mean of C-P and C-R, not scikit-learn's macro F1 (the
mean of the per-class F1); O-* equal ``average="micro"``, sample F1
``average="samples"``; :mod:`metrics.multilabel`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from judge import io
from judge.items import Item
from judge.record.itemrows import MultilabelRow
from judge.tasks.base import Judged, Params, Task
from judge.tasks.selection import query_of
from judge.tasks.views import labels_view
from metrics import multilabel_scores

if TYPE_CHECKING:
    from numpy.typing import NDArray


def _indicators(pairs: Sequence[tuple[Sequence[str], Sequence[str]]], zero_division: float,
                ) -> tuple[Any, list[str]]:
    """Scores of ``(pred labels, truth labels)`` pairs over the sorted union of labels."""
    classes = sorted({c for p, t in pairs for c in [*p, *t]})
    index = {c: k for k, c in enumerate(classes)}
    t = np.zeros((len(pairs), len(classes)), dtype=bool)
    p = np.zeros_like(t)
    for n, (pred, truth) in enumerate(pairs):
        t[n, [index[c] for c in truth]] = True
        p[n, [index[c] for c in pred]] = True
    return multilabel_scores(t, p, zero_division=zero_division), classes


def _metrics(pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> dict[str, float]:
    s, _ = _indicators(pairs, 0.0)
    return {"cp": s.cp, "cr": s.cr, "cf1": s.cf1, "op": s.op, "or": s.or_, "of1": s.of1,
            "sample_f1": s.sample_f1, "macro_f1": s.macro_f1, "weighted_f1": s.weighted_f1,
            "hamming_loss": s.hamming_loss, "subset_accuracy": s.subset_accuracy,
            "jaccard_samples": s.jaccard_samples}


class MultilabelTask(Task[MultilabelRow]):
    """Label sets against gold label sets (seed 004)."""

    name = "multilabel"
    row_model = MultilabelRow
    summary = ("label sets against gold label sets: C-P/R/F1, O-P/R/F1, sample F1; "
               "scikit-learn's macro/weighted F1, Hamming loss, subset accuracy, Jaccard")
    no_judge_reason = "its labels are compared exactly"
    extractors = (io.label_list, io.label_list)

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[MultilabelRow], dict[str, Any]]:
        """Rows ``{id, source, query?, pred, truth}`` (sorted label sets) and the scores with
        the list of ``classes``."""
        s, classes = _indicators([(i.pred, i.truth) for i in items], params.zero_division)
        rows = [MultilabelRow.model_validate(
                    {"id": i.id, "source": i.source, **query_of(i), "pred": sorted(set(i.pred)),
                     "truth": sorted(set(i.truth))}) for i in items]
        return rows, {**s.to_dict(), "classes": classes}

    def metrics_from_rows(self, rows: Sequence[MultilabelRow]) -> dict[str, float]:
        """C-*, O-*, sample F1 and scikit-learn's macro/weighted F1, Hamming loss, subset
        accuracy and samples Jaccard of the rows' label sets."""
        return _metrics([(r.pred, r.truth) for r in rows])

    def resampled(self, rows: Sequence[MultilabelRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' label sets read once."""
        pairs = [(r.pred, r.truth) for r in rows]
        return lambda idx: _metrics([pairs[i] for i in idx])

    def view(self, row: MultilabelRow) -> dict[str, Any]:
        """The ``labels`` view: predicted and gold labels, missing and extra ones."""
        return labels_view(row)
