"""Human-checked items on the audit page (issue 35): ``simjudge estimate`` writes the run's
report with each checked item marked and the reviewers' matching shown beside the judge's.

:func:`with_item_checks` adds ``data["item_checks"]`` to :func:`judge.runs.audit.report_data`'s
result — item index (a string) → ``{"id", "reviewers": [{"reviewer", "human": [[i, j], ...],
"value"}], "judge": [[i, j], ...], "pi", "stratum"}`` with ``i``/``j`` the prediction and gold
positions in the item's first heatmap — and the ``human_checked`` queue (``[n, 0, -1]`` per
checked item). The judge's matching is its chosen matches at τ, exact ones included; a
function-call item has no heatmap and shows the reviewer's value (1 = correct) only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _positions(pairs: Sequence[tuple[str, str]], pred: list[str], truth: list[str]
               ) -> list[list[int]]:
    """``[[i, j], ...]`` of the ``(pred, truth)`` strings in the heatmap's lists, each
    position used once (a string listed twice maps to its occurrences in order)."""
    used_i: set[int] = set()
    used_j: set[int] = set()
    out = []
    for p, t in pairs:
        i = next((k for k, s in enumerate(pred) if s == p and k not in used_i), None)
        j = next((k for k, s in enumerate(truth) if s == t and k not in used_j), None)
        if i is not None and j is not None:
            used_i.add(i)
            used_j.add(j)
            out.append([i, j])
    return out


def with_item_checks(data: dict[str, Any], labels: Sequence[Any], truths: Sequence[Any],
                     source: str) -> dict[str, Any]:
    """Add the checked items to the report data (see the module docstring).

    Args:
        data: :func:`judge.runs.audit.report_data`'s result (modified and returned).
        labels: the :class:`judge.human.labels.ItemLabel` s, already checked against the run
            (:func:`judge.human.labels.check_labels`).
        truths: their :class:`judge.tasks.humantruth.ItemTruth` s, aligned with ``labels``.
        source: where the labels were read (shown in the page's header).

    Returns:
        ``data``.
    """
    index = {item["id"]: n for n, item in enumerate(data["items"])}
    checks: dict[str, dict[str, Any]] = {}
    for lab, truth in zip(labels, truths, strict=True):
        n = index.get(lab.item_id)
        if n is None:
            continue
        item = data["items"][n]
        hms = item.get("heatmaps") or []
        entry = checks.setdefault(str(n), {"id": lab.item_id, "reviewers": [], "judge": [],
                                           "pi": lab.pi, "stratum": lab.stratum})
        human: list[list[int]] = []
        if hms:
            hm = hms[0]
            human = _positions(truth.matches, hm["pred"], hm["truth"])
            judged = {tuple(x) for x in (hm.get("matched") or [])} | {
                tuple(x) for x in (hm.get("exact") or [])}
            entry["judge"] = sorted([list(x) for x in judged])
        entry["reviewers"].append({"reviewer": lab.reviewer, "human": human,
                                   "value": truth.value})
    data["item_checks"] = checks
    data["queues"]["human_checked"] = [[int(n), 0, -1] for n in
                                       sorted(checks, key=int)]
    data["header"]["item_checks_file"] = source
    return data
