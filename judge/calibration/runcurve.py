"""A stored run's metrics across τ for ``simjudge calibrate --run`` (re-scored by its task from
the stored scores: no judge call)."""

from __future__ import annotations

from collections.abc import Sequence

from judge.record.runrecord import RunRecord


def run_tau_curve(record: RunRecord, taus: Sequence[float]) -> dict[str, list[float]]:
    """A stored run's metrics (its task's ``curve_metrics``: fuzzy P/R/F1 for ``selection`` and
    ``spans``; accuracy, fn_acc_all… for ``function-call``) at each τ (function calls: each
    argument τ), re-scored by its task with no judge call.

    Raises:
        InputError: the run's task cannot be re-scored, its rows store no scores, or (function
            calls) its input files are gone or changed.
    """
    from judge.errors import InputError
    from judge.tasks.registry import get_task

    task = get_task(record.task)
    out: dict[str, list[float]] = {k: [] for k in task.curve_metrics}
    for t in taus:
        got = task.rescore(record, float(t))
        if got is None or not all(k in got[1] for k in out):
            raise InputError(f"--run needs a run whose metrics can be recomputed at another "
                             f"threshold (selection, spans: items.jsonl with stored scores; "
                             f"function-call), not --task {record.task}", record.path)
        for k in out:
            out[k].append(float(got[1][k]))
    return out
