"""``simjudge calibrate LABELS --pool UNLABELLED [--suggest N]``: τ of the whole population
(labelled pairs + unlabelled pool) from a stratified sample of labels, and the pairs to label next.

The statistics are :mod:`judge.calibration.stratified`'s. This module reads the pool, builds the
population of one judge's scores, and writes the suggestions: ``suggestions.jsonl`` (a
``--task selection`` input, one 1×1 item per pair: ``id``, ``pred``, ``truth``, and the
``score``, ``stratum`` and pool ``source`` line) and ``suggestions/``, a run directory of those
items judged by the same judge (cache hits) at τ̂, which ``simjudge audit`` opens for labelling
(``--blind`` hides the judge's scores). The labels the page exports are merged into the labels
file (``simjudge labels merge LABELS EXPORT -o NEW``) for the next round; the stopping rule is
τ̂'s 95 % interval width ≤ ``--target-width``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge import io
from judge.calibration.labels import LabelSet
from judge.calibration.stratified import MIN_PER_STRATUM, Design, score_strata
from judge.errors import InputError
from judge.record.store import Renderer


@dataclass(frozen=True)
class Pool:
    """The unlabelled pairs (distinct, none of them a labelled pair).

    Attributes:
        pairs: ``(pred, truth)`` in first-seen order.
        ids: each pair's ``id`` field when its row has one, else ``pool-line<N>``.
        sources: ``FILE:LINE`` of each pair's first row.
        path, sha256: the file.
        rows: rows read; ``labelled``: rows whose pair is already labelled (left out);
        ``repeated``: rows repeating an earlier pool pair.
    """

    pairs: list[tuple[str, str]]
    ids: list[str]
    sources: list[str]
    path: str
    sha256: str
    rows: int
    labelled: int
    repeated: int


def load_pool(path: str | Path, labels: LabelSet, pred_field: str = "pred",
              truth_field: str = "truth", max_chars: int = 4096) -> Pool:
    """Read the unlabelled pool (JSONL/CSV/TSV; any label field is ignored).

    Raises:
        InputError: unreadable file, a missing or non-string side, a string over ``max_chars``
            (file, line and field named), or no pair left once the labelled ones are removed.
    """
    known = {(p.pred, p.truth) for p in labels.pairs}
    seen: set[tuple[str, str]] = set()
    pairs: list[tuple[str, str]] = []
    ids: list[str] = []
    sources: list[str] = []
    records = io.read_records(path)
    labelled = repeated = 0
    for rec in records:
        pair = (io.text(rec, pred_field), io.text(rec, truth_field))
        for name, side in zip((pred_field, truth_field), pair, strict=True):
            io.check_string_sizes(side, max_chars, rec.path, rec.line, name)
        if pair in known:
            labelled += 1
        elif pair in seen:
            repeated += 1
        else:
            seen.add(pair)
            pairs.append(pair)
            ids.append(io.record_id(rec, ("id",)) if "id" in rec.data else f"pool-line{rec.line}")
            sources.append(f"{rec.path}:{rec.line}")
    if not pairs:
        raise InputError(f"no unlabelled pair in the pool ({len(records)} rows, {labelled} of "
                         "them labelled pairs)", path)
    return Pool(pairs, ids, sources, str(path), io.file_sha256(path), len(records), labelled,
                repeated)


@dataclass(frozen=True)
class ActiveOptions:
    """``calibrate``'s pool options.

    Attributes:
        pool: the unlabelled pairs.
        suggest: pairs to suggest for labelling (0 = estimate only).
        strata: score strata (>= 1).
        target_width: stop when τ's 95 % interval is at most this wide, in (0, 1].
        renderers: files rendered into the suggestions' audit run (the CLI passes
            :data:`judge.runs.report.RENDERERS` for its ``report.html``; default none).
    """

    pool: Pool
    suggest: int = 0
    strata: int = 16
    target_width: float = 0.1
    renderers: Mapping[str, Renderer] = field(default_factory=dict)


@dataclass(frozen=True)
class SharedStrata:
    """The sampling design over the labelled pairs and the pool, shared by every judge calibrated
    together (the labels are one sample, whichever judge is calibrated on them).

    One judge: its scores are the design scores, cut into ``n_strata`` equal-count strata.
    Several judges (a panel's members): the design score is the mean of the judges' scores,
    cut into ``ceil(n_strata / 2)`` strata, each split at its median of the judges' standard
    deviation into a low- and a high-disagreement stratum — pairs the judges disagree on are
    more often near the boundary, so Neyman allocation sends more labels there.

    Attributes:
        scores: design score of each population pair (labels first, in ``LabelSet`` order, then
            the pool), NaN where no judge scored it.
        strata: stratum of each population pair (-1 = unscored).
        positive: the binary label of each labelled pair.
        disagreement: True when the strata are split by the judges' disagreement.
    """

    scores: NDArray[np.float64]
    strata: NDArray[np.intp]
    positive: NDArray[np.bool_]
    disagreement: bool

    @classmethod
    def build(cls, label_scores: list[NDArray[np.float64]], positive: NDArray[np.bool_],
              pool_scores: list[NDArray[np.float64]], n_strata: int) -> SharedStrata:
        """From each judge's scores of the labelled pairs and of the pool (NaN = no verdict)
        and the labels."""
        every = np.array([np.concatenate([a, b]) for a, b in zip(label_scores, pool_scores,
                                                                  strict=True)])
        seen = np.isfinite(every).any(axis=0)
        mean = np.full(every.shape[1], np.nan)
        mean[seen] = np.nanmean(every[:, seen], axis=0)
        if len(every) == 1:
            return cls(mean, score_strata(mean, n_strata), positive, False)
        base = score_strata(mean, (n_strata + 1) // 2)
        sd = np.zeros(every.shape[1])
        sd[seen] = np.nanstd(every[:, seen], axis=0)
        strata = np.full(base.shape, -1, dtype=np.intp)
        for h in range(int(base.max()) + 1):
            members = base == h
            high = sd > np.median(sd[members])
            strata[members & ~high] = 2 * h
            strata[members & high] = 2 * h + 1
        _, dense = np.unique(strata[strata >= 0], return_inverse=True)
        strata[strata >= 0] = dense
        return cls(mean, strata, positive, True)

    @property
    def n_labels(self) -> int:
        """Labelled pairs (the first population indices)."""
        return len(self.positive)

    def design(self, judge_label_scores: NDArray[np.float64] | None = None) -> Design:
        """The sample: labelled pairs with a design score — and, for one judge's estimate,
        a score of that judge (``judge_label_scores``)."""
        ok = self.strata[: self.n_labels] >= 0
        if judge_label_scores is not None:
            ok &= np.isfinite(judge_label_scores)
        idx = np.flatnonzero(ok)
        return Design(self.strata, idx, self.positive[idx])

    def population(self, label_scores: NDArray[np.float64],
                   pool_scores: NDArray[np.float64]) -> Population:
        """One judge's view: its scores over the population and its labelled sample."""
        return Population(np.concatenate([label_scores, pool_scores]),
                          self.design(label_scores), self.n_labels, self.scores)


@dataclass(frozen=True)
class Population:
    """One judge's scores over the population and its stratified sample.

    Attributes:
        scores: shape (n + P,): the judge's scores of the ``n`` labelled pairs (``LabelSet``
            order), then of the pool (NaN where it gave no verdict).
        design: the labelled pairs it scored, over the shared strata.
        n_labels: ``n`` (the pool's first population index).
        design_scores: the shared design scores (:class:`SharedStrata`).
    """

    scores: NDArray[np.float64]
    design: Design
    n_labels: int
    design_scores: NDArray[np.float64]

    def report(self, tau_ci95: Any, pool: Pool, pool_scores: Any,
               target_width: float) -> dict[str, Any]:
        """The ``stratified`` section of a judge's calibration report.

        Args:
            tau_ci95: τ̂'s stratified-bootstrap interval ``[low, high]`` (None = no bootstrap).
            pool: the pool; pool_scores: the judge's :class:`JudgeScores` of its pairs.
            target_width: the stopping rule's width of τ's 95 % interval, in (0, 1]; the
                target counts as reached only once every stratum also holds
                ``MIN_PER_STRATUM`` labels (or all its pairs).
        """
        big, small, pos = self.design.sizes()
        rows = []
        for h in range(self.design.n_strata):
            sh = self.design_scores[self.design.strata == h]
            rows.append({"scores": [round(float(sh.min()), 6), round(float(sh.max()), 6)],
                         "pairs": int(big[h]), "labelled": int(small[h]),
                         "positive": int(pos[h])})
        width = (None if not tau_ci95 or any(x is None or x != x for x in tau_ci95)
                 else round(float(tau_ci95[1]) - float(tau_ci95[0]), 6))
        pool_failed = int(np.isnan(pool_scores.scores).sum())
        # the stopping rule also waits for every stratum's minimum of labels: before that the
        # strata are collapsed and the bootstrap can be far too narrow (a τ̂ at the edge of a
        # few labelled scores barely moves under resampling)
        short = int((small < np.minimum(MIN_PER_STRATUM, big)).sum())
        return {
            "pool": {"path": pool.path, "sha256": pool.sha256, "rows": pool.rows,
                     "pairs": len(pool.pairs), "already_labelled": pool.labelled,
                     "repeated": pool.repeated, "without_verdict": pool_failed,
                     "judge_calls": pool_scores.judge_calls, "cache_hits": pool_scores.cache_hits,
                     "outcomes": pool_scores.outcomes},
            "population": int((self.design.strata >= 0).sum()),
            "labelled": len(self.design.labelled), "strata": rows,
            "estimator": "τ̂ of the sweep weighting each labelled pair N_h/n_h (score strata: "
                         "equal-count quantiles of the population's design scores, see "
                         "judge/calibration/suggest.py SharedStrata); 95 % CI from a bootstrap "
                         "resampling within strata",
            "unweighted": "the correlations and the cross-validation are of the labelled "
                          "sample, unweighted (ROC-AUC and PR-AUC are weighted like τ)",
            "tau_ci95_width": width, "target_width": target_width,
            "strata_below_minimum": short,
            "target_reached": width is not None and width <= target_width and not short,
        }


def suggestion_rows(shared: SharedStrata, picks: list[int], pool: Pool) -> list[dict[str, Any]]:
    """``suggestions.jsonl`` rows (a ``--task selection`` input) for population indices
    ``picks`` (pool pairs only): ``id``, ``pred`` and ``truth`` (one-element lists), the design
    ``score``, the ``stratum`` and the pool ``source`` line."""
    rows = []
    for i in picks:
        k = i - shared.n_labels
        pred, truth = pool.pairs[k]
        rows.append({"id": pool.ids[k], "pred": [pred], "truth": [truth],
                     "score": round(float(shared.scores[i]), 6),
                     "stratum": int(shared.strata[i]), "source": pool.sources[k]})
    return rows


def pick_suggestions(active: ActiveOptions, shared: SharedStrata | None,
                     reports: dict[str, Any], seed: int) -> tuple[list[dict[str, Any]], str | None]:
    """The ``suggestions.jsonl`` rows for ``active.suggest`` pairs
    (:func:`judge.calibration.stratified.suggest` over the shared strata; with one judge focused
    on its τ̂'s interval), and why there are none: ``"τ undefined"`` (no judge has a τ) or
    ``"target reached"`` (every judge's τ interval meets the target width and every stratum its
    minimum of labels). The rows come in a random order (``numpy.random.default_rng([seed,
    1]).permutation``), which says nothing of the judge's scores.

    Args:
        shared: the design (None when no judge could be calibrated).
        reports: judge id → its calibration report (``stratified``, ``bootstrap``).
        seed: the draw's seed.
    """
    from judge.calibration.stratified import suggest

    strat = {j: r["stratified"] for j, r in reports.items() if r.get("stratified")}
    if shared is None or not strat:
        return [], "τ undefined"
    if all(s["target_reached"] for s in strat.values()):
        return [], "target reached"
    window = None
    if len(reports) == 1:
        ci = (next(iter(reports.values())).get("bootstrap") or {}).get("tau_ci95")
        if ci is not None and next(iter(strat.values()))["tau_ci95_width"] is not None:
            window = (float(ci[0]), float(ci[1]))
    picks = suggest(shared.design(), active.suggest, seed, shared.scores, window)
    # suggest() lists the picks by stratum, i.e. by the judge's score: the page a blind reviewer
    # labels would leak the judge through its order, so the rows go out in a random order
    # (seed word 1: drawn apart from the picks)
    order = np.random.default_rng([seed, 1]).permutation(len(picks))
    return suggestion_rows(shared, [picks[k] for k in order], active.pool), None


def write_suggestions(out: Path, final: Path, rows: list[dict[str, Any]], judges: list[Any],
                      cache: Any, taus: list[float],
                      renderers: Mapping[str, Renderer] | None = None) -> None:
    """Write ``suggestions.jsonl`` and the ``suggestions/`` run into ``out``, a directory that
    becomes ``final``: the selection task on those pairs, judged through ``cache`` (hits, as
    the pool was just scored) by the judge — several judges as a mean-vote panel, so the audit
    page shows each one's score — at its τ̂ (a panel: the mean of the judges' τ̂).

    Raises:
        judge.record.atomic.RunWriteError: the disk refused a write.
    """
    from judge.pipeline.evaluate import run_evaluation
    from judge.record.atomic import dumps
    from judge.record.store import write_run
    from judge.tasks.base import Params, Source
    from judge.tasks.registry import get_task

    path = out / "suggestions.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in rows), encoding="utf-8")
    task = get_task("selection")
    items = task.load(Source(path, id_fields=("id",), max_chars=0))
    extra = {"command": ["simjudge", "calibrate", "--suggest"],
             "data": {"path": str(final / "suggestions.jsonl"), "sha256": io.file_sha256(path)}}
    tau = float(np.mean(taus)) if taus else 0.7
    judge = judges[0]
    if len(judges) > 1:
        from judge.judges.panel import Panel

        judge = Panel(judges, "mean", 1, tau)
    record = run_evaluation(items, task, judge, Params(tau=tau), cache=cache,
                            config_extra=extra, bootstrap=0)
    write_run(record, out / "suggestions", renderers=renderers)
