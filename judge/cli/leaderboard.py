"""``simjudge leaderboard``: every judge on every labelled set, one comparable table per set
(:mod:`judge.calibration.leaderboard`). It takes the judge options ``eval`` and ``calibrate``
take (:mod:`judge.cli.options`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cli import labelopts as lo
from judge.cli import options as o
from judge.cli.common import fail, fail_storage, out, progress, say
from judge.errors import CacheMissError, InputError
from judge.pipeline.checks import check_cache_mode, check_max_chars


@o.with_judge_flags
def leaderboard_command(
    labels: Annotated[list[Path], typer.Argument(
        help="One or more JSONL/CSV/TSV files of pairs with human labels.")],
    judge: o.JudgeSpecs = None, judges_file: o.JudgesFile = None,
    objective: Annotated[str, typer.Option(help="What τ maximises: f1, kappa, accuracy or "
                                                "youden.")] = "f1",
    swap: Annotated[float, typer.Option(
        help="Share of the scored pairs re-judged with the sides exchanged (0 = no swap "
             "probe; 1 = all).")] = 0.1,
    repeats: Annotated[int, typer.Option(
        help="Samples per pair for the repeat probe of LLM judges (1 = none).")] = 1,
    positive_threshold: lo.PositiveThreshold = None, bootstrap: lo.Bootstrap = 1000,
    folds: Annotated[int, typer.Option(help="k for the cross-validated κ.")] = 5,
    min_human_pairs: Annotated[int, typer.Option(
        help="Fewest pairs with ≥ 2 annotations for the humans ceiling row (fewer: no row, "
             "and a note says why).")] = 30,
    seed: Annotated[int, typer.Option(help="Random seed (bootstrap, folds, swap sample).")] = 0,
    panel: Annotated[str | None, typer.Option(
        help="Also rank the panel of the given judges with this vote (mean, median, min or "
             "max): its row says what it is worth in independent judges.")] = None,
    alt_test_epsilon: Annotated[float, typer.Option(
        help="ε of the alternative annotator test, in [0, 1]: 0.1 crowd workers, 0.15 "
             "skilled annotators, 0.2 experts (Calderon et al. 2025).")] = 0.1,
    select_panel: Annotated[float | None, typer.Option(
        metavar="BUDGET", help="Pick the majority-vote panel of ≥ 3 of the judges scored with "
                               "the most κ per USD within BUDGET USD per 1,000 pairs.")] = None,
    out_dir: lo.OutDir = None, overwrite: lo.Overwrite = False,
    pred_field: lo.PredField = "pred", truth_field: lo.TruthField = "truth",
    label_field: lo.LabelField = "label", where: lo.Where = None, max_chars: lo.MaxChars = 4096,
    cache_dir: o.CacheDir = None, cache_mode: o.CacheMode = "read-write",
    judge_flags: dict[str, Any] | None = None,
) -> None:
    """Rank judges on human-labelled pairs: one table per label set, one row per judge.

    Rows: each judge, then the reference rows `lexical` (added unless given) and `humans` (a
    leave-one-annotator-out ceiling, when at least --min-human-pairs pairs carry several
    annotations; its κ and F1 at the labels' own rule, e.g. label ≥ 4, not at a fitted τ).
    With named reviewers (labels merge, a labels.db), the alternative annotator test
    (Calderon et al. 2025): winning rate ω and advantage probability ρ, or "not enough
    annotators" below 3 reviewers with 30 pairs each. --select-panel BUDGET: the panel of
    ≥ 3 judges voting by majority with the most κ per USD (exhaustive, ≤ 12 judges).
    Columns: ROC-AUC, PR-AUC, κ and F1 at each judge's calibrated τ with bootstrap 95 % CIs,
    5-fold CV κ, τ and its CI width, parse-error rate, swap and repeat flip rates at τ, tokens,
    $ and seconds per 1,000 pairs, and the paired 95 % CI of each judge's difference from the
    first. Writes leaderboard.md, leaderboard.json and leaderboard.png into --out (default
    runs/<UTC time>-leaderboard-<pid>). Exit status 2 on bad input (before any judge call); 1
    when some judge calls failed (the output is written) or the disk refused a write.
    """
    from judge.cache import JudgeCache
    from judge.calibration.labels import load_labels
    from judge.calibration.leaderboard import leaderboard
    from judge.calibration.leaderboard_report import write_leaderboard
    from judge.calibration.panelselect import check_select_panel
    from judge.calibration.panelstats import leaderboard_panel
    from judge.cli.options import judge_options
    from judge.judges.judgesfile import build_judges
    from judge.pipeline.checks import check_min
    from judge.record.outdir import default_run_dir, prepare_out_dir
    from metrics import OBJECTIVES

    try:
        if objective not in OBJECTIVES:
            raise InputError(f"unknown objective {objective!r}; expected one of "
                             f"{', '.join(OBJECTIVES)}", field="objective")
        if not 0.0 <= swap <= 1.0:
            raise InputError(f"--swap must be a share in [0, 1], got {swap}", field="swap")
        check_min("repeats", repeats, 1, " (1 = no repeat probe)")
        check_cache_mode(cache_mode)
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        check_min("folds", folds, 2, " (k of the k-fold cross-validation)")
        check_min("min-human-pairs", min_human_pairs, 1, "")
        if not 0.0 <= alt_test_epsilon <= 1.0:
            raise InputError(f"--alt-test-epsilon must be in [0, 1], got {alt_test_epsilon}",
                             field="alt-test-epsilon")
        check_max_chars(max_chars)
        options = judge_options(**(judge_flags or {}))
        judges = build_judges(list(judge or []), judges_file, options)
        if len({j.id for j in judges}) != len(judges):
            raise InputError("the same judge is given twice", field="judge")
        check_select_panel(select_panel, len(judges) + all(j.id != "lexical" for j in judges))
        if panel is not None:
            judges.append(leaderboard_panel(judges, panel))
        label_sets = [load_labels(p, pred_field, truth_field, label_field, positive_threshold,
                                  where or [], max_chars=max_chars) for p in labels]
        for ls in label_sets:
            say(ls.describe())
        target = out_dir or default_run_dir("leaderboard")
        prepare_out_dir(target, overwrite)  # before any judge call
        cache = JudgeCache(cache_dir, cache_mode)
        try:
            with progress() as factory:
                result = leaderboard(label_sets, judges, cache, objective, bootstrap, folds,
                                     seed, swap, repeats, progress_factory=factory,
                                     min_human_pairs=min_human_pairs,
                                     alt_test_epsilon=alt_test_epsilon,
                                     select_budget=select_panel)
        finally:
            cache.close()
        write_leaderboard(result, target, overwrite)
    except (InputError, CacheMissError) as exc:
        fail(exc)
    except OSError as exc:  # disk full / size limit while writing the cache or the output
        fail_storage(exc)
    _print(result)
    say(f"leaderboard written to {target}")
    failed = [(r["judge"], n) for t in result["tables"] for r in t["rows"]
              for o_, n in (r.get("outcomes") or {}).items() if o_ != "ok" and n]
    for jid, n in failed:
        say(f"judge {jid}: {n} failed verdict(s); its statistics use the scored pairs only")
    if failed:
        raise typer.Exit(1)  # like eval and calibrate: some judge calls failed


def _print(result: dict[str, Any]) -> None:
    """Per label set its title, then one row per statistic and one column per judge (the
    columns of leaderboard.md, transposed), split into as many tables as it takes to show every
    number whole at the terminal's width (80 columns when piped; judges named A, B, … with a
    key when their names would need more tables: :func:`judge.display.statistic_tables`), then
    its notes."""
    from judge.calibration.leaderboard_report import cells, columns, notes, title
    from judge.display import statistic_tables

    st = result["settings"]
    for k, t in enumerate(result["tables"]):
        rows = [cells(r) for r in t["rows"]]
        if k:
            out.print()
        say(title(t))
        for r in statistic_tables(out, [r[0] for r in rows], [r[1:] for r in rows],
                                  lambda heads: columns(heads[0], st["objective"])[1:]):
            out.print(r, highlight=False)
        for n in notes(t):
            say(n)
