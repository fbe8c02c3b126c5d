"""What the audit report shows of one item, per kind of content (``judge.runs.report``).

A task's :meth:`~judge.tasks.base.Task.view` returns one of these views of its typed
``items.jsonl`` row (:mod:`judge.record.itemrows`) — a dict whose ``"kind"`` names how the
report draws it — and its
:meth:`~judge.tasks.base.Task.markdown` turns that view into Markdown lines
(:func:`markdown_lines`). The HTML page draws the same views by ``kind`` in the browser:

* ``boolean`` (:func:`boolean_view`): ``pred``, ``truth`` (booleans), ``correct``;
* ``texts`` (:func:`texts_view`): ``pred`` (text), ``truth`` (list of references);
* ``labels`` (:func:`labels_view`): ``pred``, ``truth``, ``missing`` (gold labels not
  predicted), ``extra`` (predicted labels not in gold);
* ``ranking`` (:func:`ranking_view`): ``ranked``, ``retrieved``, ``relevant``,
  ``relevant_missing``;
* ``calls`` (:func:`calls_view`): ``gold`` and ``pred`` calls, ``correct``, ``error_type``,
  ``error``, ``matching``, ``category``.

Every view is ``{}`` for a row that does not carry its content (written by an older simjudge):
the report then shows only the row's metrics.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from judge.record.itemrows import (
    FunctionCallRow,
    GenerationRow,
    JudgmentRow,
    MultilabelRow,
    RankingRow,
)

RANK_LIMIT = 100
"""Ranked documents shown per query (the metrics use the whole run; items.jsonl has it all)."""


def boolean_view(row: JudgmentRow) -> dict[str, Any]:
    """``{"kind": "boolean", "pred", "truth", "correct"}`` of a yes/no judgment row
    (``correct`` = pred == truth when the row does not store it); ``{}`` without
    ``pred``/``truth``."""
    if not row.has("pred", "truth"):
        return {}
    return {"kind": "boolean", "pred": row.pred, "truth": row.truth,
            "correct": row.correct if row.has("correct") else row.pred == row.truth}


def texts_view(row: GenerationRow) -> dict[str, Any]:
    """``{"kind": "texts", "pred": text, "truth": [reference, ...]}`` of a generated text and
    its references; ``{}`` without ``pred``/``truth``."""
    if not row.has("pred", "truth"):
        return {}
    return {"kind": "texts", "pred": row.pred, "truth": row.truth}


def labels_view(row: MultilabelRow) -> dict[str, Any]:
    """``{"kind": "labels", "pred", "truth", "missing", "extra"}`` of a multi-label row:
    ``missing`` = gold labels not predicted, ``extra`` = predicted labels not in gold (each in
    its list's order); ``{}`` without ``pred``/``truth``."""
    if not row.has("pred", "truth"):
        return {}
    pred, truth = row.pred, row.truth
    return {"kind": "labels", "pred": pred, "truth": truth,
            "missing": [x for x in truth if x not in pred],
            "extra": [x for x in pred if x not in truth]}


def ranking_view(row: RankingRow) -> dict[str, Any]:
    """The ``ranking`` view of one query's row (``ranked`` document ids, ``qrels`` doc → grade).

    Returns:
        ``{"kind": "ranking", "ranked": [[rank, doc, grade or None], ...]`` (the first
        :data:`RANK_LIMIT`), ``"retrieved"`` (length of the whole ranking), ``"relevant":
        [[doc, grade, rank or None], ...]`` (every document with grade >= 1; best grade
        first, then by rank, unretrieved last, then by id), ``"relevant_missing"`` (relevant
        but not retrieved)``}``; ``{}`` without ``ranked``.
    """
    if row.ranked is None:
        return {}
    qrels: Mapping[str, int] = row.qrels or {}
    ranked = list(row.ranked)
    rank_of = {d: k + 1 for k, d in enumerate(ranked)}
    relevant = sorted(((d, g, rank_of.get(d)) for d, g in qrels.items() if g >= 1),
                      key=lambda x: (-x[1], x[2] if x[2] is not None else 10**9, x[0]))
    return {"kind": "ranking",
            "ranked": [[k + 1, d, qrels.get(d)] for k, d in enumerate(ranked[:RANK_LIMIT])],
            "retrieved": len(ranked), "relevant": [list(r) for r in relevant],
            "relevant_missing": sum(1 for r in relevant if r[2] is None)}


def calls_view(row: FunctionCallRow) -> dict[str, Any]:
    """``{"kind": "calls", "gold", "pred", "correct", "error_type", "error", "matching",
    "category"}`` of a function-call row: gold and predicted calls (``pred`` is the raw model
    output when it could not be parsed), the verdict, its error type and explanation, the
    ``[gold index, pred index]`` matching and the BFCL category (None for other formats);
    ``{}`` without ``gold_calls``."""
    if not row.has("gold_calls"):
        return {}
    return {"kind": "calls", "gold": row.gold_calls, "pred": row.pred_calls,
            "correct": row.correct if row.has("correct") else None,
            "error_type": row.error_type, "error": row.error,
            "matching": row.matching if row.has("matching") else None,
            "category": row.category}


def calls_json(x: Any) -> str:
    """Function calls as JSON with one call per line (a list of calls, or BFCL's
    ``{function: {param: [acceptable…]}}``); raw model text is returned unchanged.

    Examples:
        >>> print(calls_json([{"name": "f", "arguments": {}}, {"name": "g"}]))
        [
          {"name": "f", "arguments": {}},
          {"name": "g"}
        ]
        >>> calls_json("not json")
        'not json'
    """
    if isinstance(x, str):
        return x

    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)
    if isinstance(x, list) and x:
        return "[\n" + ",\n".join(f"  {one(v)}" for v in x) + "\n]"
    if isinstance(x, dict) and x:
        return "{\n" + ",\n".join(f"  {one(k)}: {one(v)}" for k, v in x.items()) + "\n}"
    return one(x)


