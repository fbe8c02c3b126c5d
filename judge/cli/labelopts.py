"""Command-line options of the commands that read human-labelled pairs (``calibrate``,
``leaderboard``), of the bootstrap and of ``calibrate --check``, defined once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

PositiveThreshold = Annotated[float | None, typer.Option(
    help="Binarise graded labels: label >= X is positive.")]
Bootstrap = Annotated[int, typer.Option(help="Bootstrap resamples for the 95 % CIs.")]
Seed = Annotated[int, typer.Option(help="Random seed of the bootstrap.")]
OutDir = Annotated[Path | None, typer.Option("--out", help="Output directory.")]
Overwrite = Annotated[bool, typer.Option(help="Replace a non-empty --out.")]
PredField = Annotated[str, typer.Option(help="Field of the first side.")]
TruthField = Annotated[str, typer.Option(help="Field of the second side.")]
LabelField = Annotated[str, typer.Option(help="Field of the human label(s).")]
Where = Annotated[list[str] | None, typer.Option(help="Keep rows with FIELD=VALUE.")]
MaxChars = Annotated[int, typer.Option(
    help="Longest pair string (characters); a longer one is bad input (exit 2), never "
         "truncated. 0 = no limit.")]
Check = Annotated[Path | None, typer.Option(
    help="Check this calibration.json instead of calibrating: exit 1 when it is stale for the "
         "judges (another identity: model, scorer, template, score mode, endpoints, opposite "
         "guard, decoding options…), has no τ, κ at τ is below --min-kappa, or LABELS changed. "
         "No judge call, nothing written.")]
TargetLoss = Annotated[float, typer.Option(
    help="Stopping rule: stop once the objective expected to be lost by using τ̂ instead of the "
    "best τ (stratified bootstrap; needs --bootstrap > 0) is at most this, in the objective's "
    "units, with every stratum at its minimum of labels.")]
MinKappa = Annotated[float | None, typer.Option(
    help="--check: fail when Cohen's κ at the calibrated τ is below this (default: no gate).")]
Overrides = Annotated[list[Path] | None, typer.Option(
    "--overrides", help="Human labels that take precedence over the judge for the pairs they "
    "cover: audit exports, labels files, 'labels merge'/'labels export' output or a labels.db "
    "(score = mean of the reviewers' labels in [0, 1]); repeat for several.")]
HumanItems = Annotated[Path | None, typer.Option(
    "--human", help="Item labels (JSONL: {\"id\", \"matches\": [[PRED, TRUTH], ...], "
    "\"pi\"?}), checked against the items before any judge call: the run then also holds "
    "estimate.json, each metric judge-only, PPI++ and human-only (see simjudge estimate).")]
