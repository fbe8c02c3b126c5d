"""``simjudge estimate``: every metric of a run three ways — the judge's value, the
prediction-powered estimate corrected by a few human-checked items, and the estimate from those
items alone — each with its confidence interval (issue 35; docs/explanation/human-metrics.md).

For each metric of the run's summary that has a human value (the task's
:meth:`~judge.tasks.base.Task.human_columns`: for selection the macro and micro P/R/F1 and the
TP total, counted from the accepted matches), the metric is ``factor × mean over the run's N
items of y``, ``y`` known on the n labelled items and predicted by the judge on all N. Then:

* ``judge``: the run's own value and its bootstrap CI (``summary.json``) — what the judge says,
  errors included;
* ``ppi``: PPI++ (:func:`metrics.ppi_mean`): the judge's mean corrected by the labelled items'
  residuals, λ tuned per stratum, design-weighted, finite-population corrected;
* ``human``: the labelled items alone (λ = 0).

Also per metric: λ, ``n_eff`` — how many human labels the PPI interval is worth, ``n ×
(width_human / width_ppi)²`` — and ``bias``, the judge's value minus the PPI estimate, with
its interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.human.design import item_strata
from judge.human.labels import CheckedLabels, ItemLabel, check_labels

DORNER = ("no method saves more than half of the labels when the judge is not more accurate "
          "than the system under test (Dorner, Nastl & Hardt, ICLR 2025)")
"""The limit printed with every estimate."""

ESTIMAND = ("the metric people would compute if they checked every item of the run, each "
            "accepted match counting 1")


def _design(checked: CheckedLabels, task: Any, rows: Sequence[Any], tau: float | None,
            labelled: list[int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(ppi_mean keyword arguments, the design's description)`` of the labelled items."""
    n, big_n = len(labelled), len(rows)
    if checked.strata is not None:
        first = checked.places[labelled[0]]
        if tau is None:
            raise first.error("a stratified design needs the run's τ", "stratum")
        pop = item_strata(task, rows, tau)
        for k in labelled:
            if checked.strata[k] != pop[k]:
                raise checked.places[k].error(
                    f"item {rows[k].id!r} is in stratum {pop[k]!r} of this run, the label "
                    f"says {checked.strata[k]!r} (strata: {', '.join(dict.fromkeys(pop))})",
                    "stratum")
        counts = {h: [sum(pop[k] == h for k in labelled), pop.count(h)]
                  for h in dict.fromkeys(pop)}
        # without pi: a simple random sample within each stratum, pi = n_h/N_h
        pi = ([checked.pi[k] for k in labelled] if checked.pi else
              [counts[pop[k]][0] / counts[pop[k]][1] for k in labelled])
        kw = {"strata": [pop[k] for k in labelled], "population_strata": pop, "pi": pi}
        return kw, {"kind": "stratified", "strata": {h: {"labelled": a, "items": b}
                                                     for h, (a, b) in counts.items()}}
    if checked.pi is not None:
        return ({"pi": [checked.pi[k] for k in labelled]},
                {"kind": "unequal probabilities", "pi_range": [min(checked.pi.values()),
                                                               max(checked.pi.values())]})
    return {}, {"kind": "uniform", "pi": n / big_n}


def _interval(est: Any) -> dict[str, Any]:
    return {"value": est.value, "ci95": [est.ci[0], est.ci[1]]}


def estimate(record: Any, labels: Sequence[ItemLabel], *, run_sha256: str | None = None,
             run_name: str = "the run", target: str = "run", alpha: float = 0.05
             ) -> dict[str, Any]:
    """The three estimates of every metric of ``record`` (see the module docstring).

    Args:
        record: the run (:class:`judge.record.runrecord.RunRecord`).
        labels: its item labels (:func:`judge.human.labels.read_item_labels`).
        run_sha256: the run's sha256 (labels made for another run are refused).
        run_name: how messages name the run.
        target: ``run`` (its items are the population) or ``distribution`` (they are a
            sample of a larger one: no finite-population correction; uniform design only).
        alpha: 1 − the intervals' coverage (0.05: 95 %).

    Returns:
        ``{"metrics": {NAME: {"judge", "ppi", "human", "lambda", "n_eff", "bias"} or
        {"known": value}}, "n_items", "n_labelled", "reviewers", "design", "target",
        "alpha", "estimand", "limit"}`` (JSON-ready; see docs/reference/file-formats.md).

    Raises:
        InputError: a label that does not fit the run (file, line and field named), a task
            without human metrics, fewer than 2 labelled items (in a stratum), a design the
            target does not take.
    """
    from judge.tasks.params import Params
    from judge.tasks.registry import get_task
    from metrics import ppi_mean

    task = get_task(record.task)
    rows = task.rows(record)
    checked = check_labels(labels, [r.id for r in rows], [task.row_strings(r) for r in rows],
                           task, run_sha256, run_name)
    tau = record.config.get("tau")
    params = Params(tau=tau if tau is not None else 0.7,
                    zero_division=record.config.get("zero_division", 0.0) or 0.0)
    columns = task.human_columns(rows, checked.truths, params)
    if not columns:
        raise InputError(f"task {record.task!r} has no metric with a human value yet "
                         "(selection items have)", field="task")
    labelled = sorted(checked.truths)
    kw, design = _design(checked, task, rows, tau, labelled)
    if target != "run" and kw:
        raise InputError(f"target {target!r} takes a uniform sample only (this design is "
                         f"{design['kind']})", field="target")
    summary = record.summary
    ci95 = (summary.get("bootstrap") or {}).get("ci95") or {}
    out: dict[str, Any] = {}
    for col in columns:
        y = [col.human[k] for k in labelled]
        f_l = [col.judge[k] for k in labelled]
        try:
            ppi = ppi_mean(y, f_l, col.judge, target=target,  # type: ignore[arg-type]
                           alpha=alpha, **kw).scaled(col.factor)
            human = ppi_mean(y, f_l, col.judge, lam=0.0, target=target,  # type: ignore[arg-type]
                             alpha=alpha, **kw).scaled(col.factor)
        except ValueError as exc:  # too few labels (in a stratum): name the labels file
            where = checked.places[labelled[0]].path.split("#")[0] if labelled else None
            raise InputError(str(exc), where, field="id") from None
        judge_value = summary.get("metrics", {}).get(col.metric)
        width_p, width_h = ppi.ci[1] - ppi.ci[0], human.ci[1] - human.ci[0]
        out[col.metric] = {
            "judge": {"value": judge_value, "ci95": ci95.get(col.metric)},
            "ppi": _interval(ppi), "human": _interval(human), "lambda": list(ppi.lam),
            "n_eff": (len(labelled) * (width_h / width_p) ** 2 if width_p > 0 else None),
            "bias": (None if not isinstance(judge_value, (int, float)) else
                     {"value": judge_value - ppi.value,
                      "ci95": [judge_value - ppi.ci[1], judge_value - ppi.ci[0]]})}
    for name, value in summary.get("metrics", {}).items():
        if name not in out and isinstance(value, (int, float)) and not isinstance(value, bool):
            out[name] = {"known": value}
    return {"metrics": out, "n_items": len(rows), "n_labelled": len(labelled),
            "reviewers": checked.reviewers, "design": design, "target": target,
            "alpha": alpha, "estimand": ESTIMAND, "limit": DORNER}


