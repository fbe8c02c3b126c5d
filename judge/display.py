"""What ``simjudge eval`` and ``simjudge compare`` print on the terminal.

Everything shown here is already in the run's ``summary.json`` (or ``compare.json``); this module
only rounds it and lays it out in rich tables that fit a 100-column terminal (``compare``'s
metrics, like ``leaderboard``'s table, are split to fit any width, 80 when piped):

* numbers: floats to 4 decimals (differences and their CIs to 3, signed), counts as integers,
  undefined statistics (None, NaN) as ``–`` — never a Python ``repr``;
* ``eval``: each metric with its bootstrap 95 % CI, the function-call error types (and accuracy
  per BFCL category), the per-class scores of multi-label runs, the panel's agreement
  (Krippendorff's α interval/nominal over the pairs every member scored, pairwise Cohen's κ at τ,
  Pearson, Spearman) and the judging accounting (pairs, calls, cache hits, tokens, USD, time);
* ``compare``: the runs as A, B, C… (legend with their directories and judges), each metric per
  run with the difference from A and its paired bootstrap 95 % CI, per-judge operations and the
  agreement between the runs' verdicts.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from judge.record.rows import RunSummary

DASH = "–"
"""Shown for a statistic that is undefined (None or NaN)."""


def num(x: Any, digits: int = 4, signed: bool = False) -> str:
    """A number for display.

    Args:
        x: int, float, bool, None or NaN (anything else is shown with ``str``).
        digits: decimals of a float (ints are shown without decimals).
        signed: prefix positive numbers with ``+`` (differences).

    Returns:
        ``"–"`` for None/NaN/inf, ``"12"`` for an int, ``"0.1235"`` for a float.
    """
    if x is None or isinstance(x, bool):
        return DASH if x is None else ("yes" if x else "no")
    if isinstance(x, int):
        return f"{x:+d}" if signed else str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return DASH
        return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return str(x)


def interval(ci: Sequence[Any] | None, digits: int = 4, signed: bool = False) -> str:
    """``[low, high]`` of a 95 % CI, or ``""`` when there is none (no bootstrap, one item)."""
    if not ci or len(ci) != 2 or ci[0] is None or ci[1] is None:
        return ""
    return f"[{num(ci[0], digits, signed)}, {num(ci[1], digits, signed)}]"


def _table(*columns: str, right_from: int = 1) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for k, c in enumerate(columns):
        if k >= right_from:
            t.add_column(c, justify="right", no_wrap=True)
        else:
            t.add_column(c, overflow="fold")  # long names wrap, never cut
    return t


def _tau(x: Any) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else DASH


def _counts(d: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {num(v)}" for k, v in d.items())


def eval_summary(summary: RunSummary | Mapping[str, Any]) -> list[RenderableType]:
    """The renderables ``simjudge eval`` prints for a run's ``summary.json``.

    Args:
        summary: the run's summary (:class:`~judge.record.rows.RunSummary`, or the
            ``summary.json`` object, validated into one: ``task``, ``n_items``, ``metrics``,
            ``bootstrap``, the accounting, the entries of the task's judging —
            ``pairs_total``…, optional ``panel`` — and ``bootstrap_tau``, the τ-aware
            intervals, shown as a second CI column).

    Returns:
        A heading, the metrics table with 95 % CIs, then (when present) function-call error
        types, multi-label per-class scores, panel agreement and an accounting line.
    """
    if not isinstance(summary, RunSummary):
        summary = RunSummary.model_validate(summary)
    metrics: Mapping[str, Any] = summary.metrics
    ci95: Mapping[str, Any] = summary.bootstrap.get("ci95", {})
    resamples = summary.bootstrap.get("resamples", 0)
    head = f"simjudge eval — {summary.task}, {summary.n_items} items"
    if "tau" in metrics:
        head += f", τ {_tau(metrics['tau'])}"
    out: list[RenderableType] = [Text(head, style="bold")]
    ci_head = f"95% CI ({resamples} resamples)" if resamples else "95% CI"
    joint: Mapping[str, Any] = (summary.get("bootstrap_tau") or {}).get("ci95", {})
    table = _table("metric", "value", ci_head, *(["95% CI items × τ"] if joint else []))
    for k, v in metrics.items():
        if k in ("tau", "n_items") or isinstance(v, (dict, list)):
            continue
        table.add_row(k, num(v), interval(ci95.get(k)),
                      *([interval(joint.get(k))] if joint else []))
    out.append(table)
    if joint:
        bt = summary.get("bootstrap_tau")
        out.append(Text(f"items × τ: each resample also draws τ from the calibration's "
                        f"{bt.get('tau_samples')} bootstrap τ̂ values ({bt.get('distinct_taus')} "
                        "distinct drawn), so the interval includes τ's uncertainty",
                        style="dim"))
    if isinstance(metrics.get("error_types"), Mapping):
        out.append(_error_types(metrics, summary.n_items))
    if isinstance(metrics.get("classes"), list) and metrics["classes"]:
        out.append(_per_class(metrics))
    invalid = metrics.get("invalid_items")
    if isinstance(invalid, list) and invalid:  # spans with an empty type: item outcomes
        shown = "; ".join(f"{x.get('id')}: {x.get('reason')}" for x in invalid[:3])
        out.append(Text(f"{len(invalid)} invalid item(s) — {shown}"
                        + (" …" if len(invalid) > 3 else "") + " (items.jsonl: 'invalid')",
                        style="yellow"))
    panel = summary.get("panel")
    if panel:
        out.append(_panel(panel))
    from judge.probes.text import probe_lines

    out += [Text(line) for line in probe_lines(summary)]
    out += [Text(line, style="dim") for line in _accounting(summary)]
    return out


def dry_run_summary(result: Mapping[str, Any]) -> list[RenderableType]:
    """The renderables ``simjudge eval --dry-run`` prints for a
    :func:`judge.pipeline.dryrun.dry_run` result (another command's estimate names it in
    ``command``: ``calibrate --check --rejudge``): a heading (task, items, distinct pairs to
    judge), one row per judge (requests, cached, to call, estimated prompt/completion
    tokens, estimated USD with its price date), the total, and one line per judge whose API
    key is not set (the run would refuse). The table fits 80 columns for judge ids up to 24
    characters (longer ones wrap, never cut): the price dates and the judges that make no LLM
    call are named below it."""
    head = (f"simjudge {result.get('command', 'eval')} --dry-run — {result.get('task')}, "
            f"{result.get('items')} items, "
            f"{num(result.get('pairs'))} distinct pairs to judge; nothing called, nothing "
            "written")
    t = _table("judge", "requests", "cached", "to call", "tok in ≈", "tok out ≈", "USD ≈")
    free: list[str] = []
    dates: dict[str, list[str]] = {}
    for r in result.get("judges") or []:
        if not r.get("llm"):
            free.append(str(r["judge"]))
            t.add_row(str(r["judge"]), "–", "–", "–", "–", "–", "0")
            continue
        if r.get("price_as_of"):
            dates.setdefault(str(r["price_as_of"]), []).append(str(r["judge"]))
        t.add_row(str(r["judge"]), num(r["requests"]), num(r["cached"]), num(r["to_call"]),
                  num(r["tokens_in"]), num(r["tokens_out"]),
                  "unpriced" if r["usd"] is None else f"{r['usd']:.4f}")
    total = result.get("usd_total")
    foot = ("total ≈ " + ("unknown (an unpriced model; --prices FILE)" if total is None
                          else f"{total:.4f} USD")
            + (" at the Batch API's half price" if result.get("batch_api") else "")
            + " — tokens estimated from the rendered prompts (see judge/judges/llm/costs.py)")
    if dates:  # the table stays within 80 columns: the prices' dates go below it
        foot += "; prices as of " + ", ".join(f"{d} ({', '.join(js)})" for d, js in
                                              dates.items())
    if free:
        foot += f"; no LLM calls: {', '.join(free)}"
    keys = [Text(f"{r['judge']}: {r['missing_key']} is not set: the run itself would refuse "
                 "to start (exit 2); set it first", style="bold yellow")
            for r in result.get("judges") or [] if r.get("missing_key")]
    return [Text(head, style="bold"), t, Text(foot, style="dim"), *keys]


def rescore_summary(result: Mapping[str, Any]) -> list[RenderableType]:
    """The renderables ``simjudge rescore`` prints for a :func:`judge.runs.rescore.rescore`
    result: a heading (τ and where it came from, vote and quorum for panels, 0 judge calls) and
    the metrics table with bootstrap 95 % CIs, rounded like ``eval``'s, then the probe lines
    (swap/repeat flip rates at this τ) when the run has probes."""
    from judge.errors import flag
    from judge.tasks.base import THRESHOLD_LABELS

    tau = result.get("tau")
    threshold = result.get("threshold")
    name = THRESHOLD_LABELS.get(str(threshold), "τ")
    source = (flag(str(threshold)) if result.get("tau_source") == "option" else
              f"the run's own {name}")
    head = (f"simjudge rescore — {name} {_tau(tau)} ({source})" if tau is not None else
            "simjudge rescore — no threshold: metrics recomputed from the run's input files"
            if threshold is None else
            "simjudge rescore — no argument judge: exact argument equality (τ does not apply)")
    if result.get("vote"):
        head += f", vote {result['vote']}, quorum {num(result.get('quorum'))}"
    boot = result.get("bootstrap") or {}
    ci95: Mapping[str, Any] = boot.get("ci95", {})
    resamples = boot.get("resamples", 0)
    table = _table("metric", "value",
                   f"95% CI ({resamples} resamples)" if resamples else "95% CI")
    for k, v in (result.get("metrics") or {}).items():
        if k in ("tau", "arg_tau", "n_items") or isinstance(v, (dict, list)):
            continue
        table.add_row(k, num(v), interval(ci95.get(k)))
    from judge.probes.text import probe_lines

    human = result.get("overrides")
    lines = [f"human overrides: {num(human.get('overridden_pairs'))} pair(s) scored by the "
             f"labels of {', '.join(human.get('files') or [])}; "
             f"{num(human.get('human_ne_judge'))} where human ≠ the stored score at τ"] \
        if human else []
    return [Text(head + " — 0 judge calls", style="bold"), table,
            *(Text(line) for line in [*lines, *probe_lines(result)])]


def estimate_summary(result: Mapping[str, Any]) -> list[RenderableType]:
    """The renderables ``simjudge estimate`` prints for a :func:`judge.human.estimate.estimate`
    result: a heading (items, labelled items, design), one row per metric with its three
    values — judge, PPI++, human-only — each over its 95 % CI (two lines a cell, so the
    table fits 80 columns), and n_eff; then the known counts, the estimand and the limit."""
    d = result.get("design") or {}
    head = (f"simjudge estimate — {num(result.get('n_labelled'))} of "
            f"{num(result.get('n_items'))} items human-checked, {d.get('kind', '?')} design"
            + (f", target {result['target']}" if result.get("target") != "run" else ""))
    level = f"{1 - float(result.get('alpha', 0.05)):.0%}"
    table = _table("metric", "judge", "PPI++", "human only", "n_eff")
    names = [n for n, m in (result.get("metrics") or {}).items() if "known" not in m]
    table.columns[0].min_width = max(map(len, names), default=6)  # micro_precision: one line

    def cell(part: Any) -> str:
        if not isinstance(part, Mapping):
            return DASH
        value, ci95 = part.get("value"), part.get("ci95")
        big = isinstance(value, (int, float)) and abs(value) >= 10  # counts: 1 decimal
        ci = interval(ci95, 1 if big else 3)
        return num(value, 1 if big else 4) + (f"\n{ci}" if ci else "")

    known = []
    for name, m in (result.get("metrics") or {}).items():
        if "known" in m:
            known.append(f"{name} {m['known']:g}")
            continue
        table.add_row(name, cell(m.get("judge")), cell(m.get("ppi")), cell(m.get("human")),
                      num(m.get("n_eff"), 0))
    tuned = "λ power-tuned" + (" per stratum" if d.get("kind") == "stratified" else "")
    lines = [f"{level} intervals; PPI++: the judge's values corrected by the checked items "
             f"({tuned}); human only: the checked items alone"]
    if known:
        lines.append("known: " + ", ".join(known))
    lines += [f"estimand: {result.get('estimand', '')}", f"limit: {result.get('limit', '')}"]
    return [Text(head, style="bold"), table, *(Text(x) for x in lines)]


def _error_types(metrics: Mapping[str, Any], n_items: int) -> RenderableType:
    errors: Mapping[str, int] = metrics["error_types"]
    wrong = sum(errors.values())
    t = _table("function-call errors", "items", "share")
    for k, v in errors.items():
        if v:
            t.add_row(k, num(v), num(v / n_items if n_items else None, 3))
    t.add_row("correct", num(n_items - wrong), num((n_items - wrong) / n_items
                                                   if n_items else None, 3), style="bold")
    parts: list[RenderableType] = [t]
    cats = metrics.get("accuracy_by_category")
    if isinstance(cats, Mapping) and cats:
        c = _table("BFCL category", "accuracy")
        for k, v in cats.items():
            c.add_row(k, num(v))
        parts.append(c)
    return Group(*parts)


def _per_class(metrics: Mapping[str, Any], limit: int = 30) -> RenderableType:
    classes = metrics["classes"]
    prec, rec = metrics.get("class_precision") or [], metrics.get("class_recall") or []
    t = _table("class", "precision", "recall")
    for k, c in enumerate(classes[:limit]):
        t.add_row(str(c), num(prec[k] if k < len(prec) else None),
                  num(rec[k] if k < len(rec) else None))
    if len(classes) > limit:
        t.add_row(f"… {len(classes) - limit} more (summary.json)", "", "")
    return t


def _panel(panel: Mapping[str, Any]) -> RenderableType:
    agree: Mapping[str, Any] = panel.get("agreement") or {}
    members = ", ".join(panel.get("members") or [])
    lines = [Text(f"panel (vote {panel.get('vote')}, quorum {panel.get('quorum')}): {members}",
                  style="bold"),
             Text(f"{num(panel.get('disagreements'))} pairs with members on both sides of τ "
                  f"(disagreements.jsonl) · {num(panel.get('undecided'))} undecided"),
             Text(f"Krippendorff's α over the {num(agree.get('pairs_all_ok'))} pairs every "
                  f"member scored: interval {num(agree.get('alpha_interval'), 3)}, nominal at "
                  f"τ {num(agree.get('alpha_nominal'), 3)}")]
    pairwise = agree.get("pairwise") or []
    if pairwise:
        t = _table("members", "κ at τ", "Pearson", "Spearman")
        for p in pairwise:
            t.add_row(f"{p['a']} vs {p['b']}", num(p.get("kappa_at_tau"), 3),
                      num(p.get("pearson"), 3), num(p.get("spearman"), 3))
        return Group(*lines, t)
    return Group(*lines)


def _accounting(summary: RunSummary) -> list[str]:
    lines = []
    if summary.has("pairs_total"):  # a task that matches judged pairs
        lines.append(f"pairs {num(summary.get('pairs_total'))}: exact "
                     f"{num(summary.get('pairs_exact'))}, distinct judged "
                     f"{num(summary.get('pairs_distinct'))}, without verdict "
                     f"{num(summary.pairs_without_verdict)}")
    tokens = summary.tokens_in + summary.tokens_out
    parts = [f"judge calls {num(summary.judge_calls)}",
             f"cache hits {num(summary.cache_hits)}", f"tokens {tokens}",
             f"USD {num(summary.cost_usd, 4)}", f"{num(summary.wall_s, 2)} s"]
    lines.append(" · ".join(parts))
    budget = summary.get("budget")
    if budget:
        lines.append(f"budget: spent {num(budget.get('spent_usd'), 4)} of --max-usd "
                     f"{num(budget.get('max_usd'), 4)} USD" + (
                         f"; stopped by it, {num(budget.get('pairs_not_attempted'))} pair(s) "
                         "not attempted" if budget.get("stopped") else ""))
    late = summary.get("late_answers")
    if late:
        lines.append(f"{num(late)} late answer(s): replies that arrived while "
                     "their call was being cancelled at --timeout, kept (not sent again)")
    outcomes = summary.outcomes
    if any(v for k, v in outcomes.items() if k != "ok"):
        lines.append("outcomes " + _counts(outcomes))
    missing = summary.pairs_without_verdict
    failed = sum(v for k, v in outcomes.items() if k != "ok")
    if missing:  # failed calls, and pairs the judge has no verdict for (a table without them)
        text = (f"{num(missing)} distinct pair(s) have no score and count as non-matches: the "
                "metrics above are lower bounds")
        if failed:
            text += (f"; {num(failed)} failed call(s): rerun to retry them (completed calls "
                     "are cached)")
        if missing > failed:
            text += (f"; the judge has no verdict for {num(missing - failed)} (a table: judge "
                     "without a row for them, or a panel short of its quorum): a rerun gives "
                     "the same — use a judge that scores every pair, with the labels as "
                     "--overrides")
        lines.append(text)
    human = summary.get("overrides")
    if human:
        lines.append(f"human overrides: {num(human.get('overridden_pairs'))} pair(s) scored by "
                     f"the labels of {', '.join(human.get('files') or [])}; "
                     f"{num(human.get('human_ne_judge'))} where human ≠ judge at τ"
                     + (f"; {num(human['exact'])} on exact pairs, unchanged"
                        if human.get("exact") else ""))
    return lines


def _letters(n: int) -> list[str]:
    return [chr(ord("A") + k) if k < 26 else f"R{k + 1}" for k in range(n)]


def compare_summary(result: Mapping[str, Any], console: Console | None = None,
                    ) -> list[RenderableType]:
    """The renderables ``simjudge compare`` prints for a :func:`judge.runs.compare.compare_runs`
    result: legend (A, B, … = run directory and judge), metrics with B − A and its paired
    bootstrap 95 % CI, per-judge operations, and agreement between the runs' verdicts.

    The metrics table has one row per metric (its name never folded) and the columns A, B, …
    then ``Δ B − A [95% CI]``…; when they do not fit ``console.width`` whole (80 columns when
    output is piped) they are split into consecutive tables, each with the metric column
    repeated (:func:`statistic_tables`, as ``leaderboard`` does), so every number stands whole
    on one line.

    Args:
        result: the :func:`~judge.runs.compare.compare_runs` result (``runs``,
            ``differences``, ``bootstrap``, ``agreement``).
        console: where it will be printed (its width is used); None = a 100-column console.
    """
    if console is None:
        console = Console(width=100, file=io.StringIO())
    runs: Sequence[Mapping[str, Any]] = result["runs"]
    diffs: Sequence[Mapping[str, Any]] = result["differences"]
    letters = _letters(len(runs))
    boot = result.get("bootstrap") or {}
    out: list[RenderableType] = [
        Text(f"simjudge compare — {result['task']}, {result['items']} items, paired bootstrap "
             f"({num(boot.get('resamples'))} resamples, seed {num(boot.get('seed'))})",
             style="bold")]
    for letter, r in zip(letters, runs, strict=True):
        out.append(Text(f"  {letter} = {r['path']} (judge {r.get('judge') or DASH}, τ "
                        f"{_tau(r.get('tau'))})"))
    metrics = list(diffs[0]["metrics"])
    columns = [[num(diffs[0]["metrics"][m]["a"]) for m in metrics]] + [
        [num(d["metrics"][m]["b"]) for m in metrics] for d in diffs]
    columns += [[f"{num(d['metrics'][m]['diff'], 3, signed=True)} "
                 f"{interval(d['metrics'][m].get('ci95'), 3, signed=True)}".rstrip()
                 for m in metrics] for d in diffs]
    heads = [*letters, *[f"Δ {x} − A [95% CI]" for x in letters[1:]]]
    out += [r for r in statistic_tables(console, heads, columns, lambda _: metrics,
                                        head="metric", letter=False) if isinstance(r, Table)]
    # per-judge operations: one row per statistic, one column per run and judge ("A J1"),
    # split to fit like the metrics; judges are numbered (J1, J2…) and named below the table:
    # a panel's id is long, and a folded id is unreadable at 80 columns
    names: dict[str, str] = {}
    heads, cols = [], []
    for letter, r in zip(letters, runs, strict=True):
        for jid, j in r["judges"].items():
            heads.append(f"{letter} {names.setdefault(jid, f'J{len(names) + 1}')}")
            cols.append([num(j["verdicts"]),
                         num(sum(v for k, v in j["outcomes"].items() if k != "ok")),
                         f"{100 * j['parse_error_rate']:.1f}%", num(j["cached"]),
                         num(j["tokens_in"] + j["tokens_out"]), num(j["cost_usd"], 4),
                         f"{num(j['latency_p50_s'], 3)}/{num(j['latency_p95_s'], 3)}"])
    if cols:
        ops = ["verdicts", "failed", "parse errors", "cached", "tokens", "USD",
               "latency p50/p95 s"]
        out += [r for r in statistic_tables(console, heads, cols, lambda _: ops,
                                            head="operations", letter=False)
                if isinstance(r, Table)]
        out.extend(Text(f"  {ref} = {jid}") for jid, ref in names.items())
    if result.get("agreement"):
        ag = _table("runs", "shared pairs", "Pearson", "Spearman", "κ at τ", "α interval")
        index = {r["label"]: x for x, r in zip(letters, runs, strict=True)}
        for a in result["agreement"]:
            ag.add_row(f"{index.get(a['a'], a['a'])} vs {index.get(a['b'], a['b'])}",
                       num(a["shared_pairs"]), num(a["pearson"], 3), num(a["spearman"], 3),
                       num(a["kappa_at_tau"], 3), num(a["alpha_interval"], 3))
        out.append(ag)
    return out


def calibrate_failures(result: Mapping[str, Any]) -> list[RenderableType]:
    """One bold line per judge of a calibration whose calls failed for some labelled pairs:
    ``JUDGE: judge calls FAILED for N of M labelled pairs (outcome counts); first error: …``,
    then whether its statistics use the scored pairs only or, when no call succeeded, that
    nothing is reported for it. ``simjudge calibrate`` prints them before its table."""
    lab = result.get("labels") or {}
    out: list[RenderableType] = []
    for jid, r in result["judges"].items():
        failed = {o: n for o, n in (r.get("outcomes") or {}).items() if o != "ok" and n}
        if not failed:
            continue
        first = f"; first error: {r['first_error']}" if r.get("first_error") else ""
        uses = (f"its statistics below use the {num(r.get('pairs_scored'))} scored pairs only"
                if (r.get("outcomes") or {}).get("ok") else
                "no call succeeded: no statistic of this judge is reported (the "
                f"{num(r.get('pairs_scored'))} pairs scored are exact matches, 1.0 without "
                "a call)")
        out.append(Text(f"{jid}: judge calls FAILED for {num(r.get('pairs_without_verdict'))} "
                        f"of {num(lab.get('pairs'))} labelled pairs ({_counts(failed)}){first}; "
                        f"{uses}", style="bold red"))
    return out


def failed_calls_lines(result: Mapping[str, Any]) -> list[str]:
    """``simjudge calibrate``'s closing stderr line per judge whose calls failed: its pairs
    without a score (the details are above its table and in calibration.json)."""
    return [f"simjudge: {jid}: {r.get('pairs_without_verdict') or 0} labelled pair(s) have no "
            "score: their judge calls failed (see 'outcomes' and 'first_error' in "
            "calibration.json; a rerun retries them)" for jid, r in result["judges"].items()
            if any(n for o, n in (r.get("outcomes") or {}).items() if o != "ok")]


def calibrate_summary(result: Mapping[str, Any], objective: str) -> list[RenderableType]:
    """The renderables ``simjudge calibrate`` prints for a :func:`judge.calibration.calibrate.
    run_calibration` result: a warning when the labels are below the minimum
    (:mod:`judge.calibration.adequacy`) and one line per judge whose calls failed
    (:func:`calibrate_failures`); then one column per judge, one row per statistic — pairs
    scored and pairs without a score, ROC-AUC, PR-AUC, Spearman, τ and the objective at τ with
    their bootstrap 95 % CIs, the k-fold cross-validated objective — then one line per judge
    stopped early or whose τ is undefined. Statistics as rows keep the table within 80
    columns for two or three judges (long judge ids fold)."""
    lab = result.get("labels") or {}
    judges: Mapping[str, Mapping[str, Any]] = result["judges"]
    out: list[RenderableType] = [Text(
        f"simjudge calibrate — {num(lab.get('pairs'))} pairs ({num(lab.get('positives'))} "
        f"positive), objective {objective}", style="bold")]
    short = (lab.get("minimum") or {}).get("warning")
    if short:  # too few labels (judge.calibration.adequacy)
        out.append(Text(f"warning: {short}", style="bold yellow"))
    out.extend(calibrate_failures(result))  # first: a dead judge must not read as a weak one
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    t.add_column("statistic", no_wrap=True)
    for jid in judges:
        t.add_column(jid, justify="right", overflow="fold", min_width=14)
    k = cv_folds(result)

    def row(label: str, cell: Callable[[Mapping[str, Any]], str]) -> None:
        t.add_row(label, *(cell(r) for r in judges.values()))

    def boot(r: Mapping[str, Any], key: str) -> str:
        return interval((r.get("bootstrap") or {}).get(key), 3) or DASH

    def at_tau(r: Mapping[str, Any]) -> str:
        return DASH if r.get("tau") is None else num(r["at_tau"][objective], 3)

    def cv(r: Mapping[str, Any]) -> str:
        c = r.get("cross_validation") or {}
        return DASH if c.get("pooled") is None else (
            f"{num(c.get('mean'), 3)} ± {num(c.get('sd') or 0.0, 3)}")

    row("pairs scored", lambda r: num(r.get("pairs_scored")))
    row("without score", lambda r: num(r.get("pairs_without_verdict")))
    row("ROC-AUC", lambda r: num(r.get("roc_auc"), 3))
    row("PR-AUC", lambda r: num(r.get("pr_auc"), 3))
    row("Spearman", lambda r: num(r.get("spearman"), 3))
    row("τ", lambda r: "undefined" if r.get("tau") is None else num(r["tau"], 3))
    row("τ 95% CI", lambda r: boot(r, "tau_ci95"))
    row(f"{objective} at τ", at_tau)
    row(f"{objective} 95% CI", lambda r: boot(r, "objective_ci95"))
    row(f"{k}-fold CV {objective}", cv)
    row("CV pooled", lambda r: num((r.get("cross_validation") or {}).get("pooled"), 3))
    out.append(t)
    for jid, r in judges.items():
        for stop in r.get("stopped_early") or []:
            out.append(Text(f"{jid}: stopped early: {stop.get('reason')}"))
        st = r.get("stratified")
        if st:
            short = st.get("strata_below_minimum") or 0
            loss = st.get("loss")
            reached = ("reached" if st.get("target_reached") else "not reached" + (
                f"; {short} strata still below their minimum of labels" if short else "") + (
                "; the loss needs --bootstrap > 0" if loss is None else ""))
            out.append(Text(
                f"{jid}: τ, ROC-AUC and PR-AUC of the population of "
                f"{num(st.get('population'))} pairs "
                f"({num(st.get('labelled'))} labelled + pool), labels weighted over "
                f"{len(st.get('strata') or [])} score strata; τ̂ {num(st.get('tau'), 3)} "
                f"(95% CI {interval(st.get('tau_ci95'), 3) or DASH}); {objective} lost by "
                f"using τ̂: {DASH if loss is None else num(loss, 4)} expected, at most "
                f"{num(st.get('loss_upper'), 4)} with probability "
                f"{num(st.get('loss_level'), 2)} (target {num(st.get('target_loss'), 4)}: "
                f"{reached})"))
        if r.get("tau") is None:
            why = " (all scores equal)" if r.get("roc_auc") is not None else ""
            out.append(Text(f"{jid}: τ undefined{why}"
                            + (f" — {r['note']}" if r.get("note") else "")))
    sug = result.get("suggestions")
    if sug:
        stops = {"target reached": ": the loss of using τ̂ is within the target with the "
                 "probability above and every stratum holds its minimum of labels, labelling "
                 "can stop",
                 "τ undefined": ": τ is undefined for this judge (see above)"}
        out.append(Text(f"suggested {num(sug.get('written'))} of {num(sug.get('requested'))} "
                        "pairs to label" + stops.get(sug.get("stop") or "", "")))
    return out


def _statistic_table(statistics: Sequence[str], labels: Sequence[str],
                     columns: Sequence[Sequence[str]], head: str = "statistic") -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    t.add_column(head, no_wrap=True)
    for label in labels:
        t.add_column(label, justify="right", no_wrap=True)
    for k, name in enumerate(statistics):
        t.add_row(name, *(c[k] for c in columns))
    return t


def _blocks(console: Console, statistics: Sequence[str], labels: Sequence[str],
            columns: Sequence[Sequence[str]], head: str = "statistic") -> list[Table]:
    """Consecutive column blocks, each as many columns as fit ``console.width`` whole."""
    from rich.measure import Measurement

    wide = console.options.update_width(1 << 20)
    blocks: list[Table] = []
    start = 0
    while start < len(columns):
        end = start + 1
        while end < len(columns) and Measurement.get(console, wide, _statistic_table(
                statistics, labels[start:end + 1], columns[start:end + 1], head)).maximum \
                <= console.width:
            end += 1
        blocks.append(_statistic_table(statistics, labels[start:end], columns[start:end], head))
        start = end
    return blocks


def statistic_tables(console: Console, names: Sequence[str], columns: Sequence[Sequence[str]],
                     statistics: Callable[[Sequence[str]], Sequence[str]],
                     head: str = "statistic", letter: bool = True) -> list[RenderableType]:
    """A table of one row per statistic and one column per judge that shows every cell whole
    at ``console.width`` (80 columns when output is piped): no number is cut and no name split.

    The judge columns are split into consecutive blocks, each a table with the statistic
    column repeated and as many judge columns as fit; the headers are the judges' names, or
    the letters A, B, … with a key below (``A = name``) when the names would take more blocks
    than letters do (long ids widen their columns). A column wider than the console on its
    own is still printed whole (the terminal wraps it).

    Args:
        console: where it will be printed (its width is used).
        names: one header per judge column.
        columns: per judge, its cells (strings), one per statistic.
        statistics: headers → the statistic names, in row order (they may name a judge by its
            header, e.g. ``Δ κ vs A``).
        head: the header of the statistic column.
        letter: False = always the given headers (``compare``: its columns are already
            lettered runs and their differences).

    Returns:
        The tables (a blank line between two), then the key lines if letters were used.
    """
    letters = _letters(len(names))
    named = _blocks(console, statistics(names), names, columns, head)
    lettered = _blocks(console, statistics(letters), letters, columns, head) if letter else named
    use_letters = letter and len(lettered) < len(named)
    out: list[RenderableType] = []
    for k, block in enumerate(lettered if use_letters else named):
        if k:
            out.append(Text(""))
        out.append(block)
    if use_letters:
        out.extend(Text(f"  {letter} = {name}") for letter, name in
                   zip(letters, names, strict=True))
    return out


def cv_folds(result: Mapping[str, Any]) -> str:
    """k of the cross-validation in a calibration result ("k" when unknown)."""
    for r in result.get("judges", {}).values():
        k = (r.get("cross_validation") or {}).get("folds")
        if isinstance(k, int):
            return str(k)
    return "k"


def print_all(console: Console, renderables: Iterable[RenderableType]) -> None:
    """Print each renderable on ``console`` (no highlighting of numbers); a blank line before
    each table or group."""
    for k, r in enumerate(renderables):
        if k and isinstance(r, (Table, Group)):
            console.print()
        console.print(r, highlight=False)
