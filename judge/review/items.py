"""``simjudge review RUN --items``: a reviewer checks whole items — links each prediction to the
gold item it names, or to none — and each submitted item is an item label event in the labels
database (:mod:`judge.calibration.itemevents`), read back by ``simjudge estimate``.

**Which item next** (``--design``): ``uniform`` walks the run's items in a seeded random order,
so the items labelled so far are a simple random sample; ``stratified`` cuts them into the
strata of :mod:`judge.human.design` (how sure the judge is of each item: ``near``, ``mid``,
``far``), walks each stratum in a seeded random order and takes the next item from the stratum
furthest below its target share (shares ∝ ``N_h × weight``, :data:`WEIGHTS`: the unsure
strata are checked more), every stratum its first :data:`FIRST_PER_STRATUM` items before any
share counts. The labelled items of a stratum are then a simple random sample of it, so the
estimate weighs each by ``N_h/n_h`` and tunes λ per stratum (or pooled: :mod:`metrics.ppi`).
The order is a function of the run and the seed: a restart, or several reviewers, continue it.

**Several reviewers, resume.** An item shown to a reviewer is leased to them for
:data:`LEASE_S` seconds; a reviewer sees again the item they were shown and never one they
already labelled or skipped. Undo withdraws the reviewer's latest label or skip (the item is
shown again). Blind by default: the judge's matching never reaches the page.

**Live estimate.** After each label the page asks for the estimate of the run's metrics from
the items labelled so far (:func:`judge.human.estimate.estimate`): the PPI++ interval of micro
F1 beside the judge's value, as the pair mode shows τ̂.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

from judge.calibration.itemevents import ItemEvent, current_item_labels
from judge.calibration.labelsdb import LabelsDB
from judge.errors import InputError
from judge.human.design import DESIGNS, item_strata
from judge.tasks.humantruth import LabelPlace

WEIGHTS = {"near": 3.0, "mid": 1.5, "far": 1.0}
"""How much more often than its share each stratum of the ``stratified`` design is checked."""

FIRST_PER_STRATUM = 3
"""Items of each stratum taken first under the ``stratified`` design (its variance needs 2)."""

LEASE_S = 600.0
"""Seconds an item shown to a reviewer is kept from the others."""


def design_order(strata: list[str], design: str, seed: int) -> list[int]:
    """The order the items are offered in (see the module docstring).

    Args:
        strata: each item's stratum (:func:`judge.human.design.item_strata`).
        design: ``uniform`` or ``stratified``.
        seed: the order's seed.

    Raises:
        ValueError: an unknown design.
    """
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}; expected one of {', '.join(DESIGNS)}")
    rng = random.Random(seed)
    if design == "uniform":
        shuffled = list(range(len(strata)))
        rng.shuffle(shuffled)
        return shuffled
    walks: dict[str, list[int]] = {}
    for k, h in enumerate(strata):
        walks.setdefault(h, []).append(k)
    for walk in walks.values():
        rng.shuffle(walk)
    mass = {h: len(w) * WEIGHTS.get(h, 1.0) for h, w in walks.items()}
    total = sum(mass.values())
    taken = dict.fromkeys(walks, 0)
    order: list[int] = []
    while len(order) < len(strata):
        open_ = [h for h in walks if taken[h] < len(walks[h])]
        short = [h for h in open_ if taken[h] < FIRST_PER_STRATUM]
        pos = len(order) + 1
        h = (short[0] if short else
             max(open_, key=lambda s: mass[s] / total * pos - taken[s]))
        order.append(walks[h][taken[h]])
        taken[h] += 1
    return order


class ItemSession:
    """The item review of one run (see the module docstring).

    Args:
        record: the run (:class:`judge.record.runrecord.RunRecord`), its directory's
            source id (``PATH@sha256:…``) in ``source``.
        db: the open labels database.
        design: ``uniform`` or ``stratified``; seed: the order's seed; blind: hide the
            judge's matching.

    Raises:
        InputError: a task without item labels (field ``items``), an unknown design.
    """

    def __init__(self, record: Any, source: str, db: LabelsDB, design: str = "uniform",
                 seed: int = 0, blind: bool = True) -> None:
        from judge.tasks.registry import get_task

        self.record, self.source, self.db = record, source, db
        self.design, self.blind = design, blind
        self.task = get_task(record.task)
        self.rows = self.task.rows(record)
        self.check_task(record)
        self.strings = [self.task.row_strings(r) for r in self.rows]
        tau = record.config.get("tau")
        self.strata = item_strata(self.task, self.rows, float(tau if tau is not None else 0.7))
        try:
            self.order = design_order(self.strata, design, seed)
        except ValueError as exc:
            raise InputError(str(exc), field="design") from None
        self.index = {r.id: k for k, r in enumerate(self.rows)}
        self._lock = threading.Lock()
        self._leases: dict[int, tuple[str, float]] = {}
        self._current: dict[str, int] = {}

    @staticmethod
    def check_task(record: Any) -> None:
        """Refuse a run whose task has no item labels.

        Raises:
            InputError: (field ``items``) such a run.
        """
        from judge.tasks.params import Params
        from judge.tasks.registry import get_task

        task = get_task(record.task)
        if not task.human_columns(task.rows(record), {}, Params()):
            raise InputError(f"task {record.task!r} has no item labels: review its pairs "
                             "instead (without --items)", field="items")

    # ---------------------------------------------------------------- events
    def events(self) -> list[ItemEvent]:
        """This run's item events in the database, oldest first."""
        return self.db.item_events(self.source)

    def _done(self, reviewer: str, events: list[ItemEvent]) -> set[int]:
        """Items the reviewer labelled or skipped (undone events not counted)."""
        undone = {e.undoes for e in events if e.action == "undo"}
        return {self.index[e.item_id] for e in events if e.reviewer == reviewer
                and e.action in ("label", "skip") and e.id not in undone
                and e.item_id in self.index}

    # ---------------------------------------------------------------- which item
    def next_item(self, reviewer: str) -> int | None:
        """The item to show ``reviewer``: the one they were shown and have not submitted, else
        the design's next one nobody else holds; None when none is left."""
        with self._lock:
            events = self.events()
            done = self._done(reviewer, events)
            labelled = {self.index[e.item_id] for e in current_item_labels(events)
                        if e.item_id in self.index}
            held = self._current.get(reviewer)
            if held is not None and held not in done:
                self._leases[held] = (reviewer, time.monotonic())
                return held
            now = time.monotonic()
            for k in self.order:
                if k in done or k in labelled:
                    continue
                lease = self._leases.get(k)
                if lease and lease[0] != reviewer and now - lease[1] < LEASE_S:
                    continue
                self._leases[k] = (reviewer, now)
                self._current[reviewer] = k
                return k
            self._current.pop(reviewer, None)
            return None

    def item(self, k: int) -> dict[str, Any]:
        """What the page shows of item ``k``: id, predictions, gold, query and — unless
        blind — the judge's matching."""
        row = self.rows[k]
        pred, truth = self.strings[k]
        out: dict[str, Any] = {"index": k, "id": row.id, "pred": list(pred or []),
                               "truth": list(truth or []), "query": row.get("query")}
        if not self.blind:
            out["judge_matches"] = [[m.pred_index, m.truth_index, m.score]
                                    for m in row.get("matches") or []]
        return out

    # ---------------------------------------------------------------- writing
    def record_label(self, reviewer: str, k: int, action: str,
                     matches: list[list[int]] | None = None) -> ItemEvent:
        """Store the reviewer's label (``matches``: ``[[pred index, gold index], ...]``) or
        skip of item ``k``, committed before returning.

        Raises:
            ValueError: an item index out of range, an action other than label/skip, matches
                that are not index pairs of the item or not one-to-one.
        """
        if not 0 <= k < len(self.rows):
            raise ValueError("unknown item: index out of range")
        if action not in ("label", "skip"):
            raise ValueError("action must be 'label' or 'skip'")
        truth = None
        if action == "label":
            pred, gold = self.strings[k]
            pairs = []
            for m in matches or []:
                if (not isinstance(m, list) or len(m) != 2 or not all(
                        isinstance(x, int) and not isinstance(x, bool) for x in m)
                        or not (0 <= m[0] < len(pred or []) and 0 <= m[1] < len(gold or []))):
                    raise ValueError("matches must be [prediction index, gold index] pairs of "
                                     "the item")
                pairs.append([(pred or [])[m[0]], (gold or [])[m[1]]])
            truth = {"matches": pairs}
            try:  # the task's own check: one-to-one
                self.task.item_truth(self.rows[k].id, pred, gold, truth, LabelPlace("page"))
            except InputError as exc:
                raise ValueError(exc.message) from None
        stratum = self.strata[k] if self.design == "stratified" else None
        with self._lock:
            event = self.db.append_item(reviewer, self.source, self.rows[k].id, action,  # type: ignore[arg-type]
                                        truth=truth, design=self.design, stratum=stratum,
                                        blind=self.blind)
            self._current.pop(reviewer, None)
        return event

    def undo(self, reviewer: str) -> tuple[ItemEvent, int] | None:
        """Withdraw the reviewer's latest standing label or skip; ``(undo event, its item)``,
        or None when there is nothing to undo."""
        with self._lock:
            events = self.events()
            undone = {e.undoes for e in events if e.action == "undo"}
            mine = [e for e in events if e.reviewer == reviewer and e.action != "undo"
                    and e.id not in undone and e.item_id in self.index]
            if not mine:
                return None
            last = mine[-1]
            event = self.db.append_item(reviewer, self.source, last.item_id, "undo",
                                        undoes=last.id, design=self.design)
            k = self.index[last.item_id]
            self._current[reviewer] = k
            self._leases[k] = (reviewer, time.monotonic())
            return event, k

    # ---------------------------------------------------------------- progress, estimate
    def progress(self) -> dict[str, Any]:
        """Items labelled (by anyone), per reviewer labels and skips, and the total."""
        events = self.events()
        standing = current_item_labels(events)
        undone = {e.undoes for e in events if e.action == "undo"}
        per: dict[str, dict[str, int]] = {}
        for e in events:
            if e.action in ("label", "skip") and e.id not in undone:
                c = per.setdefault(e.reviewer, {"labels": 0, "skips": 0})
                c["labels" if e.action == "label" else "skips"] += 1
        return {"labelled": len({e.item_id for e in standing}), "items": len(self.rows),
                "design": self.design, "reviewers": per}

    def estimate(self) -> dict[str, Any]:
        """The run's metrics from the items labelled so far (judge, PPI++, human only), or
        ``{"available": False, "why"}`` while it cannot be computed (fewer than 2 labelled
        items, a stratum with fewer than 2)."""
        from judge.human.estimate import estimate
        from judge.human.labels import ItemLabel

        labels = [ItemLabel(e.item_id, dict(e.truth or {}), e.reviewer, None, e.stratum, None,
                            LabelPlace(f"labels.db#item-event-{e.id}"))
                  for e in current_item_labels(self.events()) if e.item_id in self.index]
        if len({lab.item_id for lab in labels}) < 2:
            return {"available": False, "why": "needs 2 labelled items", "labelled": len(
                {lab.item_id for lab in labels})}
        try:
            result = estimate(self.record, labels)
        except InputError as exc:
            return {"available": False, "why": exc.message,
                    "labelled": len({lab.item_id for lab in labels})}
        return {"available": True, **result}
