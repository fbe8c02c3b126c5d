"""``simjudge calibrate``: choose τ for each judge from human-labelled pairs. It takes exactly
the judge options ``eval`` takes (:mod:`judge.cli.options`), so a self-hosted LLM or embedding
judge is calibrated the way it is evaluated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cli import labelopts as lo
from judge.cli import options as o
from judge.cli.calcheck import check_options, run_check
from judge.cli.canaryopts import with_canary_flags
from judge.cli.common import err, fail, fail_storage, out, progress, say
from judge.errors import CacheMissError, InputError
from judge.pipeline.checks import check_cache_mode, check_max_chars


@o.with_judge_flags
@with_canary_flags
def calibrate_command(
    labels: Annotated[Path | None, typer.Argument(
        help="JSONL/CSV/TSV of pairs with human labels (optional with --check).")] = None,
    judge: o.JudgeSpecs = None, judges_file: o.JudgesFile = None,
    check: lo.Check = None, min_kappa: lo.MinKappa = None, context: o.Context = "",
    objective: Annotated[str, typer.Option(help="f1, kappa, accuracy or youden.")] = "f1",
    positive_threshold: lo.PositiveThreshold = None, bootstrap: lo.Bootstrap = 1000,
    folds: Annotated[int, typer.Option(help="k for the cross-validated estimate.")] = 5,
    seed: Annotated[int, typer.Option(help="Random seed (bootstrap, folds).")] = 0,
    run: Annotated[Path | None, typer.Option(
        help="A selection, spans or function-call run: also plot its metrics across τ (function "
        "calls: the argument τ), no judge call.")
    ] = None,
    pool: Annotated[Path | None, typer.Option(
        help="Unlabelled pairs (JSONL/CSV/TSV, same pred/truth fields) or a run directory (its "
        "judged pairs): τ becomes the population's, from the labels weighted by score "
        "stratum.")] = None,
    suggest: Annotated[int, typer.Option(
        help="Write this many pool pairs to label next (suggestions.jsonl and an audit run "
        "suggestions/); needs --pool. Several judges: strata by mean score and disagreement.")
    ] = 0,
    strata: Annotated[int, typer.Option(help="Score strata of the population (--pool).")] = 16,
    target_loss: lo.TargetLoss = 0.01,
    out_dir: lo.OutDir = None, overwrite: lo.Overwrite = False,
    pred_field: lo.PredField = "pred", truth_field: lo.TruthField = "truth",
    label_field: lo.LabelField = "label", where: lo.Where = None, max_chars: lo.MaxChars = 4096,
    cache_dir: o.CacheDir = None, cache_mode: o.CacheMode = "read-write",
    judge_flags: dict[str, Any] | None = None, canary: dict[str, Any] | None = None,
) -> None:
    """Choose τ for each judge from human-labelled pairs, with CIs, CV and plots.

    Writes calibration.json (per judge: ROC-AUC, PR-AUC, Spearman, Pearson, τ and its
    P/R/F1/κ/accuracy, bootstrap 95 % CIs of τ and of the objective, k-fold CV estimate),
    curve.csv (every candidate τ), threshold.png, roc.png, pr.png and plots.json into --out
    (default runs/<UTC time>-calibrate-<pid>), and names the plots. Judges are given as for eval
    (--judge, --judges, --base-url, --scorer, limits…); several are compared on one chart. Per
    judge it records its outcomes; the terminal says when some of its calls failed (its
    statistics then use the scored pairs only). With --pool (unlabelled pairs) each judge also
    scores the pool and τ, its CI and the counts at τ are the population's: labelled pairs
    weighted N_h/n_h by score stratum, bootstrap within strata, and the objective lost by using
    τ̂ instead of the best τ. --suggest N writes the N pool pairs to label next (allocated to
    the strata that can move that loss, random within a stratum; several judges: strata by mean
    score and disagreement) as suggestions.jsonl and the run suggestions/ for `simjudge audit`,
    unless that loss is at most --target-loss with every stratum at its minimum of labels (the
    stopping rule; τ's CI is only reported). Exit status 2 on bad input; 1 when some judge calls
    failed (the output is written) or the disk refused a write. Each judge's identity, the
    labels' sha256 and count and the per-pair scores are kept: eval --tau-from refuses the τ for
    another identity; --check FILE checks one (--min-kappa; --rejudge N: the drift canary).
    """
    if check is not None:  # --rejudge: the drift canary; else no judge call (both exit)
        run_check(check, labels, judge, judges_file, judge_flags, context, min_kappa,
                  (pred_field, truth_field, label_field, positive_threshold, where, max_chars),
                  {"out": out_dir, "pool": pool, "suggest": suggest, "run": run}, canary)
    from judge.cache import JudgeCache
    from judge.calibration.calibrate import run_calibration
    from judge.calibration.labels import load_labels
    from judge.cli.options import judge_options
    from judge.judges.judgesfile import build_judges
    from judge.pipeline.checks import check_min
    from judge.record.outdir import default_run_dir, prepare_out_dir
    from metrics import OBJECTIVES

    try:
        labels = check_options(labels, min_kappa, canary)
        if objective not in OBJECTIVES:
            raise InputError(f"unknown objective {objective!r}; expected one of "
                             f"{', '.join(OBJECTIVES)}", field="objective")
        check_cache_mode(cache_mode)
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        check_min("folds", folds, 2, " (k of the k-fold cross-validation)")
        check_max_chars(max_chars)
        options = judge_options(**(judge_flags or {}))
        judges = build_judges(list(judge or []), judges_file, options)
        if len({j.id for j in judges}) != len(judges):
            raise InputError("the same judge is given twice", field="judge")
        label_set = load_labels(labels, pred_field, truth_field, label_field,
                                positive_threshold, where or [], max_chars=max_chars)
        say(label_set.describe())  # how repeated rows were merged
        active = _active(pool, suggest, strata, target_loss, label_set, pred_field,
                         truth_field, max_chars)
        target = out_dir or default_run_dir("calibrate")
        prepare_out_dir(target, overwrite)  # before any judge call
        cache = JudgeCache(cache_dir, cache_mode)
        try:
            with progress() as factory:
                result = run_calibration(label_set, judges, cache, target, objective, bootstrap,
                                         folds, seed, run, overwrite, progress_factory=factory,
                                         active=active, context=context)
        finally:
            cache.close()
    except (InputError, CacheMissError) as exc:
        fail(exc)
    except OSError as exc:  # disk full / size limit while writing the cache or the output
        fail_storage(exc)
    from judge.display import calibrate_summary, failed_calls_lines, print_all

    print_all(out, calibrate_summary(result, objective))
    say(f"calibration written to {target}")
    plots = json.loads((target / "plots.json").read_text(encoding="utf-8"))
    say(f"plots in {target}: {', '.join(plots)}")
    if (result.get("suggestions") or {}).get("written"):
        say(f"label them: simjudge audit {target / 'suggestions'} (--blind hides the judge), "
            "then simjudge labels merge LABELS EXPORT.jsonl -o NEW.jsonl and calibrate again")
    failed = failed_calls_lines(result)
    for line in failed:
        err.print(line, highlight=False, markup=False, soft_wrap=True)
    if failed:  # like eval: some judge calls failed (named above the table too)
        raise typer.Exit(1)


def _active(pool: Path | None, suggest: int, strata: int, target_loss: float, labels: Any,
            pred_field: str, truth_field: str, max_chars: int) -> Any:
    """The checked pool options (None without --pool); the pool is read here, before any
    judge call.

    Raises:
        InputError: --suggest < 0, or without --pool; --strata < 1;
            --target-loss outside (0, 1]; a bad pool file (:func:`~judge.calibration.pool.
            load_pool`).
    """
    from judge.calibration.pool import load_pool
    from judge.calibration.suggest import ActiveOptions
    from judge.pipeline.checks import check_min

    check_min("suggest", suggest, 0, " (pairs to suggest; 0 = none)")
    check_min("strata", strata, 1)
    if not 0.0 < target_loss <= 1.0:
        raise InputError(f"expected a loss in (0, 1], got {target_loss}", field="target-loss")
    if pool is None:
        if suggest:
            raise InputError("--suggest needs --pool: the unlabelled pairs to choose from",
                             field="suggest")
        return None
    from judge.runs.report import RENDERERS

    return ActiveOptions(load_pool(pool, labels, pred_field, truth_field, max_chars), suggest,
                         strata, target_loss, RENDERERS)
