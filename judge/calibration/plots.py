"""Calibration plots (matplotlib, Agg backend: no display needed).

Each function draws several judges on one chart, marks each judge's chosen τ, saves a PNG
(8 × 5 inches at 100 dpi = 800 × 500 pixels) and returns the data it drew, so the data behind
a plot can be checked and saved (``plots.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

SIZE_INCHES = (8.0, 5.0)
DPI = 100


def _legend(ax: Any, **kwargs: Any) -> None:
    """A legend, unless nothing was drawn (a judge whose τ is undefined draws no curve)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kwargs)


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_thresholds(sweeps: Mapping[str, Mapping[str, np.ndarray]], chosen: Mapping[str, float],
                    objective: str, path: Path) -> dict[str, Any]:
    """Objective, precision and recall against τ; a dashed vertical line at each chosen τ.

    Args:
        sweeps: judge id → sweep arrays (:func:`metrics.sweep_arrays`).
        chosen: judge id → chosen τ.
        objective: the objective's name (``f1``…).
        path: PNG file to write.

    Returns:
        ``{judge: {"tau": [...], objective: [...], "precision": [...], "recall": [...],
        "chosen_tau": τ}}``.
    """
    fig, ax = plt.subplots(figsize=SIZE_INCHES)
    data: dict[str, Any] = {}
    for k, (jid, sw) in enumerate(sweeps.items()):
        color = f"C{k}"
        ax.plot(sw["tau"], sw[objective], color=color, lw=2, label=f"{jid}: {objective}")
        ax.plot(sw["tau"], sw["precision"], color=color, ls=":", label=f"{jid}: precision")
        ax.plot(sw["tau"], sw["recall"], color=color, ls="-.", label=f"{jid}: recall")
        ax.axvline(chosen[jid], color=color, ls="--", lw=1,
                   label=f"{jid}: chosen τ = {chosen[jid]:.3f}")
        data[jid] = {"tau": sw["tau"].tolist(), objective: sw[objective].tolist(),
                     "precision": sw["precision"].tolist(), "recall": sw["recall"].tolist(),
                     "chosen_tau": chosen[jid]}
    ax.set_xlabel("τ (a pair matches when its score > τ)")
    ax.set_ylabel("score")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{objective}, precision and recall against τ")
    _legend(ax, fontsize=7, loc="best")
    _save(fig, path)
    return data


def _curves(ax: Any, sweeps: Mapping[str, Mapping[str, np.ndarray]],
            chosen: Mapping[str, float], x: str, y: str, stat: str,
            stats: Mapping[str, float], endpoints: tuple[float, float] | None = None,
            ) -> dict[str, Any]:
    """Draw each judge's (x, y) curve and its chosen-τ point; returns the data drawn."""
    data: dict[str, Any] = {}
    for k, (jid, sw) in enumerate(sweeps.items()):
        xs, ys = sw[x], sw[y]
        if endpoints is not None:  # close the ROC curve at (1, 1) and (0, 0)
            xs, ys = np.r_[endpoints[0], xs, 0.0], np.r_[endpoints[1], ys, 0.0]
        ax.plot(xs, ys, color=f"C{k}", label=f"{jid} ({stat} {stats[jid]:.3f})")
        i = int(np.flatnonzero(sw["tau"] == chosen[jid])[0])
        ax.plot(sw[x][i], sw[y][i], "o", color=f"C{k}", ms=8,
                label=f"{jid}: τ = {chosen[jid]:.3f}")
        data[jid] = {x: xs.tolist(), y: ys.tolist(),
                     "chosen": [float(sw[x][i]), float(sw[y][i])]}
    return data


def plot_roc(sweeps: Mapping[str, Mapping[str, np.ndarray]], chosen: Mapping[str, float],
             aucs: Mapping[str, float], path: Path) -> dict[str, Any]:
    """ROC curves (FPR, TPR) with each judge's chosen τ marked; returns the points drawn."""
    fig, ax = plt.subplots(figsize=SIZE_INCHES)
    data = _curves(ax, sweeps, chosen, "fpr", "tpr", "AUC", aucs, endpoints=(1.0, 1.0))
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls=":")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC")
    _legend(ax, fontsize=8, loc="lower right")
    _save(fig, path)
    return data


def plot_pr(sweeps: Mapping[str, Mapping[str, np.ndarray]], chosen: Mapping[str, float],
            aps: Mapping[str, float], path: Path) -> dict[str, Any]:
    """Precision–recall curves with each judge's chosen τ marked; returns the points drawn."""
    fig, ax = plt.subplots(figsize=SIZE_INCHES)
    data = _curves(ax, sweeps, chosen, "recall", "precision", "AP", aps)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("precision–recall")
    _legend(ax, fontsize=8, loc="lower left")
    _save(fig, path)
    return data


def plot_run_tau(taus: list[float], curve: Mapping[str, list[float]], marks: Mapping[str, float],
                 title: str, path: Path) -> dict[str, Any]:
    """A run's metrics against τ — the first three of ``curve`` (selection: fuzzy macro
    F1/precision/recall; function calls: accuracy, fn_acc_all, fn_acc_name against the
    argument τ) — with τ values marked."""
    fig, ax = plt.subplots(figsize=SIZE_INCHES)
    for key, style in zip(list(curve)[:3], ("-", ":", "-."), strict=False):
        ax.plot(taus, curve[key], ls=style, lw=2, label=key.replace("_", " "))
    for k, (name, t) in enumerate(marks.items()):
        ax.axvline(t, color=f"C{k + 3}", ls="--", lw=1, label=f"{name} = {t:.3f}")
    ax.set_xlabel("τ")
    ax.set_ylabel("score")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    _legend(ax, fontsize=8, loc="best")
    _save(fig, path)
    return {"tau": list(taus), **{k: list(v) for k, v in curve.items()}, "marks": dict(marks)}
