"""Human truth of items (issue 35): what a person accepts for one item, and the per-item values a
task hands to the prediction-powered estimate of each of its metrics.

A task that supports item labels implements :meth:`judge.tasks.base.Task.item_truth` (one
label checked against the item's own strings → :class:`ItemTruth`) and
:meth:`judge.tasks.base.Task.human_columns` (the run's rows and the labelled items' truths →
one :class:`HumanColumn` per metric of its summary). The selection task's are here
(:func:`selection_truth`, :func:`selection_columns`): the spans task and the others reuse them
or say they have none. The estimate itself (``judge.human``) knows no task.

The estimand of a selection metric is the value people would compute if they checked every
item, each accepted match counting 1 (DESIGN.md, "Human-grounded metrics"): per item the human
TP count ``H`` against the item's ``|pred|`` and ``|truth|``. The judge's prediction of ``H`` is
its own count of matches at τ (exact ones included), ``M``: a count for a count, so PPI++'s λ
is near 1 for a good judge (the fuzzy TP, a sum of scores, is the judge's value of the metric
itself: the "judge" column).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from judge.errors import InputError


@dataclass(frozen=True)
class LabelPlace:
    """Where an item label comes from, for messages: a file and line, or a labels database
    event."""

    path: str
    line: int | None = None

    def error(self, message: str, field: str | None = None) -> InputError:
        """An :class:`InputError` at this place."""
        return InputError(message, self.path, self.line, field)


@dataclass(frozen=True)
class ItemTruth:
    """One reviewer's truth for one item.

    Attributes:
        value: the human count the metrics are computed from: accepted matches (selection,
            spans), or 1/0 for a correct/wrong function call.
        matches: the accepted ``(pred, truth)`` pairs (selection), for the report.
    """

    value: float
    matches: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class HumanColumn:
    """What the estimate of one summary metric needs.

    The metric's human value is ``factor × mean over the N items of y``; ``y`` is known for the
    labelled items (``human``: row index → value, several reviewers averaged), the judge's
    prediction ``f`` of it for every item (``judge``, one per row).

    Attributes:
        metric: the summary's metric name.
        human: row index → the item's human value (labelled items only).
        judge: per row, the judge's prediction of that value.
        factor: a known constant (1 for a macro mean; N for a total; N/Σ|pred| for a micro
            precision…).
    """

    metric: str
    human: dict[int, float]
    judge: list[float]
    factor: float = 1.0


def _strings(label: Mapping[str, Any], key: str, place: LabelPlace) -> list[tuple[str, str]]:
    value = label[key]
    if not isinstance(value, list) or not all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(s, str) for s in m)
            for m in value):
        raise place.error('expected a list of [PRED, TRUTH] pairs of strings, e.g. '
                          '[["职位信息", "Job Information"]]', key)
    return [(p, t) for p, t in value]


def selection_truth(item_id: str, pred: Sequence[str] | None, truth: Sequence[str] | None,
                    label: Mapping[str, Any], place: LabelPlace) -> ItemTruth:
    """Check a selection item's label against the item's strings: ``{"matches": [[PRED,
    TRUTH], ...]}`` (one-to-one: a string is matched at most as often as it occurs in its
    list), or for a 1×1 item ``{"match": true|false}``.

    Raises:
        InputError: neither or both of ``matches`` and ``match``; ``match`` on an item that is
            not 1×1; a pair that is not two strings; a string that is not one of the item's
            predictions (or gold items); a prediction or gold item matched twice; a run
            written before its rows kept the item's strings.
    """
    if pred is None or truth is None:
        raise place.error(f"item {item_id!r}: the run's rows do not hold the item's strings "
                          "(a run written before they did): evaluate it again", "id")
    if ("matches" in label) == ("match" in label):
        raise place.error('give either "matches": [[PRED, TRUTH], ...] or, for a 1×1 item, '
                          '"match": true|false', "matches")
    if "match" in label:
        if not isinstance(label["match"], bool):
            raise place.error(f"expected true or false, got {label['match']!r}", "match")
        if len(pred) != 1 or len(truth) != 1:
            raise place.error(f"item {item_id!r} has {len(pred)} predictions and {len(truth)} "
                              'gold items: "match" is for a 1×1 item; list its "matches"',
                              "match")
        return ItemTruth(float(label["match"]), ((pred[0], truth[0]),) if label["match"] else ())
    pairs = _strings(label, "matches", place)
    left_p, left_t = Counter(pred), Counter(truth)
    for p, t in pairs:
        for s, left, side, name in ((p, left_p, pred, "prediction"),
                                    (t, left_t, truth, "gold item")):
            if s not in side:
                raise place.error(f"{s!r} is no {name} of item {item_id!r}", "matches")
            if not left[s]:
                raise place.error(f"{name} {s!r} is matched twice (a match is one-to-one)",
                                  "matches")
            left[s] -= 1
    return ItemTruth(float(len(pairs)), tuple(pairs))


def _prf(tp: float, n_pred: int, n_truth: int, zero_division: float) -> tuple[float, ...]:
    from metrics import fuzzy_prf

    return fuzzy_prf(tp, n_pred, n_truth, zero_division)


def selection_columns(rows: Sequence[Any], truths: Mapping[int, Sequence[ItemTruth]],
                      zero_division: float) -> list[HumanColumn]:
    """The human columns of the selection summary's metrics (see the module docstring).

    Args:
        rows: the run's rows (``n_pred``, ``n_truth``, ``matches``), in run order.
        truths: row index → each reviewer's truth of that item.
        zero_division: the run's value for an undefined precision or recall.

    Returns:
        ``macro_precision``, ``macro_recall``, ``macro_f1`` (per-item values from the counts,
        reviewers averaged), ``micro_precision``, ``micro_recall``, ``micro_f1`` and
        ``tp_fuzzy`` (the human TP total) — each micro one only when its denominator is not 0.
    """
    n = len(rows)
    a = [int(r.n_pred) for r in rows]
    b = [int(r.n_truth) for r in rows]
    judge_m = [float(len(r.matches)) for r in rows]
    judge_prf = [_prf(m, x, y, zero_division) for m, x, y in zip(judge_m, a, b, strict=True)]
    human_prf = {k: [_prf(t.value, a[k], b[k], zero_division) for t in ts]
                 for k, ts in truths.items()}
    human_h = {k: sum(t.value for t in ts) / len(ts) for k, ts in truths.items()}
    cols = [HumanColumn(f"macro_{name}", {k: sum(v[j] for v in vs) / len(vs)
                                          for k, vs in human_prf.items()},
                        [v[j] for v in judge_prf])
            for j, name in enumerate(("precision", "recall", "f1"))]
    total_a, total_b = sum(a), sum(b)
    for name, denominator in (("micro_precision", total_a), ("micro_recall", total_b),
                              ("micro_f1", (total_a + total_b) / 2), ("tp_fuzzy", 1.0)):
        if denominator:
            factor = n if name == "tp_fuzzy" else n / denominator
            cols.append(HumanColumn(name, dict(human_h), list(judge_m), factor))
    return cols


def correctness_truth(item_id: str, label: Mapping[str, Any], place: LabelPlace) -> ItemTruth:
    """Check a function-call item's label: ``{"correct": true|false}`` — whether a person
    accepts the predicted calls as the gold ones (names and every argument).

    Raises:
        InputError: no ``correct``, a ``correct`` that is not a boolean, or ``matches``/
            ``match`` given instead (field named).
    """
    if "correct" not in label:
        raise place.error(f'item {item_id!r} is a function-call item: its label is "correct": '
                          "true|false", "correct")
    if not isinstance(label["correct"], bool):
        raise place.error(f"expected true or false, got {label['correct']!r}", "correct")
    extra = sorted(set(label) - {"correct"})
    if extra:
        raise place.error(f"a function-call item's label holds \"correct\" only, not "
                          f"{', '.join(map(repr, extra))}", extra[0])
    return ItemTruth(float(label["correct"]))


class CorrectnessLabels:
    """Item labels of a task whose items are right or wrong as a whole (function calls): the
    :class:`judge.tasks.base.Task` hooks a mixin gives it, reading ``human_metrics``.

    Attributes:
        human_metrics: ``(metric name, row field)`` pairs: the field holds the run's per-item
            value of the metric, the judge's prediction of the share of reviewers who accept
            the item (function calls: ``accuracy`` ← ``correct``, BFCL's checker with the
            argument judge; ``fn_acc_all`` ← seed 003's name-and-arguments accuracy).
    """

    human_metrics: ClassVar[tuple[tuple[str, str], ...]] = ()

    def item_truth(self, item_id: str, pred: Any, truth: Any, label: Mapping[str, Any],
                   place: LabelPlace) -> ItemTruth:
        """A person's verdict on one item: ``{"correct": true|false}``
        (:func:`correctness_truth`)."""
        return correctness_truth(item_id, label, place)

    def row_strings(self, row: Any) -> tuple[Any, Any]:
        """What a reviewer compares: the row's predicted and gold calls."""
        return getattr(row, "pred_calls", None), getattr(row, "gold_calls", None)

    def human_columns(self, rows: Sequence[Any], truths: Mapping[int, Sequence[ItemTruth]],
                      params: Any) -> list[HumanColumn]:
        """One column per :attr:`human_metrics` entry (:func:`correctness_columns`)."""
        return correctness_columns(rows, truths, {
            name: [float(getattr(r, field)) for r in rows]
            for name, field in self.human_metrics})


def correctness_columns(rows: Sequence[Any], truths: Mapping[int, Sequence[ItemTruth]],
                        judged: Mapping[str, Sequence[float]]) -> list[HumanColumn]:
    """The human columns of a function-call run: each metric in ``judged`` is a mean over
    items whose human value is the share of reviewers who accept the item's calls (1 = all
    correct).

    Args:
        rows: the run's rows, in run order.
        truths: row index → each reviewer's truth of that item.
        judged: metric name → the run's per-item value, the judge's prediction of it (e.g.
            ``accuracy``: 1.0 when BFCL's checker, with the argument judge, passes the item;
            ``fn_acc_all``: seed 003's name-and-arguments accuracy).
    """
    human = {k: sum(t.value for t in ts) / len(ts) for k, ts in truths.items()}
    return [HumanColumn(name, dict(human), [float(v) for v in values])
            for name, values in judged.items() if len(values) == len(rows)]

