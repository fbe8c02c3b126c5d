"""The ``simjudge`` command line (typer).

Every bad input ends with one message ``FILE:LINE: field 'x': what is wrong`` on stderr and exit
status 2, with no run directory written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judge.cache import CACHE_MODES, JudgeCache
from judge.errors import CacheMissError, InputError
from judge.io import file_sha256
from judge.items import TASKS, check_task, load_items

app = typer.Typer(
    name="simjudge",
    help="Evaluate model outputs with LLM judges: similarity matrices → fuzzy metrics.",
    no_args_is_help=True,
    add_completion=False,
)
cache_app = typer.Typer(help="Inspect or clear the judge-call cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")

err = Console(stderr=True)
out = Console()


def _fail(exc: Exception) -> None:
    from judge.redact import redact

    typer.echo(f"simjudge: error: {redact(str(exc))}", err=True)  # never print a key
    raise typer.Exit(2)


def _fail_storage(exc: OSError) -> None:
    """The disk refused a write mid-run (full, size limit): one line, exit 1; completed
    judge calls are in the cache (judge.cache.CacheStorageError, judge.runs.RunWriteError)."""
    from judge.redact import redact

    typer.echo(f"simjudge: error: {redact(str(exc))}", err=True)
    raise typer.Exit(1)


@contextmanager
def _progress() -> Iterator[Callable[[int, Any], Callable[[int], None]]]:
    with Progress(TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[live]}"), console=err, transient=True) as bar:
        def factory(total: int, stats: Any) -> Callable[[int], None]:
            task = bar.add_task("judge", total=total, live="")

            def advance(n: int) -> None:
                live = (f"calls {stats.judge_calls}  cache {stats.cache_hits}  tokens "
                        f"{stats.tokens_in + stats.tokens_out}  ${stats.cost_usd:.4f}")
                bar.update(task, advance=n, live=live)

            return advance

        yield factory


def _build_judges(specs: list[str], judges_file: Path | None, options: Any, vote: str,
                  quorum: int, tau: float) -> Any:
    """One judge, or a :class:`judge.panel.Panel` of several.

    Without --judges, each spec is parsed; with --judges, each --judge names an id of the file
    (no --judge = every judge of the file).
    """
    from judge.judges import parse_judge_spec
    from judge.judgesfile import build_declared, load_judges_file
    from judge.panel import Panel

    if judges_file is None:
        judges = [parse_judge_spec(s, options) for s in (specs or ["local"])]
    else:
        declared = load_judges_file(judges_file, options)
        for s in specs:
            if s not in declared:
                raise InputError(f"no judge {s!r} in {judges_file} (ids: "
                                 f"{', '.join(declared)})", field="judge")
        judges = [build_declared(judges_file, declared, s) for s in (specs or list(declared))]
    if len(judges) == 1:
        return judges[0]
    try:
        return Panel(judges, vote, quorum, tau)
    except ValueError as exc:
        raise InputError(str(exc), field="judge") from None


def _tau_from(path: Path, judge_id: str) -> tuple[float, dict[str, Any]]:
    """τ calibrated for ``judge_id`` in a calibration.json, and its provenance."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read calibration file: {exc}", path) from None
    judges = data.get("judges") if isinstance(data, dict) else None
    if not isinstance(judges, dict) or judge_id not in judges:
        known = ", ".join(judges) if isinstance(judges, dict) else "none"
        raise InputError(f"no calibration for judge {judge_id!r} (calibrated: {known})", path,
                         field="judges")
    tau = judges[judge_id].get("tau")
    if tau is None:
        raise InputError(f"τ is undefined for judge {judge_id!r}: "
                         f"{judges[judge_id].get('note', 'no threshold was chosen')}", path,
                         field="tau")
    if not isinstance(tau, (int, float)) or not 0.0 <= tau <= 1.0:
        raise InputError(f"calibrated tau {tau!r} is not in [0, 1]", path, field="tau")
    return float(tau), {"path": str(path), "sha256": file_sha256(path), "judge": judge_id,
                        "tau": float(tau), "objective": data.get("objective")}


def _print_summary(summary: dict[str, Any]) -> None:
    """Print a run's summary: metrics with 95 % CIs, error types, panel agreement, accounting
    (see :mod:`judge.display`)."""
    from judge.display import eval_summary, print_all

    print_all(out, eval_summary(summary))


