"""Function-call metrics: fn_acc_name, fn_acc_all, ROUGE-1/2/L and BLEU-4.

Source: the intent/slot accuracy plus ROUGE/BLEU scheme for NLU semantic parsing scored as
function calls (fn_acc_name, fn_acc_all, ROUGE-1/2/L, BLEU-4 over the calls' canonical text),
as in the ``fc_score.py`` reference script of a Chinese NLU-evaluation tutorial
("NLU 语义解析评测实践"); its rules are stated here in full. A call is
``{"name": str, "arguments": dict}``.

:func:`score_function_calls` (the script's ``score_fn``):

* both lists empty → (1.0, 1.0); different lengths → (0.0, 0.0);
* both lists sorted by ``name + json.dumps(arguments, sort_keys=True, ensure_ascii=False)``;
* fn_acc_name = 1.0 iff the sorted name sequences are equal;
* fn_acc_all = mean over aligned pairs of the argument score (strict: 1.0 iff the ``arguments``
  dicts are equal) when fn_acc_name is 1.0, else 0.0.

``partial=True`` gives per-argument partial credit instead (the mean over parameters of
"this parameter matches"): see :func:`partial_argument_score`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from metrics.overlap import OVERLAP_KEYS, RougeBleu
from metrics.tokenize import Tokenizer

Call = Mapping[str, Any]
"""A function call: ``{"name": str, "arguments": {param: value}}`` (``arguments`` optional)."""

ArgScorer = Callable[[Call, Call], float]
"""``(gold_call, pred_call) -> score in [0, 1]`` for the arguments of two aligned calls."""

FC_KEYS = ("eval_size", "fn_acc_name", "fn_acc_all", *OVERLAP_KEYS)
"""The keys of :func:`fc_score`'s result, in the reference script's order."""


def fn2str(fn: Call) -> str:
    """``name + json.dumps(arguments, sort_keys=True, ensure_ascii=False)``: a call's canonical
    text, used to sort calls and as the ROUGE/BLEU text.

    Examples:
        >>> fn2str({"name": "light", "arguments": {"room": "客厅", "action": "打开"}})
        'light{"action": "打开", "room": "客厅"}'
    """
    return str(fn["name"]) + json.dumps(fn.get("arguments", {}), sort_keys=True,
                                        ensure_ascii=False)


def fns2str(fns: Sequence[Call]) -> str:
    """The calls' :func:`fn2str` forms, sorted and joined with ``";"`` (order-free).

    Examples:
        >>> fns2str([{"name": "tv", "arguments": {}}, {"name": "fan"}])
        'fan{};tv{}'
    """
    return ";".join(sorted(fn2str(f) for f in fns))


def strict_argument_score(gold: Call, pred: Call) -> float:
    """1.0 iff the two calls' ``arguments`` dicts are equal, else 0.0 (the reference script's
    ``common_score_arguments``). Values compare with Python ``==`` (so ``"22" != 22``).

    Examples:
        >>> strict_argument_score({"name": "ac", "arguments": {"temp": 22}},
        ...                       {"name": "ac", "arguments": {"temp": "22"}})
        0.0
    """
    return 1.0 if gold.get("arguments", {}) == pred.get("arguments", {}) else 0.0


def partial_argument_score(gold: Call, pred: Call) -> float:
    """Per-argument partial credit: share of parameters on which the two calls agree.

    Over the union of parameter names of both calls, the fraction whose value is present in
    both and equal. A missing gold parameter and an unexpected predicted one both count
    against the score. Both calls without arguments → 1.0.

    Returns:
        A score in [0, 1].

    Examples:
        ``room`` agrees, ``action`` does not: 1/2. With an extra predicted parameter the union
        has 3 names: 1/3.

        >>> gold = {"name": "light", "arguments": {"room": "客厅", "action": "打开"}}
        >>> pred = {"name": "light", "arguments": {"room": "客厅", "action": "开启"}}
        >>> partial_argument_score(gold, pred)
        0.5
        >>> pred = {"name": "light", "arguments": {"room": "客厅", "action": "开启", "level": 3}}
        >>> round(partial_argument_score(gold, pred), 4)
        0.3333
    """
    g = gold.get("arguments", {}) or {}
    p = pred.get("arguments", {}) or {}
    keys = set(g) | set(p)
    if not keys:
        return 1.0
    agree = sum(1 for k in keys if k in g and k in p and g[k] == p[k])
    return agree / len(keys)


def _texts(calls: Any, name: str) -> list[tuple[str, Call]]:
    """``(fn2str text, call)`` of each call, each checked (name, arguments, JSON-serialisable);
    the text, computed once, sorts the calls and is the ROUGE/BLEU text."""
    if calls is None:
        return []
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence):
        raise ValueError(f"{name}: expected a list of calls, got {type(calls).__name__}")
    out: list[tuple[str, Call]] = []
    for i, c in enumerate(calls):
        if not isinstance(c, Mapping):
            raise ValueError(f"{name}[{i}]: expected a call object, got {type(c).__name__}")
        if not isinstance(c.get("name"), str):
            raise ValueError(f"{name}[{i}]: field 'name' must be a string, got {c.get('name')!r}")
        args = c.get("arguments", {})
        if not isinstance(args, Mapping):
            raise ValueError(
                f"{name}[{i}]: field 'arguments' must be an object, got {type(args).__name__}")
        try:
            out.append((fn2str(c), c))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name}[{i}]: arguments are not JSON-serialisable: {exc}") from None
    return out


def score_function_calls(gold: Sequence[Call], pred: Sequence[Call], partial: bool = False,
                         arg_scorer: ArgScorer | None = None) -> tuple[float, float]:
    """(fn_acc_name, fn_acc_all) for one item, by the rules in this module's docstring.

    Args:
        gold: gold calls, each ``{"name": str, "arguments": dict}``.
        pred: predicted calls, same shape.
        partial: use :func:`partial_argument_score` (per-argument partial credit) instead of the
            strict all-arguments-equal rule. Ignored when ``arg_scorer`` is given.
        arg_scorer: custom ``(gold_call, pred_call) -> [0, 1]`` argument score (e.g. a semantic
            judge of argument values).

    Returns:
        ``(fn_acc_name, fn_acc_all)``, each in [0, 1]; fn_acc_name is 0.0 or 1.0.

    Raises:
        ValueError: a call without a string ``name``, non-object ``arguments``, or arguments
            that are not JSON-serialisable (argument and index named).

    Source: the ``score_fn`` of the reference script named in this module's docstring; the
    rules are listed there.

    Examples:
        Same names once both lists are sorted; the ``light`` arguments differ (开启 vs 打开),
        the ``tv`` ones agree: strict mean (0 + 1)/2, partial mean (1/2 + 1)/2.

        >>> gold = [{"name": "light", "arguments": {"room": "客厅", "action": "打开"}},
        ...         {"name": "tv", "arguments": {"action": "关闭"}}]
        >>> pred = [{"name": "tv", "arguments": {"action": "关闭"}},
        ...         {"name": "light", "arguments": {"room": "客厅", "action": "开启"}}]
        >>> score_function_calls(gold, pred), score_function_calls(gold, pred, partial=True)
        ((1.0, 0.5), (1.0, 0.75))
        >>> score_function_calls(gold, pred[:1]), score_function_calls([], [])
        ((0.0, 0.0), (1.0, 1.0))
    """
    return _score(_texts(gold, "gold"), _texts(pred, "pred"), partial, arg_scorer)


def _score(g: list[tuple[str, Call]], p: list[tuple[str, Call]], partial: bool,
           arg_scorer: ArgScorer | None) -> tuple[float, float]:
    """:func:`score_function_calls` of calls already checked, with their texts (:func:`_texts`)."""
    if not g and not p:
        return 1.0, 1.0
    if len(g) != len(p):
        return 0.0, 0.0
    g_sorted = [c for _, c in sorted(g, key=lambda t: t[0])]
    p_sorted = [c for _, c in sorted(p, key=lambda t: t[0])]
    if [c["name"] for c in g_sorted] != [c["name"] for c in p_sorted]:
        return 0.0, 0.0
    scorer = arg_scorer or (partial_argument_score if partial else strict_argument_score)
    scores = [float(scorer(a, b)) for a, b in zip(g_sorted, p_sorted, strict=True)]
    return 1.0, sum(scores) / len(scores)


def fc_score_items(items: Sequence[Mapping[str, Any]], partial: bool = False,
                   arg_scorer: ArgScorer | None = None,
                   tokenizer: Tokenizer = "jieba",
                   text_overlap: bool = True) -> list[dict[str, Any]]:
    """Per-item scores: fn_acc_name, fn_acc_all and ROUGE/BLEU of :func:`fns2str` texts.

    Args:
        items: the reference script's format, each
            ``{"query": str, "gold_fn": [calls], "pred_fn": [calls]}``
            (missing ``gold_fn``/``pred_fn`` = no calls).
        partial, arg_scorer: as in :func:`score_function_calls`.
        tokenizer: tokenizer for ROUGE/BLEU over :func:`fns2str` texts (default jieba).
        text_overlap: compute ROUGE/BLEU (:data:`OVERLAP_KEYS`); False leaves them out, and
            neither rouge-score, nltk nor the tokenizer is loaded (they cost seconds; the
            accuracies alone are what BFCL reports).

    Returns:
        One dict per item: ``query``, ``fn_acc_name``, ``fn_acc_all``, and with
        ``text_overlap`` ``rouge-1``, ``rouge-2``, ``rouge-l``, ``bleu-4``.

    Raises:
        ValueError: an item that is not an object, or a malformed call (``items[i].gold_fn[j]``
            named).

    Examples:
        >>> call = {"name": "light", "arguments": {"room": "客厅", "action": "打开"}}
        >>> fc_score_items([{"query": "开客厅灯", "gold_fn": [call], "pred_fn": [call]}])
        ... # doctest: +NORMALIZE_WHITESPACE
        [{'query': '开客厅灯', 'fn_acc_name': 1.0, 'fn_acc_all': 1.0,
          'rouge-1': 1.0, 'rouge-2': 1.0, 'rouge-l': 1.0, 'bleu-4': 1.0}]
    """
    overlap = RougeBleu(tokenizer) if text_overlap else None
    memo: dict[tuple[str, str], dict[str, float]] = {}
    out: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ValueError(f"items[{i}]: expected an object, got {type(item).__name__}")
        gold = _texts(item.get("gold_fn", []), f"items[{i}].gold_fn")
        pred = _texts(item.get("pred_fn", []), f"items[{i}].pred_fn")
        name_acc, all_acc = _score(gold, pred, partial, arg_scorer)
        row = {"query": item.get("query", ""), "fn_acc_name": name_acc, "fn_acc_all": all_acc}
        if overlap is not None:  # fns2str of each side, from the texts already made
            key = (";".join(sorted(t for t, _ in gold)), ";".join(sorted(t for t, _ in pred)))
            if key not in memo:
                memo[key] = overlap.score(*key)
            row.update(memo[key])
        out.append(row)
    return out


def fc_score(items: Sequence[Mapping[str, Any]], partial: bool = False,
             arg_scorer: ArgScorer | None = None, tokenizer: Tokenizer = "jieba",
             round_digits: int | None = 5) -> dict[str, float | int]:
    """Dataset scores in the reference script's ``fc_score`` format (means over items).

    Args:
        items: ``[{"query", "gold_fn", "pred_fn"}, ...]`` (non-empty).
        partial, arg_scorer, tokenizer: as in :func:`fc_score_items`.
        round_digits: round each mean to this many decimals (default 5, as the reference
            script); ``None`` keeps full precision.

    Returns:
        ``{"eval_size": int, "fn_acc_name", "fn_acc_all", "rouge-1", "rouge-2", "rouge-l",
        "bleu-4"}``, each metric the mean over items, in [0, 1].

    Raises:
        ValueError: ``items`` is empty (the means are undefined), or malformed (see
            :func:`fc_score_items`).

    Source: the reference script's ``fc_score``; ROUGE via rouge-score and BLEU-4 via nltk on
    jieba tokens (see :mod:`metrics.overlap` for the one deliberate difference in BLEU tokens).

    Examples:
        Item 1 is exactly right (every metric 1.0); item 2 predicts no call (different count:
        accuracies 0.0; empty text: ROUGE/BLEU 0.0). Each mean is 1/2.

        >>> call = {"name": "light", "arguments": {"room": "客厅", "action": "打开"}}
        >>> fc_score([{"gold_fn": [call], "pred_fn": [call]}, {"gold_fn": [call], "pred_fn": []}])
        ... # doctest: +NORMALIZE_WHITESPACE
        {'eval_size': 2, 'fn_acc_name': 0.5, 'fn_acc_all': 0.5,
         'rouge-1': 0.5, 'rouge-2': 0.5, 'rouge-l': 0.5, 'bleu-4': 0.5}
    """
    if not items:
        raise ValueError("items: score_data must not be empty")
    per_item = fc_score_items(items, partial=partial, arg_scorer=arg_scorer, tokenizer=tokenizer)
    out: dict[str, float | int] = {"eval_size": len(per_item)}
    for key in FC_KEYS[1:]:
        mean = sum(float(r[key]) for r in per_item) / len(per_item)
        out[key] = round(mean, round_digits) if round_digits is not None else mean
    return out
