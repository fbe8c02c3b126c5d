"""``simjudge eval``: load items for a task, judge and score them, write the run directory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cli import batches as b
from judge.cli import options as o
from judge.cli.common import err, fail, fail_storage, interrupted, progress, warnings_to_stderr
from judge.cli.labelopts import HumanItems, Overrides
from judge.cli.panels import EVAL_PANELS, TASK_PANEL, with_panels
from judge.cli.taskflags import with_task_flags
from judge.errors import BatchPendingError, CacheMissError, InputError
from judge.pipeline.checks import check_cache_mode, check_max_chars


@with_panels(EVAL_PANELS, TASK_PANEL)
@o.with_judge_flags
@with_task_flags
def eval_command(
    data: Annotated[Path, typer.Argument(help="JSONL/CSV/TSV predictions (ranking: TREC run).")],
    task: Annotated[str, typer.Option(help="The task (see 'simjudge tasks').")] = "selection",
    judge: o.JudgeSpecs = None, judges_file: o.JudgesFile = None,
    vote: Annotated[str, typer.Option(
        help="Several judges: panel vote: mean, median, majority (at τ), min or max.")] = "mean",
    quorum: Annotated[int, typer.Option(
        help="Panel: members that must answer ok for a pair to be decided.")] = 1,
    probe: Annotated[list[str] | None, typer.Option(
        help="Judge probe: swap (re-judge a seeded 10 % of the pairs with pred and truth "
             "exchanged) or swap=FRACTION (swap=1: all); flip rate at τ and |Δ| in "
             "summary.json, asymmetric pairs in report.html.")] = None,
    repeats: Annotated[int, typer.Option(
        help="Judge every pair N times with separate calls (an LLM judge; sample index in the "
             "cache key), voted by --vote; per-pair SD and flip rate at τ in summary.json, "
             "unstable pairs in report.html.")] = 1,
    tau: Annotated[float, typer.Option(
        help="Match threshold τ in [0, 1]; a pair matches when its score is strictly greater.")
    ] = 0.7,
    tau_from: Annotated[Path | None, typer.Option(
        help="calibration.json from simjudge calibrate: use its τ for --judge (overrides "
             "--tau); refused (exit 2) when it was calibrated with another judge identity.")
    ] = None,
    allow_stale_calibration: Annotated[bool, typer.Option(
        help="Use the τ of a --tau-from calibration made with another judge identity anyway "
             "(warned; config.json's tau_from records stale and the differences).")] = False,
    bootstrap: Annotated[int, typer.Option(
        help="Bootstrap resamples for the 95 % CIs in summary.json (0 = none).")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed of the bootstrap.")] = 0,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Run directory to write.")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a non-empty --out.")] = False,
    pred_field: Annotated[str | None, typer.Option(help="Prediction field name.")] = None,
    truth_field: Annotated[str | None, typer.Option(help="Gold field name.")] = None,
    id_field: Annotated[list[str] | None, typer.Option(
        help="Id field(s); repeat or comma-separate for a composite id. Default: 'id' when the "
             "records carry it (with --gold: when both files do), else the position.")] = None,
    gold: Annotated[Path | None, typer.Option(
        help="Separate gold file joined on the id (--id-field, default 'id'); files without ids "
             "are paired by position only when their record counts match (ranking: TREC "
             "qrels).")] = None,
    max_chars: Annotated[int, typer.Option(
        help="Longest string (characters) accepted in a prediction or gold field; a longer one "
             "is bad input (exit 2, FILE:LINE: field), never truncated. 0 = no limit. With "
             "--format bfcl it applies to the ground truth and to the strings of the decoded "
             "calls (what --arg-judge can send to a judge), not to the raw result text, which "
             "is decoded, never judged.")] = 4096,
    where: Annotated[list[str] | None, typer.Option(
        help="Keep only records with FIELD=VALUE (repeatable).")] = None,
    limit: Annotated[str | None, typer.Option(metavar="N", help=(
        "Score only the first N items (after --where; with --gold the joined items, in the "
        "data file's order), cut before any judge call; recorded in config.json."))] = None,
    context: o.Context = "", overrides: Overrides = None, human: HumanItems = None,
    dry_run: Annotated[bool, typer.Option(
        help="Print each judge's requests, cache hits and estimated tokens and USD; call "
        "nothing, write nothing.")] = False,
    max_usd: Annotated[float | None, typer.Option(
        help="Budget in USD: LLM judges stop before a call whose estimated cost would exceed "
        "it; the run is written with the rest 'not attempted' (exit 1).")] = None,
    batch_api: Annotated[bool, typer.Option(
        help="openai: judges: send the calls through the OpenAI Batch API first (half price, "
        "answers within 24 h), split within the limits below; a killed run resumes its "
        "batches when rerun; see 'simjudge batches'.")] = False,
    batch_max_requests: b.MaxRequests = 50_000, batch_max_bytes: b.MaxBytes = 200_000_000,
    batch_queue_tokens: b.QueueTokens = None, cancel_stale: b.CancelStale = False,
    cache_dir: o.CacheDir = None, cache_mode: o.CacheMode = "read-write",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help=(
        "No tables, progress or messages: only errors and warnings (stderr)."))] = False,
    json_out: Annotated[bool, typer.Option("--json", help=(
        "Print the run's summary.json (--dry-run: the estimate) as JSON on stdout, nothing "
        "else there; messages go to stderr (none with --quiet)."))] = False,
    task_flags: dict[str, Any] | None = None, judge_flags: dict[str, Any] | None = None,
) -> None:
    """Evaluate predictions against gold answers and write a run directory.

    Writes config.json, verdicts.jsonl, items.jsonl, summary.json and report.html atomically
    into --out (default runs/<UTC time>-<task>-<pid>), then prints the summary table and the
    path of report.html (--quiet: nothing; --json: summary.json on stdout, the rest on
    stderr); --limit N scores the first N items only. Exit status: 0 when every judged pair
    got a score; 1 when some judge calls failed (their outcomes are recorded in the run), a
    remote judge stopped early after --stop-after
    consecutive fatal errors (one line on stderr; its unsent pairs are "not attempted",
    retried by a rerun) or the disk refused a write (cached answers are kept); 2 on bad input,
    also an --out that cannot be written — all checked before any judge call; 130 on Ctrl-C
    (SIGINT: judging stops within about a second, one line says what the cache kept, no run
    directory is written).

    Items are identified by --id-field, by default by the data's 'id' field when the records
    carry it; with --gold, predictions and gold are joined on it one-to-one (missing, extra or
    duplicate ids are errors), and files without ids are paired by position only when their
    record counts match. A prediction or gold string longer than --max-chars is bad input.
    """
    try:
        from judge.cli.evalhuman import human_hooks, read_overrides, report_estimate, report_panel
        from judge.cli.evalrun import parse_limit, report_run, run_eval
        from judge.pipeline.config import EvalConfig

        check_cache_mode(cache_mode)
        check_max_chars(max_chars)
        n_items, (checks, renderers) = parse_limit(limit), human_hooks(human)
        config = EvalConfig(
            task=task, data=data, gold=gold, pred_field=pred_field, truth_field=truth_field,
            id_fields=tuple(f for spec in (id_field or []) for f in spec.split(",") if f),
            where=tuple(where or []), limit=n_items, max_chars=max_chars,
            task_options=dict(task_flags or {}),
            judges=list(judge or []), judges_file=judges_file,
            judge_options=o.judge_options(**dict(judge_flags or {})),
            vote=vote, quorum=quorum,  # type: ignore[arg-type]  # checked by the pipeline
            tau=tau, tau_from=tau_from, allow_stale_calibration=allow_stale_calibration,
            repeats=repeats, probes=tuple(probe or []),
            context=context, overrides=read_overrides(overrides), item_checks=checks,
            bootstrap=bootstrap,
            seed=seed, cache_dir=cache_dir,
            cache_mode=cache_mode,  # type: ignore[arg-type]  # checked above
            out_dir=out_dir, overwrite=overwrite, dry_run=dry_run, max_usd=max_usd,
            batch_api=b.limits(batch_api, batch_max_requests, batch_max_bytes,
                               batch_queue_tokens, cancel_stale),
            command=("simjudge", *sys.argv[1:]))
        with warnings_to_stderr(), progress(enabled=not quiet) as factory:
            # --quiet draws no bar: no factory, so no progress totals are counted either
            record = run_eval(config, None if quiet else factory, renderers)
    except (InputError, CacheMissError) as exc:
        fail(exc)
    except BatchPendingError as exc:  # the batch keeps running: the same command resumes it
        err.print(f"simjudge: {exc}", highlight=False, markup=False)
        raise typer.Exit(1) from None
    except OSError as exc:  # disk full / size limit while writing the cache or the run
        fail_storage(exc)
    except KeyboardInterrupt as exc:  # Ctrl-C: one line, exit 130, nothing half-written
        interrupted(exc)
    code = max(report_run(record, quiet, json_out),
               report_estimate(record, human, quiet, json_out))
    report_panel(record, config.overrides, quiet, json_out)
    if code:
        raise typer.Exit(code)