@app.command("eval")
def eval_command(
    data: Annotated[Path, typer.Argument(help="JSONL/CSV/TSV predictions (ranking: TREC run).")],
    task: Annotated[str, typer.Option(help=f"One of: {', '.join(TASKS)}.")] = "selection",
    judge: Annotated[list[str] | None, typer.Option(
        help="Judge spec (local, lexical, table:PATH, openai:MODEL, langchain:PROVIDER:MODEL, "
             "openai-embedding:MODEL) or an id from --judges; repeat for a panel.")] = None,
    vote: Annotated[str, typer.Option(
        help="Panel vote: mean, median, majority (at τ), min or max.")] = "mean",
    quorum: Annotated[int, typer.Option(
        help="Panel: members that must answer ok for a pair to be decided.")] = 1,
    bootstrap: Annotated[int, typer.Option(
        help="Bootstrap resamples for the 95 % CIs in summary.json (0 = none).")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed of the bootstrap.")] = 0,
    tau: Annotated[float, typer.Option(
        help="Match threshold τ in [0, 1]; a pair matches when its score is strictly greater.")
    ] = 0.7,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Run directory to write.")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a non-empty --out.")] = False,
    pred_field: Annotated[str | None, typer.Option(help="Prediction field name.")] = None,
    truth_field: Annotated[str | None, typer.Option(help="Gold field name.")] = None,
    id_field: Annotated[list[str] | None, typer.Option(
        help="Id field(s); repeat or comma-separate for a composite id. Default: 'id' when "
             "the records carry it (with --gold: when both files do), else the position.")
    ] = None,
    gold: Annotated[Path | None, typer.Option(
        help="Separate gold file joined on the id (--id-field, default 'id'); files without "
             "ids are paired by position only when their record counts match "
             "(ranking: TREC qrels).")] = None,
    max_chars: Annotated[int, typer.Option(
        help="Longest string (characters) accepted in a prediction or gold field; a longer "
             "one is bad input (exit 2, FILE:LINE: field), never truncated. 0 = no limit.")
    ] = 4096,
    where: Annotated[list[str] | None, typer.Option(
        help="Keep only records with FIELD=VALUE (repeatable).")] = None,
    context: Annotated[str, typer.Option(help="Task context for prompt judges.")] = "",
    cache_dir: Annotated[Path | None, typer.Option(
        help="Cache directory (default $SIMJUDGE_CACHE_DIR or ~/.cache/simjudge).")] = None,
    cache_mode: Annotated[str, typer.Option(
        help=f"One of: {', '.join(CACHE_MODES)}.")] = "read-write",
    tau_from: Annotated[Path | None, typer.Option(
        help="calibration.json from simjudge calibrate: use its τ for --judge "
             "(overrides --tau).")] = None,
    judges_file: Annotated[Path | None, typer.Option(
        "--judges", help="TOML file of judges; --judge then names one of its ids.")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="OpenAI-compatible endpoint for openai:/openai-embedding: judges.")] = None,
    api_key_env: Annotated[str, typer.Option(
        help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    scorer: Annotated[str, typer.Option(
        help="Prompt scorer: entity_similarity@v1 (one call per pair) or "
             "entity_similarity_batch@v1 (one call per string of the smaller side, up to "
             "--max-batch items).")] = "entity_similarity@v1",
    concurrency: Annotated[int, typer.Option(help="Judge calls in flight.")] = 16,
    max_batch: Annotated[int, typer.Option(
        help="Most items per request with the batch scorer.")] = 20,
    rpm: Annotated[int | None, typer.Option(help="Requests per minute limit.")] = None,
    tpm: Annotated[int | None, typer.Option(help="Tokens per minute limit.")] = None,
    temperature: Annotated[float, typer.Option(help="Decoding temperature.")] = 0.0,
    decoding_seed: Annotated[int | None, typer.Option(
        help="Decoding seed sent to LLM judges, if the server honours it.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Completion token limit.")] = None,
    samples: Annotated[int, typer.Option(
        help="Completions per call (n); the score is their mean.")] = 1,
    timeout: Annotated[float, typer.Option(help="Per-request timeout in seconds.")] = 60.0,
    max_retries: Annotated[int, typer.Option(
        help="Retries with backoff for 429/5xx/timeouts.")] = 2,
    stop_after: Annotated[int, typer.Option(
        help="Stop a remote judge after this many consecutive calls fail with the same "
             "fatal error (HTTP 401/403/404, connection refused, DNS failure); its "
             "remaining pairs are recorded as not attempted. 0 = never.")] = 8,
    threads: Annotated[int | None, typer.Option(
        help="local judge: BLAS threads (default automatic: 2 on an idle machine, 1 when "
             "the other cores are busy).")] = None,
    prices: Annotated[Path | None, typer.Option(
        help="TOML price table (USD per 1M tokens) replacing the dated default.")] = None,
    fc_format: Annotated[str, typer.Option(
        "--format", help="function-call: seed, openai (tool_calls) or bfcl.")] = "seed",
    functions: Annotated[Path | None, typer.Option(
        help="function-call --format bfcl: the question file with the function schemas.")
    ] = None,
    arg_judge: Annotated[str | None, typer.Option(
        help="function-call: judge spec for string argument equivalence (e.g. local).")
    ] = None,
    arg_tau: Annotated[float, typer.Option(
        help="function-call: argument values match when the judge's score is > this.")
    ] = 0.7,
    http: Annotated[str, typer.Option(
        help="openai: HTTP transport: auto (aiohttp when installed), aiohttp or httpx.")
    ] = "auto",
    structured_method: Annotated[str | None, typer.Option(
        help="langchain: judges: with_structured_output method (json_schema, "
             "function_calling, json_mode).")] = None,
) -> None:
    """Evaluate predictions against gold answers and write a run directory.

    Writes config.json, verdicts.jsonl, items.jsonl and summary.json atomically into --out
    (default runs/<UTC time>-<task>-<pid>), then prints the summary table. Exit status: 0 when
    every judged pair got a score, 1 when some judge calls failed (their outcomes are recorded in
    the run) or a remote judge stopped early after --stop-after consecutive fatal errors (one
    line on stderr says why; its unsent pairs are "not attempted", retried by a rerun) or the
    disk refused a write (full, size limit: one line; cached answers are kept), 2 on bad input
    (also an --out that cannot be written, checked before any judge call).

    Items are identified by --id-field, by default by the data's 'id' field when the records
    carry it; with --gold, predictions and gold are joined on it one-to-one (missing, extra or
    duplicate ids are errors), and files without ids are paired by position only when their
    record counts match. A prediction or gold string longer than --max-chars (default 4096) is
    bad input, exit 2, never truncated; all input is checked before any judge call.
    """
    from judge.cliopts import check_judge_use, check_min, check_unit
    from judge.evaluate import run_evaluation
    from judge.judges import JudgeOptions
    from judge.panel import Panel
    from judge.prices import load_prices

    try:
        check_task(task)
        if cache_mode not in CACHE_MODES:
            raise InputError(f"unknown cache mode {cache_mode!r}; expected one of "
                             f"{', '.join(CACHE_MODES)}", field="cache-mode")
        if not 0.0 <= tau <= 1.0:
            raise InputError(f"tau must be in [0, 1], got {tau}", field="tau")
        check_judge_use(task, bool(judge), judges_file is not None, arg_judge is not None)
        check_min("quorum", quorum, 1)
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        check_unit("arg-tau", arg_tau)
        ids = [f for spec in (id_field or []) for f in spec.split(",") if f]
        params: dict[str, Any] = {"temperature": temperature}
        for k, v in (("seed", decoding_seed), ("max_tokens", max_tokens)):
            if v is not None:
                params[k] = v
        if samples != 1:
            params["n"] = samples
        options = JudgeOptions(base_url=base_url, api_key_env=api_key_env, scorer=scorer,
                               params=params, concurrency=concurrency, max_batch=max_batch,
                               rpm=rpm, tpm=tpm,
                               timeout_s=timeout, max_retries=max_retries,
                               prices=load_prices(prices), method=structured_method, http=http,
                               stop_after=stop_after, threads=threads)
        specs = list(judge or [])
        judge_obj = (_build_judges(specs, judges_file, options, vote, quorum, tau)
                     if task == "selection" else None)
        arg_judge_obj = None  # built (and so checked) before any data is read
        if arg_judge is not None and task == "function-call":
            from judge.judges import JudgeOptions as _Opts
            from judge.judges import parse_judge_spec

            arg_judge_obj = parse_judge_spec(arg_judge, _Opts(
                **{**options.__dict__, "scorer": "argument_equivalence@v1"}))
        calibration = None
        if tau_from is not None and task != "selection":
            raise InputError(f"--tau-from is not used by --task {task} (τ applies to "
                             "selection matching; for function calls use --arg-tau)",
                             field="tau-from")
        if tau_from is not None:
            tau, calibration = _tau_from(tau_from, judge_obj.id if judge_obj else
                                         (specs[0] if specs else "local"))
            if isinstance(judge_obj, Panel):
                judge_obj.tau = tau
        if max_chars < 0:
            raise InputError(f"--max-chars must be >= 0 (0 = no limit), got {max_chars}",
                             field="max-chars")
        items = load_items(data, task, pred_field, truth_field, ids, gold, where or [],
                           fmt=fc_format, functions=functions, max_chars=max_chars)
        from judge.runs import default_run_dir

        run_dir = out_dir or default_run_dir(task)  # runs/<UTC time>-<task>-<pid>: unique
        extra = {
            "command": ["simjudge", *sys.argv[1:]],
            "data": {"path": str(data), "sha256": file_sha256(data)},
            "functions": ({"path": str(functions), "sha256": file_sha256(functions)}
                          if functions else None),
            "gold": {"path": str(gold), "sha256": file_sha256(gold)} if gold else None,
            "fields": {"pred": pred_field, "truth": truth_field, "id": ids, "where": where or []},
            "tau_from": calibration,
        }
        cache = JudgeCache(cache_dir, cache_mode)
        try:
            with _progress() as factory:
                result = run_evaluation(items, task, judge_obj, tau=tau, context=context,
                                        cache=cache, config_extra=extra, out=run_dir,
                                        overwrite=overwrite, progress_factory=factory,
                                        bootstrap=bootstrap, seed=seed, fc_format=fc_format,
                                        arg_judge=arg_judge_obj, arg_tau=arg_tau)
        finally:
            cache.close()
    except (InputError, CacheMissError) as exc:
        _fail(exc)
    except OSError as exc:  # disk full / size limit while writing the cache or the run
        _fail_storage(exc)
    _print_summary(result.summary)
    out.print(f"run written to {result.run_dir}", highlight=False)
    failed = sum(v for k, v in result.summary.get("outcomes", {}).items() if k != "ok")
    failed += (result.summary.get("panel") or {}).get("undecided", 0)
    stopped = result.summary.get("stopped_early") or []
    for s in stopped:  # one line per stopped judge, however many pairs it left
        err.print(f"simjudge: judge {s['judge']} stopped early: {s['reason']}; "
                  f"{s['pairs_not_attempted']} pair(s) not attempted (recorded as "
                  "transport_error, not cached: a rerun retries them)", highlight=False,
                  markup=False, soft_wrap=True)
    if failed or stopped:
        if failed:
            err.print(f"{failed} judged pair(s) failed: see 'outcomes' in summary.json",
                      highlight=False)
        raise typer.Exit(1)


@app.command("calibrate")
def calibrate_command(
    labels: Annotated[Path, typer.Argument(help="JSONL/CSV/TSV of pairs with human labels.")],
    judge: Annotated[list[str] | None, typer.Option(
        help="Judge spec (repeat to compare judges on one chart).")] = None,
    objective: Annotated[str, typer.Option(help="f1, kappa, accuracy or youden.")] = "f1",
    positive_threshold: Annotated[float | None, typer.Option(
        help="Binarise graded labels: label >= X is positive.")] = None,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples for the 95 % CIs.")] = 1000,
    folds: Annotated[int, typer.Option(help="k for the cross-validated estimate.")] = 5,
    seed: Annotated[int, typer.Option(help="Random seed (bootstrap, folds).")] = 0,
    run: Annotated[Path | None, typer.Option(
        help="A selection run: also plot its fuzzy P/R/F1 across τ (no judge call).")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Output directory.")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a non-empty --out.")] = False,
    pred_field: Annotated[str, typer.Option(help="Field of the first side.")] = "pred",
    truth_field: Annotated[str, typer.Option(help="Field of the second side.")] = "truth",
    label_field: Annotated[str, typer.Option(help="Field of the human label(s).")] = "label",
    where: Annotated[list[str] | None, typer.Option(help="Keep rows with FIELD=VALUE.")] = None,
    max_chars: Annotated[int, typer.Option(
        help="Longest pair string (characters); a longer one is bad input (exit 2), never "
             "truncated. 0 = no limit.")] = 4096,
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory.")] = None,
    cache_mode: Annotated[str, typer.Option(
        help=f"One of: {', '.join(CACHE_MODES)}.")] = "read-write",
    threads: Annotated[int | None, typer.Option(
        help="local judge: BLAS threads (default automatic: 2 on an idle machine, 1 when "
             "the other cores are busy).")] = None,
) -> None:
    """Choose τ for each judge from human-labelled pairs, with CIs, CV and plots.

    Writes calibration.json (per judge: ROC-AUC, PR-AUC, Spearman, Pearson, τ and its
    P/R/F1/κ/accuracy, bootstrap 95 % CIs of τ and of the objective, k-fold CV estimate),
    curve.csv (every candidate τ), threshold.png, roc.png, pr.png and plots.json into --out
    (default runs/<UTC time>-calibrate-<pid>). Per judge it records its outcomes, and the
    terminal says when some of its calls failed (its statistics then use the scored pairs
    only). Exit status 2 on bad input; 1 when some judge calls failed (the output is written)
    or the disk refused a write.
    """
    from judge.calibrate import run_calibration
    from judge.cliopts import check_min
    from judge.judges import JudgeOptions, parse_judge_spec
    from judge.labels import load_labels
    from metrics import OBJECTIVES

    try:
        if objective not in OBJECTIVES:
            raise InputError(f"unknown objective {objective!r}; expected one of "
                             f"{', '.join(OBJECTIVES)}", field="objective")
        if cache_mode not in CACHE_MODES:
            raise InputError(f"unknown cache mode {cache_mode!r}", field="cache-mode")
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        check_min("folds", folds, 2, " (k of the k-fold cross-validation)")
        specs = judge or ["local"]
        options = JudgeOptions(threads=threads)
        judges = [parse_judge_spec(s, options) for s in specs]
        if len({j.id for j in judges}) != len(judges):
            raise InputError("the same judge is given twice", field="judge")
        if max_chars < 0:
            raise InputError(f"--max-chars must be >= 0 (0 = no limit), got {max_chars}",
                             field="max-chars")
        label_set = load_labels(labels, pred_field, truth_field, label_field,
                                positive_threshold, where or [], max_chars=max_chars)
        out.print(label_set.describe(), highlight=False)  # how repeated rows were merged
        from judge.runs import default_run_dir

        target = out_dir or default_run_dir("calibrate")
        cache = JudgeCache(cache_dir, cache_mode)
        try:
            result = run_calibration(label_set, judges, cache, target, objective, bootstrap,
                                     folds, seed, run, overwrite)
        finally:
            cache.close()
    except (InputError, CacheMissError) as exc:
        _fail(exc)
    except OSError as exc:  # disk full / size limit while writing the cache or the run
        _fail_storage(exc)
    from judge.display import calibrate_summary, print_all

    print_all(out, calibrate_summary(result, objective))
    out.print(f"calibration written to {target}", highlight=False)
    if any(n for r in result["judges"].values()
           for o, n in (r.get("outcomes") or {}).items() if o != "ok"):
        raise typer.Exit(1)  # like eval: some judge calls failed (named above)


