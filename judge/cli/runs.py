"""``simjudge audit``, ``rescore``, ``compare`` and ``export``: commands that read finished run
directories (no judge call)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge.cli.common import fail, fail_storage, out, say
from judge.cli.labelopts import Bootstrap, Overrides, Seed
from judge.errors import InputError


def audit_command(
    run: Annotated[Path, typer.Argument(help="A run directory.")],
    out_file: Annotated[Path | None, typer.Option(
        "--out", help="Output file (default RUN/report.html, .md or .jsonl).")] = None,
    near: Annotated[float, typer.Option(
        help="Queue the pairs whose score is within this distance of τ.")] = 0.1,
    fmt: Annotated[str, typer.Option("--format", help="html, md or jsonl.")] = "html",
    blind: Annotated[bool, typer.Option(
        help="A blind-review page: no judge score, rationale, match or metric in it; its "
        "exported labels say blind.")] = False,
    overrides: Annotated[list[Path] | None, typer.Option(
        "--overrides", help="Label files (audit exports, labels merge output) whose labels "
        "the page marks on their cells; repeat for several.")] = None,
    seed: Annotated[int, typer.Option(
        help="Seed of a --blind page's random item order (recorded in the page).")] = 0,
) -> None:
    """Write the audit report of a run: every judged pair with each judge's score, outcome,
    rationale, raw output, latency, tokens and cache key; the chosen matching; queues (near τ,
    disagreements, failures, unmatched); search; human overrides, with reviewer, time and
    note, exportable as JSONL for `calibrate`, the `table:` judge and `labels merge`. --blind
    writes a page without any judge output (nor τ) for blind review, its items in a random
    order (--seed); --overrides marks the labelled cells. HTML is one self-contained offline
    file. Exit status 2 on bad input."""
    from judge.record.atomic import write_text_atomic
    from judge.record.store import load_run
    from judge.runs.report import write_report

    target = out_file or run / f"report.{fmt}"
    try:
        if fmt not in ("html", "md", "jsonl"):
            raise InputError(f"unknown format {fmt!r}; expected html, md or jsonl",
                             field="format")
        if not 0.0 <= near <= 1.0:
            raise InputError(f"near must be in [0, 1], got {near}", field="near")
        if fmt != "html" and (blind or overrides):
            raise InputError("--blind and --overrides apply to the html page", field="format")
        record = load_run(run)
        size = write_text_atomic(target, lambda f: write_report(
            record, fmt, f, near, blind=blind, human=overrides or [], seed=seed))
    except InputError as exc:
        fail(exc)
    except OSError as exc:
        fail_storage(exc)
    say(f"{fmt} report written to {target} ({size / 1e6:.2f} MB)")


def rescore_command(
    run: Annotated[Path, typer.Argument(
        help="A run directory (selection, spans, function-call).")],
    tau: Annotated[float | None, typer.Option(
        help="The new τ (default: the run's own τ, from its config.json).")] = None,
    arg_tau: Annotated[float | None, typer.Option(
        help="Function-call runs: the argument judge's new threshold (default: the run's "
        "own); the items are read again from the run's input files.")] = None,
    vote: Annotated[str | None, typer.Option(help="Panel runs: another vote.")] = None,
    quorum: Annotated[int | None, typer.Option(help="Panel runs: another quorum.")] = None,
    bootstrap: Bootstrap = 1000, seed: Seed = 0, overrides: Overrides = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the JSON here.")] = None,
) -> None:
    """Recompute matching and metrics from a run's stored verdicts, with no judge call
    (τ sensitivity, vote-rule ablation; function-call runs: --arg-tau, re-checking the calls
    read again from the run's unchanged input files; --overrides: human labels replace the
    stored scores of the pairs they name). Without --tau/--arg-tau (or
    --vote/--quorum) the run's own value is used, which reproduces the run's metrics; the τ
    used is printed. Exit status 2 on bad input (also a run whose task cannot be
    re-scored)."""
    from judge.cli.evalhuman import read_overrides
    from judge.display import print_all, rescore_summary
    from judge.pipeline.checks import check_min
    from judge.record.atomic import dumps
    from judge.record.store import load_run
    from judge.runs.rescore import rescore

    try:
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        check_min("quorum", quorum, 1)
        result = rescore(load_run(run), tau, vote, quorum, bootstrap, seed, arg_tau,
                         read_overrides(overrides))
    except InputError as exc:
        fail(exc)
    print_all(out, rescore_summary(result))
    if out_file is not None:
        out_file.write_text(dumps(result, indent=2) + "\n", encoding="utf-8")
        say(f"written to {out_file}")


def compare_command(
    runs: Annotated[list[Path], typer.Argument(help="Two or more runs over the same data.")],
    bootstrap: Bootstrap = 1000, seed: Seed = 0,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Write compare.json and compare.md into this directory.")] = None,
) -> None:
    """Side-by-side metrics with paired bootstrap 95 % CIs of the differences, per-judge
    operations (outcomes, parse rate, cache, tokens, USD, latency) and agreement between the
    runs' verdicts. Exit status 2 on bad input."""
    from judge.display import compare_summary, print_all
    from judge.pipeline.checks import check_min
    from judge.record.atomic import dumps
    from judge.record.store import load_run
    from judge.runs.compare import compare_runs, to_markdown

    try:
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        result = compare_runs([load_run(r) for r in runs], bootstrap, seed)
    except InputError as exc:
        fail(exc)
    print_all(out, compare_summary(result, out))
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "compare.json").write_text(dumps(result, indent=2) + "\n", encoding="utf-8")
        (out_dir / "compare.md").write_text(to_markdown(result), encoding="utf-8")
        say(f"written to {out_dir}/compare.json and compare.md")


def export_command(
    run: Annotated[Path, typer.Argument(help="A run directory.")],
    out_file: Annotated[Path, typer.Argument(help="The bundle to write (.tar.gz).")],
    with_cache: Annotated[bool, typer.Option(
        "--with-cache/--without-cache",
        help="Include the cache entries the run used, so that the bundle replays with "
        "--cache-mode cache-only and no judge call.")] = False,
    cache_dir: Annotated[Path | None, typer.Option(
        help="The cache the run used (default: the one its config.json names).")] = None,
) -> None:
    """Write a reproducibility bundle: the run directory, its input files (when unchanged since
    the run), the prompt templates its scorers used, with --with-cache the cache entries it
    used (JSON files, never pickles; the replay checks each one's sha256 before using any),
    and MANIFEST.json with sha256 sums and the replay command (the run's own command pointed
    into the bundle, --cache-mode cache-only). Exit status 2 on bad input, or when the cache
    lacks an entry the run used; nothing is written then."""
    from judge.record.store import load_run
    from judge.runs.export import export_run

    try:
        r = export_run(load_run(run), out_file, cache_dir, with_cache)
    except InputError as exc:
        fail(exc)
    except OSError as exc:  # disk full, permission denied while writing the bundle
        fail_storage(exc)
    say(f"bundle written to {r.path}: {r.entries} cache entries, inputs "
        f"{', '.join(r.inputs) or 'none'}, {len(r.templates)} template files")
    for role, why in r.inputs_missing.items():
        say(f"  input {role} not included: {why}")
    say(f"replay and check it anywhere: simjudge replay {r.path} (runs: {' '.join(r.replay)})")
