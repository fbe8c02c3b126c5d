"""``simjudge review``: the labelling web app (:mod:`judge.review`), labels in SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cli import labelopts as lo
from judge.cli import options as o
from judge.cli.common import fail, say
from judge.errors import CacheMissError, InputError


@o.with_judge_flags
def review_command(
    source: Annotated[Path, typer.Argument(
        help="A run directory, a suggestions.jsonl written by calibrate --suggest (or its "
        "folder), or a pool of unlabelled pairs (JSONL/CSV/TSV; needs --judge).")],
    labels: Annotated[Path, typer.Option(
        "--labels", help="The labels database (SQLite; created when missing). calibrate, "
        "leaderboard and labels merge read it directly; labels export writes it as JSONL.")],
    judge: o.JudgeSpecs = None, judges_file: o.JudgesFile = None,
    blind: Annotated[bool, typer.Option(
        "--blind/--no-blind", help="Blind (default): no judge output reaches the browser; "
        "--no-blind shows each judge's score and rationale (auditing, not calibration).")
    ] = True,
    scale: Annotated[str, typer.Option(
        help="binary (1 = match, 0 = no match) or a graded scale 0-N (N <= 9, one key per "
        "grade).")] = "binary",
    positive_threshold: Annotated[float | None, typer.Option(
        help="Graded scale: the least grade that is a match (default the upper half: 3 of "
        "0-5).")] = None,
    queue: Annotated[str, typer.Option(
        help="design (stratified by score, with τ̂ and the stopping rule), a run's near, "
        "disagree, failures, asymmetric or unstable queue, or all (random order).")
    ] = "design",
    overlap: Annotated[float, typer.Option(
        help="Share of pairs, in [0, 1], shown to a second reviewer (for agreement).")] = 0.0,
    target_loss: Annotated[float, typer.Option(
        help="Stopping rule: enough labels once the expected objective lost by using τ̂ "
        "instead of the best τ is at most this.")] = 0.01,
    objective: Annotated[str, typer.Option(help="f1, kappa, accuracy or youden.")] = "f1",
    strata: Annotated[int, typer.Option(help="Score strata of the design.")] = 16,
    bootstrap: Annotated[int, typer.Option(
        help="Bootstrap resamples of τ̂'s interval and the loss.")] = 200,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    host: Annotated[str, typer.Option(
        help="Address to listen on; any other than loopback needs the printed token and is "
        "plain HTTP (put TLS in front of it).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0 = any free port).")] = 8765,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the page in a browser.")
                            ] = False,
    items: Annotated[bool, typer.Option("--items", help="Check whole items of a run (link each "
                     "prediction to its gold item or none) for simjudge estimate.")] = False,
    design: Annotated[str, typer.Option(help="--items: uniform (a random order) or stratified "
                      "(unsure items more often).")] = "uniform",
    pred_field: lo.PredField = "pred", truth_field: lo.TruthField = "truth",
    max_chars: lo.MaxChars = 4096,
    cache_dir: o.CacheDir = None, cache_mode: o.CacheMode = "read-write",
    judge_flags: dict[str, Any] | None = None,
) -> None:
    """Label pairs in the browser, one at a time, into a labels database (SQLite).

    SOURCE is a run directory (its judged pairs and queues: near τ, judge disagreements,
    failures, asymmetric and unstable pairs), a calibrate --suggest output, or a pool of
    unlabelled pairs scored by --judge (live active labelling: the next pair comes from the
    score-stratified design, recomputed as labels arrive). Keys: 1 = match, 0 = no match (or
    0..N on a graded --scale), s = skip, u = undo, n = note. Blind by default: judge outputs
    never leave the server. After each label the page shows τ̂, its 95 % interval and the
    expected objective lost by using τ̂; the stopping rule is met when that loss is at most
    --target-loss with every stratum's minimum labelled. Each label is committed to the
    database before the page gets its reply; several reviewers may label at once in one server
    (--overlap shows a share of pairs to two of them, and Krippendorff's α is shown live); a
    second server on the same --labels is refused. Prints the URL and serves until Ctrl-C. Exit
    status 2 on bad input, before any judge call.
    """
    from judge.calibration.labelevents import Scale
    from judge.cli.common import progress
    from judge.pipeline.checks import check_cache_mode, check_max_chars, check_min
    from judge.review.launch import item_session, load_population, pair_session, preflight, serve
    from judge.review.options import QUEUE_NAMES, ReviewOptions
    from judge.review.population import QUEUES, source_kind
    from metrics import OBJECTIVES

    if items:
        try:
            serve(item_session(source, labels, design, seed, blind), host, port, open_browser,
                  labels, say)
        except InputError as exc:
            fail(exc)
        return
    try:
        sc = Scale.parse(scale, positive_threshold)
        if queue not in QUEUE_NAMES:
            raise InputError(f"unknown queue {queue!r}; expected one of "
                             f"{', '.join(QUEUE_NAMES)}", field="queue")
        if not 0.0 <= overlap <= 1.0:
            raise InputError(f"expected a share in [0, 1], got {overlap}", field="overlap")
        if not 0.0 < target_loss <= 1.0:
            raise InputError(f"expected a loss in (0, 1], got {target_loss}",
                             field="target-loss")
        if objective not in OBJECTIVES:
            raise InputError(f"unknown objective {objective!r}; expected one of "
                             f"{', '.join(OBJECTIVES)}", field="objective")
        check_min("strata", strata, 1)
        check_min("bootstrap", bootstrap, 1)
        check_min("port", port, 0)
        if port > 65535:
            raise InputError(f"expected a port in 0..65535, got {port}", field="port")
        check_max_chars(max_chars)
        check_cache_mode(cache_mode)
        kind, path = source_kind(source)
        if kind == "pool" and not (judge or judges_file):
            raise InputError("a pool of unlabelled pairs needs --judge to score it (or give a "
                             "run directory or a suggestions file)", source, field="judge")
        if kind != "pool" and (judge or judges_file):
            raise InputError(f"--judge scores a pool; this {kind} already holds its judge's "
                             "scores", source, field="judge")
        if queue in QUEUES and kind != "run":
            raise InputError(f"queue {queue!r} is a run's queue; SOURCE is a {kind}",
                             field="queue")
        opts = ReviewOptions(blind=blind, scale=sc, queue=queue, overlap=overlap,
                             target_loss=target_loss, objective=objective, strata=strata,
                             n_boot=bootstrap, seed=seed)
        judges = _pool_judges(judge, judges_file, judge_flags) if kind == "pool" else []
        preflight(labels, sc)  # the scale and the lock are checked before any judge call
        with progress() as factory:
            population = load_population(kind, path, blind, judges[0] if judges else None,
                                         cache_dir, cache_mode, pred_field, truth_field,
                                         max_chars, factory, say)
        opener = pair_session(population, labels, sc, opts)  # the database: once listening
    except (InputError, CacheMissError) as exc:
        fail(exc)
    try:
        serve(opener, host, port, open_browser, labels, say)
    except InputError as exc:
        fail(exc)


def _pool_judges(judge: list[str] | None, judges_file: Path | None,
                 judge_flags: dict[str, Any] | None) -> list[Any]:
    """The one judge that scores a pool.

    Raises:
        InputError: a bad judge spec or option, or more than one judge.
    """
    from judge.cli.options import judge_options
    from judge.judges.judgesfile import build_judges

    judges = build_judges(list(judge or []), judges_file, judge_options(**(judge_flags or {})))
    if len(judges) != 1:
        raise InputError(f"review scores a pool with one judge, got {len(judges)} (a panel is "
                         "one judge: give it in a --judges file)", field="judge")
    return judges