@app.command("audit")
def audit_command(
    run: Annotated[Path, typer.Argument(help="A run directory.")],
    out_file: Annotated[Path | None, typer.Option(
        "--out", help="Output file (default RUN/report.html, .md or .jsonl).")] = None,
    near: Annotated[float, typer.Option(
        help="Queue the pairs whose score is within this distance of τ.")] = 0.1,
    fmt: Annotated[str, typer.Option("--format", help="html, md or jsonl.")] = "html",
) -> None:
    """Write the audit report of a run: every judged pair with each judge's score, outcome,
    rationale, raw output, latency, tokens and cache key; the chosen matching; queues (near τ,
    disagreements, failures, unmatched); search; human overrides exportable as JSONL for
    `calibrate` and the `table:` judge. HTML is one self-contained offline file."""
    from judge.report import render_html, render_jsonl, render_markdown
    from judge.rundir import load_run

    renderers = {"html": render_html, "md": render_markdown, "jsonl": render_jsonl}
    try:
        if fmt not in renderers:
            raise InputError(f"unknown format {fmt!r}; expected html, md or jsonl",
                             field="format")
        if not 0.0 <= near <= 1.0:
            raise InputError(f"near must be in [0, 1], got {near}", field="near")
        stored = load_run(run)
        text = renderers[fmt](stored, near)
    except InputError as exc:
        _fail(exc)
    target = out_file or run / f"report.{fmt}"
    target.write_text(text, encoding="utf-8")
    out.print(f"{fmt} report written to {target} ({len(text.encode()) / 1e6:.2f} MB)",
              highlight=False)


