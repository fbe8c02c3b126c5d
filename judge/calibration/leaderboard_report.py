"""Rendering a leaderboard (:func:`judge.calibration.leaderboard.leaderboard`): the table cells
shared by the terminal and ``leaderboard.md``, the markdown file, the PNG, and the atomic write
of ``leaderboard.md``, ``leaderboard.json`` and ``leaderboard.png``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from judge.calibration.alttest import alt_test_cell
from judge.calibration.humans import HUMANS
from judge.display import DASH, interval, num

FOOTNOTES = (
    "Each row: ROC-AUC and PR-AUC of the judge's scores against the human labels; κ and F1 at "
    "the τ that maximises the objective; [95 % bootstrap CI] over pairs at that fixed τ; AC1: "
    "Gwet's AC1 (Gwet 2008), stable when one label dominates; MCC: Matthews' correlation; TPR, "
    "TNR: shares of the human positives / negatives the judge gets right at τ [Wilson 95 % "
    "CI]; CV κ: "
    "mean ± SD over folds, τ chosen by κ on the other folds; τ (width of its 95 % bootstrap "
    "CI); parse err: parse_error share of the verdicts; swap/repeat flip: share of probed pairs "
    "whose verdict crosses τ when the sides are exchanged / on a repeated call [Wilson 95 % CI] "
    "(– : probe off, or a deterministic judge); tokens, $ and seconds per 1,000 labelled pairs "
    "count the calls made by this run (cache hits cost nothing); Δ vs the first judge: paired "
    "bootstrap 95 % CI over the pairs both judges scored.",
    "alt-test: the alternative annotator test (Calderon, Reichart & Dror, ACL 2025) — each "
    "named reviewer left out in turn, the judge's verdict at τ and the reviewer's label "
    "scored by their accuracy against the remaining reviewers; a one-sided paired t-test "
    "per reviewer at the margin ε, Benjamini–Yekutieli at q = 0.05; ω: the share of "
    "reviewers the judge beats (pass when ω ≥ 0.5); ρ: the probability that the judge is "
    "as good as or better than a reviewer; needs ≥ 3 reviewers with ≥ 30 pairs each.",
    "humans: leave-one-annotator-out ceiling — on each pair with ≥ 2 annotations, the first "
    "annotator's label scored against the consensus of the others (its own truth: no Δ); its κ "
    "and F1 are at the label set's own rule (label = 1, or label ≥ the positive threshold on "
    "the label scale), not at a fitted τ, so it has no τ and no CV κ; shown only when at least "
    "--min-human-pairs pairs (default 30) carry ≥ 2 annotations.",
)
"""The footnotes of every markdown table."""


def columns(baseline: str, objective: str) -> list[str]:
    """The column headers (``baseline``: the first judge, for the Δ columns)."""
    return ["judge", "ROC-AUC [95 % CI]", "PR-AUC [95 % CI]", f"κ at τ ({objective})",
            f"F1 at τ ({objective})", "AC1 at τ", "MCC at τ", "TPR [Wilson]", "TNR [Wilson]",
            "alt-test ω (ρ)", "CV κ", "τ (CI width)", "parse err", "swap flip",
            "repeat flip", "tokens/1k", "$/1k", "s/1k", f"Δ ROC-AUC vs {baseline}",
            f"Δ κ vs {baseline}"]


def _ci(row: Mapping[str, Any], key: str) -> str:
    value = row.get(key)
    if value is None:
        return DASH
    ci = interval(row.get(f"{key}_ci95"), 3)
    return f"{num(value, 3)} {ci}".strip()


def _rate(probe: Mapping[str, Any] | None) -> str:
    if not probe or probe.get("flip_rate") is None:
        return DASH
    lo, hi = probe.get("flip_rate_ci95") or [None, None]
    ci = f" [{100 * lo:.1f}, {100 * hi:.1f}]" if lo is not None and hi is not None else ""
    return f"{100 * probe['flip_rate']:.1f} %{ci}"


def _wilson(row: Mapping[str, Any], key: str) -> str:
    value = row.get(key)
    if value is None:
        return DASH
    return f"{num(value, 3)} {interval(row.get(f'{key}_wilson95'), 3)}".strip()


def _delta(row: Mapping[str, Any], metric: str) -> str:
    d = (row.get("vs_first") or {}).get(metric)
    if not d or d.get("diff") is None:
        return DASH
    return f"{num(d['diff'], 3, signed=True)} {interval(d.get('ci95'), 3, signed=True)}".strip()


def _cost(x: Any, digits: int) -> str:
    return DASH if x is None else f"{x:,.{digits}f}"


def cells(row: Mapping[str, Any]) -> list[str]:
    """One row's cells, in :func:`columns` order (``–`` where undefined)."""
    tau = row.get("tau")
    cv = row.get("cv_kappa")
    per = row.get("parse_error_rate")
    name = row["judge"] + (f" (n={row['pairs_scored']})" if row["judge"] == HUMANS
                           else " (ref.)" if row.get("reference") else "")
    return [name, _ci(row, "roc_auc"), _ci(row, "pr_auc"), _ci(row, "kappa"), _ci(row, "f1"),
            _ci(row, "ac1"), _ci(row, "mcc"), _wilson(row, "tpr"), _wilson(row, "tnr"),
            alt_test_cell(row.get("alt_test")),
            DASH if cv is None else f"{cv:.3f} ± {row.get('cv_kappa_sd') or 0.0:.3f}",
            (row.get("label_rule") or DASH) if tau is None else
            f"{tau:.3f} ({num(row.get('tau_ci95_width'), 3)})",
            DASH if per is None else f"{100 * per:.1f} %",
            _rate(row.get("swap")), _rate(row.get("repeat")),
            _cost(row.get("tokens_per_1k"), 0), _cost(row.get("usd_per_1k"), 4),
            _cost(row.get("seconds_per_1k"), 2), _delta(row, "roc_auc"), _delta(row, "kappa")]