def label_truths(record: Any, labels: Sequence[ItemLabel]) -> list[Any]:
    """Each label's :class:`judge.tasks.humantruth.ItemTruth` (its matches, for the report),
    aligned with ``labels`` — labels :func:`estimate` has accepted for ``record``."""
    from judge.tasks.registry import get_task

    task = get_task(record.task)
    rows = {r.id: r for r in task.rows(record)}
    return [task.item_truth(lab.item_id, *task.row_strings(rows[lab.item_id]), lab.truth,
                            lab.place) for lab in labels]


def estimate_run_dir(run: Path, human: Path, target: str = "run",
                     alpha: float = 0.05) -> tuple[dict[str, Any], Any, list[ItemLabel]]:
    """:func:`estimate` of a stored run directory and an item labels file or ``labels.db``;
    the result also names the run and the labels (path and sha256).

    Returns:
        ``(result, record, labels)``: the estimate, the run and the item labels read (this
        run's; for the report of the checked items, :func:`label_truths`).

    Raises:
        InputError: as :func:`judge.record.store.load_run`,
            :func:`judge.human.labels.read_item_labels` and :func:`estimate`.
    """
    from judge import io
    from judge.calibration.pool import run_sha256
    from judge.human.labels import read_item_labels
    from judge.record.store import load_run

    record = load_run(run)
    labels = read_item_labels(human, run_sha256(run))
    result = estimate(record, labels, run_sha256=run_sha256(run), run_name=f"run {run}",
                      target=target, alpha=alpha)
    result["run"] = {"path": str(run), "sha256": run_sha256(run)}
    result["human_labels"] = {"path": str(human), "sha256": io.file_sha256(human)}
    return result, record, labels


def ratio_note(result: Mapping[str, Any]) -> str:
    """One line on what the labels were worth: the median n_eff against n."""
    effs = sorted(m["n_eff"] for m in result["metrics"].values()
                  if isinstance(m, dict) and m.get("n_eff") is not None
                  and math.isfinite(m["n_eff"]))
    if not effs:
        return ""
    mid = effs[len(effs) // 2]
    return (f"{result['n_labelled']} human-checked items were worth ~{mid:.0f} with the judge "
            f"(median n_eff over the metrics)")


def eval_hooks(human: Path) -> tuple[Any, dict[str, Any]]:
    """What ``eval --human FILE`` adds to an evaluation: a check of the item labels against
    the loaded items (before any judge call: ids, strings, one-to-one matches, at least 2
    labelled items) and a renderer writing ``estimate.json`` into the run directory (the
    estimate of the run just scored; a problem only the judged run can show, such as a
    stratum a label names wrongly, is written there as ``{"error": MESSAGE}`` — the paid run
    is kept).

    Raises:
        InputError: the labels file cannot be read (file, line and field named).
    """
    from judge.human.labels import read_item_labels
    from judge.record.atomic import dumps

    labels = read_item_labels(human)

    def check(items: list[Any], task: Any) -> None:
        checked = check_labels(labels, [i.id for i in items], [(i.pred, i.truth) for i in items],
                               task, None, "the evaluated items")
        if len(checked.truths) < 2:
            raise InputError(f"{len(checked.truths)} labelled item(s): at least 2 are needed "
                             "for an interval", human, field="id")

    def render(record: Any, name: str, out: Any) -> None:
        try:
            result = estimate(record, labels, run_name=f"run {name}")
            result["human_labels"] = {"path": str(human)}
        except InputError as exc:
            result = {"error": str(exc)}
        out.write(dumps(result, indent=2) + "\n")

    return check, {"estimate.json": render}
