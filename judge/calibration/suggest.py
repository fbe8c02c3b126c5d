"""``simjudge calibrate LABELS --pool UNLABELLED [--suggest N]``: τ of the whole population
(labelled pairs + unlabelled pool) from a stratified sample of labels, and the pairs to label next.

The statistics are :mod:`judge.calibration.stratified`'s, the pool :mod:`judge.calibration.pool`'s.
This module builds the population of each judge's scores and writes the suggestions:
``suggestions.jsonl`` (a ``--task selection`` input, one 1×1 item per pair: ``id``, ``pred``,
``truth``, and the ``score``, ``stratum`` and pool ``source`` line) and ``suggestions/``, a run
directory of those items judged by the same judge (cache hits) at τ̂, which ``simjudge audit``
opens for labelling (``--blind`` hides the judge's scores). The labels the page exports are merged
into the labels file (``simjudge labels merge LABELS EXPORT -o NEW``) for the next round.

The stopping rule is on what the user loses (:func:`judge.calibration.stratified.decision_loss`):
no suggestions once, for every judge, the bootstrap estimate of the objective lost by using τ̂
instead of the best τ (``mean_b objective_b(τ*_b) − objective_b(τ̂)`` on the weighted population)
is at most ``--target-loss`` (default 0.01, in the objective's units) and every stratum holds
``STOP_MINIMUM`` labels (or all its pairs). τ̂'s 95 % interval is reported, not used to stop: near
its best the objective is flat, so the interval can stay wide while nothing is lost. The pairs
suggested are allocated to the strata whose pairs can move that loss
(:func:`judge.calibration.allocation.loss_shares`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge import io
from judge.calibration.pool import Pool
from judge.calibration.stratified import Design, LossEstimate, decision_loss, score_strata
from judge.numbers import finite_or_none
from judge.record.store import Renderer


@dataclass(frozen=True)
class ActiveOptions:
    """``calibrate``'s pool options.

    Attributes:
        pool: the unlabelled pairs.
        suggest: pairs to suggest for labelling (0 = estimate only).
        strata: score strata (>= 1).
        target_loss: stop when every judge's estimated loss of the objective by using τ̂ is at
            most this (objective units, in (0, 1]) and every stratum holds its minimum.
        renderers: files rendered into the suggestions' audit run (the CLI passes
            :data:`judge.runs.report.RENDERERS` for its ``report.html``; default none).
    """

    pool: Pool
    suggest: int = 0
    strata: int = 16
    target_loss: float = 0.01
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

    def loss(self, objective: str, n_boot: int, seed: int) -> LossEstimate:
        """The judge's :func:`~judge.calibration.stratified.decision_loss` (τ̂, its interval and
        the objective lost by using it), with the bootstrap's ``n_boot`` and ``seed``.

        Raises:
            ValueError: its labelled pairs are of one class, or of one distinct score.
        """
        return decision_loss(self.scores, self.design, objective, n_boot, seed)

    def report(self, estimate: LossEstimate, pool: Pool, pool_scores: Any,
               target_loss: float) -> dict[str, Any]:
        """The ``stratified`` section of a judge's calibration report.

        Args:
            estimate: its :meth:`loss` (the stopping rule's loss, τ̂ and its interval).
            pool: the pool; pool_scores: the judge's :class:`JudgeScores` of its pairs.
            target_loss: the stopping rule's loss, in (0, 1] objective units; the target
                counts as reached only once every stratum also holds ``STOP_MINIMUM``
                labels (or all its pairs; :mod:`judge.calibration.stratified`).
        """
        big, small, pos = self.design.sizes()
        rows = []
        for h in range(self.design.n_strata):
            sh = self.design_scores[self.design.strata == h]
            rows.append({"scores": [round(float(sh.min()), 6), round(float(sh.max()), 6)],
                         "pairs": int(big[h]), "labelled": int(small[h]),
                         "positive": int(pos[h])})
        pool_failed = int(np.isnan(pool_scores.scores).sum())
        loss = finite_or_none(estimate.loss)
        upper = finite_or_none(estimate.upper)
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
            "tau": estimate.tau, "tau_ci95": [estimate.low, estimate.high],
            "tau_ci95_width": round(estimate.high - estimate.low, 6),
            "loss": None if loss is None else round(loss, 6),
            "loss_upper": None if upper is None else round(upper, 6),
            "loss_level": estimate.level,
            "loss_definition": f"over posterior draws of the unlabelled pairs' labels (each "
                               "score stratum's positive rate from its Beta posterior, "
                               f"Jeffreys' prior): {estimate.objective}(τ*) − "
                               f"{estimate.objective}(τ̂) on the completed population; loss = "
                               f"their mean, loss_upper = their {estimate.level:g} quantile, "
                               "the stopping rule's (judge/calibration/posterior.py)",
            "loss_resamples": estimate.resamples, "loss_skipped": estimate.skipped,
            "target_loss": target_loss,
            "strata_below_minimum": self.design.strata_below_minimum(),
            "target_reached": estimate.stop(target_loss),
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
                     losses: Mapping[str, tuple[Population, LossEstimate]],
                     reports: dict[str, Any], seed: int,
                     ) -> tuple[list[dict[str, Any]], str | None]:
    """The ``suggestions.jsonl`` rows for ``active.suggest`` pairs, and why there are none:
    ``"τ undefined"`` (no judge has a τ) or ``"target reached"`` (every judge's loss is within
    ``active.target_loss`` with probability 0.95, ``STOP_LEVEL``, and every stratum holds its
    minimum of labels).

    Each judge's strata shares follow its decision's loss
    (:func:`judge.calibration.allocation.loss_shares`); several judges share one design, so
    their normalised shares are averaged (a compromise allocation, Cochran 1977 §5A.3). Once
    every judge's loss is within the target, the strata below the rule's minimum come first. The
    pairs are drawn at random within strata (:func:`judge.calibration.allocation.draw`) and
    come in a random order (``numpy.random.default_rng([seed, 1]).permutation``), which says
    nothing of the judge's scores.

    Args:
        shared: the design (None when no judge could be calibrated).
        losses: judge id → its population and :class:`LossEstimate` (judges with a τ).
        reports: judge id → its calibration report (``stratified``).
        seed: the draw's seed.
    """
    from judge.calibration.allocation import allocate, draw, loss_shares
    from judge.calibration.stratified import STOP_MINIMUM

    strat = {j: r["stratified"] for j, r in reports.items() if r.get("stratified")}
    if shared is None or not strat:
        return [], "τ undefined"
    if all(s["target_reached"] for s in strat.values()):
        return [], "target reached"
    parts = [loss_shares(pop.scores, pop.design, est) for pop, est in losses.values()
             if est.taus]
    parts = [x / x.sum() for x in parts if x.sum() > 0]
    design = shared.design()
    confirm = all(s["loss_upper"] is not None and s["loss_upper"] <= active.target_loss
                  for s in strat.values())
    counts = allocate(design, active.suggest, shares=np.mean(parts, axis=0) if parts else None,
                      minimum=STOP_MINIMUM if confirm else None)
    picks = draw(design, counts, seed)
    # draw() lists the picks by stratum, i.e. by the judge's score: the page a blind reviewer
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
