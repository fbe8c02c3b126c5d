"""Review layers of the audit report: a blind page, and human labels shown on the cells.

* :func:`blind` turns :func:`judge.runs.audit.report_data` into what a blind reviewer may see:
  the pairs and the exact (normalised-equal) matches, but no judge score, rationale, raw
  output, grade distribution, probe, chosen semantic match, per-item or dataset metric, no τ
  (a calibration's suggestions are judged at τ̂), and no queue built from scores. The items
  come in a random order (seeded; the seed is in the page) without their source lines, as a
  run's order can follow the scores (``calibrate --suggest`` wrote its pairs by score
  stratum). The data is removed from the page, not hidden by it, so reading the page's source
  reveals nothing either. Overrides exported from a blind page carry ``"blind": true``.
* :func:`with_human_labels` adds reviewers' labels (audit exports, labels files, or files
  written by ``simjudge labels merge``; :func:`judge.calibration.merge.read_reviews`) to the
  report: the page outlines each labelled cell and lists the reviewers' labels, times and
  notes in the cell's detail; a labelled cell whose labels' mean is on the other side of τ
  from its score (or that has no score) joins the ``human_ne_judge`` queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

BLIND_QUEUES = ("near", "disagree", "failures", "asymmetric", "unstable", "unmatched_pred",
                "unmatched_truth")
"""Queues a blind page leaves empty (each is built from the judges' scores or matching)."""


def blind(data: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    """The report data with every judge output removed and the items in a random order (see
    the module docstring).

    Args:
        data: :func:`judge.runs.audit.report_data`'s result (modified and returned).
        seed: seed of the order (``random.Random(seed).shuffle``), any int; recorded as the
            header's ``order_seed``.
    """
    import random

    h = data["header"]
    h.update({"blind": True, "metrics": {}, "ci95": {}, "metric_groups": {},
              "probe_lines": [], "outcomes": {}, "panel": None, "tau": None,
              "uses_tau": False, "order_seed": seed})
    random.Random(seed).shuffle(data["items"])
    for item in data["items"]:
        item["metrics"] = {}
        item.pop("source", None)  # its line number is the item's place in the run
        if item["heatmaps"]:
            item["content"] = {}  # e.g. spans' matched/missing lists
        for hm in item["heatmaps"]:
            hm["scores"] = [[None] * len(hm["truth"]) for _ in hm["pred"]]
            hm["matched"] = []
    data["verdicts"] = {}
    data["probes"] = {}
    data["human"] = {}  # other reviewers' labels would unblind as much as the judges'
    h.pop("human_files", None)
    data["queues"] = {q: [] for q in data["queues"]}
    return data


def with_human_labels(data: dict[str, Any], paths: Sequence[Path]) -> tuple[dict[str, Any],
                                                                           int]:
    """Add ``data["human"]``: pair key → ``[{"reviewer", "label", "reviewed_at", "note",
    "blind"}]`` for every labelled pair of the run.

    A label row names its pair by item id, prediction and gold string (a row without an id
    matches that pair in every item); a row naming no pair of the run is an error (a label
    file of another run, or a typo), never silently left out.

    Args:
        data: :func:`judge.runs.audit.report_data`'s result (modified and returned).
        paths: label files.

    Returns:
        ``(data, 0)``: the number of labels naming no pair of the run, always 0 now.

    Raises:
        InputError: as :func:`judge.calibration.merge.read_reviews` (an empty file too); a
            label naming no pair of the run (the first such row: its file, line and the field
            that names what the run lacks — ``id``, ``pred`` or ``truth``).
    """
    from judge.calibration.merge import read_reviews
    from judge.runs.audit import pair_key

    got = read_reviews(paths)
    cells: set[tuple[str | None, str, str]] = set()
    for item in data["items"]:
        for hm in item["heatmaps"]:
            cells.update((item["id"], p, t) for p in hm["pred"] for t in hm["truth"])
    loose = {(p, t) for _, p, t in cells}
    human: dict[str, list[dict[str, Any]]] = {}
    for (iid, p, t), reviews in got.pairs.items():
        if (iid is not None and (iid, p, t) not in cells) or (iid is None and (p, t) not in
                                                               loose):
            raise _not_in_run(reviews[0].where, iid, p, t, cells)
        human[pair_key((iid, p, t))] = [
            {"reviewer": r.reviewer, "label": r.label, "reviewed_at": r.reviewed_at,
             "note": r.note, "blind": r.blind} for r in reviews]
    data["human"] = human
    data["header"]["human_files"] = [str(p) for p in paths]
    _human_queue(data, {k: [r.label for r in v] for k, v in got.pairs.items()})
    return data, 0


def _human_queue(data: dict[str, Any], labels: dict[tuple[str | None, str, str], list[float]],
                 ) -> None:
    """Add the labelled cells whose labels' mean and score disagree at τ
    (:func:`judge.runs.audit.disagrees`) to ``data["queues"]["human_ne_judge"]``."""
    from judge.runs.audit import disagrees

    tau = data["header"].get("tau")
    queue = data["queues"].setdefault("human_ne_judge", [])
    seen = {tuple(e) for e in queue}
    for n, item in enumerate(data["items"]):
        for h, hm in enumerate(item["heatmaps"]):
            for i, p in enumerate(hm["pred"]):
                for j, t in enumerate(hm["truth"]):
                    got = labels.get((item["id"], p, t)) or labels.get((None, p, t))
                    if got and (n, h, i, j) not in seen and disagrees(
                            sum(got) / len(got), hm["scores"][i][j], tau):
                        queue.append([n, h, i, j])


def _not_in_run(where: str, iid: str | None, pred: str, truth: str,
                cells: set[tuple[str | None, str, str]]) -> Exception:
    """The error of a label (at ``where``, ``FILE:LINE``) whose pair the run does not have."""
    from judge.errors import InputError

    path, _, line = where.rpartition(":")
    at: dict[str, Any] = {"path": path or where, "line": int(line) if line.isdigit() else None}
    item = f" of item {iid!r}" if iid is not None else ""
    if iid is not None and not any(c[0] == iid for c in cells):
        return InputError(f"no item {iid!r} in this run: the label names no pair of it",
                          field="id", **at)
    if not any(c[1] == pred and (iid is None or c[0] == iid) for c in cells):
        return InputError(f"{pred!r} is no prediction{item} in this run: the label names no "
                          "pair of it", field="pred", **at)
    return InputError(f"({pred!r}, {truth!r}) is no judged pair{item} in this run: the label "
                      "names no pair of it", field="truth", **at)
