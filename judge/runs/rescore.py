"""``simjudge rescore``: a stored run's metrics at another τ (or, for a panel, another vote or
quorum), with no judge call.

This module resolves and checks the options; the run's task does the work
(:meth:`judge.tasks.base.Task.rescore`: ``selection`` re-matches the stored similarity
matrices, re-voting a panel's stored member verdicts first). At the run's own τ and vote the
result equals the run's own numbers.
"""

from __future__ import annotations

from typing import Any

from judge.errors import InputError, flag
from judge.pipeline.uncertainty import bootstrap_cis
from judge.record.runrecord import RunRecord
from judge.tasks.base import Task
from judge.tasks.overrides import HumanOverrides


def rescore(record: RunRecord, tau: float | None = None, rule: str | None = None,
            quorum: int | None = None, n_boot: int = 1000, seed: int = 0,
            arg_tau: float | None = None, overrides: HumanOverrides | None = None,
            ) -> dict[str, Any]:
    """Metrics of a stored run at τ (and, for panels, another vote or quorum).

    Args:
        record: a stored run whose task can be re-scored (``selection``, ``spans``,
            ``function-call``).
        tau: the threshold in [0, 1]; None = the run's own τ (``config.json``), which
            reproduces the run's metrics.
        arg_tau: function-call runs instead of ``tau``: the argument judge's threshold in
            [0, 1] (None = the run's own ``--arg-tau``); the items are read again from the
            run's input files.
        rule, quorum: panel runs: another vote (:data:`judge.judges.panel.VOTES`) / quorum in
            1..members (None = the run's).
        n_boot, seed: bootstrap resamples (>= 0) and seed of the CIs.
        overrides: human labels whose scores replace the stored ones of the pairs they cover
            (``--overrides``, :mod:`judge.tasks.overrides`; selection and spans runs), applied
            after a panel's re-vote; None = none.

    Returns:
        ``{"run", "tau", "threshold" (the task's threshold name: ``tau``, ``arg_tau``, or None
        for a task without one), "tau_source" ("run" or "option"), "vote", "quorum",
        "judge_calls": 0, "metrics", "bootstrap", "items": [row as written to items.jsonl,
        ...]}``, plus ``"overrides"`` (their counts,
        :func:`judge.tasks.overrides.summary`) with ``overrides``, and ``"probes"`` when the
        run has swap/repeat probes: their flip rates recomputed at τ from the probe rows
        (:func:`judge.probes.retau.probes_at`).

    Raises:
        InputError: τ outside [0, 1] or missing from the run; ``--tau`` for a function-call
            run or ``--arg-tau`` for another; a vote/quorum for a run that is not a panel, an
            unknown vote or a quorum out of range; an unknown task or one that cannot be
            re-scored; a function-call run whose input files are gone or changed; overrides
            for a run without judged matrices, or naming a pair the run does not have (the
            label's file, line and field).
    """
    from judge.judges.panel import VOTES
    from judge.tasks.registry import get_task

    task = get_task(record.task)
    name = task.threshold
    values = {"tau": tau, "arg_tau": arg_tau}  # the thresholds a caller can give, by name
    if name is None and any(v is not None for v in values.values()):
        raise InputError(f"{record.task} runs have no threshold: their metrics are recomputed "
                         "from the run's input files; give no --tau/--arg-tau", record.path,
                         field="tau")
    wrong = [k for k, v in values.items() if v is not None and k != name]
    if wrong and name is not None:
        raise InputError(f"{flag(wrong[0])} does not apply to {record.task} runs: give "
                         f"{flag(name)}", record.path, field=flag(wrong[0]).lstrip("-"))
    given = values.get(name) if name is not None else None
    source = "option"
    if given is None:
        given, source = task.run_tau(record), "run"
        if given is None and name is not None and task.uses_tau:
            raise InputError(f"config.json has no numeric {name} ({record.config.tau!r}): give "
                             f"{flag(name)}", record.path, field=name)
    tau = 0.0 if given is None else given  # a function-call run without argument judge
    if not 0.0 <= tau <= 1.0:
        spelt = flag(name or "tau").lstrip("-")
        raise InputError(f"{spelt} must be in [0, 1], got {tau}", field=spelt)
    judge = record.config.judge
    if (judge is None or not judge.is_panel) and (rule is not None or quorum is not None):
        raise InputError("--vote and --quorum apply to panel runs only", record.path,
                         field="vote")
    if judge is not None and judge.is_panel:
        rule = rule or judge.vote
        quorum = judge.quorum if quorum is None else quorum
        if rule not in VOTES:
            raise InputError(f"unknown vote {rule!r}; expected one of {', '.join(VOTES)}",
                             field="vote")
        if quorum is None or not 1 <= quorum <= len(judge.members):
            raise InputError(f"quorum must be 1..{len(judge.members)}", field="quorum")
    if overrides is not None:
        _check_overrides(task, record, overrides)
    done = task.rescore(record, tau, rule, quorum, overrides)
    if done is None:
        raise InputError(f"task {record.task!r} cannot be re-scored: its metrics do not depend "
                         "on τ, or its items.jsonl does not store the judges' scores "
                         "(written by an older simjudge)", record.path)
    rows, metrics = done
    scoring = task.scoring(record.config.task_options)
    human = {"overrides": metrics.pop("overrides")} if "overrides" in metrics else {}
    from judge.probes.retau import probes_at

    probes = probes_at(record.summary.get("probes") or {}, record.extra, tau, n_boot, seed)
    return {"run": str(record.path), "tau": given, "threshold": name, "tau_source": source,
            "vote": rule,
            "quorum": quorum, "judge_calls": 0, "metrics": metrics,
            "bootstrap": bootstrap_cis(scoring.metrics_from_rows, rows, n_boot, seed,
                                       resample=scoring.resampled),
            "items": [r.to_row() for r in rows], **human,
            **({"probes": probes} if probes else {})}


def _check_overrides(task: Task[Any], record: RunRecord, overrides: HumanOverrides) -> None:
    """Refuse overrides for a run whose task has no judged matrices, or naming a pair none
    of its stored matrices has (:meth:`judge.tasks.overrides.HumanOverrides.check`)."""
    if task.judge_role != "judge":
        raise InputError(f"--overrides applies to runs whose judge scored pairs into "
                         f"similarity matrices (selection, spans), not {record.task} runs",
                         record.path, field="overrides")
    overrides.check((row.id, hm.pred, hm.truth) for row in task.rows(record)
                    for hm in task.matrices(row))
