"""The function-call task's per-item metric columns (:class:`judge.record.itemrows.FunctionCallRow`
→ one value per item), whose means are its dataset metrics, and which of them a run holds:
seed 003's text overlap (ROUGE-1/2/L, BLEU-4) is left out by ``--no-text-overlap``, the default
with ``--format bfcl``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from judge.record.itemrows import FunctionCallRow

Column = Callable[[FunctionCallRow], Any]
"""``row -> value`` of one metric."""
SEED_METRICS = ("fn_acc_name", "fn_acc_all", "rouge-1", "rouge-2", "rouge-l", "bleu-4")
"""Seed 003's per-item function-call metrics (``fc_score`` of its reference script)."""
OVERLAP = ("rouge-1", "rouge-2", "rouge-l", "bleu-4")
"""The text overlap ones among :data:`SEED_METRICS`."""
SEED_COLUMNS: dict[str, Column] = {
    "fn_acc_name": lambda r: r.fn_acc_name, "fn_acc_all": lambda r: r.fn_acc_all,
    "rouge-1": lambda r: r.rouge_1, "rouge-2": lambda r: r.rouge_2,
    "rouge-l": lambda r: r.rouge_l, "bleu-4": lambda r: r.bleu_4}
"""Seed 003's per-item metrics (:data:`SEED_METRICS`) read from a typed row."""
COLUMNS: dict[str, Column] = {"accuracy": lambda r: r.correct, **SEED_COLUMNS}
"""The metrics of :meth:`judge.tasks.function_call.FunctionCallTask.metrics_from_rows`:
accuracy (the share of correct items, the mean of ``correct``) and the seed metrics' means."""


def present(columns: Mapping[str, Column], rows: Sequence[FunctionCallRow]
            ) -> dict[str, Column]:
    """``columns`` without the text overlap ones (:data:`OVERLAP`) when the rows hold none (a
    run with ``--no-text-overlap``); a run computes them for every item or for none.

    Examples:
        >>> row = FunctionCallRow(id="a", correct=True, fn_acc_name=1.0, fn_acc_all=1.0)
        >>> list(present(COLUMNS, [row]))
        ['accuracy', 'fn_acc_name', 'fn_acc_all']
    """
    if rows and rows[0].rouge_1 is None:
        return {k: get for k, get in columns.items() if k not in OVERLAP}
    return dict(columns)
