"""``--task multilabel``: each item is a set of predicted labels against a set of gold labels;
per-class (C-P, C-R, C-F1), overall (O-P, O-R, O-F1) and per-sample F1 over the run's label
space (``--labels``, default the labels the items use: :mod:`judge.tasks.mloptions`), and each
item's own precision, recall, F1 and Jaccard index (seed 004; C-P and C-R equal
scikit-learn's ``average="macro"`` precision and recall, but C-F1 is the seed's harmonic mean
of C-P and C-R, not scikit-learn's macro F1 (the mean of the per-class F1); O-* equal
``average="micro"``, sample F1 ``average="samples"``; :mod:`metrics.multilabel`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from judge import io
from judge.items import Item
from judge.record.itemrows import MultilabelRow
from judge.tasks.base import Judged, Params, Task
from judge.tasks.mloptions import MultilabelOptions, label_space, read_labels
from judge.tasks.selection import query_of
from judge.tasks.views import labels_view
from metrics import multilabel_scores, sample_scores

if TYPE_CHECKING:
    from numpy.typing import NDArray


Pair = tuple[Sequence[str], Sequence[str]]
"""One item's ``(pred labels, truth labels)``."""


def _matrices(pairs: Sequence[Pair], classes: Sequence[str]) -> tuple[Any, Any]:
    """Gold and predicted indicator matrices (n_items × len(classes)); labels outside
    ``classes`` are left out (scikit-learn's ``labels=``)."""
    index = {c: k for k, c in enumerate(classes)}
    t = np.zeros((len(pairs), len(classes)), dtype=bool)
    p = np.zeros_like(t)
    for n, (pred, truth) in enumerate(pairs):
        t[n, [index[c] for c in truth if c in index]] = True
        p[n, [index[c] for c in pred if c in index]] = True
    return t, p


def _metrics(pairs: Sequence[Pair], space: tuple[str, ...] | None) -> dict[str, float]:
    s = multilabel_scores(*_matrices(pairs, space if space is not None else label_space(
        None, (lab for pair in pairs for lab in pair))), zero_division=0.0)
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
    Options = MultilabelOptions

    def __init__(self, space: tuple[str, ...] | None = None) -> None:
        """``space``: the label space :meth:`metrics_from_rows` scores (None: the labels the
        rows use, as runs made before ``--labels`` were scored)."""
        self.space = space

    def __eq__(self, other: object) -> bool:
        """Same task with the same label space."""
        return isinstance(other, MultilabelTask) and other.space == self.space

    def __hash__(self) -> int:
        """Hash of the label space."""
        return hash((self.name, self.space))

    def settled_options(self, items: Sequence[Item], options: Any) -> Any:
        """The options with ``labels`` the label space the run scores (the given one read by
        :func:`judge.tasks.mloptions.read_labels`, or the items' labels sorted).

        Raises:
            InputError: a bad ``--labels`` (:func:`judge.tasks.mloptions.read_labels`).
        """
        given = options.labels if isinstance(options, MultilabelOptions) else None
        return MultilabelOptions(labels=label_space(given, (side for i in items
                                                            for side in (i.pred, i.truth))))

    def scoring(self, options: Any) -> MultilabelTask:
        """The task scoring the label space of ``options`` (settled :class:`MultilabelOptions`
        or a run's recorded ``task_options``; none recorded: the rows' own labels)."""
        labels = (options.labels if isinstance(options, MultilabelOptions)
                  else dict(options or {}).get("labels"))
        return MultilabelTask(None if labels is None else read_labels(labels))

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[MultilabelRow], dict[str, Any]]:
        """Rows ``{id, source, query?, pred, truth}`` (sorted label sets) with the item's
        precision, recall, F1 and Jaccard over the label space, and the dataset scores with
        ``classes`` (the label space) and ``labels_outside`` (each label the items use outside
        it, with its count of items: left out, as scikit-learn's ``labels=`` does).

        Raises:
            InputError: a bad ``--labels`` (:func:`judge.tasks.mloptions.read_labels`).
        """
        pairs = [(i.pred, i.truth) for i in items]
        given = self.options(params).labels
        classes = (read_labels(given) if given is not None
                   else label_space(None, (lab for pair in pairs for lab in pair)))
        t, p = _matrices(pairs, classes)
        s = multilabel_scores(t, p, zero_division=params.zero_division)
        per_item = sample_scores(t, p, params.zero_division)
        rows = [MultilabelRow.model_validate(
                    {"id": i.id, "source": i.source, **query_of(i), "pred": sorted(set(i.pred)),
                     "truth": sorted(set(i.truth)),
                     **{k: float(v[n]) for k, v in per_item.items()}})
                for n, i in enumerate(items)]
        inside = set(classes)
        outside = Counter(lab for i in items for lab in set(i.pred) | set(i.truth)
                          if lab not in inside)
        return rows, {**s.to_dict(), "classes": list(classes),
                      "labels_outside": dict(sorted(outside.items()))}

    def metrics_from_rows(self, rows: Sequence[MultilabelRow]) -> dict[str, float]:
        """C-*, O-*, sample F1 and scikit-learn's macro/weighted F1, Hamming loss, subset
        accuracy and samples Jaccard of the rows' label sets over :attr:`space` (undefined
        ratios 0.0)."""
        return _metrics([(r.pred, r.truth) for r in rows], self.space)

    def resampled(self, rows: Sequence[MultilabelRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' label sets read once."""
        pairs = [(r.pred, r.truth) for r in rows]
        return lambda idx: _metrics([pairs[i] for i in idx], self.space)

    def view(self, row: MultilabelRow) -> dict[str, Any]:
        """The ``labels`` view: predicted and gold labels, missing and extra ones."""
        return labels_view(row)
