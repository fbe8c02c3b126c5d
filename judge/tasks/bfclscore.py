"""BFCL input in ``--task function-call``: items read from a result file or folder, each item's
verdicts (BFCL's, the optimal matching's, and the argument judge's beside them), and the
per-category accuracies aggregated as BFCL's leaderboard aggregates them.

Aggregates (``eval_checker/eval_runner_helper.py`` ``generate_leaderboard_csv`` at gorilla
``de8307b4``): a category's accuracy is its share of correct items; BFCL's "simple" AST column
(``bfcl_simple_ast``) is the item-weighted accuracy over ``simple``, ``java`` and
``javascript``; its AST summary (``bfcl_ast_summary``) is the unweighted mean of that,
``multiple_function``, ``parallel_function`` and ``parallel_multiple_function``. The overall
accuracy also needs the executable categories, which simjudge does not run.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from judge.errors import InputError
from judge.items import Item
from judge.tasks.bfclcheck import (
    AST_CATEGORIES,
    SINGLE_CALL,
    decode_result,
    decoded_of,
    is_call_list,
    verdict_of,
)
from judge.tasks.bfclmodels import bfcl_model
from judge.tasks.fcoptions import FunctionCallOptions
from metrics.fc_check import names_match

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from judge.record.itemrows import FunctionCallRow
    from judge.tasks.arguments import ArgEquivalent
    from judge.tasks.inputs import Source

SIMPLE_AST = ("simple", "java", "javascript")
"""The categories of BFCL's item-weighted "simple" AST column."""
AST_SUMMARY = ("simple_ast", "multiple_function", "parallel_function",
               "parallel_multiple_function")
"""The four columns BFCL's AST summary averages (``simple_ast`` = :data:`SIMPLE_AST`)."""
_PROMPT_FAMILIES = ("fc-json", "gemini", "cohere-fc", "glm", "granite", "hermes", "xlam")
"""Decoder families that never parse source text (no tree-sitter needed)."""


def load_bfcl_items(source: Source, options: FunctionCallOptions) -> list[Item]:
    """Items of a BFCL result file or folder (:func:`judge.tasks.bfclload.bfcl_files`), each
    with its schemas, category, the model whose decoder reads it and its result decoded once
    (:func:`judge.tasks.bfclcheck.decode_result`; ``extra["decoded"]``).

    ``source.max_chars`` applies to the ground truth and to every string of the *decoded*
    calls (names, parameters, values: what ``--arg-judge`` can send to a judge), not to the
    raw result text: that is decoded, never judged, and models wrap short calls in long prose
    or reasoning (13 of the 71 models of BFCL's 2024-08-11 archive have raw results over 4,096
    characters; none decodes to a string that long).

    Raises:
        InputError: see :func:`judge.tasks.bfclload.bfcl_files` and
            :func:`judge.tasks.fcformats.load_bfcl`; a ``--bfcl-model`` BFCL does not know;
            Java/JavaScript prompt-style items without tree-sitter installed; a decoded string
            over ``source.max_chars`` (field ``result``).
    """
    from judge.tasks.bfclload import bfcl_files, detect_model
    from judge.tasks.fcformats import load_bfcl

    data = Path(source.data)
    triples, notes = bfcl_files(data, source.gold, options.functions)
    model = detect_model(data, options.bfcl_model)
    decoder = bfcl_model(model)
    loaded = [b for res, gold, questions in triples
              for b in load_bfcl(res, gold, questions, max_chars=source.max_chars,
                                 check_results=False)]
    if (decoder.family not in _PROMPT_FAMILIES
            and any(b.category in ("java", "javascript") for b in loaded)):
        try:
            from judge.tasks.bfclsource import _parser

            _parser("java")
            _parser("javascript")
        except ImportError as exc:
            raise InputError(str(exc), data, field="data") from None
    items = []
    for b in loaded:
        decoded = decode_result(b.result, b.category, decoder)
        if is_call_list(decoded):
            _check_decoded_sizes(decoded, source.max_chars, b.source)
        items.append(Item(b.id, b.source, b.result, b.gold, b.question,
                          {"schemas": b.schemas, "category": b.category, "bfcl_model": model,
                           "skipped": notes, "decoded": decoded}))
    return items


def _check_decoded_sizes(decoded: Any, max_chars: int, source: str) -> None:
    """Refuse a string of the decoded calls over ``max_chars`` (0 = no limit).

    Raises:
        InputError: ``FILE:LINE: field 'result': decoded calls hold a string of 5,000
            characters, over --max-chars 4096 (…)``.
    """
    from judge import io

    path, _, line = source.rpartition(":")
    try:
        io.check_string_sizes(decoded, max_chars, path, int(line), "result")
    except InputError as exc:
        over = exc.message.replace(" exceeds ", ", over ")
        raise InputError(f"decoded calls hold a {over} (what --arg-judge can send to a judge)",
                         exc.path, exc.line, exc.field) from None


