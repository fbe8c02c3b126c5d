"""``simjudge calibrate --check CAL --rejudge N``: the drift canary. Is the judge still the
judge that was calibrated, when its identity (model name, settings) is unchanged but the model
behind the name may not be?

For each judge that passes the ordinary check (:mod:`judge.calibration.check`: same identity,
a τ), ``N`` labelled pairs of the calibration — a pinned, stratified subset
(:func:`judge.calibration.drift.pinned_subset`; pairs equal after normalisation and pairs
without a stored verdict are never drawn) — are judged again with the cache bypassed (mode
``off``: neither read nor written), and the fresh scores are compared with the stored ones
(:func:`judge.calibration.drift.compare`). Each check is appended, one JSON line per judge, to
a history file beside the calibration, and a CUSUM (:mod:`judge.calibration.cusum`) over
the checks of the same subset — same calibration, ``N`` and seed — signals a slow drift that
no single check finds significant.

A judge fails when a comparison moved, when the CUSUM signals, or when fresh calls failed
(transport errors, parse errors, refusals: counted by outcome, left out of the comparison,
never scored 0).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from judge.calibration.check import check_judge
from judge.calibration.cusum import CUSUM_H, CUSUM_K, cusum, innovations
from judge.calibration.drift import Drift, compare, pinned_subset
from judge.calibration.labels import LabelSet
from judge.calibration.pairscores import stored_pair_scores
from judge.calibration.scoring import ProgressFactory
from judge.errors import InputError
from judge.judges.base import Judge
from metrics import normalize


@dataclass
class CanaryCheck:
    """One judge's drift check.

    Attributes:
        judge_id: the judge.
        problems: what fails: the ordinary check's problems (then nothing is re-judged), the
            names of the comparisons that moved, ``CUSUM``, ``failed calls``.
        reason: the ordinary check's reasons when it failed.
        tau: the calibrated τ.
        pairs: the indices of the re-judged labelled pairs.
        subset: the key of the pinned subset (sha256 of the calibration's pairs, N, seed, the
            pairs drawn and their stored scores): the CUSUM runs over checks with this key.
        drift: the comparison (None when nothing was re-judged).
        outcomes: the fresh calls' outcomes by name (``ok``, ``transport_error``…).
        first_error: the first failed call's message.
        cusum: ``[C⁺, C⁻]`` after this check, and ``checks``: the history length it covers.
    """

    judge_id: str
    problems: list[str] = field(default_factory=list)
    reason: str = ""
    tau: float | None = None
    pairs: list[int] = field(default_factory=list)
    subset: str = ""
    drift: Drift | None = None
    outcomes: dict[str, int] = field(default_factory=dict)
    first_error: str | None = None
    cusum: list[float] = field(default_factory=list)
    checks: int = 0

    @property
    def ok(self) -> bool:
        """True when nothing fails."""
        return not self.problems

    @property
    def failed_calls(self) -> int:
        """Fresh calls without an ``ok`` verdict."""
        return sum(v for k, v in self.outcomes.items() if k != "ok")

    def line(self) -> str:
        """``ID: OK: …``, ``ID: drift (score shift, CUSUM): …`` or ``ID: failed (failed
        calls): …`` (calls failed, nothing moved): one line for CI logs."""
        if self.drift is None:
            return f"{self.judge_id}: not re-judged ({', '.join(self.problems)}): {self.reason}"
        d = self.drift
        parts = [f"{len(self.pairs)} pairs re-judged, {d.pairs} compared",
                 f"score shift {_signed(d.shift_mean)} (Wilcoxon p {d.shift_p:.2g})",
                 f"ROC-AUC {_delta(d.auc)} (DeLong p {d.auc_p:.2g})",
                 f"κ at τ {_delta(d.kappa)}, {d.to_wrong} verdicts became wrong and "
                 f"{d.to_right} right (McNemar p {d.kappa_p:.2g})",
                 f"flipped {d.flips} ({_pct(d.flip_share)}; {d.flips_expected:.1f} expected "
                 f"from its noise, p {d.flip_p:.2g})",
                 f"CUSUM {self.cusum[0]:.2f}/{self.cusum[1]:.2f} of h {CUSUM_H:g} over "
                 f"{self.checks} check(s)" if self.cusum else "no CUSUM: no pair compared"]
        if self.failed_calls:
            parts.insert(1, "failed calls: " + ", ".join(
                f"{v} {k}" for k, v in sorted(self.outcomes.items()) if k != "ok")
                + (f" (first: {self.first_error})" if self.first_error else ""))
        moved = set(self.problems) - {"failed calls"}
        head = "OK" if self.ok else f"{'drift' if moved else 'failed'} ({', '.join(self.problems)})"
        return f"{self.judge_id}: {head}: {'; '.join(parts)}"

    def record(self, when: str) -> dict[str, Any]:
        """The check as a history line (JSON-ready)."""
        out: dict[str, Any] = {"time": when, "judge": self.judge_id, "subset": self.subset,
                               "tau": self.tau, "rejudged": len(self.pairs),
                               "outcomes": self.outcomes, "problems": self.problems}
        if self.drift is not None:
            out["drift"] = asdict(self.drift)
        if self.cusum:
            out["cusum"] = {"k": CUSUM_K, "h": CUSUM_H, "c_plus": self.cusum[0],
                            "c_minus": self.cusum[1], "checks": self.checks}
        return out


def _signed(x: float | None) -> str:
    return "undefined" if x is None else f"{x:+.3f}"


def _pct(x: float | None) -> str:
    return "undefined" if x is None else f"{100 * x:.1f} %"


def _delta(part: dict[str, Any]) -> str:
    if part["delta"] is None:
        return "undefined"
    ci = part["ci"]
    return f"{part['stored']:.3f}→{part['fresh']:.3f} (Δ {part['delta']:+.3f}" + (
        f" [{ci[0]:+.3f}, {ci[1]:+.3f}])" if ci else ")")


def history_path(calibration: Path) -> Path:
    """The history file beside a calibration: ``calibration.json`` →
    ``calibration.drift.jsonl``."""
    return calibration.with_name(calibration.stem + ".drift.jsonl")


def read_history(path: Path) -> list[dict[str, Any]]:
    """The checks recorded in ``path`` (none when it does not exist).

    Raises:
        InputError: a line that is not a JSON object with a ``judge`` and a ``subset``, or
            whose ``drift`` lacks a numeric ``fresh_mean`` and ``mean_se`` (file, line,
            field).
    """
    from judge.io import read_records

    if not path.exists():
        return []
    rows = read_records(path)
    for r in rows:
        for name in ("judge", "subset"):
            if not isinstance(r.data.get(name), str):
                raise r.error("expected a drift check's string", name)
        drift = r.data.get("drift")
        for name in ("fresh_mean", "mean_se"):
            x = drift.get(name) if isinstance(drift, dict) else None
            if drift is not None and x is not None and (
                    not isinstance(x, (int, float)) or isinstance(x, bool)):
                raise r.error("expected a number or null", f"drift.{name}")
    return [r.data for r in rows]


def plan(data: dict[str, Any], path: Path, judge: Judge, labels: LabelSet, n: int,
         seed: int, context: str = "") -> tuple[CanaryCheck, np.ndarray]:
    """The ordinary check of ``judge`` and, when it passes, the pairs to re-judge.

    Returns:
        ``(check, stored scores of every labelled pair)``; ``check.pairs`` is empty when the
        ordinary check failed (``check.problems`` says why).

    Raises:
        InputError: no stored per-pair scores, or other labels (:func:`judge.calibration.
            pairscores.stored_pair_scores`).
    """
    base = check_judge(data, path, judge, context)
    out = CanaryCheck(judge.id, tau=base.tau)
    if not base.ok:
        out.problems, out.reason = base.problems, "; ".join(base.reasons)
        return out, np.array([])
    assert base.tau is not None
    stored = stored_pair_scores(data["judges"][judge.id], judge.id, path, labels)
    positive = np.array([p.positive for p in labels.pairs], dtype=bool)
    eligible = np.isfinite(stored) & np.array(
        [normalize(p.pred) != normalize(p.truth) for p in labels.pairs], dtype=bool)
    drawn = pinned_subset(positive, stored, eligible, base.tau, n, seed)
    out.pairs = [int(i) for i in drawn]
    key = [data["judges"][judge.id]["pair_scores"]["pairs_sha256"], n, seed, out.pairs,
           [float(stored[i]) for i in drawn]]
    out.subset = hashlib.sha256(json.dumps(key).encode()).hexdigest()
    return out, stored


def rejudge(path: Path, data: dict[str, Any], judges: Sequence[Judge], labels: LabelSet,
            n: int, context: str = "", alpha: float = 0.05, flip_tolerance: float = 0.01,
            seed: int = 0, n_boot: int = 2000, history: Path | None = None,
            progress_factory: ProgressFactory | None = None) -> list[CanaryCheck]:
    """Run the drift check of each judge (see the module docstring) and append it to the
    history.

    Args:
        path: the calibration file; data: it, parsed
            (:func:`judge.pipeline.taufile.read_calibration`).
        judges: the judges as ``eval`` builds them.
        labels: the labels the calibration was made on, read with the same options.
        n: pairs to re-judge per judge (≥ 1; all eligible pairs when fewer).
        context: the prompts' task context (``--context``).
        alpha, flip_tolerance, n_boot: as :func:`judge.calibration.drift.compare`.
        seed: the subset's (and the bootstrap's) seed.
        history: the history file (default :func:`history_path`).
        progress_factory: a progress bar per judge.

    Raises:
        InputError: as :func:`plan`; a malformed history file, or one in a folder that does
            not exist.
    """
    from judge.cache import JudgeCache
    from judge.calibration.scoring import score_pairs

    hist_file = history or history_path(path)
    if not hist_file.parent.is_dir():  # found before any call, not after them
        raise InputError("its folder does not exist", hist_file, field="history")
    past = read_history(hist_file)
    planned = [plan(data, path, j, labels, n, seed, context) for j in judges]
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    cache = JudgeCache(None, "off")  # the stored answers are what is being tested
    checks: list[CanaryCheck] = []
    for judge, (check, stored) in zip(judges, planned, strict=True):
        checks.append(check)
        if not check.pairs:
            continue
        assert check.tau is not None
        pairs = [(labels.pairs[i].pred, labels.pairs[i].truth) for i in check.pairs]
        js = score_pairs(pairs, judge, cache, progress_factory, f"{judge.id}: re-judging",
                         context)
        check.outcomes, check.first_error = js.outcomes, js.first_error
        positive = np.array([labels.pairs[i].positive for i in check.pairs], dtype=bool)
        check.drift = compare(stored[check.pairs], js.scores, positive, check.tau, alpha,
                              flip_tolerance, n_boot, seed)
        earlier = [r["drift"] for r in past if r["judge"] == judge.id
                   and r["subset"] == check.subset and isinstance(r.get("drift"), dict)
                   and r["drift"].get("fresh_mean") is not None]
        d = check.drift
        if d.fresh_mean is None or d.stored_mean is None:  # no pair compared: no history
            check.problems = ["failed calls"]
            continue
        steps, _ = cusum(innovations(d.stored_mean,
                                     [*(e["fresh_mean"] for e in earlier), d.fresh_mean],
                                     [*(e["mean_se"] for e in earlier), d.mean_se]))
        check.cusum, check.checks = list(steps[-1]), len(steps)
        check.problems = list(check.drift.moved)
        if max(steps[-1]) > CUSUM_H:
            check.problems.append("CUSUM")
        if check.failed_calls:
            check.problems.append("failed calls")
    lines = "".join(json.dumps(c.record(when), ensure_ascii=False) + "\n" for c in checks
                    if c.drift is not None)
    if lines:
        with open(hist_file, "a", encoding="utf-8") as fh:
            fh.write(lines)
    return checks


def estimate(data: dict[str, Any], path: Path, judges: Sequence[Judge], labels: LabelSet,
             n: int, seed: int, context: str = "") -> dict[str, Any]:
    """What :func:`rejudge` would call, priced as ``eval --dry-run`` prices a run
    (:func:`judge.pipeline.dryrun.judge_rows`, every call uncached); nothing is called or
    written.

    Returns:
        :func:`judge.pipeline.dryrun.dry_run`'s dict (``command``, ``task``, ``items``,
        ``pairs``, ``judges``, ``usd_total``, ``batch_api``), ``skipped``: the judges that
        fail the ordinary check and would not be re-judged, with why.

    Raises:
        InputError: as :func:`plan`.
    """
    from judge.pipeline.dryrun import judge_rows, usd_total

    rows: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    pairs = 0
    for judge in judges:
        check, _ = plan(data, path, judge, labels, n, seed, context)
        if not check.pairs:
            skipped[judge.id] = f"{', '.join(check.problems)}: {check.reason}"
            continue
        chosen = [(labels.pairs[i].pred, labels.pairs[i].truth) for i in check.pairs]
        pairs += len(chosen)
        rows += judge_rows(judge, [(context, chosen)], None)
    return {"command": "calibrate --check --rejudge", "task": "drift check", "items": pairs,
            "pairs": pairs, "judges": rows, "usd_total": usd_total(rows), "batch_api": False,
            "skipped": skipped}
