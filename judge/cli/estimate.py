"""``simjudge estimate``: a run's metrics corrected by human-checked items (:mod:`judge.human`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge.cli.common import fail, out, say
from judge.errors import InputError


def estimate_command(
    run: Annotated[Path, typer.Argument(help="A run directory (selection; 1×1 items too).")],
    human: Annotated[Path, typer.Option(
        "--human", help="Item labels: JSONL ({\"id\", \"matches\": [[PRED, TRUTH], ...], "
        "\"pi\"?}) or the labels.db of simjudge review --items.")],
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Write estimate.json and report.html here (default: "
        "runs/<time>-estimate-<pid>).")
    ] = None,
    target: Annotated[str, typer.Option(
        help="run: the run's items are the population (finite-population correction); "
        "distribution: they are a sample of a larger one (uniform design only).")] = "run",
    alpha: Annotated[float, typer.Option(
        help="1 − the intervals' coverage, in (0, 1) (0.05: 95 % intervals).")] = 0.05,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace an existing --out directory.")] = False,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print estimate.json on stdout instead of the table.")] = False,
) -> None:
    """Every metric of a run three ways, each with its 95 % CI: the judge's value, the
    prediction-powered estimate (PPI++) that corrects it with the items a person checked, and
    the estimate from those items alone; with n_eff (the human labels the PPI interval is
    worth) and the judge's estimated bias. The estimand is the metric people would compute if
    they checked every item. OUT/report.html is the run's audit page with the checked items
    marked, each reviewer's matching beside the judge's. Exit status 2 on bad input (a label
    naming an item or a string the run does not have, a prediction matched twice, labels made
    for another run, a pi outside (0, 1]) — nothing written."""
    from judge.display import estimate_summary, print_all
    from judge.human.estimate import estimate_run_dir, label_truths, ratio_note
    from judge.record.atomic import atomic_dir, dumps
    from judge.record.outdir import default_run_dir, prepare_out_dir
    from judge.runs.report import render_html

    try:
        if target not in ("run", "distribution"):
            raise InputError(f"expected run or distribution, got {target!r}", field="target")
        if not 0.0 < alpha < 1.0:
            raise InputError(f"expected a level in (0, 1), got {alpha}", field="alpha")
        result, record, labels = estimate_run_dir(run, human, target, alpha)
        checks = (labels, label_truths(record, labels), str(human))
        where = out_dir or default_run_dir("estimate")
        prepare_out_dir(where, overwrite)
    except InputError as exc:
        fail(exc)
    with atomic_dir(where, overwrite) as tmp:
        (tmp / "estimate.json").write_text(dumps(result, indent=2) + "\n", encoding="utf-8")
        with (tmp / "report.html").open("w", encoding="utf-8") as fh:
            render_html(record, name=run.name, item_checks=checks, out=fh)
    if json_out:
        typer.echo(dumps(result, indent=2))
        return
    print_all(out, estimate_summary(result))
    note = ratio_note(result)
    if note:
        say(note)
    say(f"estimate written to {where}/estimate.json; the checked items marked in "
        f"{where}/report.html")