def _fenced(x: Any) -> list[str]:
    """A fenced block of function calls (see :func:`calls_json`)."""
    text = calls_json(x)
    fence = "````" if "```" in text else "```"
    return [fence + ("json" if not isinstance(x, str) else ""), *text.splitlines(), fence]


def markdown_lines(content: Mapping[str, Any]) -> list[str]:
    """Markdown lines (no heading) describing one view, chosen by ``content["kind"]``.

    Args:
        content: a view built by one of this module's functions.

    Returns:
        the lines; ``[]`` for an empty view or an unknown kind.

    Examples:
        >>> markdown_lines({"kind": "boolean", "pred": False, "truth": True, "correct": False})
        ['- prediction: false · gold: true → wrong']
        >>> markdown_lines(labels_view(MultilabelRow(id="x", pred=["a", "b"], truth=["b", "c"])))
        ['- predicted: a, b', '- gold: b, c', '- missing: c · extra: a']
    """
    c = content
    kind = c.get("kind")
    if kind == "boolean":
        return [f"- prediction: {str(c['pred']).lower()} · gold: {str(c['truth']).lower()} "
                f"→ {'correct' if c['correct'] else 'wrong'}"]
    if kind == "texts":
        return [f"- prediction: {c['pred']!r}", *(f"- reference: {t!r}" for t in c["truth"])]
    if kind == "labels":
        return [f"- predicted: {', '.join(c['pred']) or '(none)'}",
                f"- gold: {', '.join(c['truth']) or '(none)'}",
                f"- missing: {', '.join(c['missing']) or '–'} · extra: "
                f"{', '.join(c['extra']) or '–'}"]
    if kind == "ranking":
        rel = ", ".join(f"{d} (grade {g}, " + (f"rank {r})" if r else "not retrieved)")
                        for d, g, r in c["relevant"])
        shown = len(c["ranked"])
        return [f"- relevant: {rel or '(none)'}",
                f"- ranked ({c['retrieved']} retrieved"
                + (f", first {shown} shown" if shown < c["retrieved"] else "") + "):",
                *(f"  {r}. {d}" + ("" if g is None else f" (grade {g})")
                  for r, d, g in c["ranked"])]
    if kind == "calls":
        verdict = "correct" if c["correct"] else f"wrong: {c['error_type']}"
        return [f"- {verdict}" + (f" — {c['error']}" if c.get("error") else "")
                + (f" · category {c['category']}" if c.get("category") else ""),
                "- gold calls:", *_fenced(c["gold"]), "- predicted calls:", *_fenced(c["pred"])]
    return []