def settled_options(items: Sequence[Item], options: Any) -> Any:
    """BFCL input: ``options`` with the model the loader detected (``bfcl_model``) and the
    matching in force (``fc_matching``), so that ``config.json`` records both and ``rescore``
    reads them back; other options unchanged."""
    if not isinstance(options, FunctionCallOptions) or options.format != "bfcl" or not items:
        return options
    matching: Any = options.matching()
    return dataclasses.replace(options, bfcl_model=str(items[0].extra["bfcl_model"]),
                               fc_matching=matching)


def jsonable(value: Any) -> Any:
    """A decoded value as JSON can hold it (for the run's rows): tuples as lists, dict keys as
    strings, bytes/complex/non-finite floats/Ellipsis as their ``repr``."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else repr(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, (str, int, float)):
        return value
    return repr(value)


@dataclass(frozen=True)
class BfclItemCheck:
    """One BFCL item's outcome for the task's row.

    Attributes:
        correct, error_type, message: the verdict under the run's matching, no argument judge.
        pairs: ``[gold index, predicted index]`` of that verdict's matching.
        verdicts: ``{"official", "optimal"[, "arg_judge"]}`` → correct.
        shown: the decoded calls ``[{"name", "arguments"}]`` (or the raw result when they do
            not decode to a list of calls), JSON-ready.
        seed_calls: the decoded calls for seed 003's metrics (schema names).
    """

    correct: bool
    error_type: str
    message: str
    pairs: list[list[int]]
    verdicts: dict[str, bool]
    shown: Any
    seed_calls: list[dict[str, Any]] = field(default_factory=list)


def bfcl_item_check(item: Item, matching: str,
                    equivalent: ArgEquivalent | None = None) -> BfclItemCheck:
    """The verdicts of a BFCL item (:func:`judge.tasks.bfclcheck.bfcl_verdict`): under
    ``official`` and ``optimal`` matching and, with ``equivalent``, under ``matching`` with the
    argument judge's equivalences (an extension beyond BFCL, never in ``correct``)."""
    from judge.tasks.arguments import equivalent_for

    cat = item.extra["category"]
    schemas = item.extra["schemas"]
    model = bfcl_model(str(item.extra["bfcl_model"]))
    decoded = decoded_of(item)
    official = verdict_of(decoded, cat, item.truth, schemas, model, "official")
    several = cat not in SINGLE_CALL and cat != "relevance"
    # a correct official verdict is a perfect matching of valid pairs, so the optimal one is
    # correct too: the solver runs only when the run's matching needs its pairs or official
    # matching failed (most items: one solver call saved, and scipy's import in most runs)
    optimal = (verdict_of(decoded, cat, item.truth, schemas, model, "optimal")
               if several and not (official.correct and matching == "official") else official)
    verdicts = {"official": official.correct, "optimal": optimal.correct}
    if equivalent is not None:
        judged = verdict_of(decoded, cat, item.truth, schemas, model, matching,
                            equivalent_for(equivalent))
        verdicts["arg_judge"] = judged.correct
    chosen = official if matching == "official" else optimal
    decoded = chosen.decoded
    if not is_call_list(decoded):
        return BfclItemCheck(chosen.correct, chosen.error_type, chosen.message,
                             [[g, p] for g, p, _ in chosen.pairs], verdicts,
                             jsonable(item.pred))
    shown, seed = [], []
    for call in decoded:
        for name, params in call.items():
            shown.append({"name": jsonable(name), "arguments": jsonable(params)})
            if isinstance(params, Mapping):
                schema_name = next((s["name"] for s in schemas
                                    if names_match(str(name), s["name"])), str(name))
                seed.append({"name": schema_name, "arguments": jsonable(params)})
    return BfclItemCheck(chosen.correct, chosen.error_type, chosen.message,
                         [[g, p] for g, p, _ in chosen.pairs], verdicts, shown, seed)


def _accuracy(correct: Sequence[bool]) -> float:
    return float(np.mean(correct)) if len(correct) else math.nan


def bfcl_metrics(rows: Sequence[FunctionCallRow], items: Sequence[Item], matching: str
                 ) -> dict[str, Any]:
    """The BFCL entries of ``summary.json``'s metrics: ``bfcl`` (model, decoder, naming rule,
    matching, skipped files, per-category ``{accuracy, correct, total}``, BFCL's aggregates),
    ``matching_comparison`` (accuracy under each matching and the items whose verdict
    differs) and, with an argument judge, ``arg_judge_extension`` (accuracy with its
    equivalences, overall and per category) — beside the official-compatible ``accuracy``."""
    model = bfcl_model(str(items[0].extra["bfcl_model"])) if items else None
    cats = [c for c in AST_CATEGORIES if any(r.category == c for r in rows)]
    per = {c: [r.correct for r in rows if r.category == c] for c in cats}
    out: dict[str, Any] = {"bfcl": {
        "model": items[0].extra["bfcl_model"] if items else None,
        "decoder": model.family if model else None, "names": model.names if model else None,
        "matching": matching, "skipped": list(items[0].extra.get("skipped", [])) if items else [],
        "categories": {c: {"accuracy": _accuracy(v), "correct": int(sum(v)), "total": len(v)}
                       for c, v in per.items()},
        **{k: v for k, v in category_means(rows).items()
           if k.startswith("bfcl_") and math.isfinite(v)}}}
    verdicts = [r.verdicts or {} for r in rows]
    out["matching_comparison"] = {
        "official": _accuracy([v.get("official", False) for v in verdicts]),
        "optimal": _accuracy([v.get("optimal", False) for v in verdicts]),
        "items_differing": sum(v.get("official") != v.get("optimal") for v in verdicts)}
    if any("arg_judge" in v for v in verdicts):
        out["arg_judge_extension"] = {
            "accuracy": _accuracy([v.get("arg_judge", False) for v in verdicts]),
            "accuracy_by_category": {
                c: _accuracy([bool((r.verdicts or {}).get("arg_judge")) for r in rows
                              if r.category == c]) for c in cats}}
    return out


