"""The state of a ``simjudge review`` session: which pair each reviewer sees next, the labels so
far, and what they say about τ.

**Which pair next.** In the default ``design`` queue the population's pairs are cut into score
strata (:func:`judge.calibration.stratified.score_strata`) and the next pair comes from the
stratum the stratified design asks for now (:func:`judge.review.choice.design_pair`: every
stratum its minimum first, then the strata's shares of the decision's loss from the latest
estimate, and once the loss is within the target the strata below the stopping rule's minimum),
drawn at random within it — recomputed from the labels in the database at every request, so
several reviewers, a restart or labels from an earlier session all count. In a run's other
queues (``near``, ``disagree``, ``failures``, ``asymmetric``, ``unstable``) and for a
suggestions file, the pairs come in a seeded random order (never in score order: the order would
tell a blind reviewer the judge's scores).

**Several reviewers.** A pair is leased to the reviewer it is shown to (for ``lease_s``
seconds), so two reviewers are not shown the same pair at once — except the share ``overlap``
of pairs (chosen by a hash of the pair key, so the choice is stable across restarts), which a
second reviewer is shown after the first has labelled it, so that agreement can be measured:
Krippendorff's α (nominal; interval on a graded scale) over the pairs two or more reviewers
labelled.

**What the labels say** (:meth:`ReviewSession.estimate`): pairs labelled by several reviewers
count once, positive by majority (a tie is negative, as :mod:`judge.calibration.labels`); τ̂,
its 95 % interval and the expected objective lost by using τ̂
(:func:`judge.calibration.stratified.decision_loss`), with the labelled pairs weighted by their
stratum's inverse inclusion probability. The stopping rule is met when that loss is at most
``target_loss`` and every stratum has the rule's minimum of labels
(:data:`judge.calibration.stratified.STOP_MINIMUM`; DESIGN.md: τ's interval is reported, not
used to stop).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.calibration.labelevents import Event, PairKey, effective, latest_undoable
from judge.calibration.labelsdb import LabelsDB
from judge.review.choice import design_pair
from judge.review.estimate import Estimate, EstimateJob, agreement, run_estimate
from judge.review.options import ReviewOptions, overlap_draw
from judge.review.population import Population


class ReviewSession:
    """Labels, leases and the design of one review (see the module docstring).

    Args:
        population: the pairs (:mod:`judge.review.population`).
        db: the open labels database (its events so far are read).
        options: :class:`ReviewOptions`.

    Raises:
        ValueError: a queue the source does not have.
    """

    def __init__(self, population: Population, db: LabelsDB, options: ReviewOptions):
        self.pop, self.db, self.opt = population, db, options
        if options.queue not in ("design", "all") and options.queue not in population.queues:
            raise ValueError(f"the source has no queue {options.queue!r}")
        self._lock = threading.Lock()
        self.events: list[Event] = list(db.events())
        n = len(population)
        scores = population.scores
        self.scored = np.isfinite(scores)
        self.estimates = options.queue == "design" and population.kind != "suggestions" and bool(
            self.scored.sum() >= 2)
        if self.estimates:
            from judge.calibration.stratified import score_strata

            self.strata: NDArray[np.intp] = score_strata(scores, options.strata)
        else:
            self.strata = np.where(self.scored, 0, -1).astype(np.intp)
        self.overlap_pair = np.array([overlap_draw(k) < options.overlap
                                      for k in population.keys], dtype=bool) \
            if options.overlap > 0 else np.zeros(n, dtype=bool)
        rng = np.random.default_rng(options.seed)
        if options.queue in ("design", "all"):
            order = rng.permutation(n)
        else:
            order = rng.permutation(np.asarray(population.queues[options.queue], dtype=np.intp))
        self.order: NDArray[np.intp] = order.astype(np.intp)
        self.in_queue = np.zeros(n, dtype=bool)
        self.in_queue[self.order] = True
        self._rng = rng
        self.served: dict[str, tuple[int, float]] = {}
        self._rebuild()
        self._estimate: Estimate | None = None
        self._estimate_at = -1

    # ------------------------------------------------------------------ labels
    def _rebuild(self) -> None:
        """Recompute the per-pair state from all events (at start and after an undo)."""
        self.counted: dict[tuple[str, PairKey], Event] = {}
        self.votes: dict[int, dict[str, Event]] = {}
        self.skipped: dict[str, set[int]] = {}
        self.labelled = np.zeros(len(self.pop), dtype=bool)
        for e in effective(self.events).values():
            self._count(e)

    def _count(self, e: Event) -> None:
        """Add one ``label`` or ``skip`` event that counts (the reviewer's latest for its
        pair) to the per-pair state."""
        i = self.pop.index.get(e.key)
        self.counted.pop((e.reviewer, e.key), None)
        self.counted[(e.reviewer, e.key)] = e
        if i is None:
            return
        if e.action == "label":
            self.votes.setdefault(i, {})[e.reviewer] = e
            self.skipped.get(e.reviewer, set()).discard(i)
            self.labelled[i] = True
        else:
            self.skipped.setdefault(e.reviewer, set()).add(i)
            votes = self.votes.get(i, {})
            votes.pop(e.reviewer, None)
            if not votes:
                self.votes.pop(i, None)
                self.labelled[i] = False

    @property
    def unknown(self) -> int:
        """Labels and skips in the database that name no pair of this source."""
        return sum(1 for _, key in self.counted if key not in self.pop.index)

    def record(self, reviewer: str, index: int, action: str, value: float | None = None,
               note: str = "") -> Event:
        """Store a ``label`` (``value``: 0/1, or a grade on a graded scale) or a ``skip`` of
        pair ``index`` by ``reviewer``; committed to the database before this returns.

        Raises:
            IndexError: ``index`` outside the population.
            ValueError: a value off the scale, or an unknown action.
        """
        if not 0 <= index < len(self.pop):
            raise IndexError(f"no pair {index}")
        scale = self.opt.scale
        label: int | None = None
        grade: float | None = None
        if action == "label":
            if not isinstance(value, (int, float)) or isinstance(value, bool) \
                    or not 0 <= value <= scale.top or value != int(value):
                raise ValueError(f"label must be an integer in 0..{scale.top}, got {value!r}")
            label = scale.binary(value) if scale.graded else int(value)
            grade = float(value) if scale.graded else None
        elif action != "skip":
            raise ValueError(f"unknown action {action!r}")
        shown = self.shown(index)
        with self._lock:
            e = self.db.append(reviewer, self.pop.keys[index], action, label, grade, note,  # type: ignore[arg-type]
                               self.opt.blind, shown, self.pop.source_id)
            self.events.append(e)
            self._count(e)
            if self.served.get(reviewer, (-1, 0.0))[0] == index:
                del self.served[reviewer]
        return e

    def undo(self, reviewer: str) -> tuple[Event, int | None] | None:
        """Withdraw the reviewer's latest label or skip (an ``undo`` event, committed).

        Returns:
            ``(the withdrawn event, its pair's index or None)``, or None when there is nothing
            to undo; the pair is then the reviewer's current one again.
        """
        with self._lock:
            target = latest_undoable(self.events, reviewer)
            if target is None:
                return None
            e = self.db.append(reviewer, target.key, "undo", blind=self.opt.blind,
                               source=self.pop.source_id, undoes=target.id)
            self.events.append(e)
            self._rebuild()
            i = self.pop.index.get(target.key)
            if i is not None:
                self.served[reviewer] = (i, time.monotonic())
        return target, i

    def shown(self, index: int) -> dict[str, Any]:
        """What the page showed of pair ``index`` (recorded with its label): the view, whether
        judge output was withheld, the queue, and the sha256 of the pair's payload."""
        payload = self.pop.pair(index, self.opt.blind)
        digest = hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True,
                                           default=str).encode()).hexdigest()
        return {"view": payload["context"].get("kind", "pair"), "judge_output": not self.opt.blind,
                "queue": self.opt.queue, "payload_sha256": digest}

    # ------------------------------------------------------------------ next pair
    def current(self, reviewer: str) -> int | None:
        """The pair shown to ``reviewer`` and not yet labelled or skipped, if any."""
        got = self.served.get(reviewer)
        if got is None:
            return None
        i = got[0]
        if reviewer in self.votes.get(i, {}) or i in self.skipped.get(reviewer, set()):
            return None
        return i

    def next_pair(self, reviewer: str) -> int | None:
        """The pair to show ``reviewer`` now (leased to them), or None when none is left.

        Order: the reviewer's current pair; then a pair of the overlap share labelled by one
        other reviewer; then the design's (or queue's) next pair no one has labelled.
        """
        with self._lock:
            i = self.current(reviewer)
            if i is None:
                i = self._choose(reviewer)
            if i is not None:
                self.served[reviewer] = (i, time.monotonic())
            return i

    def _blocked(self, reviewer: str) -> NDArray[np.bool_]:
        """Pairs ``reviewer`` may not be shown: skipped by them, labelled by them, or leased to
        someone else."""
        n = len(self.pop)
        out = np.zeros(n, dtype=bool)
        mine = self.skipped.get(reviewer, set())
        if mine:
            out[list(mine)] = True
        out[[i for i, v in self.votes.items() if reviewer in v]] = True
        now = time.monotonic()
        for who, (i, t) in self.served.items():
            if who != reviewer and now - t < self.opt.lease_s:
                out[i] = True
        return out

    def _choose(self, reviewer: str) -> int | None:
        blocked = self._blocked(reviewer)
        if self.opt.overlap > 0:
            second = [i for i, v in self.votes.items()
                      if len(v) == 1 and self.overlap_pair[i] and self.in_queue[i]
                      and not blocked[i]]
            if second:
                return min(second, key=lambda i: min(e.id for e in self.votes[i].values()))
        free = self.in_queue & ~self.labelled & ~blocked
        if not free.any():
            return None
        if not self.estimates:
            return int(next(i for i in self.order if free[i]))
        return design_pair(self.design(), free, self._estimate, self._rng)

    # ------------------------------------------------------------------ estimates
    def design(self) -> Any:
        """The labelled sample as a :class:`judge.calibration.stratified.Design` (pairs labelled
        by several reviewers once, positive by majority; a tie is negative)."""
        from judge.calibration.stratified import Design

        idx = np.array(sorted(self.votes), dtype=np.intp)
        pos = np.array([self._positive(i) for i in idx], dtype=bool)
        return Design(self.strata, idx, pos)

    def _positive(self, i: int) -> bool:
        labels = [e.label for e in self.votes[i].values()]
        return sum(1 for x in labels if x) * 2 > len(labels)

    def progress(self) -> dict[str, Any]:
        """Counts for the page: pairs, labelled pairs, per reviewer labels and skips."""
        per: dict[str, dict[str, int]] = {}
        for (reviewer, key), e in self.counted.items():
            if key not in self.pop.index:
                continue
            row = per.setdefault(reviewer, {"labels": 0, "skips": 0})
            row["labels" if e.action == "label" else "skips"] += 1
        in_q = int(self.in_queue.sum())
        return {"pairs": len(self.pop), "queue": self.opt.queue, "queue_pairs": in_q,
                "labelled": int((self.labelled & self.in_queue).sum()),
                "labels_elsewhere": self.unknown,
                "reviewers": dict(sorted(per.items()))}

    def agreement(self) -> dict[str, Any]:
        """Krippendorff's α between the reviewers (:func:`judge.review.estimate.agreement`)."""
        return agreement(self.votes, self.opt.scale.graded)

    @property
    def last_estimate(self) -> dict[str, Any] | None:
        """The page's view of the estimate last computed (None before the first), without
        computing one."""
        return self._estimate.page if self._estimate is not None else None

    def estimate(self) -> dict[str, Any]:
        """τ̂, its 95 % interval, the expected loss and the stopping rule (module docstring),
        recomputed only when labels changed (in this thread; the server runs
        :func:`~judge.review.estimate.run_estimate` of :meth:`estimate_job` in a worker).
        ``{"available": False, "why": …}`` when the queue gives no population estimate or the
        labels do not define τ yet."""
        if not self.current_estimate():
            n_events, job = self.estimate_job()
            self.store_estimate(n_events, job if isinstance(job, Estimate)
                                else run_estimate(self.pop.scores, self.strata, job))
        return self.last_estimate or {}

    def estimate_job(self) -> tuple[int, EstimateJob | Estimate]:
        """``(events so far, job)``: what :func:`~judge.review.estimate.run_estimate` needs for
        the labels so far (only the labelled pairs; the scores and strata do not change), or
        the answer itself when the queue gives no population estimate."""
        if not self.estimates:
            why = ("a suggestions file holds no population: label it, then run simjudge "
                   "calibrate LABELS.db --pool POOL for τ" if self.pop.kind == "suggestions"
                   else f"the {self.opt.queue!r} queue is not a random sample: τ is estimated "
                   "in the design queue")
            return len(self.events), Estimate({"available": False, "why": why})
        with self._lock:
            design = self.design()
            n_events = len(self.events)
        o = self.opt
        return n_events, EstimateJob(design.labelled, design.positive, o.objective, o.n_boot,
                                     o.seed, o.target_loss)

    def store_estimate(self, n_events: int, result: Estimate) -> None:
        """Keep ``result`` as the estimate of the labels after ``n_events`` events (its shares
        steer the design from now on)."""
        if n_events >= self._estimate_at:
            self._estimate, self._estimate_at = result, n_events

    def current_estimate(self) -> bool:
        """Whether :attr:`last_estimate` is of every label so far."""
        return self._estimate is not None and self._estimate_at == len(self.events)