@app.command("rescore")
def rescore_command(
    run: Annotated[Path, typer.Argument(help="A selection run directory.")],
    tau: Annotated[float | None, typer.Option(
        help="The new τ (default: the run's own τ, from its config.json).")] = None,
    vote: Annotated[str | None, typer.Option(help="Panel runs: another vote.")] = None,
    quorum: Annotated[int | None, typer.Option(help="Panel runs: another quorum.")] = None,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples for the CIs.")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed of the bootstrap.")] = 0,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the JSON here.")] = None,
) -> None:
    """Recompute matching and metrics from a run's stored verdicts, with no judge call
    (τ sensitivity, vote-rule ablation). Without --tau (or --vote/--quorum) the run's own value
    is used, which reproduces the run's metrics; the τ used is printed. Exit status 2 on bad
    input."""
    from judge.cliopts import check_min
    from judge.rescore import rescore
    from judge.rundir import load_run
    from judge.runs import dumps

    try:
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        check_min("quorum", quorum, 1)
        result = rescore(load_run(run), tau, vote, quorum, bootstrap, seed)
    except InputError as exc:
        _fail(exc)
    from judge.display import print_all, rescore_summary

    print_all(out, rescore_summary(result))
    if out_file is not None:
        out_file.write_text(dumps(result, indent=2) + "\n", encoding="utf-8")
        out.print(f"written to {out_file}", highlight=False)