def _aggregates(correct: NDArray[Any], totals: NDArray[Any],
                cats: Sequence[str], prefix: str) -> dict[str, float]:
    """Per-category accuracy and BFCL's aggregates from per-category sums and counts."""
    index = {c: k for k, c in enumerate(AST_CATEGORIES)}
    out: dict[str, float] = {}
    for c in cats:
        n = totals[index[c]]
        out[f"{prefix}{c}"] = float(correct[index[c]] / n) if n else math.nan
    simple = [index[c] for c in SIMPLE_AST if c in cats]
    if simple:
        n = totals[simple].sum()
        out["bfcl_simple_ast"] = float(correct[simple].sum() / n) if n else math.nan
    if all(c in cats for c in AST_SUMMARY[1:]) and simple:
        parts = [out["bfcl_simple_ast"]] + [out[f"{prefix}{c}"] for c in AST_SUMMARY[1:]]
        # NaN unless all four are present (math.nan itself, so that equal dicts compare equal)
        out["bfcl_ast_summary"] = (math.nan if any(math.isnan(p) for p in parts)
                                   else float(np.mean(parts)))
    return out


def _codes(rows: Sequence[FunctionCallRow]) -> tuple[NDArray[np.float64], NDArray[np.intp],
                                                     list[str]]:
    index = {c: k for k, c in enumerate(AST_CATEGORIES)}
    keep = [r for r in rows if r.category in index]
    correct = np.array([float(r.correct) for r in keep], dtype=float)
    codes = np.array([index[str(r.category)] for r in keep], dtype=np.intp)
    cats = [c for c in AST_CATEGORIES if any(r.category == c for r in keep)]
    return correct, codes, cats


def category_means(rows: Sequence[FunctionCallRow], prefix: str = "accuracy_"
                   ) -> dict[str, float]:
    """Each BFCL category's accuracy (``accuracy_simple`` … with the default prefix; NaN for a
    category without items) and BFCL's aggregates ``bfcl_simple_ast`` and
    ``bfcl_ast_summary`` (NaN unless its four columns have items); {} for rows without
    categories (seed/OpenAI input).

    Examples:
        Simple 1/2, java 1/1: simple AST (1 + 1)/3 items; no parallel items, no summary.

        >>> from types import SimpleNamespace as R
        >>> rows = [R(correct=True, category="simple"), R(correct=False, category="simple"),
        ...         R(correct=True, category="java")]
        >>> m = category_means(rows)
        >>> m["accuracy_simple"], m["accuracy_java"], round(m["bfcl_simple_ast"], 4)
        (0.5, 1.0, 0.6667)
        >>> math.isnan(m["accuracy_relevance"]), math.isnan(m["bfcl_ast_summary"])
        (True, True)
    """
    correct, codes, cats = _codes(rows)
    if not cats:
        return {}
    cats = list(AST_CATEGORIES)  # every column, NaN when absent: resamples keep the same keys
    n = len(AST_CATEGORIES)
    return _aggregates(np.bincount(codes, weights=correct, minlength=n),
                       np.bincount(codes, minlength=n).astype(float), cats, prefix)


def category_means_resampled(rows: Sequence[FunctionCallRow],
                             ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
    """:func:`category_means` of a resample of ``rows`` (row indices), values read once; a
    category absent from a resample has NaN accuracy."""
    index = {c: k for k, c in enumerate(AST_CATEGORIES)}
    correct = np.array([float(r.correct) for r in rows], dtype=float)
    codes = np.array([index.get(str(r.category), -1) for r in rows], dtype=np.intp)
    cats = list(AST_CATEGORIES) if (codes >= 0).any() else []
    n = len(AST_CATEGORIES)

    def metrics(idx: NDArray[np.intp]) -> dict[str, float]:
        if not cats:
            return {}
        sel = codes[idx]
        ok = sel >= 0
        return _aggregates(np.bincount(sel[ok], weights=correct[idx][ok], minlength=n),
                           np.bincount(sel[ok], minlength=n).astype(float), cats, "accuracy_")
    return metrics
