"""The human inputs of ``eval`` (and ``rescore``): ``--overrides`` (pair labels that take
precedence over the judge) and ``--human`` (item labels checked against the items before any
judge call, the estimate written into the run directory as ``estimate.json`` and printed after
the run's table: :func:`judge.human.estimate.eval_hooks`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def read_overrides(paths: Sequence[Path] | None) -> Any:
    """``--overrides``: the :class:`~judge.tasks.overrides.HumanOverrides` of the label files
    (:func:`judge.calibration.overrides.read_overrides`), or None without any.

    Raises:
        InputError: an unreadable file or a bad label (file, line and field named).
    """
    if not paths:
        return None
    from judge.calibration.overrides import read_overrides as read

    return read(paths)


def human_hooks(human: Path | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(item checks, renderers)`` for the pipeline; nothing without ``--human``.

    Raises:
        InputError: the labels file cannot be read (file, line and field named).
    """
    if human is None:
        return (), {}
    from judge.human.estimate import eval_hooks

    check, renderers = eval_hooks(human)
    return (check,), renderers


def report_estimate(record: Any, human: Path | None, quiet: bool, as_json: bool) -> int:
    """Print the estimate the run directory holds (``--quiet``/``--json``: nothing); its exit
    status: 2 when the estimate failed on the judged run (its one line on stderr), else 0."""
    if human is None or isinstance(record, dict) or record.path is None:
        return 0
    import json

    import typer

    from judge.cli.common import out
    from judge.display import estimate_summary, print_all
    from judge.redact import redact

    result = json.loads((Path(record.path) / "estimate.json").read_text(encoding="utf-8"))
    if "error" in result:
        typer.echo(f"simjudge: error: estimate: {redact(result['error'])} (the run is "
                   "written; fix the labels and run simjudge estimate on it)", err=True)
        return 2
    if not (quiet or as_json):
        print_all(out, estimate_summary(result))
    return 0


def report_panel(record: Any, overrides: Any, quiet: bool, as_json: bool) -> None:
    """With ``--overrides`` and a panel judge, one line (stderr under ``--json``; nothing
    with ``--quiet``): each pair of members' error φ against the human labels, Kish's n_eff
    and the panel's κ beside its best member's (:func:`judge.calibration.panelstats.
    eval_panel`, as ``leaderboard --panel`` reports)."""
    judge = None if isinstance(record, dict) else record.config.judge
    if quiet or overrides is None or judge is None or not judge.is_panel:
        return
    from judge.calibration.panelstats import eval_panel, panel_note
    from judge.cli.common import err, out

    report = eval_panel(record.verdict_rows(), overrides, judge.id, record.config.tau or 0.0)
    if report is None:
        return
    phis = ", ".join(f"{k} {'–' if v is None else f'{v:.3f}'}"
                     for k, v in report["error_phi"].items())
    for line in (f"{judge.id} on the {report['labelled_pairs']} human-labelled pairs: "
                 f"{panel_note(report)}", f"error φ per member pair: {phis}"):
        (err if as_json else out).print(line, highlight=False, markup=False)