@app.command("compare")
def compare_command(
    runs: Annotated[list[Path], typer.Argument(help="Two or more runs over the same data.")],
    bootstrap: Annotated[int, typer.Option(help="Paired bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed of the bootstrap.")] = 0,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Write compare.json and compare.md into this directory.")] = None,
) -> None:
    """Side-by-side metrics with paired bootstrap 95 % CIs of the differences, per-judge
    operations (outcomes, parse rate, cache, tokens, USD, latency) and agreement between the
    runs' verdicts. Exit status 2 on bad input."""
    from judge.cliopts import check_min
    from judge.compare import compare_runs, to_markdown
    from judge.display import compare_summary, print_all
    from judge.rundir import load_run
    from judge.runs import dumps

    try:
        check_min("bootstrap", bootstrap, 0, " (0 = no CIs)")
        result = compare_runs([load_run(r) for r in runs], bootstrap, seed)
    except InputError as exc:
        _fail(exc)
    print_all(out, compare_summary(result))
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "compare.json").write_text(dumps(result, indent=2) + "\n", encoding="utf-8")
        (out_dir / "compare.md").write_text(to_markdown(result), encoding="utf-8")
        out.print(f"written to {out_dir}/compare.json and compare.md", highlight=False)


@cache_app.command("stats")
def cache_stats(
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory.")] = None,
) -> None:
    """Print the cache directory, its number of entries and its size in bytes."""
    s = JudgeCache(cache_dir).stats()
    out.print(f"directory {s['directory']}\nentries   {s['entries']}\n"
              f"size      {s['size_bytes']} bytes", highlight=False)


@cache_app.command("clear")
def cache_clear(
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory.")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete every cached judge call (paid-for answers are lost: asks first unless --yes)."""
    cache = JudgeCache(cache_dir)
    if not yes and not typer.confirm(f"Delete every entry in {cache.directory}?"):
        raise typer.Exit(1)
    try:
        removed = cache.clear()
    except OSError as exc:
        _fail_storage(exc)
    out.print(f"removed {removed} entries from {cache.directory}", highlight=False)


@app.command()
def version() -> None:
    """Print simjudge's version and the versions of the libraries its numbers depend on (the
    list recorded in every run's config.json, :data:`judge.versions.VERSIONED`)."""
    from judge.versions import package_versions

    versions = package_versions()
    typer.echo(f"simjudge {versions.pop('simjudge')} (Python {versions.pop('python')})")
    for dist, v in versions.items():
        typer.echo(f"  {dist} {v}")


@app.callback()
def _root() -> None:
    """simjudge: evaluate model outputs with LLM judges."""


def main() -> None:
    """Console-script entry point (``simjudge``)."""
    app()


if __name__ == "__main__":
    main()
