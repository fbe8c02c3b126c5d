"""A stored run's metrics across τ for ``simjudge calibrate --run`` (re-scored by its task from
the stored scores: no judge call)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judge.record.runrecord import RunRecord


def run_tau_curve(record: RunRecord, taus: Sequence[float]) -> dict[str, list[float]]:
    """A stored run's metrics (its task's ``curve_metrics`` that the run holds: fuzzy P/R/F1 for
    ``selection`` and ``spans``; accuracy, fn_acc_all… for ``function-call``, ROUGE-L and BLEU-4
    only with text overlap) at each τ (function calls: each
    argument τ), re-scored by its task with no judge call.

    Raises:
        InputError: the run's task cannot be re-scored, its rows store no scores, or (function
            calls) its input files are gone or changed.
    """
    from judge.errors import InputError
    from judge.tasks.registry import get_task

    task = get_task(record.task)
    out: dict[str, list[float]] = {}
    for i, t in enumerate(taus):
        got = task.rescore(record, float(t))
        if i == 0 and got is not None:  # the ones the run holds (text overlap may be left out)
            out = {k: [] for k in task.curve_metrics if k in got[1]}
        if got is None or task.curve_metrics[0] not in out or not all(k in got[1] for k in out):
            raise InputError(f"--run needs a run whose metrics can be recomputed at another "
                             f"threshold (selection, spans: items.jsonl with stored scores; "
                             f"function-call), not --task {record.task}", record.path)
        for k in out:
            out[k].append(float(got[1][k]))
    return out


def run_curve_report(record: RunRecord, taus: list[float], curve: Mapping[str, list[float]],
                     chosen: Mapping[str, float], path: Path) -> tuple[dict[str, Any],
                                                                     dict[str, Any]]:
    """The ``run_tau.png`` plot of a stored run's curve (:func:`run_tau_curve`) — the run's own
    threshold and the τ calibrated for the run's judge marked, the axis named by the task's
    threshold (τ; function calls: arg τ) — and the ``run`` entry of ``calibration.json``.

    Args:
        record: the stored run; taus: the thresholds of ``curve``, each in [0, 1].
        curve: the run's metrics at each τ; chosen: judge id → calibrated τ.
        path: where the plot is written.

    Returns:
        ``(plot description, {"path", "judge", "tau", "judge_calls", "curve"})``.
    """
    from judge.calibration.plots import plot_run_tau
    from judge.tasks.registry import get_task

    task = get_task(record.task)
    run_tau = task.run_tau(record)
    name = task.threshold_label
    marks = {f"run {name} ({run_tau})": float(run_tau)} if run_tau is not None else {}
    judge_id = record.judge_id
    if judge_id is not None and judge_id in chosen:
        marks[f"calibrated τ ({judge_id})"] = chosen[judge_id]
    plot = plot_run_tau(taus, curve, marks, f"run {Path(str(record.path)).name}: scores vs "
                        f"{name}", path)
    return plot, {"path": str(record.path), "judge": record.judge_id, "tau": run_tau,
                  "judge_calls": 0, "curve": {"tau": taus, **curve}}