def notes(table: Mapping[str, Any]) -> list[str]:
    """The table's notes, then ``judge: note`` for each row with one (an undefined τ…), then
    what each panel is worth in independent judges
    (:func:`judge.calibration.panelstats.panel_note`), then ``--select-panel``'s choice."""
    from judge.calibration.panelselect import select_panel_note
    from judge.calibration.panelstats import panel_note

    return [*table["notes"], *(f"{r['judge']}: {r['note']}" for r in table["rows"]
                               if r.get("note")),
            *(f"{r['judge']}: {panel_note(r['panel'])}" for r in table["rows"]
              if r.get("panel")),
            *([select_panel_note(table["select_panel"])] if table.get("select_panel") else [])]


def title(table: Mapping[str, Any]) -> str:
    """``PATH — N pairs (P positive)``."""
    lab = table["labels"]
    return f"{lab['path']} — {lab['pairs']} pairs ({lab['positives']} positive)"


def render_markdown(result: Mapping[str, Any]) -> str:
    """``leaderboard.md``: per label set a heading, its labels line, the table, its notes; then
    the footnotes."""
    st = result["settings"]
    head = columns(st["baseline"], st["objective"])
    swap = "off" if not st["swap"] else f"{100 * st['swap']:g} % of the pairs"
    lines = ["# Judge leaderboard", "",
             f"Objective {st['objective']}, {st['bootstrap']} bootstrap resamples, "
             f"{st['folds']}-fold CV, seed {st['seed']}, swap probe {swap}, repeats "
             f"{st['repeats']}.", ""]
    for t in result["tables"]:
        lines += [f"## {title(t)}", "", t["labels"]["describe"], "",
                  "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |"
                  for r in t["rows"]]
        lines += [""] + [f"*{n}*" for n in notes(t)] + ([""] if notes(t) else [])
    return "\n".join(lines + [f"{k + 1}. {f}" for k, f in enumerate(FOOTNOTES)]) + "\n"


def plot_leaderboard(result: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """ROC-AUC and κ at τ with their 95 % CIs, one marker per judge, grouped by label set (two
    panels); saved as a PNG of 8 × 5 inches at 100 dpi.

    Returns:
        ``{label path: {judge: {"roc_auc", "roc_auc_ci95", "kappa", "kappa_ci95"}}}``: what
        was drawn.
    """
    from judge.calibration.plots import DPI, SIZE_INCHES
    from judge.calibration.plots import plt as pyplot

    tables: Sequence[Mapping[str, Any]] = result["tables"]
    judges = list(dict.fromkeys(r["judge"] for t in tables for r in t["rows"]))
    fig, axes = pyplot.subplots(1, 2, figsize=SIZE_INCHES, sharey=False)
    data: dict[str, Any] = {}
    width = 0.8 / max(1, len(judges))
    for ax, metric, label in ((axes[0], "roc_auc", "ROC-AUC"), (axes[1], "kappa", "κ at τ")):
        for j, jid in enumerate(judges):
            xs: list[float] = []
            ys: list[float] = []
            err: list[list[float]] = [[], []]
            for g, t in enumerate(tables):
                for r in t["rows"]:
                    if r["judge"] != jid or r.get(metric) is None:
                        continue
                    lo, hi = r.get(f"{metric}_ci95") or [None, None]
                    xs.append(g - 0.4 + width * (j + 0.5))
                    ys.append(r[metric])
                    err[0].append(r[metric] - lo if lo is not None else 0.0)
                    err[1].append(hi - r[metric] if hi is not None else 0.0)
                    data.setdefault(t["labels"]["path"], {}).setdefault(jid, {}).update(
                        {metric: r[metric], f"{metric}_ci95": [lo, hi]})
            if xs:
                ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=3, color=f"C{j}", label=jid)
        ax.axhline(0.5 if metric == "roc_auc" else 0.0, color="grey", ls=":", lw=1)  # chance
        ax.set_xticks(range(len(tables)))
        ax.set_xticklabels([Path(t["labels"]["path"]).name for t in tables], fontsize=8)
        ax.set_ylabel(label)
        ax.set_title(f"{label} [95 % CI]")
        ax.grid(alpha=0.3)
    if any(ax.get_legend_handles_labels()[0] for ax in axes):
        axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    pyplot.close(fig)
    return data


def write_leaderboard(result: dict[str, Any], out: Path, overwrite: bool = False) -> None:
    """Write ``leaderboard.md``, ``leaderboard.json`` (``result`` plus ``plot``: the data
    drawn) and ``leaderboard.png`` into ``out`` atomically (all or nothing).

    Raises:
        judge.errors.InputError: ``out`` cannot be written (see :func:`judge.record.atomic.
            atomic_dir`); judge.record.atomic.RunWriteError: the disk refused a write.
    """
    from judge.record.atomic import atomic_dir, dumps

    with atomic_dir(out, overwrite) as tmp:
        result["plot"] = plot_leaderboard(result, tmp / "leaderboard.png")
        (tmp / "leaderboard.md").write_text(render_markdown(result), encoding="utf-8")
        (tmp / "leaderboard.json").write_text(dumps(result, indent=2) + "\n", encoding="utf-8")
