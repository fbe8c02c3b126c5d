"""``simjudge labels merge`` (several reviewers' labels in one file, with their agreement) and
``simjudge labels export`` (a ``labels.db`` written by ``simjudge review`` as that same file)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cli.common import fail, fail_storage, say
from judge.errors import InputError

labels_app = typer.Typer(help="Combine reviewers' labels (audit overrides, labels files, "
                         "labels databases) and export a labels database.",
                         no_args_is_help=True, rich_markup_mode=None)


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write JSONL to a temporary name, then rename: never a half-written file."""
    from judge.record.atomic import write_text_atomic

    write_text_atomic(path, lambda f: f.writelines(json.dumps(r, ensure_ascii=False) + "\n"
                                                   for r in rows))


@labels_app.command("merge")
def merge_command(
    files: Annotated[list[Path], typer.Argument(
        help="Label files (audit-page exports or labels JSONL/CSV/TSV), one or more per "
        "reviewer.")],
    out: Annotated[Path, typer.Option("--out", help="The merged labels file (JSONL).")],
    disagreements: Annotated[Path | None, typer.Option(
        help="Also write the pairs the reviewers disagree on here (JSONL; default "
        "OUT's name + '-disagreements.jsonl').")] = None,
) -> None:
    """Merge reviewers' labels of judged pairs: one row per pair (item id, pred, truth) with
    every reviewer's label as a list (the several-annotator form calibrate and leaderboard
    read), reviewers, times, notes and blind flags; prints Krippendorff's α (nominal) and the
    disagreements (Krippendorff 2011). A pair is matched by its item id and strings, never by
    position; a reviewer's later label of the same pair replaces the earlier. Exit status 2 on
    bad input (file, line and field named); nothing is written then."""
    from judge.calibration.merge import merge_labels

    try:
        merged = merge_labels(files)
    except InputError as exc:
        fail(exc)
    rows = merged.rows()
    dis_path = disagreements or out.with_name(out.stem + "-disagreements.jsonl")
    dis_rows = [r for r in rows if len(set(r["label"])) > 1]
    try:
        _write(out, rows)
        _write(dis_path, dis_rows)
    except OSError as exc:
        fail_storage(exc)
    shared = sum(len(r["label"]) >= 2 for r in rows)
    alpha = "undefined" if math.isnan(merged.alpha) else f"{merged.alpha:.3f}"
    say(f"{len(rows)} pairs from {len(merged.reviewers)} reviewers "
        f"({', '.join(merged.reviewers)}); {shared} labelled by two or more")
    say(f"Krippendorff's α (nominal) {alpha}; {len(dis_rows)} disagreements")
    for r in dis_rows[:10]:
        who = ", ".join(f"{n}={v}" for n, v in zip(r["reviewers"], r["label"], strict=True))
        say(f"  {r.get('id', '-')}: {r['pred']} ↔ {r['truth']}: {who}")
    if len(dis_rows) > 10:
        say(f"  … {len(dis_rows) - 10} more in {dis_path}")
    if merged.superseded:
        say(f"{len(merged.superseded)} earlier labels replaced by the same reviewer's later "
            f"one (first: {merged.superseded[0]})")
    say(f"merged labels written to {out}; disagreements to {dis_path}")


@labels_app.command("export")
def export_command(
    database: Annotated[Path, typer.Argument(help="A labels database written by simjudge "
                                             "review.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The labels file to write (JSONL).")],
    items: Annotated[bool, typer.Option("--items", help="Export the item labels of simjudge "
                                        "review RUN --items (what simjudge estimate --human "
                                        "reads) instead of the pair labels.")] = False,
) -> None:
    """Write a labels database as a labels file: exactly the rows `labels merge` writes (one row
    per pair — item id, pred, truth — with every reviewer's label that counts as a list, on a
    graded scale the grades, and the reviewers, times, notes and blind flags in the same
    order). Undone labels and labels replaced by the same reviewer's later one are left out.

    With --items, the item labels instead: one line per reviewer and item, ``{"id",
    "matches"|"match"|"correct", "reviewer", "pi", "stratum", "design", "run_sha256", "time",
    "blind"}`` (:func:`judge.human.labels.export_rows`), which ``simjudge estimate --human``
    reads back as it reads the database. Exit status 2 on bad input (not a labels database,
    no labels of the kind asked for); nothing is written then."""
    from judge.calibration.labelsdb import is_labels_db
    from judge.calibration.merge import merge_reviews, read_reviews

    try:
        if not is_labels_db(database):
            raise InputError("not a labels database (SQLite) written by simjudge review",
                             database)
        if items:
            _export_items(database, out)
            return
        merged = merge_reviews(read_reviews([database]))
    except InputError as exc:
        fail(exc)
    rows = merged.rows()
    try:
        _write(out, rows)
    except OSError as exc:
        fail_storage(exc)
    alpha = "undefined" if math.isnan(merged.alpha) else f"{merged.alpha:.3f}"
    say(f"{len(rows)} labelled pairs from {len(merged.reviewers)} reviewers written to {out}; "
        f"Krippendorff's α (nominal) {alpha}")


def _export_items(database: Path, out: Path) -> None:
    """``labels export --items``: the database's item labels as JSONL."""
    from judge.human.labels import export_rows

    rows, runs = export_rows(database)
    try:
        _write(out, rows)
    except OSError as exc:
        fail_storage(exc)
    reviewers = {r["reviewer"] for r in rows}
    say(f"{len(rows)} item labels of {len({r['id'] for r in rows})} items by "
        f"{len(reviewers)} reviewer{'s' if len(reviewers) != 1 else ''} written to {out}")
    if len(runs) > 1:
        say(f"they name {len(runs)} runs: "
            + "; ".join(f"{n} of {run.rpartition('@sha256:')[0] or run}"
                        for run, n in runs.items())
            + " — simjudge estimate reads the lines of its run only if the file holds one run")
